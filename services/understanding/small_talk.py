"""Greetings, thanks, goodbyes and "are you a bot?": answered in kind, not as questions the FAQ
cannot answer nor as requests for a person.

Without this, "hi" or "ありがとう" went through the matcher like any question and
got "Sorry, I don't have a reliable answer to that": the bot's first words to a
polite customer were an apology for not knowing, and "are you a bot?" was handed to
the staff as a request for a person. Only a message that is nothing
but such a phrase counts (`services/understanding/data/small_talk.tsv`: data, not code, to extend);
"hi, where is my order?" is understood as usual.
"""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path

from services.text.normalize import normalize

PHRASES_PATH = Path(__file__).parent / "data" / "small_talk.tsv"
_LAUGHTER = re.compile(r"[ㅋㅎㅠㅜ]+")
"""Korean laughter and tears (ㅋㅋ, ㅎㅎ, ㅠㅠ), before NFKC turns them into other jamo."""
_PUNCTUATION = re.compile(r"[^\w\s]+")
"""Punctuation and emoji around the words."""
_SPACES = re.compile(r"\s+")
_APPRECIATION = re.compile(r"[\s\ufe0f\u200d\U0001f3fb-\U0001f3ff👍🙏👌🙌👏❤♥💕💖😊🙂😀😄😁☺🥰😍🤗]+")
"""A thumbs-up or a smile and nothing else, the usual reply to an answer: thanks in kind. Emoji are
dropped before phrases are compared (a "?" must not read as thanks), so these are named one by one;
a 👍 had got "Sorry, I don't have a reliable answer to that"."""


class SmallTalk(StrEnum):
    GREETING = "greeting"
    THANKS = "thanks"
    GOODBYE = "goodbye"
    IDENTITY = "identity"
    """"Are you a bot?": the truth, and a person one tap away."""


def small_talk(text: str) -> SmallTalk | None:
    """What kind of pleasantry the whole message is, or None for anything more. A message made of
    several ("네 감사해요~ 좋은하루 되세요", "thanks, bye!") is the last kind it says goodbye or thanks
    with; "are you a bot?" counts only alone."""
    if text.strip() and _APPRECIATION.fullmatch(text):
        return SmallTalk.THANKS
    bare = _bare(text)
    return _PHRASES.get(bare) or _PHRASES_UNSPACED.get(bare.replace(" ", "")) or _several(bare.split())


_FILLERS = frozenset({"네", "넵", "예", "응", "아", "yes", "ok", "okay", "oh", "ah", "はい", "うん", "ええ"})
"""Words said around pleasantries that change nothing ("네 감사해요")."""
_KIND_ORDER = (SmallTalk.GOODBYE, SmallTalk.THANKS, SmallTalk.GREETING)


def _several(words: list[str]) -> SmallTalk | None:
    """The message as a run of known phrases (and fillers) end to end, or None. Korean and
    Japanese phrases are also found without their spaces ("좋은하루 되세요")."""
    if len(words) < 2:
        return None
    reach: list[set[SmallTalk] | None] = [set()] + [None] * len(words)  # kinds said up to word i
    for start in range(len(words)):
        said = reach[start]
        if said is None:
            continue
        if words[start] in _FILLERS:
            reach[start + 1] = (reach[start + 1] or set()) | said
        for end in range(start + 1, len(words) + 1):
            kind = _PHRASES.get(" ".join(words[start:end])) or _PHRASES_UNSPACED.get(
                "".join(words[start:end])
            )
            if kind is not None and kind is not SmallTalk.IDENTITY:
                reach[end] = (reach[end] or set()) | said | {kind}
    kinds = reach[len(words)]
    return next((kind for kind in _KIND_ORDER if kinds and kind in kinds), None)


def _bare(text: str) -> str:
    return _SPACES.sub(" ", _PUNCTUATION.sub(" ", normalize(_LAUGHTER.sub(" ", text)))).strip()


def load_phrases(source: str, *, name: str) -> dict[str, SmallTalk]:
    """Phrases by their bare form. Read at import, so a mistake in the file stops the bot at start
    with its line number instead of failing every customer message."""
    phrases: dict[str, SmallTalk] = {}
    kinds = ", ".join(SmallTalk)
    for number, line in enumerate(source.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        kind, _, phrase = line.partition("\t")
        if kind.strip() not in set(SmallTalk):
            raise ValueError(f"{name}: line {number}: kind {kind.strip()!r} is not one of {kinds}")
        if not _bare(phrase):  # "thanks<TAB>🙏" would make every "?" a thank-you
            raise ValueError(f"{name}: line {number}: expected kind<TAB>phrase with words in the phrase")
        phrases[_bare(phrase)] = SmallTalk(kind.strip())
    return phrases


_PHRASES = load_phrases(PHRASES_PATH.read_text(encoding="utf-8"), name=str(PHRASES_PATH))
_PHRASES_UNSPACED = {
    phrase.replace(" ", ""): kind for phrase, kind in _PHRASES.items() if not phrase.isascii()
}
