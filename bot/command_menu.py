"""The command menus Telegram shows: customers' in their app's language, admins' only to admins.

Set at start (`setMyCommands`): customers get the same few commands in Korean,
English (the default) and Japanese; each admin's private chat gets the customer
commands plus the admin ones, so nobody else even sees that they exist.
"""

from __future__ import annotations

from collections.abc import Iterable

from aiogram import Bot
from aiogram.types import BotCommand, BotCommandScopeChat, BotCommandScopeDefault

from services.text.sentences import Language

CUSTOMER_COMMANDS: dict[str, dict[str, str]] = {
    "start": {"en": "Start", "ko": "시작하기", "ja": "はじめる"},
    "help": {"en": "What I can help with", "ko": "도움말", "ja": "ヘルプ"},
    "return": {"en": "Return or exchange an item", "ko": "반품·교환 신청", "ja": "返品・交換の申し込み"},
    "human": {"en": "Talk to a person", "ko": "상담원 연결", "ja": "担当者につなぐ"},
    "bot": {"en": "Back to the bot", "ko": "챗봇으로 돌아가기", "ja": "ボットに戻る"},
}
ADMIN_COMMANDS: dict[str, str] = {
    "stats": "Volume, intents, latency, costs: /stats 24h",
    "logs": "Recent messages: /logs [failed] [user_id] [n]",
    "conversation": "One customer's conversation: /conversation <user_id>",
    "resend": "Send an undelivered reply again: /resend <n>",
    "handoffs": "Open hand-offs and how long each has waited",
    "reload": "Reload the FAQ now",
    "console": "A one-time sign-in link to the web console",
    "canary": "Model canary: weights, rollbacks; /canary <arm> <percent>",
}
MENU_LANGUAGES = (Language.KO, Language.JA)
"""Menus besides the default (English), chosen by the customer's Telegram app language."""


def customer_menu(language: Language) -> list[BotCommand]:
    return [
        BotCommand(command=name, description=texts[language]) for name, texts in CUSTOMER_COMMANDS.items()
    ]


def admin_menu() -> list[BotCommand]:
    return [
        *customer_menu(Language.EN),
        *(BotCommand(command=n, description=d) for n, d in ADMIN_COMMANDS.items()),
    ]


async def publish_menus(bot: Bot, admin_ids: Iterable[int]) -> None:
    await bot.set_my_commands(customer_menu(Language.EN), scope=BotCommandScopeDefault())
    for language in MENU_LANGUAGES:
        await bot.set_my_commands(
            customer_menu(language), scope=BotCommandScopeDefault(), language_code=language
        )
    for admin_id in admin_ids:
        await bot.set_my_commands(admin_menu(), scope=BotCommandScopeChat(chat_id=admin_id))
