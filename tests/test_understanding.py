"""Intent + FAQ decisions on labelled questions: the right answer or an honest "I don't know".

The floors here are regression guards set a little under the measured numbers in
the README; the held-out files were never used to choose weights or thresholds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from db.seed import DEMO_PRODUCTS, demo_names
from services.faq.entry import FaqDocument
from services.faq.evaluation import Question, evaluate, load_questions
from services.faq.lookup import FaqLookupAnswerer
from services.faq.store import demo_documents, file_documents
from services.text.sentences import Language
from services.understanding.classifier import Classification, Intent, IntentClassifier
from services.understanding.entities import CatalogueName, Entities
from services.understanding.evaluation import evaluate as evaluate_intents
from services.understanding.evaluation import load_labelled
from services.understanding.second_question import CLAUSES_JUDGED, answered_second_question
from services.understanding.understand import Route, decide, understand

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def classifier() -> IntentClassifier:
    return IntentClassifier(CatalogueName(p["sku"], demo_names(p)) for p in DEMO_PRODUCTS)


@pytest.fixture(scope="module")
def demo_faq() -> FaqLookupAnswerer:
    return FaqLookupAnswerer(demo_documents())


def faq_file(name: str) -> FaqLookupAnswerer:
    return FaqLookupAnswerer(file_documents((DATA / name).read_bytes(), source=name))


@pytest.mark.parametrize(
    "question",
    [
        "Do you ship internationally?",
        "My coupon code is not working",
        "오프라인 매장이 있나요?",
        "회원 탈퇴는 어떻게 하나요?",
        "세탁기로 빨아도 되나요?",
        "Do you sell gift cards for my grandmother?",
    ],
)
def test_questions_the_demo_faq_does_not_cover_get_no_entry(
    question: str, classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    """The brief's confidently wrong answers: the nearest entry is not an answer."""
    understanding = understand(question, Language.EN, classifier, demo_faq)
    assert understanding.entry is None, understanding.faq


