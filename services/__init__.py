"""Domain and LLM logic. Nothing here imports aiogram: handlers adapt it to Telegram."""
