"""A product the message names beats the one the chat remembers, in every language and script."""

from __future__ import annotations

import pytest

from services.catalogue.memory import named_products, needs_remembered_products, with_remembered_products
from services.faq.lookup import FaqLookupAnswerer
from services.faq.store import demo_documents
from services.text.normalize import detect_language
from services.understanding.classifier import IntentClassifier
from services.understanding.entities import CatalogueName
from services.understanding.understand import understand

TEA = CatalogueName("TEA-1", ("Organic Green Tea Leaves", "유기농 녹차 잎차", "有機緑茶リーフ"))
TEAPOT = CatalogueName("POT-1", ("Glass Teapot", "유리 티포트", "耐熱ガラスティーポット"))


@pytest.fixture(scope="module")
def classifier() -> IntentClassifier:
    return IntentClassifier([TEA, TEAPOT])


@pytest.fixture(scope="module")
def lookup() -> FaqLookupAnswerer:
    return FaqLookupAnswerer(demo_documents())


@pytest.mark.parametrize(
    "question",
    [
        "緑茶の在庫ありますか",
        "緑茶ありますか？",
        "녹차 재고 있어요?",
        "is the green tea in stock?",
        "有機緑茶の在庫は？",
    ],
)
def test_the_named_product_beats_the_remembered_one(
    question: str, classifier: IntentClassifier, lookup: FaqLookupAnswerer
) -> None:
    """After "do you have the glass teapot?", "緑茶の在庫ありますか" (green tea, a kanji word inside the
    catalogue's Japanese name 有機緑茶リーフ) was answered with the teapot's stock."""
    understanding = understand(question, detect_language(question), classifier, lookup)
    assert named_products(understanding.classification.entities) == ("TEA-1",), question
    assert not needs_remembered_products(understanding)
    after_teapot = with_remembered_products(understanding, ["POT-1"])
    assert after_teapot.classification.entities.products == ("TEA-1",)


def test_a_question_naming_nothing_still_means_the_remembered_product(
    classifier: IntentClassifier, lookup: FaqLookupAnswerer
) -> None:
    understanding = understand("在庫ありますか？", detect_language("在庫ありますか？"), classifier, lookup)
    assert with_remembered_products(understanding, ["POT-1"]).classification.entities.products == ("POT-1",)


def test_one_kanji_of_a_name_names_nothing(classifier: IntentClassifier) -> None:
    """Kanji words are two characters and more: 茶 alone ("お茶しませんか") names no product."""
    assert classifier.classify("お茶の時間ですね").entities.products == ()
