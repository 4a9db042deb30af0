"""How often a stock question finds exactly the products it asks about, on a catalogue.

    python -m bench.stock_lookup        # tuning set on the example shop, held-out set on another catalogue

Each line of a set is the expected SKUs and a question. A question counts as right when
the classifier says `stock` and the SKUs the stock service would look up (the ones it
recognises, SKU or name, without near misses) are exactly the expected ones. The held-out set
(tests/data/stock_eval/holdout.tsv, with its own catalogue) is never used for tuning.

It also scores follow-ups on the demo shop (`followups.tsv` tuning, `followups_holdout.tsv` held
out): a message after a question about the Linen Overshirt is right when the chat's last product
stands in for it exactly when it is `memory` (services/catalogue/memory.py), not when it names
another thing.
"""

from __future__ import annotations

import time
from pathlib import Path

from services.shop.files.products import read_products
from services.understanding.classifier import Intent, IntentClassifier
from services.understanding.entities import CatalogueName

ROOT = Path(__file__).parent.parent
SETS = (
    (
        "tuning",
        ROOT / "examples" / "shop" / "products.csv",
        ROOT / "tests" / "data" / "stock_eval" / "tuning.tsv",
    ),
    (
        "held-out",
        ROOT / "tests" / "data" / "stock_eval" / "holdout_catalogue.csv",
        ROOT / "tests" / "data" / "stock_eval" / "holdout.tsv",
    ),
)
FOLLOW_UPS = (
    ("tuning", ROOT / "tests" / "data" / "stock_eval" / "followups.tsv"),
    ("held-out", ROOT / "tests" / "data" / "stock_eval" / "followups_holdout.tsv"),
)


def load_set(path: Path) -> list[tuple[set[str], str]]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        expected, question = line.split("\t", 1)
        cases.append(({sku for sku in expected.split() if sku != "-"}, question))
    return cases


def evaluate(catalogue: Path, questions: Path) -> tuple[int, int, int, list[str], float]:
    products, _ = read_products(catalogue)
    classifier = IntentClassifier(
        CatalogueName(p.sku, tuple(n for n in (p.name, p.name_ko, p.name_en, p.name_ja) if n))
        for p in products
    )
    cases = load_set(questions)
    right_intent = right_products = 0
    misses = []
    started = time.perf_counter()
    for expected, question in cases:
        result = classifier.classify(question)
        found = {s.upper() for s in (*result.entities.skus, *result.entities.answered_products)}
        intent_ok = result.intent == Intent.STOCK
        products_ok = found == {s.upper() for s in expected}
        right_intent += intent_ok
        right_products += products_ok
        if not (intent_ok and products_ok):
            misses.append(f"  miss: {question!r}: intent {result.intent.value}, found {sorted(found) or '-'}")
    per_message = (time.perf_counter() - started) / max(1, len(cases)) * 1000
    return len(cases), right_intent, right_products, misses, per_message


def evaluate_follow_ups(questions: Path) -> tuple[int, dict[str, tuple[int, int]], list[str]]:
    """Per expected label (`memory`, `other`): how many lines, how many right; and the misses."""
    from bench.eval_sets import demo_classifier
    from services.catalogue.memory import named_products, names_something_else

    classifier = demo_classifier()
    remembered = ["SKU-7890"]
    scores: dict[str, tuple[int, int]] = {}
    misses = []
    rows = [line.split("\t", 1) for line in questions.read_text(encoding="utf-8").splitlines()]
    cases = [(row[0], row[1]) for row in rows if len(row) == 2 and row[0] in ("memory", "other")]
    for label, question in cases:
        entities = classifier.classify(question).entities
        means_it = not (
            named_products(entities)
            or entities.near_misses
            or names_something_else(entities, remembered, classifier.product_names)
        )
        right = means_it == (label == "memory")
        total, correct = scores.get(label, (0, 0))
        scores[label] = (total + 1, correct + right)
        if not right:
            misses.append(
                f"  miss: {question!r}: expected {label}, other things {list(entities.other_things)}"
            )
    return len(cases), scores, misses


def scale(products: int = 100_000) -> tuple[float, float, float]:
    """Index build time and time per question, on the example shop and on a synthetic catalogue."""
    import random

    rng = random.Random(3)
    words = ["linen", "merino", "canvas", "denim", "trail", "ridge", "pocket", "alpine", "coast", "harbor"]
    kinds = ["shirt", "sweater", "tote", "pants", "tent", "stove", "mug", "lamp", "pack", "jacket"]
    big = [
        CatalogueName(f"P-{i:06d}", (f"{rng.choice(words)} {rng.choice(kinds)} {i}", f"상품 {i}", f"商品{i}"))
        for i in range(products)
    ]
    started = time.perf_counter()
    classifier = IntentClassifier(big)
    build = time.perf_counter() - started
    questions = [q for _, q in load_set(SETS[0][2])]
    small = IntentClassifier(
        CatalogueName(p.sku, (p.name, p.name_ko, p.name_en, p.name_ja)) for p in read_products(SETS[0][1])[0]
    )
    timings = []
    for index in (small, classifier):
        started = time.perf_counter()
        for _ in range(20):
            for question in questions:
                index.classify(question)
        timings.append((time.perf_counter() - started) / (20 * len(questions)) * 1000)
    return build, timings[0], timings[1]


def main() -> None:
    build, small_ms, big_ms = scale()
    print(
        f"index of 100,000 products built in {build:.2f} s; per question {small_ms:.3f} ms with 5 products, "
        f"{big_ms:.3f} ms with 100,000 (ratio {big_ms / small_ms:.1f})"
    )
    summary = []
    for name, catalogue, questions in SETS:
        total, intent, products, misses, ms = evaluate(catalogue, questions)
        print(
            f"{name:9} {total:3} questions  intent stock {intent / total:.3f}  "
            f"products exact {products / total:.3f}  ({ms:.3f} ms per question)"
        )
        for miss in misses:
            print(miss)
        summary.append(f"{name.replace('-', '')}_products={products / total:.3f}")
    for name, questions in FOLLOW_UPS:
        total, scores, misses = evaluate_follow_ups(questions)
        right = sum(correct for _, correct in scores.values())
        per_label = "  ".join(
            f"{label} {correct}/{count}" for label, (count, correct) in sorted(scores.items())
        )
        print(f"follow-ups {name:9} {total:3} questions  right {right / total:.3f}  ({per_label})")
        for miss in misses:
            print(miss)
        summary.append(f"{name.replace('-', '')}_follow_ups={right / total:.3f}")
    print(" ".join(summary))


if __name__ == "__main__":
    main()
