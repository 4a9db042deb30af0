"""Typed answers to the return flow's questions, for customers who type instead of tapping.

Only what the form asked is read here: a button's number, an option's own label (any case, or
part of it), yes/no and cancel words in English, Korean and Japanese. Anything else reads as
None, and the flow asks again. Before, such a message left the form for the general
understanding, which answered "cancel" with the order-cancellation FAQ entry, a product name
with its stock, and "yes" with "I don't have a reliable answer", and the form was lost.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from services.text.normalize import normalize


class Word(StrEnum):
    YES = "yes"
    NO = "no"
    CANCEL = "cancel"


_PHRASES = {
    **dict.fromkeys(("yes", "y", "ok", "okay", "yeah", "yep", "sure", "confirm", "go ahead"), Word.YES),
    **dict.fromkeys(("no", "n", "nope", "nah"), Word.NO),
    **dict.fromkeys(("cancel", "stop", "quit", "exit", "abort", "never mind", "nevermind"), Word.CANCEL),
}
_FILLERS = frozenset(
    ("please", "pls", "plz", "thanks", "thank", "you", "thx", "it", "this", "that", "the", "my", "return")
)
"""Said around a yes, no or cancel without changing it: "cancel it please", "no thanks"."""

# Korean and Japanese write the word and a polite ending as one: "취소해 주세요", "はい、お願いします".
_CJK_WORDS = sorted(
    (
        *(
            (word, Word.YES)
            for word in ("네네", "네", "예", "응", "넵", "확인", "신청", "はい", "ええ", "うん")
        ),
        *((word, Word.NO) for word in ("아니요", "아니오", "아뇨", "아니", "いいえ", "いや")),
        *(
            (word, Word.CANCEL)
            for word in (
                "취소",
                "그만",
                "キャンセル",
                "やめる",
                "やめます",
                "やめて",
                "中止",
                "取り消し",
                "取消",
            )
        ),
    ),
    key=lambda pair: -len(pair[0]),  # "아니요" before "아니"
)
_CJK_ENDINGS = frozenset(
    (
        "",
        "요",
        "해요",
        "해",
        "해줘",
        "해주세요",
        "할게요",
        "합니다",
        "하겠습니다",
        "신청해주세요",
        "신청할게요",
        "신청합니다",
        "괜찮아요",
        "です",
        "します",
        "してください",
        "お願いします",
        "でお願いします",
        "で",
    )
)
_STOPWORDS = _FILLERS | {"and", "one", "for", "with", "want", "like", "item", "would", "i'd", "id"}
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Option:
    """One choice the form offered: the value its button carries and the names it answers to
    (the label shown first; a reason or a resolution also in the other languages)."""

    value: str
    names: tuple[str, ...]


def bare(text: str) -> str:
    """Normalised, with punctuation and symbols as spaces: "Yes!" and "yes" read the same, and an
    option "M / navy" is the words "m navy"."""
    spaced = "".join(" " if unicodedata.category(ch)[0] in "PS" else ch for ch in normalize(text))
    return " ".join(spaced.split())


_ASKS_BACK = re.compile(r"[?？]\s*$")


def read_word(text: str) -> Word | None:
    """A yes, a no or a cancel, when that is all the message says. A question is none of them:
    "네?" and "yes?" (pardon?) at Confirm had filed the request."""
    if _ASKS_BACK.search(text):
        return None
    clean = bare(text)
    words = [word for word in clean.split() if word not in _FILLERS]
    found = _PHRASES.get(" ".join(words))
    if found is not None:
        return found
    compact = clean.replace(" ", "")
    for word, meaning in _CJK_WORDS:
        if compact.startswith(word) and compact[len(word) :] in _CJK_ENDINGS:
            return meaning
    return None


def pick(text: str, options: Sequence[Option], *, partial: bool = True) -> Option | None:
    """The one option the text names: by the button's number, by a name whole, or (`partial`)
    by part of one ("the tote bag", "ivory"). None when no option or several fit."""
    clean = bare(text)
    if not clean:
        return None
    if _DIGITS.fullmatch(clean):
        number = int(clean)
        if 1 <= number <= len(options):
            return options[number - 1]
    exact = [o for o in options if any(bare(name) == clean for name in o.names)]
    if exact or not partial:
        return exact[0] if len(exact) == 1 else None
    contained = [o for o in options if any(_contains(bare(name), clean) for name in o.names)]
    if len(contained) == 1:
        return contained[0]
    if len(clean) >= 3:
        within = [o for o in options if any(_contains(clean, bare(name)) for name in o.names)]
        if len(within) == 1:
            return within[0]
    return _by_shared_words(clean, options)


def _contains(outer: str, inner: str) -> bool:
    """`inner` as whole words of `outer`; Korean and Japanese by characters (no spaces to trust)."""
    if not inner:
        return False
    if inner.isascii():
        return f" {inner} " in f" {outer} "
    return inner in outer


def _by_shared_words(clean: str, options: Sequence[Option]) -> Option | None:
    """The option sharing the most meaningful words with the text, if one shares more than the rest."""
    said = {word for word in clean.split() if _meaningful(word)}
    scores = [
        (max(len(said & set(bare(name).split())) for name in option.names), option) for option in options
    ]
    best = max((score for score, _ in scores), default=0)
    winners = [option for score, option in scores if score == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


def _meaningful(word: str) -> bool:
    if word in _STOPWORDS:
        return False
    return len(word) >= 3 if word.isascii() else len(word) >= 2
