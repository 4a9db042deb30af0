"""A message without words is answered in the conversation's language, not in English."""

from __future__ import annotations

import pytest
from aiogram.methods import SendMessage
from aiogram.types import User

from handlers.context import language_of
from services.text.normalize import detect_language
from services.text.sentences import Language, help_text, t
from services.understanding.reply_language import has_words
from tests.harness import OTHER_USER_ID, Harness


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("20240115-001234", False),
        ("SKU-7890", False),
        ("RMA-20240001", False),
        ("2", False),
        ("👍", False),
        ("ok", True),
        ("네", True),
        ("where is SKU-7890", True),
        ("order 12", True),  # words and a number, not an id
        ("rma 20240001", False),
        ("STR-ROAD-M", False),
        ("HLM-01", False),
        ("Wi-Fi", True),
        ("/return", False),
        ("/help@csbot", False),
        ("/return 20240115-001234", False),
        ("/canary candidate 100", False),  # an admin command's words do not tell a customer's language
    ],
)
def test_ids_numbers_and_emoji_carry_no_language(text: str, words: bool) -> None:
    assert has_words(text) is words


def test_without_words_the_app_s_language_decides_even_before_any_conversation() -> None:
    """What the dispatcher's own notes ("we received it, the answer comes later") are written in."""
    korean_app = User(id=1, is_bot=False, first_name="A", language_code="ko")
    assert language_of(korean_app, "20240115-001234") == "ko"
    assert language_of(korean_app, "👍") == "ko"
    assert language_of(korean_app, "where is it?") == "en"
    assert language_of(None, "12") == "en"


async def test_an_order_number_alone_is_answered_in_the_language_of_the_conversation(
    harness: Harness,
) -> None:
    await harness.say(OTHER_USER_ID, "배송 조회하고 싶어요")
    [reply] = [
        c
        for c in await harness.feed(harness.updates.text(OTHER_USER_ID, "20240115-001234"))
        if isinstance(c, SendMessage)
    ]
    assert reply.text == t("need_contact", Language.KO)


async def test_with_nothing_said_before_a_wordless_message_gets_the_apps_language(harness: Harness) -> None:
    # The harness's customers have a Korean Telegram app.
    await harness.say(OTHER_USER_ID, "/help")  # a command says nothing of the conversation's language
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "20240115-001234"))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text == t("need_contact", Language.KO)


async def test_an_english_conversation_stays_english_in_a_korean_app(harness: Harness) -> None:
    await harness.say(OTHER_USER_ID, "I want to check an order")
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, "20240115-001234"))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text == t("need_contact", Language.EN)


@pytest.mark.parametrize("command", ["/help", "/bot", "/nonsense", "/return"])
async def test_a_command_is_answered_in_the_language_of_the_conversation(
    harness: Harness, command: str
) -> None:
    """A blind probe's English conversation got Korean replies to its commands: the app's language."""
    await harness.say(OTHER_USER_ID, "is the wool beanie in stock?")
    calls = await harness.feed(harness.updates.text(OTHER_USER_ID, command))
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    keys = ("handoff_ended", "unknown_command", "need_contact", "return_choose_order")
    assert reply.text in {t(key, Language.EN) for key in keys} | {
        help_text(Language.EN, product="Canvas Tote Bag", order="12345678-901234")
    }, reply.text


def test_a_language_code_is_read_one_way() -> None:
    """Telegram's codes carry a region ("ja-JP"); stored and button codes are exact; anything the
    bot does not speak reads as English, or as unknown where the caller decides."""
    assert Language.of("ja-JP") is Language.JA and Language.of("KO") is Language.KO
    assert Language.of("zh-hans") is Language.EN and Language.of(None) is Language.EN
    assert Language.of("de", default=Language.KO) is Language.KO
    assert Language.known("en") is Language.EN
    assert Language.known("kr") is None and Language.known("ja-JP") is None and Language.known(None) is None


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("SKU-7890の在庫はありますか", Language.JA),
        ("SKU-7890재고있나요", Language.KO),
        ("BEAN-COL-200は再入荷しますか", Language.JA),
        ("MC20261130-0003どこですか", Language.JA),
    ],
)
def test_a_code_glued_to_words_leaves_the_words(text: str, language: Language) -> None:
    assert has_words(text) and detect_language(text) == language


def test_every_sentence_is_in_every_language() -> None:
    from services.text.sentences import untranslated

    assert untranslated() == {}
