"""What a product may be used with, named in Korean, English and Japanese, and the bot saying it
does not know."""

from __future__ import annotations

import pytest

from services.llm.uses import Use, uses, uses_claimed

WORDS = {
    Use.DISHWASHER: ("dishwasher-safe", "식기세척기 사용 가능", "食洗機対応"),
    Use.MICROWAVE: ("microwave", "전자레인지", "電子レンジ"),
    Use.OVEN: ("oven-safe", "오븐", "オーブン"),
    Use.INDUCTION: ("induction hob", "인덕션", "IH対応"),
    Use.OPEN_FLAME: ("gas stove", "직화", "直火"),
    Use.FREEZER: ("freezer", "냉동실", "冷凍庫"),
    Use.WASHING_MACHINE: ("machine-washable", "세탁기", "洗濯機"),
    Use.TUMBLE_DRYER: ("tumble-dry", "건조기", "乾燥機"),
}


@pytest.mark.parametrize(("use", "text"), [(use, text) for use, texts in WORDS.items() for text in texts])
def test_each_use_is_named_in_three_languages(use: Use, text: str) -> None:
    assert uses(text) == {use}


def test_every_use_has_its_words() -> None:
    assert set(WORDS) == set(Use)


@pytest.mark.parametrize("text", ["The mug holds 350 ml.", "배송은 1~2일 걸려요.", "発送は当日です。"])
def test_other_words_name_no_use(text: str) -> None:
    assert uses(text) == frozenset()


def test_a_dishwasher_dryer_is_the_dishwasher_and_ih_is_only_capital() -> None:
    assert uses("食器洗い乾燥機") == {Use.DISHWASHER}
    assert uses("식기 건조기") == frozenset()
    assert uses("this is a high shelf") == frozenset()  # "ih" inside a word


@pytest.mark.parametrize(
    ("sentences", "claimed"),
    [
        (["The pot works on induction."], {Use.INDUCTION}),
        (["I don't have details about oven use."], set()),
        (["IH対応につきましては、ご案内できる情報がございません。"], set()),
        (["오븐 사용 여부는 정보가 없어요.", "전자레인지는 사용하실 수 있어요."], {Use.MICROWAVE}),
    ],
)
def test_a_use_is_claimed_unless_its_sentence_does_not_know(sentences: list[str], claimed: set[Use]) -> None:
    assert uses_claimed(sentences) == claimed
