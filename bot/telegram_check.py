"""`csbot run`'s first question to Telegram, asked before any database work.

A revoked or mistyped token, or a Bot API server that does not answer, is a
setting to fix, not a crash: it becomes one line naming the variable, and the
process stops before it migrates a database or opens Redis for nothing.
"""

from __future__ import annotations

from aiogram.exceptions import (
    TelegramNetworkError,
    TelegramNotFound,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.types import User

from bot.dispatcher import create_bot
from bot.middlewares.telegram_retry import TelegramRetryMiddleware
from services.settings import ENV_PREFIX, ConfigError, Settings

TELEGRAM_API_URL = "https://api.telegram.org"


async def check_bot_token(token: str, settings: Settings) -> User:
    """getMe with the usual retry budget; Telegram's refusal or silence as a ConfigError."""
    where = settings.telegram_api_url or TELEGRAM_API_URL
    bot = create_bot(
        token,
        retry=TelegramRetryMiddleware(budget=settings.telegram_retry_budget),
        api_url=settings.telegram_api_url,
    )
    try:
        return await bot.get_me()
    except (TelegramUnauthorizedError, TelegramNotFound) as error:  # Telegram answers 404 to some bad tokens
        raise ConfigError(
            f"{ENV_PREFIX}BOT_TOKEN: Telegram refused the token ({error.message}): "
            "it was revoked or mistyped; copy it again from @BotFather"
        ) from error
    except (TelegramNetworkError, TelegramServerError) as error:
        raise ConfigError(
            f"cannot reach Telegram at {where} ({_first_line(str(error))}); "
            f"check the network or {ENV_PREFIX}TELEGRAM_API_URL"
        ) from error
    finally:
        await bot.session.close()


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "no answer"
