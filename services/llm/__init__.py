"""LLM access: endpoints and their limits, the resilient gateway, token counting,
and the speculative draft-then-verify answerer. No Telegram imports."""
