"""A local GGUF model in-process (optional extra `local`) and token-level speculative decoding."""
