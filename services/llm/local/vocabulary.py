"""A GGUF model's own tokenizer and chat template, without its weights.

The local engine tokenizes with it, and token counting loads it on its own
(`vocab_only`, a third of a second for SmolLM2) so that context trimming
counts exactly what the engine will see: the model's vocabulary, its special
tokens and the template's own tokens around each message.
"""

from __future__ import annotations

import atexit
import codecs
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from services.llm.local.availability import LocalModelUnavailable
from services.llm.local.native_log import route_native_log

END_TEXTS = ("<|im_end|>", "<|endoftext|>", "<end_of_turn>")
"""Tokens that end a turn in the common chat templates, besides the model's EOS."""


class GgufVocabulary:
    """Text <-> token ids and the chat template of one loaded llama.cpp model."""

    def __init__(self, llm: Any) -> None:
        self._llm = llm
        self.eos: int = llm.token_eos()
        self.end_tokens = {self.eos, *self._special_ids(*END_TEXTS)}
        self._template: str | None = llm.metadata.get("tokenizer.chat_template")

    def _special_ids(self, *texts: str) -> set[int]:
        ids = set()
        for text in texts:
            tokens = self._llm.tokenize(text.encode(), add_bos=False, special=True)
            if len(tokens) == 1:
                ids.add(tokens[0])
        return ids

    def encode(self, text: str, *, special: bool = False) -> list[int]:
        return list(self._llm.tokenize(text.encode(), add_bos=False, special=special))

    def decode(self, tokens: Sequence[int], *, whole: bool = False) -> str:
        """The text of `tokens`; a character cut at the end shows as "\ufffd" (as /detokenize
        answers: token assembly looks for it), or with `whole` is left out (a reply budget can end
        inside a Hangul syllable or an emoji, and its first bytes are no text to send)."""
        kept = [t for t in tokens if t not in self.end_tokens]
        data = bytes(self._llm.detokenize(kept))
        return whole_characters(data) if whole else data.decode("utf-8", errors="replace")

    def render(self, messages: Sequence[Mapping[str, str]]) -> list[int]:
        """The model's own chat template from the GGUF, with the assistant turn opened."""
        if self._template:
            from jinja2.sandbox import ImmutableSandboxedEnvironment

            environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
            text = environment.from_string(self._template).render(
                messages=[dict(m) for m in messages], add_generation_prompt=True, bos_token="", eos_token=""
            )
        else:
            text = "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "
        return self.encode(text, special=True)


@lru_cache(maxsize=4)
def load_vocabulary(path: str) -> GgufVocabulary:
    """The vocabulary of the GGUF at `path`, weights left on disk (the `local` extra is needed)."""
    try:
        from llama_cpp import Llama
    except ImportError as error:
        raise LocalModelUnavailable(
            "llama-cpp-python is not installed (pip install 'csbot[local]')"
        ) from error
    route_native_log()
    if not Path(path).is_file():
        raise LocalModelUnavailable(f"model file not found: {path}")
    return GgufVocabulary(Llama(model_path=path, vocab_only=True, verbose=False))


# Free cached models while the interpreter still works: llama-cpp-python's own finaliser fails
# ("'NoneType' object is not callable") when it runs during interpreter shutdown.
atexit.register(load_vocabulary.cache_clear)


def whole_characters(data: bytes) -> str:
    """UTF-8 `data` decoded, an incomplete character at its end left out (not sent as "\ufffd");
    bytes that can never be part of a character show as "\ufffd" wherever they are."""
    return codecs.getincrementaldecoder("utf-8")(errors="replace").decode(data, final=False)
