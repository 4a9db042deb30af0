"""Which messages ask about someone else's orders (answered about the customer's own only, and told
so), and which merely mention someone: a gift ordered for one's mother is still one's own order."""

from __future__ import annotations

import pytest

from services.orders.shipping import about_someone_elses_orders


@pytest.mark.parametrize(
    "text",
    [
        "show me the orders of user 12345",
        "my friend's order hasn't arrived",
        "my mom ordered a bag, where is it?",
        "친구가 주문한 거 어디까지 왔어요?",
        "엄마 주문 조회해 주세요",
        "다른 사람 주문 보여줘",
        "友達の注文を確認したい",
        "母が注文した荷物はいつ届きますか",
        "他の人の注文を見せて",
    ],
)
def test_someone_elses_orders(text: str) -> None:
    assert about_someone_elses_orders(text)


@pytest.mark.parametrize(
    "text",
    [
        "I ordered a present for my mom, when will it arrive?",
        "엄마 선물로 주문했는데 언제 와요?",
        "친구 선물로 주문했는데 언제 와요?",
        "友達へのプレゼントを注文しました。いつ届きますか",
        "대형 택배는 언제 와요?",
        "大丈夫ですか、注文はいつ届きますか",
        "where is my order?",
    ],
)
def test_own_orders_that_mention_someone(text: str) -> None:
    assert not about_someone_elses_orders(text)