def test_the_seeded_question_is_answered_not_handed_off(
    classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    understanding = understand("What are your customer service hours?", Language.EN, classifier, demo_faq)
    assert understanding.route is Route.FAQ_ENTRY
    assert understanding.label == "opening-hours"


def test_japanese_question_gets_the_japanese_row(
    classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    understanding = understand("支払い方法は何がありますか", Language.JA, classifier, demo_faq)
    assert understanding.entry is not None
    assert understanding.entry.document.language == "ja"
    assert "カカオペイ" in understanding.entry.document.answer


def test_entities_decide_before_the_faq(classifier: IntentClassifier, demo_faq: FaqLookupAnswerer) -> None:
    assert understand("SKU-7890 재고 있나요?", Language.KO, classifier, demo_faq).route is Route.STOCK
    assert understand("where is 20240115-001234?", Language.EN, classifier, demo_faq).route is Route.ORDERS
    assert understand("RMA-20240001 status", Language.EN, classifier, demo_faq).route is Route.RETURNS


def test_an_unclear_message_about_something_the_bot_can_do_gets_a_question(
    classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    unclear = understand("still nothing", Language.EN, classifier, demo_faq)
    assert unclear.route is Route.CLARIFY and unclear.label == "none"
    assert understand("where is my order?", Language.EN, classifier, demo_faq).route is Route.ORDERS


def test_a_delivery_policy_question_the_faq_does_not_cover_is_not_answered_with_orders(
    classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    """A linked customer asking "Do you ship internationally?" used to get a list of their orders."""
    for question in ("Do you ship internationally?", "해외 배송 되나요?", "海外発送はできますか"):
        understanding = understand(question, Language.EN, classifier, demo_faq)
        assert understanding.route is Route.NO_ENTRY, (question, understanding.route)
    for own in ("when will my order arrive?", "택배 언제 와요?", "배송 조회 되나요?"):
        assert understand(own, Language.KO, classifier, demo_faq).route is Route.ORDERS, own


def test_what_delivery_costs_is_asked_of_the_shop_not_of_the_customer_s_orders(
    classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    """A blind probe's "shiping cost pls" and "무료배송 기준이 어떻게 되나요" got the linked customer's
    order list: a question about what delivery costs is about the shop, answered from the FAQ or
    offered its entries, whatever the matcher's confidence."""
    for question in (
        "shiping cost pls",
        "무료배송 기준이 어떻게 되나요",
        "제주도 배송 추가비용 있나요?",
        "送料はかかりますか",
    ):
        understanding = understand(question, Language.EN, classifier, demo_faq)
        assert understanding.route in (Route.NO_ENTRY, Route.FAQ_ENTRY), (question, understanding.route)
    for own in (
        "my order 20240115-001234 shipping fee was charged twice",
        "where is my order? I paid for delivery",
    ):
        assert understand(own, Language.EN, classifier, demo_faq).route is Route.ORDERS, own


@pytest.mark.parametrize("message", ["20231202-000458", "#20231202-000458", " 20240115-001234. "])
def test_an_order_number_alone_asks_for_that_order(
    message: str, classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    """A delivered order's bare number read as a returns question and got "I don't know"."""
    understanding = understand(message, Language.KO, classifier, demo_faq)
    assert understanding.route is Route.ORDERS and understanding.intent is Intent.SHIPPING, understanding


@pytest.mark.parametrize("question", ["注文はどこですか", "荷物どこ？", "注文した靴はどこですか"])
def test_where_is_my_order_in_japanese_looks_up_the_orders(
    question: str, classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    assert understand(question, Language.JA, classifier, demo_faq).route is Route.ORDERS, question


@pytest.mark.parametrize(
    "question",
    [
        "Are you having a Black Friday sale this year?",
        "세일 기간이 언제예요?",
        "セールはいつ始まりますか",
        "今キャンペーンやってますか",
    ],
)
def test_a_question_about_sales_is_about_the_shop_not_stock_or_an_order(
    question: str, classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    """ "when is the next sale?" was asked "which product do you mean?", "세일 언제 해요?" for an order
    number. Worded unlike the examples that taught it (services/understanding/data/intent_examples.tsv)."""
    understanding = understand(question, Language.EN, classifier, demo_faq)
    assert understanding.intent is Intent.FAQ, (question, understanding.classification)
    assert understanding.route in (Route.NO_ENTRY, Route.FAQ_ENTRY)


def test_chat_spellings_of_the_polite_ending_read_as_the_ending(
    classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    """ "해외배송 되나여?" (for 되나요) asked which order; spelled properly it gets the honest answer."""
    assert understand("해외배송 되나여?", Language.KO, classifier, demo_faq).route is Route.NO_ENTRY
    assert understand("해외배송 되나용?", Language.KO, classifier, demo_faq).route is Route.NO_ENTRY


def test_a_delivery_question_asked_before_buying_is_not_about_an_order(
    classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    """ "주문하면 언제 와요?" (if I order, when does it come?) asked for an order number or a phone
    number: 언제 와 and 注文した read as the customer's own order."""
    for asked in (
        "if I order today when will it get here",
        "주문하면 언제 와요?",
        "今注文したらいつ届きますか",
    ):
        understanding = understand(asked, Language.EN, classifier, demo_faq)
        assert understanding.label == "same-day-dispatch", (asked, understanding.route)
    for own in ("주문한 거 언제 와요?", "注文した商品はいつ届きますか", "where is my order?"):
        assert understand(own, Language.EN, classifier, demo_faq).route is Route.ORDERS, own


HONEST = (Route.NO_ENTRY, Route.CLARIFY)
"""The demo FAQ does not cover it: the honest "I don't know" (with the nearest entries), or a question."""


@pytest.mark.parametrize(
    ("asked", "routes", "intent"),
    [
        # Asking whether pickup is possible asked a stranger for their phone number ("my order")
        # or which product (an unsure stock guess); my own probe.
        ("can I pick up my order in person?", HONEST, None),
        ("is in-store pickup available?", HONEST, None),
        ("매장에서 픽업 가능한가요?", HONEST, None),
        ("주문한 거 매장에서 직접 수령할 수 있나요?", HONEST, None),
        ("店舗で受け取りできますか", HONEST, None),
        ("my order was ready for pickup but where is it", (Route.ORDERS,), None),
        ("the courier picked up my parcel, where is it", (Route.ORDERS,), None),
        # "my package arrived damaged" was a tracking question; these were written after the
        # examples that fixed it, none of them an example.
        ("the parcel showed up smashed and the glass inside is cracked", None, Intent.RETURNS),
        ("박스가 다 뜯어진 채로 배송됐어요 안에 제품도 깨졌고요", None, Intent.RETURNS),
        ("届いた箱がつぶれていて中身が壊れていました", None, Intent.RETURNS),
        ("the package was damaged when it arrived", None, Intent.RETURNS),
        # "what material is the linen shirt made of" got the shirt's stock line (the tuning set's
        # "are your products made in Korea?" too); written after the examples, none of them one.
        ("are your clothes made in china?", (Route.NO_ENTRY,), None),
        ("what is this fabric, cotton or polyester?", (Route.NO_ENTRY,), None),
        ("옷감이 뭐로 만들어졌어요?", (Route.NO_ENTRY,), None),
        ("洋服の素材を教えてください", (Route.NO_ENTRY,), None),
        # "I want to return the sweater" got its stock line: the product's name pulled it to stock.
        ("받은 스웨터가 너무 커서 반품하고 싶어요", (Route.RETURNS,), Intent.RETURNS),
        ("린넨 오버셔츠 재고 있어요?", (Route.STOCK,), None),
        # A product's care, material or fit got its stock line (my probe): not in the catalogue.
        ("how should I wash a wool sweater?", (Route.NO_ENTRY,), None),
        ("울 비니 소재가 뭐예요?", (Route.NO_ENTRY,), None),
        ("メリノセーターは洗濯機で洗えますか", (Route.NO_ENTRY,), None),
        ("what sizes does the merino sweater come in?", (Route.STOCK,), None),
        ("울 비니 그레이 색상 있어요?", (Route.STOCK,), None),
        # Sizing advice reads like availability; a helper's probe got the stock line for these.
        ("키 175에 70kg인데 메리노 스웨터 M 맞을까요?", (Route.NO_ENTRY,), None),
        ("which size of the merino sweater should I get for a 28 inch waist?", (Route.NO_ENTRY,), None),
        ("メリノセーターの在庫は大丈夫ですか", (Route.STOCK,), None),
    ],
)
def test_what_a_probe_found_misrouted_goes_where_the_customer_meant(
    asked: str,
    routes: tuple[Route, ...] | None,
    intent: Intent | None,
    classifier: IntentClassifier,
    demo_faq: FaqLookupAnswerer,
) -> None:
    understanding = understand(asked, Language.EN, classifier, demo_faq)
    assert routes is None or understanding.route in routes, understanding.route
    assert intent is None or understanding.intent is intent, understanding.intent


def test_the_shop_s_own_phrasing_of_an_entry_is_answered_with_it(classifier: IntentClassifier) -> None:
    """Examples a shop wrote for its returns entry got "I'm not sure" (0.775 against the bar) and a
    stock reply (found by a user probe); any case, spacing or punctuation."""
    bikes = faq_file("holdout_faq9.csv")
    for asked in ("What is your return policy?", "사이즈 안 맞으면 바꿀수 있어요", "返品・交換はできますか"):
        understanding = understand(asked, Language.EN, classifier, bikes)
        assert understanding.route is Route.FAQ_ENTRY and understanding.label == "returns", asked
    reworded = bikes.match("what is your return policy for helmets", language=Language.EN)
    assert reworded is not None and "own_phrasing" not in reworded.evidence


def test_a_phrasing_the_shop_gave_two_entries_decides_nothing() -> None:
    shared = "how does it work?"
    lookup = FaqLookupAnswerer(
        [
            FaqDocument(
                "gift-cards", Language.EN, "Do you sell gift cards?", "Yes, from $10.", examples=(shared,)
            ),
            FaqDocument("rentals", Language.EN, "Can I rent a bike?", "Yes, $20 a day.", examples=(shared,)),
            FaqDocument(
                "warranty", Language.EN, "What is the warranty?", "Two years.", examples=("is it covered?",)
            ),
        ]
    )
    match = lookup.match("How does it work", language=Language.EN)
    assert match is not None and "own_phrasing" not in match.evidence
    covered = lookup.match("Is it covered", language=Language.EN)
    assert covered is not None and covered.answered and covered.slug == "warranty"


@pytest.mark.parametrize(
    ("runner_up", "route"),
    [(Intent.FAQ, Route.STOCK), (Intent.HUMAN, Route.STOCK), (Intent.RETURNS, Route.CLARIFY)],
)
def test_an_unsure_stock_question_about_an_unknown_product_asks_which_product(
    runner_up: Intent, route: Route
) -> None:
    """Stock or nothing: the stock reply asks which product; unsure between two actions: the buttons."""
    unsure = Classification(Intent.STOCK, 0.45, Entities(), runner_up=runner_up)
    assert decide(unsure, None, "is the quantum toaster available").route is route
    a_guess = Classification(Intent.STOCK, 0.26, Entities(), runner_up=runner_up)
    assert decide(a_guess, None, "still nothing").route is Route.CLARIFY


@pytest.fixture
def encoder_calls(demo_faq: FaqLookupAnswerer) -> Iterator[list[object]]:
    """What the demo FAQ's encoder is asked to embed, one entry per call (single or batch)."""
    encoder = demo_faq.matcher._encoder
    calls: list[object] = []
    original = encoder.encode_one, encoder.encode

    def count_one(text: str) -> object:
        calls.append(text)
        return original[0](text)

    def count_batch(texts: object) -> object:
        calls.append(texts)
        return original[1](texts)  # type: ignore[arg-type]

    encoder.encode_one, encoder.encode = count_one, count_batch  # type: ignore[method-assign,assignment]
    try:
        yield calls
    finally:
        encoder.encode_one, encoder.encode = original  # type: ignore[method-assign]


def test_the_matcher_embeds_a_message_once(demo_faq: FaqLookupAnswerer, encoder_calls: list[object]) -> None:
    """One encoder call per message, shared with the classifier: the p99 latency depends on it."""
    for question in (
        "my speaker stopped working after a year, is it covered?",
        "강아지 사료 갈아타려는데 괜찮나요?",
    ):
        encoder_calls.clear()
        demo_faq.match(question, language=Language.EN)
        assert encoder_calls == [question]


def test_example_phrasings_teach_the_matcher() -> None:
    """An entry whose question is worded differently is found through its examples."""
    answer = "Digital gift cards from $10 to $500, sent by email."
    entries = [
        FaqDocument("hours", Language.EN, "When is customer service open?", "Weekdays 10-6."),
        FaqDocument(
            "payment", Language.EN, "Which payment methods do you accept?", "Cards and bank transfer."
        ),
    ]
    bare = FaqLookupAnswerer([*entries, FaqDocument("gift", Language.EN, "Gift cards", answer)])
    taught = FaqLookupAnswerer(
        [
            *entries,
            FaqDocument("gift", Language.EN, "Gift cards", answer, (), ("Can I buy a present voucher?",)),
        ]
    )
    question = "can I buy a voucher as a present for my friend?"
    with_examples, without = (
        taught.match(question, language=Language.EN),
        bare.match(question, language=Language.EN),
    )
    assert with_examples is not None and without is not None
    assert with_examples.confidence > without.confidence and with_examples.answered


def test_reload_swaps_the_whole_index(demo_faq: FaqLookupAnswerer) -> None:
    lookup = FaqLookupAnswerer(demo_documents())
    before = lookup.match("Do you sell gift cards?", language=Language.EN)
    assert before is None or before.answered is False
    lookup.reload(
        [*demo_documents(), FaqDocument("gift-cards", Language.EN, "Do you sell gift cards?", "Yes.")]
    )
    found = lookup.match("Do you sell gift cards?", language=Language.EN)
    assert found is not None and found.answered and found.slug == "gift-cards"


@pytest.mark.parametrize(
    ("questions", "faq", "min_coverage", "max_false"),
    [
        ("faq_demo.tsv", None, 0.56, 0.02),  # tuning: 0.603 / 0.000
        ("faq_demo_holdout.tsv", None, 0.56, 0.04),  # held out: 0.600 / 0.017
        ("unseen_faq2_questions.tsv", "unseen_faq2.csv", 0.37, 0.05),  # held out: 0.408 / 0.030
        ("holdout_faq5_questions.tsv", "holdout_faq5.csv", 0.46, 0.06),  # held out: 0.500 / 0.036
        ("holdout_faq8_questions.tsv", "holdout_faq8.csv", 0.25, 0.03),  # held out: 0.291 / 0.013
        ("holdout_faq9_questions.tsv", "holdout_faq9.csv", 0.23, 0.05),  # held out: 0.271 / 0.029
        ("holdout_faq10_questions.tsv", "holdout_faq10.csv", 0.25, 0.04),  # held out: 0.286 / 0.019
        ("holdout_faq13_questions.tsv", "holdout_faq13.csv", 0.17, 0.02),  # held out: 0.208 / 0.000
        ("holdout_faq14_questions.tsv", "holdout_faq14.csv", 0.18, 0.05),  # held out: 0.217 / 0.033
        ("holdout_faq15_questions.tsv", "holdout_faq15.csv", 0.21, 0.04),  # held out: 0.250 / 0.011
    ],
)
def test_faq_coverage_and_false_answers(
    questions: str,
    faq: str | None,
    min_coverage: float,
    max_false: float,
    classifier: IntentClassifier,
    demo_faq: FaqLookupAnswerer,
) -> None:
    report = evaluate(load_questions(DATA / questions), classifier, faq_file(faq) if faq else demo_faq)
    assert report.coverage is not None and report.coverage >= min_coverage, report.coverage
    assert report.false_answer_rate <= max_false, report.false_answer_rate


@pytest.mark.parametrize(
    ("questions", "floors"),
    [
        # label: (precision, recall) at least; measured in the comments
        ("complaints.tsv", {"returns": (0.85, 0.95), "human": (0.95, 0.9)}),  # 0.88/1.00, 1.00/0.96
        ("complaints_holdout.tsv", {"returns": (0.8, 0.6), "human": (0.95, 0.62)}),  # 0.86/0.63, 1.00/0.68
        ("product_facts.tsv", {"none": (0.9, 0.95), "stock": (0.95, 0.85)}),  # 0.92/1.00, 1.00/0.88
        ("product_facts_holdout.tsv", {"none": (0.88, 0.85), "stock": (0.82, 0.85)}),  # 0.92/0.90, 0.87/0.90
    ],
)
def test_route_sets(
    questions: str,
    floors: dict[str, tuple[float, float]],
    classifier: IntentClassifier,
    demo_faq: FaqLookupAnswerer,
) -> None:
    """Complaints get a return or a person, product facts the honest answer (bench.eval_sets)."""
    report = evaluate(load_questions(DATA / questions), classifier, demo_faq)
    for label, (precision, recall) in floors.items():
        found = report.per_class[label]
        assert found[0] >= precision and found[1] >= recall, (label, found)


def test_each_entry_s_own_words_count_for_that_entry(demo_faq: FaqLookupAnswerer) -> None:
    """The word evidence for an entry's own phrasing is highest for that entry, also after common
    questions it covers were merged into its phrasings (they once shifted the word index's rows)."""
    matcher = demo_faq.matcher
    for document in matcher.documents:
        for phrasing in (document.question, *document.examples):
            _, parts = matcher.scores(phrasing)
            assert matcher.slugs[int(parts["lexical"].argmax())] == document.slug, phrasing


def test_a_small_faq_does_not_answer_what_it_only_shares_a_word_with() -> None:
    """With two entries the runner-up is no competition; "sell" alone must not make a match."""
    lookup = FaqLookupAnswerer(
        [
            FaqDocument(
                "gift-cards", Language.EN, "Do you sell gift cards?", "Yes: digital gift cards from $10."
            ),
            FaqDocument("warranty", Language.EN, "What warranty do you give?", "Two years on electronics."),
        ]
    )
    for question in ("do you sell bicycles?", "do you sell shoes?"):
        found = lookup.match(question, language=Language.EN)
        assert found is not None and not found.answered, (question, found)
    found = lookup.match("can I buy a gift card?", language=Language.EN)
    assert found is not None and found.answered and found.slug == "gift-cards"


@pytest.mark.parametrize(
    ("named_in_the_answer", "named_nowhere"),
    [
        ("do you take Naver Pay", "do you take PayPal"),
        ("can I pay with KakaoPay", "can I pay with Venmo"),
        ("네이버페이 돼요?", "페이팔 돼요?"),
    ],
)
def test_a_word_the_faq_never_mentions_keeps_a_question_from_being_answered(
    named_in_the_answer: str, named_nowhere: str, demo_faq: FaqLookupAnswerer
) -> None:
    """The payment entry's answer lists Naver Pay and KakaoPay: asking about them is answered with it;
    asking about PayPal or Venmo, which no row mentions, is the same kind of question but the entry
    does not answer it (`term_coverage`, `unknown_terms`)."""
    answered = demo_faq.match(named_in_the_answer, language=Language.EN)
    assert answered is not None and answered.answered and answered.slug == "payment-methods"
    unsure = demo_faq.match(named_nowhere, language=Language.EN)
    assert unsure is not None and not unsure.answered
    assert unsure.evidence["unknown_terms"] > answered.evidence["unknown_terms"]


def test_a_catalogue_product_s_name_is_no_word_the_faq_fails_to_mention(
    classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    """The FAQ never names the shop's products; their names must not count as unknown words (they
    took "do you ship the merino wool sweater to Jeju?" from 0.90 to 0.48, unanswered)."""
    for question in (
        "do you ship the merino wool sweater to Jeju?",
        "how long does delivery take for the canvas tote bag?",
    ):
        understood = understand(question, Language.EN, classifier, demo_faq)
        assert understood.faq is not None and understood.faq.evidence["unknown_terms"] == 0.0, question
    tote = understand(
        "how long does delivery take for the canvas tote bag?", Language.EN, classifier, demo_faq
    )
    assert tote.label == "same-day-dispatch", tote.faq


def test_an_entry_named_like_an_intent_is_not_credited_for_an_intent_route(
    classifier: IntentClassifier,
) -> None:
    """A shop may call an entry "shipping": an order lookup is not that entry's answer."""
    lookup = FaqLookupAnswerer(
        [FaqDocument("shipping", Language.EN, "How much is delivery?", "Delivery is free from $50, else $4.")]
    )
    report = evaluate(
        [
            Question("shipping", Language.EN, "how much does delivery cost?", 1),
            Question("shipping", Language.EN, "where is my order 20240115-001234?", 2),
            Question("none", Language.EN, "what is the capital of France?", 3),
        ],
        classifier,
        lookup,
    )
    labels = [label for _, label in report.rows]
    assert labels[:2] == ["shipping", "intent:shipping"]
    assert report.coverage == 0.5 and report.false_answer_rate == 0.0, labels


@pytest.mark.parametrize(
    ("name", "floor"),
    [
        ("intents_holdout.tsv", 0.95),
        ("intents_holdout2.tsv", 0.95),
        ("intents_holdout3.tsv", 0.95),
        ("intents_holdout4.tsv", 0.95),
    ],
)
def test_intent_macro_f1_on_held_out_sets(name: str, floor: float, classifier: IntentClassifier) -> None:
    report = evaluate_intents(classifier, load_labelled(DATA / name))
    assert report.macro_f1 >= floor, report.mistakes
    assert set(report.per_intent) == set(Intent)


@pytest.mark.parametrize(
    "scores", [[0.3, 0.9, 0.1], [0.9, 0.9, 0.2], [0.5], [0.2, 0.2], [-0.4, -0.1, -0.7, -0.1]]
)
def test_the_runner_up_score_is_the_highest_of_the_others(scores: list[float]) -> None:
    """What `np.delete(scores, best).max()` gave, ties included, for every choice of `best`."""
    import numpy as np

    from services.faq.leads import max_except

    array = np.array(scores)
    for best in range(len(scores)):
        others = np.delete(array, best)
        assert max_except(array, best, -9.0) == (float(others.max()) if len(others) else -9.0)


def test_a_message_naming_a_product_is_read_and_embedded_once_without_the_name(
    classifier: IntentClassifier, demo_faq: FaqLookupAnswerer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The classifier and the FAQ matcher read the same neutral text: one embedding per message."""
    embedded: list[str] = []
    encode_one = classifier.encoder.encode_one

    def counted(text: str) -> np.ndarray:
        embedded.append(text)
        return encode_one(text)

    monkeypatch.setattr(classifier.encoder, "encode_one", counted)
    understanding = understand(
        "can I swap the Wool Beanie for another colour?", Language.EN, classifier, demo_faq
    )
    assert set(embedded) == {"can I swap the item for another colour?"}
    assert understanding.intent is Intent.RETURNS, understanding.classification
    assert understanding.classification.entities.products == ("SKU-3300",)


def test_a_shop_that_sets_a_higher_bar_gets_choices_where_the_fitted_bar_answers(
    classifier: IntentClassifier,
) -> None:
    """CSBOT_FAQ_MIN_CONFIDENCE: a shop that would rather offer choices than risk a wrong answer."""
    asked = "if I order today when will it get here"
    fitted = understand(asked, Language.EN, classifier, FaqLookupAnswerer(demo_documents()))
    strict = understand(
        asked, Language.EN, classifier, FaqLookupAnswerer(demo_documents(), min_confidence=0.99)
    )
    assert fitted.route is Route.FAQ_ENTRY and fitted.label == "same-day-dispatch"
    assert strict.route is not Route.FAQ_ENTRY
    assert strict.faq is not None and strict.faq.alternatives[0] == "same-day-dispatch"  # one tap away
    own = understand(
        "What payment methods do you accept?",
        Language.EN,
        classifier,
        FaqLookupAnswerer(demo_documents(), min_confidence=0.99),
    )
    assert own.route is Route.FAQ_ENTRY, "the shop's own wording of an entry is answered at any bar"


def test_words_are_compared_only_with_rows_in_the_question_s_language() -> None:
    """A Japanese question to an entry the shop wrote in Korean and English shares none of its words
    whatever it asks: the word features say nothing then (`unwritten_language`), rather than
    counting every word as one the FAQ never mentions."""
    from services.faq.matcher import FaqMatcher

    question = "返品したいのですが、どうすればいいですか？"
    everything = demo_documents()
    assert any(d.slug == "return-method" and d.language == "ja" for d in everything)
    with_japanese = FaqMatcher(everything).match(question, language=Language.JA)
    without = FaqMatcher(
        [d for d in everything if not (d.slug == "return-method" and d.language == "ja")]
    ).match(question, language=Language.JA)
    assert with_japanese is not None and without is not None
    assert with_japanese.slug == without.slug == "return-method"
    assert with_japanese.evidence["unwritten_language"] == 0.0
    assert with_japanese.evidence["term_coverage"] > 0
    assert without.evidence["unwritten_language"] == 1.0
    assert without.evidence["term_coverage"] == without.evidence["unknown_terms"] == 0.0


@pytest.mark.parametrize(
    ("question", "language", "slug"),
    [
        ("what is your return policy", Language.EN, "return-method"),
        ("How much does shipping cost?", Language.EN, "same-day-dispatch"),
        ("what's your shipping policy?", Language.EN, "same-day-dispatch"),
        ("info about returns", Language.EN, "return-method"),
        ("반품 정책이 뭐예요?", Language.KO, "return-method"),
        ("교환 규정이 어떻게 되나요", Language.KO, "return-method"),
    ],
)
def test_a_question_about_a_policy_is_answered_by_the_entry_that_states_it(
    question: str, language: Language, slug: str, demo_faq: FaqLookupAnswerer
) -> None:
    """ "Policy", "info", "규정" say how a question is asked, not what about: as words the FAQ never
    mentions they kept "what is your return policy" (0.34) from its entry."""
    found = demo_faq.match(question, language=language)
    assert found is not None and found.answered and found.slug == slug, found


@pytest.mark.parametrize(
    "question", ["what is your privacy policy?", "warranty policy?", "보증 정책이 있나요?"]
)
def test_a_policy_the_faq_never_mentions_is_not_answered(question: str, demo_faq: FaqLookupAnswerer) -> None:
    found = demo_faq.match(question, language=Language.EN)
    assert found is not None and not found.answered, found


def test_a_second_question_is_looked_for_in_a_few_clauses_only(
    demo_faq: FaqLookupAnswerer, encoder_calls: list[object]
) -> None:
    """Each clause judged is an encoder call on the event loop: a long comma-separated list must not
    cost one per item (the review counted 680 for a list of codes)."""
    listing = "is the wool beanie in stock, " + ", ".join(f"code ab{n:03d}" for n in range(300))
    assert answered_second_question(demo_faq, listing, Language.EN) is None
    assert len(encoder_calls) == CLAUSES_JUDGED
    encoder_calls.clear()
    found = answered_second_question(
        demo_faq, "is the wool beanie in stock and how much is shipping?", Language.EN
    )
    assert found is not None and found.slug == "same-day-dispatch" and len(encoder_calls) == 1


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("상담원이랑 얘기하고 싶어요. 배송이 너무 늦어요", Language.KO),
        ("I want to talk to a real person, my order is so late", Language.EN),
        ("オペレーターと話したいです。荷物が届きません", Language.JA),
    ],
)
def test_a_person_asked_for_in_so_many_words_is_a_hand_off_whatever_else_is_said(
    text: str, language: Language, classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    understood = understand(text, language, classifier, demo_faq)
    assert understood.route is Route.HANDOFF and understood.intent is Intent.HUMAN


def test_words_about_staff_or_people_that_ask_for_no_one_are_not_a_hand_off(
    classifier: IntentClassifier, demo_faq: FaqLookupAnswerer
) -> None:
    for text in ("상담 시간이 어떻게 되나요?", "직원 할인 되나요?"):
        assert understand(text, Language.KO, classifier, demo_faq).route is not Route.HANDOFF, text
