"""Draft-then-verify against target-only and drafter-only, side by side in one run.

Latencies are SIMULATED: a local OpenAI-compatible double plays both models with
the profiles from our brief (target: 1.2 s to first token, 12 tokens/s,
$8/$32 per million tokens in/out; drafter: 0.3 s, 85 tokens/s, $0.15/$0.60),
sped up by --time-scale and reported back in simulated seconds. Costs come
from the token usage the server reports, priced as configured. Every path
goes through the real service code, the real openai client and real HTTP.

Draft-then-verify is run three ways: as shipped (the target confirms with one
YES/NO that the FAQ text answers the question, and model drafts are verified
token by token), and with the FAQ text verified as a draft like a model's, in
token mode (lossless: the reply is exactly the target's own) and in judge
mode (chat-only APIs).

    python -m bench.draft_verify            # prints a table; the last line holds the ratios
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench.openai_double import OpenAIDouble, Profile, ScriptedModel
from db.seed import FAQ
from services.admin.figures import percentile
from services.faq.lookup import FaqDocument, FaqLookupAnswerer
from services.llm.config import LLMEndpoint, LLMRole, LLMRoles, VerifyMode
from services.llm.gateway import CallLedger, LLMGateway
from services.llm.speculative import AnswerRequest, ReplyReport, SpeculativeAnswerer, split_sentences
from services.text.sentences import Language

SHIPPED = "draft-verify"
LOSSLESS = "dv faq-as-draft token"
JUDGED = "dv faq-as-draft judge"
TARGET = Profile(ttft=1.2, tokens_per_second=12)
DRAFTER = Profile(ttft=0.3, tokens_per_second=85)
PRICES = {"target": (8.0, 32.0), "drafter": (0.15, 0.60)}

# FAQ-answerable questions (English FAQ entries of the demo shop).
ANSWERABLE = {
    "return-method": "How do I return an item?",
    "membership-discounts": "What discounts do membership tiers get?",
    "same-day-dispatch": "If I order today, when does it arrive?",
    "payment-methods": "What payment methods do you accept?",
    "order-change-cancel": "How do I cancel my order?",
    "opening-hours": "When is your customer service open?",
    "receipts": "How can I get a receipt for my order?",
}
PARAPHRASED = {"membership-discounts", "opening-hours"}
"""Where the target words the last sentence its own way: partial acceptance."""
OPEN_QUESTIONS = {
    "Can I bring my dog to the store?": (
        "I'm sorry, I don't have information about that. I can connect you with a person."
    ),
    "Do you sell gift cards for other shops?": (
        "I'm sorry, I don't know. Our team can tell you: shall I connect you?"
    ),
    "Is the stock market going up?": "I can only help with questions about our shop, orders and products.",
}


def faq_answers() -> dict[str, str]:
    return {slug: answer for slug, language, _, answer, _, _ in FAQ if language == "en"}


def target_answers() -> dict[str, str]:
    """The target's reference table: each question and what the target says to it."""
    answers = faq_answers()
    table = {}
    for slug, asked in ANSWERABLE.items():
        sentences = split_sentences(answers[slug])
        if slug in PARAPHRASED:
            sentences[-1] = "Please ask us if anything about this is unclear."
        table[asked] = "".join(sentences).strip()
    return table | OPEN_QUESTIONS


def drafter_answers() -> dict[str, str]:
    """A cheap model: close to the FAQ in places, loose in others."""
    return {
        asked: split_sentences(faq_answers()[slug])[0].strip() + " Let us know if you need more help."
        for slug, asked in ANSWERABLE.items()
    }


DRAFTER_DEFAULT = "Sorry, I am not sure about that. A person can help you."


@dataclass
class Run:
    ttft: float
    total: float
    cost: float
    prompt_tokens: int
    completion_tokens: int
    draft_tokens: int = 0
    accepted_tokens: int = 0


def lookup() -> FaqLookupAnswerer:
    return FaqLookupAnswerer(
        FaqDocument(slug, language, question, answer, tuple(tags.split(",")))
        for slug, language, question, answer, tags, _ in FAQ
    )


async def timed_stream(make: Callable[[], object], scale: float) -> tuple[float, float]:
    started = time.perf_counter()
    first: float | None = None
    async for _ in make():  # type: ignore[attr-defined]
        first = first if first is not None else time.perf_counter()
    end = time.perf_counter()
    return ((first or end) - started) / scale, (end - started) / scale


async def run_direct(
    gateway: LLMGateway, role: LLMRole, answerer: SpeculativeAnswerer, question: str, scale: float
) -> Run:
    ledger = CallLedger()
    found = await answerer.lookup.answer(question, language=Language.EN)
    request = AnswerRequest(question, Language.EN, found, context(answerer, question, found))
    messages = await answerer._messages(request, ReplyReport())
    ttft, total = await timed_stream(
        lambda: gateway.stream_chat(role, messages, ledger=ledger, max_tokens=400), scale
    )
    return Run(ttft, total, ledger.cost_usd, ledger.prompt_tokens, ledger.completion_tokens)


