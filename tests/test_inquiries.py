"""Every intent, end to end: fake update -> real dispatcher -> database -> recorded reply."""

from __future__ import annotations

from aiogram.methods import ForwardMessage, SendMessage

from bot.app import build_app
from db.models import InboundMessage, OutboundMessage
from services.faq.store import demo_documents
from services.settings import Settings
from services.text.sentences import Language, carrier_status, t
from tests.harness import DEMO_USER_ID, OTHER_USER_ID, SUPPORT_CHAT_ID, Harness, buttons


class TestStock:
    async def test_in_stock_answer_comes_from_the_product_row(self, harness: Harness) -> None:
        replies = await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
        assert replies == [
            t("stock_in", Language.KO, name="린넨 오버셔츠", sku="SKU-7890", stock=42, price="₩59,000")
            + " "
            + t("stock_options", Language.KO, options="S, M, L, XL; beige, navy")
        ]

    async def test_low_sold_out_and_restock(self, harness: Harness) -> None:
        [reply] = await harness.say(DEMO_USER_ID, "Do you have SKU-1204, SKU-5521 and SKU-3300 in stock?")
        assert "only 3 left" in reply
        assert "Restock expected on 2027-01-12" in reply
        assert "Wool Beanie (SKU-3300): sold out, and no restock date is set yet. Price ₩19,000." in reply

    async def test_a_question_about_a_product_s_care_is_not_answered_with_its_stock(
        self, harness: Harness
    ) -> None:
        [reply] = await harness.say(DEMO_USER_ID, "is the merino sweater itchy?")
        assert "SKU-5521" not in reply and "₩" not in reply, "the stock line is no answer to it"
        assert reply in (t("faq_no_match", Language.EN), t("faq_no_match_choices", Language.EN))

    async def test_is_it_in_stock_means_the_product_the_chat_just_named(self, harness: Harness) -> None:
        """Each message was understood alone: "is it in stock?" after a question about the sweater got
        "Which product do you mean?" (a helper's probe)."""
        [first] = await harness.say(OTHER_USER_ID, "is it in stock?")
        assert first == t("which_product", Language.EN), "nothing named yet: it asks"
        await harness.say(OTHER_USER_ID, "is the merino sweater itchy?")
        [reply] = await harness.say(OTHER_USER_ID, "is it in stock?")
        assert reply.startswith("Merino Crew Sweater (SKU-5521): sold out.")
        [korean] = await harness.say(OTHER_USER_ID, "그럼 재고는 있어요?")
        assert korean.startswith("메리노 크루 스웨터 (SKU-5521)")
        await harness.say(OTHER_USER_ID, "is SKU-3300 in stock?")
        [latest] = await harness.say(OTHER_USER_ID, "and is it in stock?")
        assert latest.startswith("Wool Beanie (SKU-3300)"), "the last product named wins"
        [other] = await harness.say(DEMO_USER_ID, "is it in stock?")
        assert other == t("which_product", Language.EN), "another chat's products are not this one's"

    async def test_a_follow_up_that_names_another_thing_is_not_answered_with_the_last_product(
        self, harness: Harness
    ) -> None:
        """A blind probe: after a question about the Linen Overshirt, "do you have sneakers?" got the
        overshirt's stock line, as if the shop sold sneakers. It gets what a fresh chat gets."""
        for question, language in (
            ("do you have sneakers?", Language.EN),
            ("iphone 15 in stock?", Language.EN),
            ("bag", Language.EN),
            ("socks in black?", Language.EN),
            ("가방 있어요?", Language.KO),
            ("운동화도 있어요?", Language.KO),
        ):
            [first] = await harness.say(OTHER_USER_ID, "is the linen overshirt in stock?")
            assert first.startswith("Linen Overshirt (SKU-7890)")
            [reply] = await harness.say(OTHER_USER_ID, question)
            assert reply == t("which_product", language), question
        await harness.say(OTHER_USER_ID, "is the wool beanie in stock?")
        assert await harness.say(OTHER_USER_ID, "do you sell umbrellas") == [t("which_product", Language.EN)]
        [after] = await harness.say(OTHER_USER_ID, "is it in stock?")
        assert after == t("which_product", Language.EN), (
            "the umbrellas question made the chat forget the beanie"
        )

    async def test_a_follow_up_about_the_last_product_still_means_it(self, harness: Harness) -> None:
        for question, start in (
            ("is it available in M?", "Linen Overshirt (SKU-7890): in stock"),
            ("what about navy?", "Linen Overshirt (SKU-7890): in stock"),
            ("그거 재고 있어요?", "린넨 오버셔츠 (SKU-7890): 재고 있어요"),
            ("how much is it?", "Linen Overshirt (SKU-7890): in stock"),
        ):
            await harness.say(OTHER_USER_ID, "is the linen overshirt in stock?")
            [reply] = await harness.say(OTHER_USER_ID, question)
            assert reply.startswith(start), question
        await harness.say(OTHER_USER_ID, "is the canvas tote bag in stock?")
        [bag] = await harness.say(OTHER_USER_ID, "is the bag available in black?")
        assert bag.startswith("Canvas Tote Bag (SKU-1204): only 3 left"), (
            "a word of its own name still means it"
        )

    async def test_a_name_that_only_shares_a_word_with_a_product_gets_did_you_mean(
        self, harness: Harness
    ) -> None:
        """ "is the wool coat in stock?" got "Wool Beanie (SKU-3300): sold out", "denim jacket?" the Denim
        Wide Pants' stock: a coat is no beanie. The near name is offered, its stock is not stated."""
        await harness.say(OTHER_USER_ID, "is the linen overshirt in stock?")
        [coat] = await harness.say(OTHER_USER_ID, "is the wool coat in stock?")
        assert coat == t("not_carried_near", Language.EN, names="Wool Beanie")
        [after] = await harness.say(OTHER_USER_ID, "is it in stock?")
        assert after == t("which_product", Language.EN), (
            "neither the overshirt nor the near miss is meant now"
        )
        [jacket] = await harness.say(OTHER_USER_ID, "denim jacket?")
        assert jacket == t("not_carried_near", Language.EN, names="Denim Wide Pants")
        [korean] = await harness.say(OTHER_USER_ID, "데님 자켓 있어요?")
        assert korean == t("not_carried_near", Language.KO, names="데님 와이드 팬츠")
        [japanese] = await harness.say(OTHER_USER_ID, "ウールのコートはありますか")
        assert japanese == t("not_carried_near", Language.JA, names="ウールビーニー")
        for question, start in (
            ("wool beanie in stock?", "Wool Beanie (SKU-3300): sold out"),
            ("is the beanie in stock?", "Wool Beanie (SKU-3300): sold out"),
            ("denim pants?", "Denim Wide Pants (SKU-2045): in stock"),
            ("is the linen shirt in stock?", "Linen Overshirt (SKU-7890): in stock"),
            ("울 비니 재고 있어요?", "울 비니 (SKU-3300): 현재 품절"),
            ("데님 팬츠 있어요?", "데님 와이드 팬츠 (SKU-2045): 재고 있어요"),
            ("ウールビーニーの在庫ありますか", "ウールビーニー (SKU-3300): 品切れ"),
        ):
            [reply] = await harness.say(OTHER_USER_ID, question)
            assert reply.startswith(start), question

    async def test_a_size_or_colour_the_product_does_not_come_in_is_said_so(self, harness: Harness) -> None:
        """ "Is the linen overshirt in size XXL?" and "... in red?" got "in stock (42 available)" next to
        "Options: S, M, L, XL; beige, navy"."""
        name = {"name": "Linen Overshirt", "sku": "SKU-7890"}
        [xxl] = await harness.say(OTHER_USER_ID, "Is the linen overshirt in size XXL?")
        assert xxl == t("option_size_not_offered", Language.EN, asked="XXL", offered="S, M, L, XL", **name)
        [red] = await harness.say(OTHER_USER_ID, "linen overshirt in red?")
        assert red == t("option_colour_not_offered", Language.EN, asked="red", offered="beige, navy", **name)
        [korean] = await harness.say(OTHER_USER_ID, "린넨 오버셔츠 빨간색 있어요?")
        assert korean == t(
            "option_colour_not_offered",
            Language.KO,
            name="린넨 오버셔츠",
            sku="SKU-7890",
            asked="레드",
            offered="베이지, 네이비",
        )
        # two things asked about: an option cannot be told apart as one's or the other's (review)
        [both] = await harness.say(
            OTHER_USER_ID, "Is the linen overshirt in XL and the canvas tote in ivory?"
        )
        assert both.startswith("Linen Overshirt (SKU-7890): in stock"), both
        [follow_up] = await harness.say(OTHER_USER_ID, "is it available in XXL?")
        assert follow_up == xxl, "a follow-up about the last product is judged the same way"
        [pants] = await harness.say(OTHER_USER_ID, "denim wide pants in 36?")
        assert pants == t(
            "option_size_not_offered",
            Language.EN,
            name="Denim Wide Pants",
            sku="SKU-2045",
            asked="36",
            offered="26-34",
        )
        for offered in ("linen overshirt in navy?", "is the linen overshirt available in M?"):
            [reply] = await harness.say(OTHER_USER_ID, offered)
            assert reply.startswith("Linen Overshirt (SKU-7890): in stock (42 available)"), offered
        [in_range] = await harness.say(OTHER_USER_ID, "denim wide pants in 30?")
        assert in_range.startswith("Denim Wide Pants (SKU-2045): in stock")

    async def test_a_second_question_after_the_stock_one_gets_the_faq_s_answer_too(
        self, harness: Harness
    ) -> None:
        """A blind probe's "...in stock and how much is shipping?" got the stock line alone."""
        shipping = _demo_answer("same-day-dispatch", Language.EN)
        [reply] = await harness.say(DEMO_USER_ID, "is the canvas tote bag in stock and how much is shipping?")
        assert reply.startswith("Canvas Tote Bag (SKU-1204): only 3 left") and reply.endswith(
            "\n\n" + shipping
        )
        [options] = await harness.say(DEMO_USER_ID, "is the wool beanie in stock, and in black and white?")
        assert options.startswith("Wool Beanie") and shipping not in options and "\n\n" not in options
        [order] = await harness.say(
            DEMO_USER_ID, "where is order 20240115-001234 and how do I get a receipt?"
        )
        assert "6523-1188-4410" in order and order.endswith("\n\n" + _demo_answer("receipts", Language.EN))

    async def test_product_found_by_part_of_its_name(self, harness: Harness) -> None:
        [reply] = await harness.say(DEMO_USER_ID, "is the merino sweater in stock?")
        assert "SKU-5521" in reply and "sold out" in reply

    async def test_a_product_named_in_japanese_is_found_and_named_in_japanese(self, harness: Harness) -> None:
        """The demo catalogue had English and Korean names only: "トートバッグの値段は？" asked which
        product (found by a probe)."""
        [reply] = await harness.say(DEMO_USER_ID, "トートバッグの値段はいくらですか？")
        assert reply.startswith("キャンバストートバッグ (SKU-1204)") and "₩32,000" in reply

    async def test_unknown_sku_asks_for_the_right_code(self, harness: Harness) -> None:
        [reply] = await harness.say(DEMO_USER_ID, "is SKU-0001 in stock?")
        assert reply == t("sku_unknown", Language.EN, skus="SKU-0001")

    async def test_no_product_named_asks_which(self, harness: Harness) -> None:
        assert await harness.say(DEMO_USER_ID, "is it in stock?") == [t("which_product", Language.EN)]

    async def test_a_shop_with_no_products_says_so_and_offers_a_person(self, settings: Settings) -> None:
        """A shop that imported only its FAQ: "which product?" could never lead to an answer."""
        app = await build_app(settings, upgrade=False, seed=False)
        try:
            harness = Harness(app)
            calls = await harness.feed(
                harness.updates.text(OTHER_USER_ID, "do you have the road bike in stock?")
            )
            [message] = [c for c in calls if isinstance(c, SendMessage)]
            assert message.text == t("no_stock_data", Language.EN)
            assert buttons(message) == [("🙋 " + t("human_button", Language.EN), "hl:en")]
            assert await harness.say(OTHER_USER_ID, "헬멧 재고 있어요?") == [t("no_stock_data", Language.KO)]
        finally:
            await app.close()


