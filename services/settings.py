"""Typed configuration read from the environment (and `.env`).

Everything has an embedded default except the Telegram token, which only
`csbot run` needs. A bad value stops the program at start with the name of the
variable, instead of surfacing at the first customer message.
"""

from __future__ import annotations

import difflib
import hashlib
import hmac
import json
import re
from typing import Annotated, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

from db.models import OrderStatus
from services.llm.config import LLMRoles, known_keys
from services.shop.policy import (
    DEFAULT_CANCELLABLE,
    DEFAULT_RETURN_WINDOW_DAYS,
    DEFAULT_RETURNABLE,
    DEFAULT_TIMEZONE,
    ShopPolicy,
)

ENV_PREFIX = "CSBOT_"
DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./csbot.db"
DEFAULT_DEMO_DATABASE_URL = "sqlite+aiosqlite:///./csbot-demo.db"
LOCAL_CHAT_USER_ID = 700_000_001
"""Telegram user id used by `csbot chat`; the demo data links it to the demo customer."""


class ConfigError(RuntimeError):
    """Raised when the environment holds a value the bot cannot start with."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,  # `CSBOT_SUPPORT_CHAT_ID=` as in .env.example means "not set"
        extra="ignore",
    )

    bot_token: SecretStr | None = None
    telegram_api_url: str | None = Field(
        default=None,
        description="Bot API server base URL (a self-hosted telegram-bot-api, a proxy, a test server); "
        "Telegram's own when unset",
    )
    database_url: str = Field(
        default=DEFAULT_DATABASE_URL,
        validation_alias=AliasChoices("CSBOT_DATABASE_URL", "DATABASE_URL"),
    )
    demo_database_url: str = Field(
        default=DEFAULT_DEMO_DATABASE_URL,
        description="where `csbot chat` keeps the demo shop (never in the shop's own database)",
    )
    admin_ids: Annotated[frozenset[int], NoDecode] = frozenset()
    staff_ids: Annotated[frozenset[int], NoDecode] = Field(
        default=frozenset(),
        description="Telegram user ids of support staff: the console's inbox, not its FAQ or settings",
    )
    support_chat_id: int | None = None
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_format: Literal["console", "json"] = "console"
    low_stock_threshold: int = Field(default=5, ge=0)
    faq_min_confidence: float | None = Field(
        default=None,
        ge=0.5,
        le=0.99,
        description="answer from the FAQ only at this calibrated probability or above; unset: the fitted bar",
    )
    local_chat_user_id: int = LOCAL_CHAT_USER_ID
    llm: LLMRoles = Field(
        default_factory=LLMRoles,
        description="JSON: target and drafter endpoint lists; empty means answers come from the FAQ text",
    )
    llm_temperature: float = Field(default=0.0, ge=0, le=2)
    local_model: str | None = Field(
        default=None,
        description="a GGUF path, or 'bundled' for SmolLM2-135M: served on loopback as the target "
        "(token-mode verification) when CSBOT_LLM names none",
    )
    redis_url: str | None = Field(
        default=None, description="redis://host:6379/0 keeps conversation state across restarts and processes"
    )
    redis_prefix: str = "csbot"
    generated_label: str = Field(default="", description="prefix for answers a model wrote itself")
    shop_timezone: str = DEFAULT_TIMEZONE
    tracking_urls: dict[str, str] = Field(
        default_factory=dict,
        description='JSON: {"Carrier name": "https://.../{number}"}: tracking pages beside the known ones',
    )
    return_window_days: int = Field(default=DEFAULT_RETURN_WINDOW_DAYS, ge=0, le=3650)
    returnable_statuses: Annotated[tuple[OrderStatus, ...], NoDecode] = DEFAULT_RETURNABLE
    cancellable_statuses: Annotated[tuple[OrderStatus, ...], NoDecode] = DEFAULT_CANCELLABLE
    phone_country_code: str = Field(
        default="82", pattern=r"^[1-9]\d{0,2}$", description="completes phones written domestically (010-...)"
    )
    catalogue_refresh_seconds: float = Field(
        default=60.0, ge=0, description="how often to look for a changed catalogue to re-index"
    )
    shop_api_url: str | None = Field(
        default=None, description="read customers, orders and products live from the shop's REST API"
    )
    shop_api_token: SecretStr | None = None
    shop_api_timeout: float = Field(default=3.0, gt=0, le=60, description="seconds per attempt")
    shop_api_cache_seconds: float = Field(default=15.0, ge=0, le=3600)
    shop_api_breaker_seconds: float = Field(
        default=30.0, ge=0, le=3600, description="how long to stop calling a shop API that keeps failing"
    )

    # Serving: long polling by default; a webhook when CSBOT_WEBHOOK_URL is set.
    webhook_url: str | None = Field(
        default=None, description="public HTTPS URL Telegram posts updates to; its path is served"
    )
    webhook_secret: SecretStr | None = Field(
        default=None, description="X-Telegram-Bot-Api-Secret-Token; required with a webhook"
    )
    webhook_max_connections: int = Field(default=40, ge=1, le=100)
    http_host: str = "0.0.0.0"  # a server behind a proxy or in a container listens on all
    http_port: int | None = Field(
        default=None, ge=1, le=65535, description="webhook, /healthz and /readyz; 8080 with a webhook"
    )

    # The admin web console (/admin on the HTTP server, or `csbot admin` on a port of its own).
    console_url: str | None = Field(
        default=None,
        description="public URL of the console, e.g. https://bot.example.com/admin; the /console link "
        "points there (default: the webhook's origin + /admin, else http://127.0.0.1:<port>/admin)",
    )
    console_secret: SecretStr | None = Field(
        default=None, description="key that signs console login links (default: derived from the bot token)"
    )
    console_link_minutes: float = Field(default=10.0, gt=0, le=1440, description="a login link's lifetime")
    console_session_hours: float = Field(
        default=12.0, gt=0, le=720, description="a console sign-in's lifetime"
    )

    # Nothing lost: the durable inbox, timeouts and shutdown.
    journal_path: str = Field(
        default="./csbot-journal.jsonl",
        description="local append-only file where updates wait while the database is down",
    )
    shutdown_timeout: float = Field(default=20.0, gt=0, description="seconds to let in-flight updates finish")
    update_timeout: float = Field(
        default=60.0, gt=0, description="seconds one update may take before the customer is told to wait"
    )
    max_attempts: int = Field(default=5, ge=1, description="tries per update before it is left for an admin")
    max_concurrent_updates: int = Field(default=16, ge=1, description="updates handled at once per process")
    db_pool_size: int = Field(default=16, ge=1, description="pooled database connections (PostgreSQL)")
    db_statement_timeout_ms: int = Field(default=10_000, ge=0, description="PostgreSQL statement_timeout")
    db_lock_timeout_ms: int = Field(
        default=5_000, ge=0, description="PostgreSQL lock_timeout and SQLite busy timeout"
    )
    redis_timeout: float = Field(default=3.0, gt=0, description="seconds any Redis operation may take")
    telegram_retry_budget: float = Field(
        default=30.0, gt=0, description="seconds one Bot API call may spend on retries (429, 5xx, network)"
    )

    @field_validator("admin_ids", "staff_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: object) -> object:
        """Admins are listed the way people type them: `1,2, 3`."""
        if isinstance(value, str):
            return frozenset(int(part) for part in value.replace(" ", "").split(",") if part)
        if isinstance(value, int):
            return frozenset({value})
        return value

    @field_validator("returnable_statuses", "cancellable_statuses", mode="before")
    @classmethod
    def _split_statuses(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip().lower() for part in value.split(",") if part.strip())
        return value

    @field_validator("shop_timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{value!r} is not an IANA time zone such as Asia/Seoul") from None
        return value

    @field_validator("tracking_urls")
    @classmethod
    def _tracking_patterns(cls, value: dict[str, str]) -> dict[str, str]:
        for carrier, pattern in value.items():
            if not pattern.startswith(("https://", "http://")) or "{number}" not in pattern:
                raise ValueError(f"{carrier!r}: expected an http(s):// URL with {{number}} in it")
        return value

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str | None) -> str | None:
        """Parsed as redis-py will parse it, so a typo stops the start instead of the first update."""
        if value is None:
            return value
        from redis.connection import parse_url  # redis-py's own parser: one reading of the URL

        parse_url(value)  # type: ignore[no-untyped-call]  # its ValueError names the scheme or port
        database = urlsplit(value).path.strip("/")
        if not value.startswith("unix://") and database and not database.isdigit():
            raise ValueError(f"the database after the host must be a number such as /0, not /{database}")
        return value

    @field_validator("console_url", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("shop_api_url", "console_url", "telegram_api_url", "webhook_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        """A URL without its scheme (`api.telegram.org`) stops the start: read as a relative path it
        sent every call nowhere and retried for a minute."""
        if value is None:
            return value
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"expected an http:// or https:// URL, not {value!r}")
        return value.rstrip("/")

    def shop_policy(self) -> ShopPolicy:
        return ShopPolicy(
            return_window_days=self.return_window_days,
            returnable_statuses=self.returnable_statuses,
            cancellable_statuses=self.cancellable_statuses,
            timezone=ZoneInfo(self.shop_timezone),
            tracking_urls=self.tracking_urls,
        )

    @field_validator("database_url", "demo_database_url")
    @classmethod
    def _async_driver(cls, value: str) -> str:
        """Accept the usual URL spellings and pick the async driver for them."""
        for plain, driver in (
            ("postgres://", "postgresql+asyncpg://"),
            ("postgresql://", "postgresql+asyncpg://"),
            ("sqlite://", "sqlite+aiosqlite://"),
        ):
            if value.startswith(plain):
                return driver + value[len(plain) :]
        if not value.startswith(("postgresql+asyncpg://", "sqlite+aiosqlite://")):
            raise ValueError("expected a sqlite:// or postgresql:// URL")
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _telegram_secret(cls, value: SecretStr | None) -> SecretStr | None:
        """Telegram accepts 1-256 characters of A-Z a-z 0-9 _ - (and rejects setWebhook otherwise)."""
        if value is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", value.get_secret_value()):
            raise ValueError("1-256 characters of A-Z, a-z, 0-9, _ and -")
        return value

    def require_webhook(self) -> tuple[str, str]:
        """The webhook URL and secret, or a clear stop naming what is missing."""
        if not self.webhook_url:
            raise ConfigError(
                f"{ENV_PREFIX}WEBHOOK_URL is not set: `csbot run --webhook` needs the public URL"
            )
        if self.webhook_secret is None:
            raise ConfigError(
                f"{ENV_PREFIX}WEBHOOK_SECRET is not set: without it anyone could post updates to the webhook"
            )
        return self.webhook_url, self.webhook_secret.get_secret_value()

    def secrets(self) -> tuple[str, ...]:
        """Every secret value these settings hold (the bot token, the webhook and console secrets,
        the shop API's token, LLM keys, passwords inside the database and Redis URLs): the log
        redaction filter removes each from every line (bot.logging_setup)."""
        values = [
            secret.get_secret_value()
            for secret in (self.bot_token, self.webhook_secret, self.console_secret, self.shop_api_token)
            if secret is not None
        ]
        chains = [self.llm.target, self.llm.drafter]
        chains += [chain for arm in self.llm.arms for chain in (arm.target, arm.drafter) if chain]
        values.extend(
            key.get_secret_value() for chain in chains for endpoint in chain for key in endpoint.api_keys
        )
        for url in (self.database_url, self.redis_url):
            password = urlsplit(url).password if url else None
            if password:
                values.append(password)
        return tuple(dict.fromkeys(value.strip() for value in values if value.strip()))

    @property
    def team_ids(self) -> frozenset[int]:
        """Everyone who may use the console's inbox: staff and admins. Their own messages to the
        bot are kept out of the customer figures."""
        return self.admin_ids | self.staff_ids

    def console_signing_key(self) -> bytes | None:
        """The console secret, else a key derived from the bot token (never the token itself)."""
        if self.console_secret is not None and self.console_secret.get_secret_value():
            return self.console_secret.get_secret_value().encode()
        if self.bot_token is not None and self.bot_token.get_secret_value().strip():
            token = self.bot_token.get_secret_value().strip().encode()
            return hmac.new(token, b"csbot admin console login links", hashlib.sha256).digest()
        return None

    def console_base_url(self) -> str:
        if self.console_url:
            return self.console_url.rstrip("/")
        if self.webhook_url:
            parts = urlsplit(self.webhook_url)
            return f"{parts.scheme}://{parts.netloc}/admin"
        return f"http://127.0.0.1:{self.http_port or 8080}/admin"

    def require_bot_token(self) -> str:
        if self.bot_token is None or not self.bot_token.get_secret_value().strip():
            raise ConfigError(
                f"{ENV_PREFIX}BOT_TOKEN is not set: `csbot run` needs the token from @BotFather. "
                "To try the bot without Telegram, run `csbot chat`."
            )
        token = self.bot_token.get_secret_value().strip()
        # Telegram's shape, as aiogram checks it: digits, a colon, a secret; before any connection.
        bot_id, _, secret = token.partition(":")
        if not bot_id.isdigit() or not secret or any(c.isspace() for c in secret):
            raise ConfigError(
                f"{ENV_PREFIX}BOT_TOKEN is malformed: expected the 123456:ABC... token from @BotFather"
            )
        return token


def load_settings(**overrides: object) -> Settings:
    """Read settings, turning pydantic's error into one line per bad variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            field = str(error["loc"][0]) if error["loc"] else "?"
            name = field if field.isupper() else f"{ENV_PREFIX}{field.upper()}"
            inside = ".".join(str(part) for part in error["loc"][1:])  # where in a JSON value
            message = error["msg"].removeprefix("Value error, ")
            if error["type"] == "extra_forbidden":
                key = str(error["loc"][-1])
                near = difflib.get_close_matches(key, sorted(known_keys()), n=1, cutoff=0.6)
                message = f"unknown key {key!r}" + (f"; did you mean {near[0]!r}?" if near else "")
            problems.append(f"{name}{f' ({inside})' if inside else ''}: {message}")
        raise ConfigError("invalid configuration - " + "; ".join(problems)) from exc
    except SettingsError as exc:  # a JSON variable (CSBOT_LLM) that is not JSON at all
        raise ConfigError(f"invalid configuration - {_undecodable(exc)}") from exc


def _undecodable(error: SettingsError) -> str:
    """pydantic-settings names the field in prose and keeps the JSON error as the cause."""
    found = re.search(r'field "(\w+)"', str(error))
    name = f"{ENV_PREFIX}{found.group(1).upper()}" if found else "a setting"
    cause = error.__cause__
    if isinstance(cause, json.JSONDecodeError):
        return f"{name}: not valid JSON ({cause.msg} at line {cause.lineno} column {cause.colno})"
    return f"{name}: {cause or error}"
