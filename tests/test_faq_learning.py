"""Learning from the shop's own answers, the second look, and `csbot eval` measuring both."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.eval_sets import demo_classifier
from services.faq.entry import MEANING_EXAMPLE_CHARACTERS, FaqDocument, with_example
from services.faq.evaluation import Question, evaluate, learning_curve, load_questions
from services.faq.lookup import FaqLookupAnswerer
from services.faq.second_look import SecondLook
from services.text.sentences import Language
from services.understanding.vector_cache import cache_dir as index_cache_dir
from tests.cli_runner import csbot

FAQ = [
    FaqDocument("gift-wrap", "en", "Do you gift wrap?", "Yes: gift wrapping costs 2,000 won per item."),
    FaqDocument("gift-wrap", "ko", "선물 포장 되나요?", "네, 선물 포장은 상품당 2,000원입니다."),
    FaqDocument(
        "bank-transfer",
        "en",
        "How do I pay by bank transfer?",
        "Transfer within 3 days to the account shown at checkout.",
    ),
    FaqDocument(
        "bank-transfer", "ko", "무통장 입금은 어떻게 하나요?", "주문 시 안내된 계좌로 3일 안에 입금해 주세요."
    ),
    FaqDocument(
        "points", "en", "How do points work?", "You earn 2% of every order as points, usable from 1,000."
    ),
]


def test_a_filed_question_goes_on_the_entry_s_row_in_its_language_once() -> None:
    learnt = with_example(FAQ, "bank-transfer", "입금자명 다르게 해도 되나요?", "ko")
    [korean] = [d for d in learnt if (d.slug, d.language) == ("bank-transfer", "ko")]
    assert korean.examples == ("입금자명 다르게 해도 되나요?",)
    assert [d for d in learnt if d is not korean] == [
        d for d in FAQ if d.language != "ko" or d.slug != "bank-transfer"
    ]
    assert with_example(learnt, "bank-transfer", "입금자명 다르게 해도 되나요?", "ko") == learnt, "filed once"
    [english] = [d for d in with_example(FAQ, "points", "ポイントの有効期限は？", "ja") if d.slug == "points"]
    assert english.examples == ("ポイントの有効期限は？",), "no Japanese row: the English one"
    assert with_example(FAQ, "no-such-entry", "hello?", "en") == FAQ


def test_a_long_filed_message_counts_as_words_and_its_own_words_not_as_the_entry_s_meaning() -> None:
    """A customer's long message filed under an entry would pull other long messages with personal
    context to it; a short one stands for what the entry means."""
    story = (
        "hi, my daughter's birthday is next saturday and I'm ordering a few mugs for her party, "
        "can you wrap them?"
    )
    assert len(story) > MEANING_EXAMPLE_CHARACTERS
    other = (
        "hi, my son's birthday is next sunday and I'm ordering a few plates for his party, "
        "how many points will I get?"
    )
    plain = FaqLookupAnswerer(FAQ).matcher
    long_filed = FaqLookupAnswerer(with_example(FAQ, "gift-wrap", story, "en")).matcher
    short_filed = FaqLookupAnswerer(with_example(FAQ, "gift-wrap", "can you wrap my mugs?", "en")).matcher
    gift = plain.slugs.index("gift-wrap")
    before = plain.scores(other)[1]["semantic"][gift]
    assert long_filed.scores(other)[1]["semantic"][gift] == pytest.approx(before)
    assert (
        short_filed.scores("could you wrap the mugs?")[1]["semantic"][gift]
        > plain.scores("could you wrap the mugs?")[1]["semantic"][gift]
    )
    again = long_filed.match(story.upper(), language=Language.EN)
    assert again is not None and again.answered and again.slug == "gift-wrap", "its own words"


@pytest.fixture(scope="module")
def lookup() -> FaqLookupAnswerer:
    return FaqLookupAnswerer(FAQ)


def test_either_entry_of_a_two_part_question_is_right(lookup: FaqLookupAnswerer) -> None:
    both = Question("gift-wrap|points", "en", "Do you gift wrap?", 1)
    only = Question("points", "en", "Do you gift wrap?", 2)
    report = evaluate([both, only], demo_classifier(), lookup)
    assert [label for _, label in report.rows] == ["gift-wrap", "gift-wrap"]
    assert report.coverage == 0.5 and report.false_answer_rate == 0.5


def test_the_learning_curve_files_the_first_part_and_asks_the_rest(lookup: FaqLookupAnswerer) -> None:
    odd = "zx-17 wrapping thing for my nephew??"  # no entry's words: not answered before it is filed
    questions = [Question("gift-wrap", "en", odd, 1), Question("gift-wrap", "en", odd.upper(), 2)]
    curve = learning_curve(questions, demo_classifier(), lookup, first=0.5)
    assert curve.filed == 1
    assert [label for _, label in curve.before.rows] != ["gift-wrap"]
    assert [label for _, label in curve.after.rows] == ["gift-wrap"], "its own words now"


def test_the_second_look_keeps_its_index_on_disk_and_rebuilds_a_damaged_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CSBOT_CACHE_DIR", str(tmp_path))
    fresh = FaqLookupAnswerer(FAQ)
    found = fresh.match("what percentage of an order do I earn back?", language=Language.EN, second_look=True)
    assert found is not None and found.alternatives[0] == "points"
    assert "second_look" in found.evidence and "paraphrase" in found.evidence
    written = sorted(index_cache_dir().glob("*.npy"))
    assert len(written) == 2
    look = SecondLook(fresh.matcher)
    vectors = [np.load(p) for p in written]
    for path in written:
        path.write_bytes(b"not an array")  # a damaged cache is rebuilt, never trusted
    look._built()
    assert sorted(np.load(p).shape for p in index_cache_dir().glob("*.npy")) == sorted(
        v.shape for v in vectors
    )


def test_eval_learn_prints_the_curve_and_a_bad_share_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "faq.csv").write_text(
        "slug,language,question,answer,tags,examples\n"
        + "".join(f'{d.slug},{d.language},"{d.question}","{d.answer}",,\n' for d in FAQ),
        encoding="utf-8",
    )
    (tmp_path / "q.tsv").write_text(
        "expected\tlanguage\tquestion\n"
        "gift-wrap\ten\tzx-17 wrapping thing??\n"
        "gift-wrap\ten\tZX-17 WRAPPING THING\n",
        encoding="utf-8",
    )
    result = csbot(tmp_path, "eval", "q.tsv", "--faq", "faq.csv", "--learn", "0.5")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "filed 1 covered questions of the first part as examples; asked the rest:"
    assert lines[2].split()[:3] == ["after", "coverage", "1.000"]
    bad = csbot(tmp_path, "eval", "q.tsv", "--faq", "faq.csv", "--learn", "2")
    assert bad.returncode == 2 and "'2' is not a share between 0 and 1" in bad.stderr


def test_a_bad_line_in_an_intents_file_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "intents.tsv").write_text(
        "intent\tlanguage\ttext\nstok\ten\tis it in stock?\n", encoding="utf-8"
    )
    result = csbot(tmp_path, "classify", "--evaluate", "intents.tsv")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "csbot: intents.tsv: line 2: expected intent<TAB>language<TAB>text, the intent one of "
        "stock, shipping, returns, human, faq"
    ]


def test_the_customer_voice_sets_are_well_formed() -> None:
    """Every label of the blind-written sets names an entry of its FAQ (or none)."""
    from services.faq.store import file_documents

    data = Path("tests/data")
    for shop in (
        "tuning_cosmetics",
        "tuning_electronics",
        "tuning_pets",
        "tuning_bakery",
        "holdout_camping",
        "holdout_furniture",
        "holdout_kids",
    ):
        slugs = {d.slug for d in file_documents((data / f"{shop}.csv").read_bytes(), source=shop)}
        questions = load_questions(data / f"{shop}_questions.tsv")
        assert len(questions) >= 150
        for question in questions:
            assert question.expected == "none" or question.answers <= slugs, (shop, question.line)


def test_a_question_carrying_personal_data_is_never_filed() -> None:
    from services.faq.learning import PERSONAL

    for text in (
        "주문 20240115-001234 환불 언제 돼요?",
        "call me on 010-1234-5678",
        "mail kim@example.com pls",
    ):
        assert PERSONAL.search(text), text
    for text in ("can I split the payment?", "2개 사면 배송비 무료인가요?", "送料は3000円ですか"):
        assert not PERSONAL.search(text), text
