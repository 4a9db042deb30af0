"""The FAQ file format: what a shop's spreadsheet export looks like, and every way it goes wrong."""

from __future__ import annotations

import pytest

from services.faq.entry import FaqDocument
from services.faq.files import FaqFileError, format_faq_csv, parse_faq_csv
from services.text.sentences import Language

HEADER = "slug,language,question,answer,tags,examples\n"


def test_rows_with_tags_and_examples_split_on_bars() -> None:
    rows = parse_faq_csv(
        (
            HEADER
            + 'gift-cards,en,Do you sell gift cards?,"Yes, from $10.",payment|gift,'
            + "Can I buy a voucher?|e-gift\n"
            + "gift-cards,ko,기프트카드 판매하나요?,네.,,\n"
        ).encode()
    )
    assert rows == [
        FaqDocument(
            "gift-cards",
            Language.EN,
            "Do you sell gift cards?",
            "Yes, from $10.",
            ("payment", "gift"),
            ("Can I buy a voucher?", "e-gift"),
        ),
        FaqDocument("gift-cards", Language.KO, "기프트카드 판매하나요?", "네."),
    ]


def test_export_format_reads_back_the_same() -> None:
    rows = [
        FaqDocument("a", Language.EN, "Q, with comma?", 'Line one\nline "two"', ("x", "y"), ("other way",)),
        FaqDocument("b", Language.JA, "質問", "答え"),
    ]
    assert parse_faq_csv(format_faq_csv(rows).encode()) == rows


def test_a_byte_order_mark_from_spreadsheet_exports_is_fine() -> None:
    assert parse_faq_csv(("\ufeff" + HEADER + "a,en,Q?,A.,,\n").encode())[0].slug == "a"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("a,en,Q?,A.,,\nb,en,,A.,,\n", "line 3: field 'question' is empty"),
        ("a,en,Q?,A.,,\nb,english,Q?,A.,,\n", "line 3: field 'language' 'english'"),
        ("a,en,Q?,A.,,\nBad Slug,en,Q?,A.,,\n", "line 3: field 'slug' 'Bad Slug'"),
        ("a,en,Q?,A.,,\na,en,Q again?,A.,,\n", "line 3: slug 'a' in language 'en' already on line 2"),
        ("a,en,Q?,A.,,\nb,en,Q, unquoted?,A.,,\n", "line 3: expected 6 fields"),
        ('a,en,"multi\nline question?",A.,,\nb,en,Q?,,,\n', "line 4: field 'answer' is empty"),
    ],
)
def test_a_bad_row_names_its_line_and_field(body: str, message: str) -> None:
    with pytest.raises(FaqFileError, match=message.replace("(", r"\(").replace("?", r"\?")):
        parse_faq_csv((HEADER + body).encode(), source="faq.csv")


def test_wrong_header_and_empty_file_and_bad_encoding() -> None:
    with pytest.raises(FaqFileError, match=r"line 1: the header must be .*missing: answer"):
        parse_faq_csv(b"slug,language,question\n")
    with pytest.raises(FaqFileError, match="the file is empty"):
        parse_faq_csv(b"")
    with pytest.raises(FaqFileError, match="no FAQ entries"):
        parse_faq_csv(HEADER.encode())
    with pytest.raises(FaqFileError, match="line 2: not UTF-8"):
        parse_faq_csv(HEADER.encode() + "a,ko,질문,답\n".encode("euc-kr"))


def test_every_problem_of_a_faq_file_is_named_and_language_codes_are_checked() -> None:
    data = (
        "slug,language,question,answer\n"
        "hours,kr,영업시간?,10시부터\n"
        "hours,jp,営業時間は？,10時から\n"
        "bad slug,en,Q?,A.\n"
        "wrap,zh,包装?,可以\n"
        "ok,en,Hours?,From ten.\n"
    ).encode()
    with pytest.raises(FaqFileError) as raised:
        parse_faq_csv(data, source="faq.csv")
    assert raised.value.lines == (
        "faq.csv: line 2: field 'language' 'kr' is not a language code; use 'ko'",
        "faq.csv: line 3: field 'language' 'jp' is not a language code; use 'ja'",
        "faq.csv: line 4: field 'slug' 'bad slug' must be lower-case letters, digits, '-', '_' or '.'",
        "faq.csv: line 5: field 'language' 'zh' must be one of ko, en, ja",
    )
