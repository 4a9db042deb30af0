"""Reference models for changing models: one good, one slower, one that invents a number now and then.

All three answer from the demo shop's FAQ the way a decent model would (the FAQ
entry whose question shares most words with the customer's). The slow one takes
longer to its first token and streams slower. The inventor, on some questions
(the same ones every time, so its relevance verdict and its own answer agree),
answers with a price and a deadline nobody wrote down: the fact guard stops
those, so the canary's guard-rejection rate climbs while customers still get the
shop's own text. Used by tests and `bench/canary.py` over `bench/openai_double.py`.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable

from bench.openai_double import OpenAIDouble, Profile, ScriptedModel
from db.seed import FAQ

DONT_KNOW = "I'm not sure about that; a person from our team can help you."
INVENTED = "That costs ₩2,500, and it takes 9 days."
"""A price and a deadline that are in no FAQ entry and no customer's facts."""

QUESTIONS = (
    "If I order today, when does it arrive?",
    "I order today: when does it arrive?",
    "What payment methods do you accept?",
    "Which payment methods do you accept, KakaoPay too?",
    "What are your customer service hours?",
    "What discounts do membership tiers get?",
    "How do I get a receipt or a tax invoice?",
    "What are the customer service opening hours?",
    "Which membership tier gets free shipping?",
    "Do you accept credit cards as a payment method?",
)
"""FAQ-style questions the bot routes to the answer service (several phrasings)."""

_WORD = re.compile(r"[a-z]+")
_QUOTED_QUESTION = re.compile(r"<question>(.*?)</question>", re.DOTALL)
_ENGLISH = [(question, answer) for _, language, question, answer, *_ in FAQ if language == "en"]


def _words(text: str) -> set[str]:
    return {word for word in _WORD.findall(text.lower()) if len(word) > 3}


def asked_question(conversation: str) -> str:
    """The customer's question as a model reads it from the conversation the double passes: the
    quoted `<question>` of a verdict task, otherwise the last message (the customer's turn).
    Matching on the whole conversation would let the instructions and the FAQ text in the
    system prompt choose the answer."""
    quoted = _QUOTED_QUESTION.findall(conversation)
    if quoted:
        return html.unescape(quoted[-1])
    return conversation.rsplit("\n", 1)[-1]


def faq_answer(conversation: str) -> str:
    """What a good model says: the FAQ entry closest to the question, or that it does not know."""
    asked = _words(asked_question(conversation))
    score, best = max(((len(asked & _words(q)), answer) for q, answer in _ENGLISH), key=lambda pair: pair[0])
    return best if score else DONT_KNOW


def invents_on(question: str, every: int) -> bool:
    """Whether the inventor invents on this question: the same answer on every call."""
    digest = hashlib.sha256(" ".join(asked_question(question).split()).encode()).digest()
    return digest[0] % every == 0


def inventor(every: int = 2) -> Callable[[str], str]:
    def answer(question: str) -> str:
        return INVENTED if invents_on(question, every) else faq_answer(question)

    return answer


def reference_models(
    *, slow_ttft: float = 0.4, slow_tps: float = 40.0, invent_every: int = 2
) -> dict[str, ScriptedModel]:
    return {
        "good": ScriptedModel(faq_answer),
        "slow": ScriptedModel(faq_answer, Profile(ttft=slow_ttft, tokens_per_second=slow_tps)),
        "inventor": ScriptedModel(inventor(invent_every)),
    }


async def start_reference_double(*, time_scale: float = 1.0, **options: float) -> OpenAIDouble:
    double = OpenAIDouble(reference_models(**options), time_scale=time_scale)  # type: ignore[arg-type]
    await double.start()
    return double