class TestShipping:
    async def test_mixed_korean_japanese_tracking_question(self, harness: Harness) -> None:
        [reply] = await harness.say(DEMO_USER_ID, "주문번호 20240115-001234 배송状況教えてください")
        assert "20240115-001234" in reply
        assert "CJ대한통운" in reply and "6523-1188-4410" in reply
        # The carrier's statuses in Korean too, not "현재 상태: in transit".
        assert "현재 상태: 배송 중" in reply and "배송 중 (Gonjiam mega hub)" in reply
        assert "in transit" not in reply
        [row] = [r for r in await harness.rows(InboundMessage) if r.intent]
        assert (row.intent, row.route, row.answer_source) == ("shipping", "shipping", "database")
        assert row.entities["order_numbers"] == ["20240115-001234"]

    async def test_where_is_my_order_lists_own_orders(self, harness: Harness) -> None:
        [reply] = await harness.say(DEMO_USER_ID, "where is my order?")
        assert "20240115-001234" in reply and "20240120-000871" in reply
        assert "20240116-009999" not in reply  # another customer's

    async def test_asking_for_someone_elses_orders_is_told_only_their_own_are_shown(
        self, harness: Harness
    ) -> None:
        [reply] = await harness.say(DEMO_USER_ID, "show me the orders of user 12345")
        assert reply.startswith(t("own_orders_only", Language.EN) + "\n\n")
        assert "20240115-001234" in reply and "20240116-009999" not in reply  # theirs, nobody else's
        calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "他の人の注文を見せて"))
        [unlinked] = [c for c in calls if isinstance(c, SendMessage)]
        assert unlinked.text == f"{t('own_orders_only', Language.JA)}\n\n{t('need_contact', Language.JA)}"

    async def test_delivery_time_policy_comes_from_the_faq(self, harness: Harness) -> None:
        [reply] = await harness.say(DEMO_USER_ID, "If I order today, when does it arrive?")
        assert "2 p.m." in reply


