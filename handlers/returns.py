"""The returns router: `/return`, the form's buttons, and typed answers to the form's questions.

The form itself (its steps, what each answer does) is handlers/flows/return_form.py.
"""

from __future__ import annotations

from typing import Any

from aiogram import F, Router
from aiogram.dispatcher.event.bases import SkipHandler
from aiogram.filters import Command
from aiogram.fsm.context import FSMContext
from aiogram.types import CallbackQuery, Message
from sqlmodel.ext.asyncio.session import AsyncSession

from handlers.context import button_language, conversation_language, language_of
from handlers.flows.return_form import (
    AwaitingAnswer,
    FormTurn,
    act,
    stale_tap,
    start_return_flow,
    typed_answer,
)
from handlers.keyboards import ReturnStep, start_return_of
from services.admin.conversation_log import Interaction
from services.replies import AnswerSource, ReplyRoute
from services.returns.form import FormAction
from services.settings import Settings
from services.understanding.classifier import IntentClassifier


def create_router() -> Router:
    router = Router(name="returns")

    @router.message(Command("return"))
    async def on_command(
        message: Message,
        session: AsyncSession,
        state: FSMContext,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        interaction.routed(ReplyRoute.RETURNS, AnswerSource.TEMPLATE)
        assert message.from_user is not None
        language = await conversation_language(session, message)
        await start_return_flow(message, message.from_user, session, state, language, settings)

    @router.message(F.text, ~F.text.startswith("/"), AwaitingAnswer())
    async def on_typed(
        message: Message,
        session: AsyncSession,
        state: FSMContext,
        settings: Settings,
        interaction: Interaction,
        classifier: IntentClassifier,
    ) -> None:
        assert message.from_user is not None
        data: dict[str, Any] = await state.get_data()
        turn = FormTurn(
            message,
            message.from_user.id,
            session,
            state,
            settings,
            interaction,
            data,
            data["language"],
            edit=False,
        )
        if not await typed_answer(turn, message.text or "", classifier.classify):
            raise SkipHandler  # another request: the routers after this one answer it; the form waits
        interaction.routed(ReplyRoute.RETURNS, AnswerSource.TEMPLATE)

    @router.callback_query(ReturnStep.filter(F.action == FormAction.START))
    async def on_start_button(
        query: CallbackQuery,
        callback_data: ReturnStep,
        session: AsyncSession,
        state: FSMContext,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        interaction.routed(ReplyRoute.RETURNS, AnswerSource.TEMPLATE)
        await query.answer()
        language, order = start_return_of(callback_data)
        if isinstance(query.message, Message):
            await start_return_flow(
                query.message,
                query.from_user,
                session,
                state,
                button_language(language) or language_of(query.from_user),
                settings,
                order,
            )

    @router.callback_query(ReturnStep.filter())
    async def on_step(
        query: CallbackQuery,
        callback_data: ReturnStep,
        session: AsyncSession,
        state: FSMContext,
        settings: Settings,
        interaction: Interaction,
    ) -> None:
        interaction.routed(ReplyRoute.RETURNS, AnswerSource.TEMPLATE)
        data: dict[str, Any] = await state.get_data()
        language = data.get("language") or language_of(query.from_user)
        message = query.message if isinstance(query.message, Message) else None
        if callback_data.flow != data.get("flow"):
            await query.answer()
            await stale_tap(query, callback_data, session, language, message)
            return
        await query.answer()
        if message is None:
            return
        turn = FormTurn(
            message, query.from_user.id, session, state, settings, interaction, data, language, edit=True
        )
        await act(turn, callback_data.action, callback_data.value)

    return router
