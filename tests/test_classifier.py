"""Classifier quality on our labelled sets, and the cases the brief calls out."""

from __future__ import annotations

from pathlib import Path

import pytest

from db.seed import DEMO_PRODUCTS, demo_names
from services.text.sentences import Language
from services.understanding.classifier import Intent, IntentClassifier
from services.understanding.entities import CatalogueName, EntityExtractor
from services.understanding.evaluation import evaluate, load_labelled

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def classifier() -> IntentClassifier:
    return IntentClassifier(CatalogueName(p["sku"], demo_names(p)) for p in DEMO_PRODUCTS)


def test_labelled_set_covers_every_intent_and_language() -> None:
    items = load_labelled(DATA / "intents.tsv") + load_labelled(DATA / "intents_holdout.tsv")
    assert len(items) >= 300
    for intent in Intent:
        assert {item.language for item in items if item.intent == intent} == {"ko", Language.EN, "mix"}


@pytest.mark.parametrize(("name", "floor"), [("intents.tsv", 0.95), ("intents_holdout.tsv", 0.80)])
def test_precision_and_recall_per_intent(classifier: IntentClassifier, name: str, floor: float) -> None:
    """The tuning set must stay near perfect; the held-out set guards against overfitting it."""
    report = evaluate(classifier, load_labelled(DATA / name))
    for intent, (precision, recall, _) in report.per_intent.items():
        assert precision >= floor and recall >= floor, (intent, precision, recall, report.mistakes)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("could you ask an agent how I can change my order", Intent.FAQ),
        ("상담원에게 주문 변경 방법 물어봐 주실래요?", Intent.FAQ),
        ("connect me to an agent", Intent.HUMAN),
        ("주문번호 20240115-001234 배송状況教えてください", Intent.SHIPPING),
        ("wher is my packge", Intent.SHIPPING),
        ("refnud please", Intent.RETURNS),
        ("my parcel is stuck at the hub", Intent.SHIPPING),
        # A named product is no stock question by itself (entities.without_product_names)
        ("i want to return the merino sweater its too small", Intent.RETURNS),
        ("can i exchange the denim wide pants for a bigger size", Intent.RETURNS),
        ("I ordered the merino sweater last week and it still hasn't arrived", Intent.SHIPPING),
        ("is the merino sweater still available in grey?", Intent.STOCK),
        ("데님 와이드 팬츠 재고 있나요?", Intent.STOCK),
        ("데님 와이드 팬츠 가격 얼마예요?", Intent.STOCK),  # the price is in the stock line
        ("ウールビーニーはいくらですか", Intent.STOCK),
        ("", Intent.FAQ),
    ],
)
def test_called_out_cases(classifier: IntentClassifier, text: str, intent: Intent) -> None:
    assert classifier.classify(text).intent == intent


def test_confidence_is_low_when_nothing_matches(classifier: IntentClassifier) -> None:
    assert classifier.classify("asdf qwer zxcv").confidence < 0.5
    assert classifier.classify("SKU-7890 재고 있나요?").confidence > 0.9


def test_long_input_is_bounded(classifier: IntentClassifier) -> None:
    result = classifier.classify("배송 " + "x" * 100_000)
    assert result.intent == Intent.SHIPPING


class TestEntities:
    extractor = EntityExtractor([CatalogueName("SKU-5521", ("Merino Crew Sweater", "메리노 크루 스웨터"))])

    @pytest.mark.parametrize(
        ("text", "orders"),
        [
            ("주문번호 20240115-001234배송", ["20240115-001234"]),
            ("order #12345 please", ["12345"]),
            ("order 202401150012", ["202401150012"]),
            ("call me on 01012345678", []),
            ("order 2024-0115", []),
        ],
    )
    def test_order_numbers(self, text: str, orders: list[str]) -> None:
        assert list(self.extractor.extract(text).order_numbers) == orders

    def test_skus_rmas_and_names(self) -> None:
        found = self.extractor.extract("sku 7890, SKU_1204, rma-20240201123456 and the 메리노 스웨터는?")
        assert found.skus == ("SKU-7890", "SKU-1204")
        assert found.rma_numbers == ("RMA-20240201123456",)
        assert found.products == ("SKU-5521",)
        assert found.order_numbers == ()


@pytest.mark.parametrize("sizes", [(5, 4, 3, 7, 6), (1, 2, 0, 5, 3), (3, 3, 3, 3, 3)])
def test_nearest_examples_per_intent_match_a_sort_per_intent(sizes: tuple[int, ...]) -> None:
    """The padded one-partition version gives the per-intent loop's means exactly, small and empty
    intents included (fewer than three examples: their mean; none: 0)."""
    import numpy as np

    from services.understanding.classifier import _NearestPerGroup

    rng = np.random.default_rng(7)
    labels = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    similarities = rng.uniform(-1, 1, len(labels)).astype(np.float32)
    expected = np.zeros(len(sizes))
    for group in range(len(sizes)):
        nearest = np.sort(similarities[labels == group])[-3:]
        expected[group] = nearest.mean() if nearest.size else 0.0
    assert _NearestPerGroup(labels, len(sizes), 3).means(similarities).tolist() == expected.tolist()
