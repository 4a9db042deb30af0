"""A sentence that only says yes or no, in Korean, English and Japanese.

"Yes. Yes.", "네 가능합니다!", "はい、大丈夫です🙌" say nothing the guard can hold against the shop's
text: what they agree to is the customer's question, which is not a source and is not read. A reply
may open with one, and the sentence after it says what it agrees to; a reply that is nothing more,
or whose yes is followed by nothing the guard reads (no number, commitment or policy), is held back
(`FactGuard.check`).
"""

from __future__ import annotations

import re

from services.text.patterns import any_of

_ANSWER = any_of(
    # English, with the short forms that repeat the question's verb ("yes, you can", "no, it isn't")
    r"(?:yes|yeah|yep|yup|sure(?: thing)?|of course|absolutely|certainly|definitely|correct|exactly"
    r"|indeed|right|thats right|thats correct|no|nope|not at all|ok(?:ay)?)"
    r"(?:,?\s*(?:you|we|it|they|i|that|there|he|she)\s*"
    r"(?:cant|wont|(?:can|do|does|did|is|are|will|have|has|was|would|could)(?:nt|\s+not)?))?",
    # Korean
    r"네+|넵|넹|예|응|ㅇㅇ|그럼요?|물론(?:이죠|입니다|이에요|이지요|요)?|맞(?:아요|습니다|아|죠|지요)|그렇(?:습니다|죠|지요)"
    r"|그래요|아니(?:요|에요|예요|오)|아뇨|아닙니다|가능(?:해요|합니다|하죠|하세요|하십니다)|(?:안\s?)?(?:돼요|됩니다|되죠)"
    r"|불가능(?:해요|합니다)|있어요|있습니다|없어요|없습니다",
    # Japanese
    r"はい|ええ|うん|もちろん(?:です)?|そう(?:です|だ)(?:ね|よ)*|その通り(?:です)?|いいえ|いえ|可能です|大丈夫です"
    r"|できます|できません|ございます|ございません|問題(?:ございません|ありません)",
)
_ANSWERS = re.compile(rf"(?:(?:{_ANSWER.pattern})\s*)+", re.IGNORECASE)
_NOT_WORDS = re.compile(r"[^\w\s]+|_")
"""Punctuation, emoji and symbols: what a bare answer wears ("Yes! 🙌", "네~!!")."""
_APOSTROPHE = re.compile(r"['’]")


def only_yes_or_no(sentence: str) -> bool:
    """`sentence` says yes or no and nothing else."""
    words = " ".join(_NOT_WORDS.sub(" ", _APOSTROPHE.sub("", sentence)).split())
    return bool(words) and _ANSWERS.fullmatch(words) is not None
