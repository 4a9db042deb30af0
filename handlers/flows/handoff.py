"""Opening a hand-off to a person and forwarding the customer's messages to the support chat.

Started by `/human` and the hand-off button (handlers/handoff.py) and by a message the inquiry
router hands to a person (handlers/inquiries.py). Staff's side (a reply, a claim, resolving) is
here too, for both fronts: the support chat (handlers/handoff.py) and the console (bot/console).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Message, ReplyParameters
from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import HandoffSession, HandoffVia
from handlers.context import language_of, say
from handlers.keyboards import rating_keyboard
from services.admin.conversation_log import Interaction
from services.handoff import inbox
from services.handoff import sessions as handoff
from services.handoff.brief import staff_brief
from services.replies import AnswerSource, ReplyRoute
from services.settings import Settings
from services.shop.sources.factory import shop_data
from services.text.sentences import Language, t
from services.text.split import split_text

logger = logging.getLogger(__name__)


async def start_handoff(
    message: Message,
    bot: Bot,
    session: AsyncSession,
    settings: Settings,
    interaction: Interaction,
    *,
    question_id: int | None = None,
    own_message: bool = True,
    language: Language | None = None,
) -> bool:
    """Open a hand-off: a brief for staff, then the customer's question forwarded; whether staff
    have it (False: no support chat, or it could not be reached; the bot keeps answering).

    `message` is forwarded when it is the customer's (`own_message`); the "Talk to a
    person" button sits on the bot's answer, so there `question_id` names the customer's
    last message instead (None: nothing to forward, the brief's last turns still show it).
    """
    assert message.from_user is not None
    user = message.from_user
    language = language or language_of(user, message.text or "")
    interaction.routed(ReplyRoute.HUMAN, AnswerSource.HANDOFF)
    if settings.support_chat_id is None:
        # Nobody to relay to: record the request for the admins and keep the bot answering.
        logger.warning("hand-off requested but CSBOT_SUPPORT_CHAT_ID is not set", extra={"user_id": user.id})
        await handoff.open_handoff(session, user_id=user.id, chat_id=message.chat.id, language=language)
        await handoff.close_handoff(session, user.id)
        await say(message, t("handoff_unavailable", language))
        return False
    opened = await handoff.open_handoff(session, user_id=user.id, chat_id=message.chat.id, language=language)
    header = await staff_brief(
        session,
        shop_data(session, settings),
        handoff_id=opened.id,
        user_id=user.id,
        chat_id=message.chat.id,
        display_name=user.full_name,
        username=user.username,
        zone=settings.shop_policy().timezone,
    )
    try:
        sent = await bot.send_message(settings.support_chat_id, header, parse_mode=None)
        await handoff.remember_forward(
            session, opened, support_chat_id=settings.support_chat_id, support_message_id=sent.message_id
        )
        await inbox.record_brief(session, opened, header)
    except TelegramAPIError:
        logger.exception(
            "could not reach the support chat", extra={"support_chat_id": settings.support_chat_id}
        )
        await handoff.close_handoff(session, user.id)  # the bot keeps answering meanwhile
        await say(message, t("handoff_forward_failed", language))
        return False
    await say(message, t("handoff_started", language))
    question = message.text or message.caption or ""
    if own_message:
        question_id = message.message_id
    elif question_id is not None:
        question = await handoff.question_text(session, user_id=user.id, chat_id=message.chat.id)
    if question_id is not None:
        await forward_to_support(
            bot, session, settings, user.id, message.chat.id, question_id, language, text=question
        )
    return True


async def forward_to_support(
    bot: Bot,
    session: AsyncSession,
    settings: Settings,
    user_id: int,
    chat_id: int,
    message_id: int,
    language: Language,
    *,
    text: str,
) -> bool:
    """Forward one customer message to the support chat, remember whose it is, and put it in the
    hand-off's thread (`text`: what the console shows of it)."""
    opened = await handoff.active_handoff(session, user_id)
    if opened is None or settings.support_chat_id is None:
        return False
    try:
        forwarded = await bot.forward_message(
            chat_id=settings.support_chat_id, from_chat_id=chat_id, message_id=message_id
        )
    except TelegramAPIError:
        logger.exception("forward to support failed", extra={"user_id": user_id})
        await bot.send_message(chat_id, t("handoff_forward_failed", language), parse_mode=None)
        return False
    await handoff.remember_forward(
        session, opened, support_chat_id=settings.support_chat_id, support_message_id=forwarded.message_id
    )
    await inbox.record_customer(session, opened, text)
    return True


async def tell_support_of_an_entry_read(
    bot: Bot, session: AsyncSession, settings: Settings, user_id: int, question: str
) -> None:
    """A customer waiting for a person tapped an FAQ entry offered meanwhile and got its answer: staff
    see which, in the hand-off's thread, so that they need not answer it again."""
    opened = await handoff.active_handoff(session, user_id)
    if opened is not None:
        await _post_in_support_thread(
            bot, session, settings, opened, f"While waiting, the customer read the FAQ entry: {question}"
        )


async def _post_in_support_thread(
    bot: Bot, session: AsyncSession, settings: Settings, opened: HandoffSession, text: str
) -> None:
    """Tell the support chat what was done in the console, under the hand-off's brief; a reply
    there reaches the customer like a reply to the brief."""
    if settings.support_chat_id is None or opened.id is None:
        return
    start = await inbox.support_thread_start(session, opened.id)
    try:
        posted = await bot.send_message(
            settings.support_chat_id,
            text,
            parse_mode=None,
            reply_parameters=ReplyParameters(message_id=start, allow_sending_without_reply=True)
            if start is not None
            else None,
        )
    except TelegramAPIError:
        logger.warning(
            "could not tell the support chat about a console action",
            extra={"support_chat_id": settings.support_chat_id, "handoff_id": opened.id},
        )
        return
    await handoff.remember_forward(
        session, opened, support_chat_id=settings.support_chat_id, support_message_id=posted.message_id
    )


async def _tell_support_chat(
    bot: Bot,
    session: AsyncSession,
    settings: Settings,
    opened: HandoffSession,
    staff_id: int,
    via: HandoffVia,
    text_for: Callable[[str], str],
) -> None:
    """What staff did in the console, told in the support chat (`text_for` gets who did it);
    what they did in the support chat is there already."""
    if via != HandoffVia.CONSOLE:
        return
    names = await inbox.staff_names(session)
    await _post_in_support_thread(bot, session, settings, opened, text_for(inbox.name_of(staff_id, names)))


async def reply_to_customer(
    bot: Bot,
    session: AsyncSession,
    settings: Settings,
    opened: HandoffSession,
    *,
    staff_id: int,
    text: str,
    via: HandoffVia,
) -> str | None:
    """Staff's words to the customer, split to Telegram's length limit; None when delivered, else
    Telegram's reason. From the console, the support chat's thread shows them too."""
    if opened.closed_at is not None:
        return "this hand-off is resolved and the customer is back with the bot"
    language = Language.of(opened.language)
    delivered: list[str] = []
    try:
        for part in split_text(t("staff_reply", language, text=text.strip())):
            await bot.send_message(opened.customer_chat_id, part, parse_mode=None)
            delivered.append(part)
    except TelegramAPIError as error:
        logger.warning("staff reply not delivered", extra={"customer_chat_id": opened.customer_chat_id})
        if not delivered:
            return error.message
    await inbox.record_staff_reply(
        session,
        opened,
        staff_id,
        text.strip(),
        via,
        delivered=delivered if via == HandoffVia.CONSOLE else (),
    )
    await _tell_support_chat(
        bot, session, settings, opened, staff_id, via, lambda who: f"{who} in the console:\n{text.strip()}"
    )
    return None


async def claim_handoff(
    bot: Bot,
    session: AsyncSession,
    settings: Settings,
    opened: HandoffSession,
    *,
    staff_id: int,
    via: HandoffVia,
) -> bool:
    """`staff_id` has the hand-off now, in both fronts; False when they had it already."""
    if not await inbox.claim(session, opened, staff_id, via):
        return False
    await _tell_support_chat(
        bot,
        session,
        settings,
        opened,
        staff_id,
        via,
        lambda who: f"Hand-off #{opened.id}: claimed by {who} in the console.",
    )
    return True


async def resolve_handoff(
    bot: Bot,
    session: AsyncSession,
    settings: Settings,
    opened: HandoffSession,
    *,
    staff_id: int,
    via: HandoffVia,
) -> bool:
    """End the hand-off: the customer is told they are back with the bot and asked, once, how the
    team did. False when it had ended already (nobody is told twice)."""
    if not await handoff.close_session(session, opened, staff_id=staff_id, via=via):
        return False
    language = Language.of(opened.language)
    assert opened.id is not None
    try:
        await bot.send_message(opened.customer_chat_id, t("handoff_ended", language), parse_mode=None)
        await bot.send_message(
            opened.customer_chat_id,
            t("rating_question", language),
            parse_mode=None,
            reply_markup=rating_keyboard(opened.id, language),
        )
    except TelegramAPIError:
        logger.warning("could not tell the customer the hand-off ended", extra={"handoff_id": opened.id})
    await _tell_support_chat(
        bot,
        session,
        settings,
        opened,
        staff_id,
        via,
        lambda who: f"Hand-off #{opened.id}: resolved by {who} in the console.",
    )
    return True
