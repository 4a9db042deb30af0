"""The policies a shop's numbers belong to, read by the words that name them (`services.llm.topics`)."""

from __future__ import annotations

import pytest

from services.llm.topics import AFTER_REACH, Topic, covers, named_before, theme, topics


def theme_of(clause: str, number: str) -> frozenset[Topic]:
    start = clause.index(number)
    return theme(clause, start, start + len(number))


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("반품 배송비는 6,000원", {Topic.RETURN_SHIPPING}),
        ("반품 시 배송비는", {Topic.RETURN_SHIPPING}),  # a policy with the shipping fee is its shipping
        ("exchange shipping is 6,000 won", {Topic.EXCHANGE_SHIPPING}),
        ("往復送料", {Topic.RETURN_SHIPPING}),
        ("제주 추가 배송비", {Topic.REMOTE}),  # the surcharge, not the shipping fee
        ("済州島の追加送料", {Topic.REMOTE}),
        ("ギフトラッピング", {Topic.WRAPPING}),
        ("Damaged on arrival: report within 48 hours", {Topic.DAMAGE}),
        # a return named as the event a time runs from is no topic
        ("返品された商品が倉庫に到着してから3営業日以内に返金", {Topic.REFUND}),
        ("반품 상품이 창고에 도착한 뒤 3영업일 이내에 환불", {Topic.REFUND}),
        ("after the returned item reaches our warehouse", set()),
        ("Linen tablecloth 150x220 cm, 39,000원", set()),
    ],
)
def test_the_topics_a_text_names(text: str, named: set[Topic]) -> None:
    assert topics(text) == named


@pytest.mark.parametrize(
    ("clause", "number", "named"),
    [
        # Korean and Japanese name the subject before the number
        ("교환은 받으신 날로부터 48시간 안에", "48시간", {Topic.EXCHANGE}),
        ("받으신 뒤 48시간 안에 알려 주시면 환불해 드려요", "48시간", set()),
        # English may name it just after, the nearer side wins
        ("plus 6,000원 wrapping and 3,000원 shipping", "3,000원", {Topic.SHIPPING}),
        ("plus 6,000원 wrapping and 3,000원 shipping", "6,000원", {Topic.WRAPPING}),
        ("Gift wrapping is 3,000 won", "3,000 won", {Topic.WRAPPING}),
        # ... but not from far off
        ("We can send it within 48 hours, and the replacement is free", "48 hours", set()),
        ("반품하시면 배송비는 6,000원", "6,000원", {Topic.RETURN_SHIPPING}),
        # a Korean or Japanese time limit of what is named right after it
        ("倉庫に到着してから3営業日以内に返金いたします", "3営業日", {Topic.REFUND}),
        ("창고 도착 후 3영업일 이내에 환불해 드려요", "3영업일", {Topic.REFUND}),
        # a number in brackets is said of what they name, one before them is not
        ("send a photo within 48 hours (the 7-day window is for normal returns)", "7-day", {Topic.RETURN}),
        ("send a photo within 48 hours (the 7-day window is for normal returns)", "48 hours", {Topic.DAMAGE}),
        ("Returns are accepted within 7 days (refunds take 3 business days)", "7 days", {Topic.RETURN}),
        # ... or of the word they are written against
        ("교환(48시간 이내)은 가능합니다", "48시간", {Topic.EXCHANGE}),
        ("Exchanges (within 48 hours) are free", "48 hours", {Topic.EXCHANGE}),
        ("交換（48時間以内）", "48時間", {Topic.EXCHANGE}),
        ("Returns (refunds take 3 business days)", "3 business days", {Topic.REFUND}),
        ("Returns are fine, (and within 48 hours)", "48 hours", set()),
        # a photo names the damage report only where nothing else is named before it
        ("사진을 찍어 48시간 안에", "48시간", {Topic.DAMAGE}),
        ("반품 시 사진과 함께 7일 이내", "7일", {Topic.RETURN}),
    ],
)
def test_the_policy_a_number_is_said_of(clause: str, number: str, named: set[Topic]) -> None:
    assert theme_of(clause, number) == named


def test_a_policy_covers_its_own_fee() -> None:
    assert covers(frozenset({Topic.RETURN_SHIPPING}), frozenset({Topic.RETURN}))
    assert not covers(frozenset({Topic.RETURN_SHIPPING}), frozenset({Topic.SHIPPING}))
    assert not covers(frozenset({Topic.RETURN}), frozenset({Topic.RETURN_SHIPPING}))


def test_a_clause_naming_nothing_goes_on_about_its_sentence() -> None:
    """ "破損のご連絡は、お届けから7日以内" says the 7 days of damage reports; a clause naming its own
    policy keeps it."""
    clause = "お届けから7日以内にお知らせください"
    start = clause.index("7日")
    assert theme(clause, start, start + 2, earlier="破損のご連絡は、") == {Topic.DAMAGE}
    assert theme(clause, start, start + 2) == frozenset()
    # ... and goes on to what it names after a time limit: the refund, not the return named before
    later = "倉庫に到着してから3営業日以内に"
    at = later.index("3営業日")
    assert theme(later, at, at + 4, earlier="返品でも、", later="元のお支払い方法へ返金いたします") == {
        Topic.REFUND
    }
    own = "返品はお届けから7日以内"
    at = own.index("7日")
    assert theme(own, at, at + 2, earlier="破損のご連絡は、") == {Topic.RETURN}


def test_where_the_last_policy_named_before_a_place_ends() -> None:
    text = "배송비3,000원, 반품비"
    assert named_before(text, 3) == 3  # a name ending right where the number starts is before it
    assert named_before(text, 2) == -1
    assert named_before(text, len(text)) == len(text)


def test_a_policy_named_after_an_english_number_within_reach() -> None:
    """The policy named first after the number counts where its name starts within `AFTER_REACH`."""
    number = "It is 6,000 won"
    start, end = number.index("6"), len(number)
    within = f"{number}{' ' * AFTER_REACH}return shipping"
    beyond = f"{number}{' ' * (AFTER_REACH + 1)}return shipping"
    assert theme(within, start, end) == {Topic.RETURN_SHIPPING}
    assert theme(beyond, start, end) == frozenset()