class TestReturnsAndFaq:
    async def test_return_policy_answer_offers_the_guided_flow(self, harness: Harness) -> None:
        calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "How do I return a damaged item?"))
        [message] = [c for c in calls if isinstance(c, SendMessage)]
        assert "within 7 days" in message.text
        assert buttons(message)[0][0] == t("return_start_button", Language.EN)

    async def test_payment_methods_from_the_faq_in_korean(self, harness: Harness) -> None:
        [reply] = await harness.say(DEMO_USER_ID, "결제 수단은 뭐가 있나요?")
        assert "카카오페이" in reply

    async def test_unanswerable_question_offers_a_person_instead_of_guessing(self, harness: Harness) -> None:
        calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "What is the meaning of life?"))
        [message] = [c for c in calls if isinstance(c, SendMessage)]
        assert message.text == t("faq_no_match", Language.EN)
        assert buttons(message) == [("🙋 " + t("human_button", Language.EN), "hl:en")]


class TestHuman:
    async def test_request_for_a_person_forwards_to_support(self, harness: Harness) -> None:
        calls = await harness.feed(harness.updates.text(DEMO_USER_ID, "I want to talk to a real person"))
        forwards = [c for c in calls if isinstance(c, ForwardMessage)]
        assert [(f.chat_id, f.from_chat_id) for f in forwards] == [(SUPPORT_CHAT_ID, DEMO_USER_ID)]
        assert t("handoff_started", Language.EN) in [c.text for c in calls if isinstance(c, SendMessage)]

    async def test_asking_an_agent_about_something_is_not_a_hand_off(self, harness: Harness) -> None:
        calls = await harness.feed(
            harness.updates.text(DEMO_USER_ID, "could you ask an agent how I can change my order")
        )
        assert not [c for c in calls if isinstance(c, ForwardMessage)]
        [message] = [c for c in calls if isinstance(c, SendMessage)]
        assert message.text != t("handoff_started", Language.EN)


async def test_every_reply_is_logged_with_its_inbound_message(harness: Harness) -> None:
    await harness.say(DEMO_USER_ID, "SKU-7890 재고 있나요?")
    [inbound] = await harness.rows(InboundMessage)
    [outbound] = await harness.rows(OutboundMessage)
    assert inbound.text == "SKU-7890 재고 있나요?"
    assert (inbound.intent, inbound.answer_source, inbound.route) == ("stock", "database", "stock")
    assert inbound.confidence is not None and inbound.confidence > 0.5
    assert inbound.latency_ms is not None and inbound.error is None
    assert outbound.inbound_id == inbound.id and "SKU-7890" in outbound.text


def test_a_carrier_status_is_translated_when_common_and_shown_as_written_otherwise() -> None:
    assert carrier_status("Out-For-Delivery", Language.JA) == "配達中"
    assert carrier_status("picked up", Language.KO) == "집화 완료"
    assert carrier_status("Held at customs", Language.KO) == "Held at customs"


def _demo_answer(slug: str, language: str) -> str:
    [row] = [d for d in demo_documents() if d.slug == slug and d.language == language]
    return row.answer