async def run_speculative(answerer: SpeculativeAnswerer, question: str, scale: float) -> Run:
    found = await answerer.lookup.answer(question, language=Language.EN)
    answer = answerer.stream(AnswerRequest(question, Language.EN, found, context(answerer, question, found)))
    ttft, total = await timed_stream(lambda: answer, scale)
    report = answer.report
    ledger = report.ledger
    return Run(
        ttft,
        total,
        ledger.cost_usd,
        ledger.prompt_tokens,
        ledger.completion_tokens,
        report.draft_tokens,
        report.accepted_tokens,
    )


def context(answerer: SpeculativeAnswerer, question: str, found: object) -> str:
    """As the bot builds it (services.faq.replies): the matched entry, else the closest entries."""
    return found.text if found is not None else answerer.lookup.context(question, language=Language.EN)  # type: ignore[attr-defined]


def p95(values: list[float]) -> float:
    return percentile(values, 0.95) or 0.0


async def main(scale: float) -> None:
    double = OpenAIDouble(
        {
            "target": ScriptedModel(target_answers(), profile=TARGET, default="I'm sorry, I don't know."),
            "drafter": ScriptedModel(drafter_answers(), profile=DRAFTER, default=DRAFTER_DEFAULT),
        },
        time_scale=scale,
    )
    base_url = await double.start()

    def endpoint(model: str, verify: VerifyMode) -> LLMEndpoint:
        price_in, price_out = PRICES[model]
        return LLMEndpoint(
            base_url=base_url,
            model=model,
            verify=verify,
            price_in=price_in,
            price_out=price_out,
            timeout=120,
            first_token_timeout=120,
        )

    gateways = {
        verify: LLMGateway(
            LLMRoles(target=[endpoint("target", verify)], drafter=[endpoint("drafter", verify)])
        )
        for verify in ("token", "judge")
    }
    answerers = {
        SHIPPED: SpeculativeAnswerer(lookup(), gateways["token"]),
        LOSSLESS: SpeculativeAnswerer(lookup(), gateways["token"], retrieval_check="draft"),
        JUDGED: SpeculativeAnswerer(lookup(), gateways["judge"], retrieval_check="draft"),
    }
    sets = {"faq": list(ANSWERABLE.values()), "open": list(OPEN_QUESTIONS)}
    results: dict[tuple[str, str], list[Run]] = {}
    try:
        for set_name, questions in sets.items():
            for question in questions:
                by_mode = {
                    "target-only": await run_direct(
                        gateways["token"], LLMRole.TARGET, answerers[SHIPPED], question, scale
                    ),
                    "drafter-only": await run_direct(
                        gateways["token"], LLMRole.DRAFTER, answerers[SHIPPED], question, scale
                    ),
                }
                for mode, answerer in answerers.items():
                    by_mode[mode] = await run_speculative(answerer, question, scale)
                for mode, run in by_mode.items():
                    results.setdefault((set_name, mode), []).append(run)
    finally:
        for gateway in gateways.values():
            await gateway.close()
        await double.stop()

    print("Simulated latencies (seconds of the simulated profiles); costs from reported token usage.")
    print(
        f"{'set':<5} {'mode':<20} {'ttft p50':>8} {'ttft p95':>8} {'full p50':>8} {'full p95':>8} "
        f"{'tokens in/out':>13} {'cost/reply $':>12} {'acceptance':>10}"
    )
    for (set_name, mode), runs in results.items():
        drafted = sum(r.draft_tokens for r in runs)
        acceptance = f"{sum(r.accepted_tokens for r in runs) / drafted:.3f}" if drafted else "-"
        print(
            f"{set_name:<5} {mode:<20} {statistics.median(r.ttft for r in runs):>8.2f} "
            f"{p95([r.ttft for r in runs]):>8.2f} {statistics.median(r.total for r in runs):>8.2f} "
            f"{p95([r.total for r in runs]):>8.2f} "
            f"{statistics.mean(r.prompt_tokens for r in runs):>7.0f}/"
            f"{statistics.mean(r.completion_tokens for r in runs):<5.0f} "
            f"{statistics.mean(r.cost for r in runs):>12.6f} {acceptance:>10}"
        )
    base = results[("faq", "target-only")]
    for mode in (LOSSLESS, JUDGED, SHIPPED):
        runs = results[("faq", mode)]
        latency_ratio = statistics.median(r.total for r in runs) / statistics.median(r.total for r in base)
        cost_ratio = statistics.mean(r.cost for r in runs) / statistics.mean(r.cost for r in base)
        label = "" if mode == SHIPPED else f"[{mode}] "
        print(f"{label}latency_ratio={latency_ratio:.3f} cost_ratio={cost_ratio:.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--time-scale", type=float, default=0.25, help="real seconds per simulated second")
    asyncio.run(main(parser.parse_args().time_scale))
