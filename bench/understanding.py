"""Per-message cost of understanding: intent classification + FAQ match, side by side.

    .venv/bin/python -m bench.understanding

Every question of the evaluation sets (intent and FAQ, ~600 messages, all distinct),
each once, through the same `understand` the bot runs: the encoder embeds the
message once (shared by classifier and matcher), unknown words are embedded once.
Printed side by side in one run: the full decision, the classifier alone, the FAQ
matcher alone (on an already-embedded message), and the old hand-written cue
tables for reference. Wall time includes waiting for a core on a shared machine;
the thread's CPU time is what the work itself costs. Last line: p99_ms=...
goal_ratio=... (p99 / the 5 ms goal), and the same for CPU time.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench.intent_cues import CueScorer
from db.seed import DEMO_PRODUCTS, demo_names
from services.admin.figures import percentile as shared_percentile
from services.faq.evaluation import load_questions
from services.faq.lookup import FaqLookupAnswerer
from services.faq.store import demo_documents
from services.text.sentences import Language
from services.understanding.classifier import IntentClassifier
from services.understanding.encoder import shared_encoder
from services.understanding.entities import CatalogueName
from services.understanding.evaluation import load_labelled
from services.understanding.understand import understand

DATA = Path("tests/data")
GOAL_MS = 5.0


def percentile(values: list[float], q: float) -> float:
    return shared_percentile(values, q) or 0.0


def texts_of_the_sets(limit: int | None = None) -> list[str]:
    """The distinct messages of three intent sets and three FAQ sets, in file order."""
    texts = [
        item.text
        for name in ("intents.tsv", "intents_holdout.tsv", "intents_holdout2.tsv")
        for item in load_labelled(DATA / name)
    ]
    texts += [
        q.text
        for name in ("faq_demo.tsv", "faq_demo_holdout.tsv", "unseen_faq_questions.tsv")
        for q in load_questions(DATA / name)
    ]
    return list(dict.fromkeys(texts))[:limit]


def main(limit: int | None = None) -> None:
    texts = texts_of_the_sets(limit)
    encoder = shared_encoder()
    classifier = IntentClassifier(CatalogueName(p["sku"], demo_names(p)) for p in DEMO_PRODUCTS)
    lookup = FaqLookupAnswerer(demo_documents())
    cues = CueScorer()
    for text in texts[:20]:  # first calls allocate; not what a running bot pays
        understand(text + " warm", Language.EN, classifier, lookup)

    full, full_cpu, classify, match, rules = [], [], [], [], []
    for text in texts:
        started, started_cpu = time.perf_counter(), time.thread_time()
        understand(text, Language.EN, classifier, lookup)
        full.append((time.perf_counter() - started) * 1000)
        full_cpu.append((time.thread_time() - started_cpu) * 1000)
    lookup = FaqLookupAnswerer(demo_documents())  # a fresh word cache for the split measurement
    for text in texts:
        variant = text + " ?"
        started = time.perf_counter()
        read = classifier.classify(variant).read
        classify.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        lookup.matcher.match(variant, language=Language.EN, embedded=read)  # the message is embedded already
        match.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        cues.scores(variant)
        rules.append((time.perf_counter() - started) * 1000)
        encoder.encode_one(variant)

    print(f"{len(texts)} distinct messages, one thread")
    print(f"{'':34}{'p50 ms':>8}{'p99 ms':>8}{'max ms':>8}")
    for name, values in (
        ("classify + FAQ match (the bot)", full),
        ("  the same, CPU time of the thread", full_cpu),
        ("classifier alone (embeds)", classify),
        ("FAQ matcher alone (embedded)", match),
        ("old cue tables (reference)", rules),
    ):
        print(f"{name:34}{percentile(values, 0.5):>8.2f}{percentile(values, 0.99):>8.2f}{max(values):>8.2f}")
    p99, p99_cpu = percentile(full, 0.99), percentile(full_cpu, 0.99)
    print(
        f"p99_ms={p99:.2f} goal_ratio={p99 / GOAL_MS:.2f} cpu_p99_ms={p99_cpu:.2f} "
        f"cpu_goal_ratio={p99_cpu / GOAL_MS:.2f} "
        f"vs_cue_tables={percentile(full, 0.5) / max(1e-6, percentile(rules, 0.5)):.0f}x"
    )


if __name__ == "__main__":
    main()
