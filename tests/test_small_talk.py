"""Greetings, thanks and goodbyes are answered in kind, in the customer's language."""

from __future__ import annotations

import pytest
from aiogram.methods import SendMessage

from db.models import HandoffSession, InboundMessage
from handlers.keyboards import HandoffOffer
from services.text.sentences import Language, t
from services.understanding.small_talk import SmallTalk, load_phrases, small_talk
from tests.harness import OTHER_USER_ID, Harness, buttons


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("hi", SmallTalk.GREETING),
        ("Hello there :)", SmallTalk.GREETING),
        ("안녕하세요~", SmallTalk.GREETING),
        ("こんにちは！", SmallTalk.GREETING),
        ("Thanks!!", SmallTalk.THANKS),
        ("Thank you so much 🙏", SmallTalk.THANKS),
        ("감사합니다 ㅎㅎ", SmallTalk.THANKS),
        ("ありがとうございました。", SmallTalk.THANKS),
        ("thanks, that's all", SmallTalk.THANKS),  # got "no reliable answer" (my probe)
        ("以上です、ありがとうございます。", SmallTalk.THANKS),
        ("bye~", SmallTalk.GOODBYE),
        ("Are you a bot?", SmallTalk.IDENTITY),
        ("봇이에요?", SmallTalk.IDENTITY),
        ("are you a bot? I want a human", None),
        ("hi, where is my order?", None),  # more than a greeting: understood as usual
        ("thanks, but can I return it?", None),
        ("ok", SmallTalk.THANKS),  # after an answer: "no reliable answer" was the reply (blind probe)
        ("알겠습니다", SmallTalk.THANKS),
        ("👍", SmallTalk.THANKS),
        ("🙏🏻", SmallTalk.THANKS),
        ("👍👍 ", SmallTalk.THANKS),
        ("?", None),  # emoji and punctuation are dropped from phrases; only these emoji are thanks
        ("🤔", None),
        ("👍 where is my order?", None),
    ],
)
def test_only_a_message_that_is_nothing_but_a_pleasantry_counts(text: str, kind: SmallTalk | None) -> None:
    assert small_talk(text) is kind


@pytest.mark.parametrize(
    ("text", "reply_key", "language"),
    [
        ("hi", "welcome", Language.EN),
        ("안녕하세요", "welcome", Language.KO),
        ("ありがとうございます！", "small_talk_thanks", Language.JA),
        ("감사합니다 ㅎㅎ", "small_talk_thanks", Language.KO),
        ("bye!", "small_talk_goodbye", Language.EN),
    ],
)
async def test_a_pleasantry_gets_a_pleasantry_not_an_apology(
    harness: Harness, text: str, reply_key: str, language: Language
) -> None:
    update = harness.updates.text(OTHER_USER_ID, text)
    [reply] = [c for c in await harness.feed(update) if isinstance(c, SendMessage)]
    assert reply.text == t(reply_key, language)
    assert buttons(reply) == []
    [row] = [r for r in await harness.rows(InboundMessage) if r.update_id == update.update_id]
    assert (row.route, row.answer_source) == ("small_talk", "template")


async def test_are_you_a_bot_gets_the_truth_and_a_person_button_not_a_handoff(harness: Harness) -> None:
    update = harness.updates.text(OTHER_USER_ID, "are you a bot?")
    calls = await harness.feed(update)
    [reply] = [c for c in calls if isinstance(c, SendMessage)]
    assert reply.text == t("small_talk_identity", Language.EN)
    assert buttons(reply) == [
        ("🙋 " + t("human_button", Language.EN), HandoffOffer(language=Language.EN).pack())
    ]
    assert await harness.rows(HandoffSession) == []  # nobody was paged for a question


async def test_a_greeting_with_a_question_answers_the_question(harness: Harness) -> None:
    update = harness.updates.text(OTHER_USER_ID, "hi, what payment methods do you accept?")
    [reply] = [c for c in await harness.feed(update) if isinstance(c, SendMessage)]
    assert reply.text != t("welcome", Language.EN)
    [row] = [r for r in await harness.rows(InboundMessage) if r.update_id == update.update_id]
    assert row.route != "small_talk"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("thank\tthanks", "line 2: kind 'thank' is not one of"),
        ("thanks\t🙏", "line 2: expected kind<TAB>phrase with words"),
        ("thanks", "line 2: expected kind<TAB>phrase"),
    ],
)
def test_a_mistake_in_the_phrases_file_is_reported_with_its_line(line: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        load_phrases(f"# phrases\n{line}\n", name="small_talk.tsv")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("네 감사해요~ 좋은하루 되세요", SmallTalk.GOODBYE),
        ("thanks, bye!", SmallTalk.GOODBYE),
        ("ありがとうございます、失礼します", SmallTalk.GOODBYE),
        ("hi, where is my order?", None),
        ("감사합니다 상담원 연결", None),
        ("are you a bot? thanks", None),
    ],
)
def test_a_message_of_several_pleasantries_is_one(text: str, kind: SmallTalk | None) -> None:
    assert small_talk(text) is kind
