"""`csbot doctor`: what a shop is missing or has wrong before customers arrive, one line each.

Each check prints `ok`, `warn` (works, but a shop would want to know) or `FAIL` (customers would
meet it), the thing checked, and what to do. Nothing is changed: the database is not migrated or
created, no webhook is set. Exit code 1 when anything failed, else 0.
"""

from __future__ import annotations

import argparse
import enum
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.cli_output import emit_line
from services.settings import ConfigError, Settings


class Verdict(enum.StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "FAIL"


@dataclass(frozen=True)
class Check:
    verdict: Verdict
    subject: str
    detail: str

    def render(self) -> str:
        return f"{self.verdict.value:<4}  {self.subject}: {self.detail}"


def add_parsers(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    doctor = commands.add_parser(
        "doctor", help="check the go-live list: token, webhook, database, Redis, journal, staff, data"
    )
    doctor.add_argument(
        "--questions",
        metavar="FILE",
        help="a labelled questions file (as for `csbot eval`): report the FAQ's coverage on it",
    )
    doctor.add_argument(
        "--offline", action="store_true", help="do not call Telegram (the token's shape only)"
    )


def _hidden(url: str) -> str:
    """A database or Redis URL without its password (the settings have parsed it already)."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


async def run_doctor(args: argparse.Namespace, settings: Settings) -> int:
    checks: list[Check] = []
    checks.append(await _token(settings, offline=args.offline))
    checks.extend(_webhook(settings))
    checks.extend(await _database(settings, args.questions))
    checks.append(await _redis(settings))
    checks.append(_journal(settings))
    checks.extend(_staff(settings))
    checks.append(_zone(settings))
    for check in checks:
        emit_line(check.render())
    failed = sum(check.verdict is Verdict.FAIL for check in checks)
    warned = sum(check.verdict is Verdict.WARN for check in checks)
    emit_line(
        f"{'not ready' if failed else 'ready'}: {failed} to fix, {warned} to look at, "
        f"{len(checks) - failed - warned} ok"
    )
    return 1 if failed else 0


async def _token(settings: Settings, *, offline: bool) -> Check:
    try:
        token = settings.require_bot_token()
    except ConfigError as error:
        return Check(Verdict.FAIL, "bot token", str(error))
    if offline:
        return Check(Verdict.OK, "bot token", "well formed (not checked with Telegram: --offline)")
    from bot.telegram_check import check_bot_token

    try:
        me = await check_bot_token(token, settings)
    except ConfigError as error:
        return Check(Verdict.FAIL, "bot token", str(error))
    return Check(Verdict.OK, "bot token", f"Telegram knows it as @{me.username}")


def _webhook(settings: Settings) -> Iterator[Check]:
    if not settings.webhook_url:
        yield Check(Verdict.OK, "updates", "long polling (set CSBOT_WEBHOOK_URL to receive them by webhook)")
        return
    parts = urlsplit(settings.webhook_url)
    if parts.scheme != "https":
        yield Check(
            Verdict.FAIL, "CSBOT_WEBHOOK_URL", f"{settings.webhook_url}: Telegram posts only to https://"
        )
    else:
        yield Check(Verdict.OK, "CSBOT_WEBHOOK_URL", f"https, path {parts.path or '/'}")
    if settings.webhook_secret is None:
        yield Check(Verdict.FAIL, "CSBOT_WEBHOOK_SECRET", "not set: anyone could post updates to the webhook")
    else:
        yield Check(Verdict.OK, "CSBOT_WEBHOOK_SECRET", "set")


async def _database(settings: Settings, questions: str | None) -> list[Check]:
    """The database as `csbot stats` opens it (bot.cli_database.open_recorded: nothing created or
    migrated), then what is in it."""
    from bot.cli_database import open_recorded
    from db import migrate
    from db.engine import DatabaseUnreachable, create_session_factory

    try:
        engine = await open_recorded(settings)
    except (ConfigError, DatabaseUnreachable) as error:
        return [Check(Verdict.FAIL, "database", str(error))]
    try:
        checks = [
            Check(
                Verdict.OK,
                "database",
                f"{_hidden(settings.database_url)} answers, schema {migrate.head_revision()}",
            )
        ]
        return checks + await _shop_data(create_session_factory(engine), settings, questions)
    finally:
        await engine.dispose()


async def _shop_data(
    sessions: async_sessionmaker[AsyncSession], settings: Settings, questions: str | None
) -> list[Check]:
    from db.repositories.demo import demo_rows
    from db.repositories.faq import shop_counts
    from services.text.sentences import Language, untranslated

    async with sessions() as session:
        found, have = await demo_rows(session), await shop_counts(session)
    checks = [
        Check(Verdict.FAIL, "demo data", f"present ({found.render()}): run `csbot demo remove`")
        if found
        else Check(Verdict.OK, "demo data", "none")
    ]
    if settings.shop_api_url is not None:
        checks.append(Check(Verdict.OK, "shop data", f"read live from {settings.shop_api_url}"))
    else:
        sizes = {"products": have.products, "customers": have.customers, "orders": have.orders}
        missing = [name for name, size in sizes.items() if not size]
        listed = ", ".join(f"{size} {name}" for name, size in sizes.items())
        checks.append(
            Check(Verdict.WARN, "shop data", f"{listed}: no {', '.join(missing)} yet (`csbot import`)")
            if missing
            else Check(Verdict.OK, "shop data", listed)
        )
    languages = tuple(known for code in have.faq_languages if (known := Language.known(code)) is not None)
    if not have.faq:
        checks.append(Check(Verdict.WARN, "FAQ", 'no entries: questions about the shop get "I don\'t know"'))
    else:
        checks.append(Check(Verdict.OK, "FAQ", f"{have.faq} rows in {', '.join(have.faq_languages) or '-'}"))
    gaps = untranslated(languages or tuple(Language))
    checks.append(
        Check(
            Verdict.FAIL,
            "bot's sentences",
            "; ".join(f"{language}: {', '.join(keys)}" for language, keys in gaps.items()) + " in English",
        )
        if gaps
        else Check(Verdict.OK, "bot's sentences", f"every one in {', '.join(languages or tuple(Language))}")
    )
    if questions is not None:
        checks.append(await _coverage(sessions, settings, questions))
    return checks


async def _coverage(sessions: async_sessionmaker[AsyncSession], settings: Settings, path: str) -> Check:
    from services.answerers import load_answerers
    from services.faq.evaluation import EvalFileError, evaluate, load_questions

    try:
        labelled = load_questions(path)
    except (OSError, EvalFileError, UnicodeDecodeError) as error:
        return Check(Verdict.FAIL, "FAQ coverage", f"{path}: {getattr(error, 'strerror', None) or error}")
    classifier, lookup = await load_answerers(sessions, settings)  # as the bot loads them
    report = evaluate(labelled, classifier, lookup)
    coverage = "-" if report.coverage is None else f"{report.coverage:.2f}"
    reached = (
        "-"
        if report.one_tap is None or report.coverage is None
        else f"{report.coverage + report.one_tap:.2f}"
    )
    verdict = Verdict.WARN if report.false_answer_rate > 0.02 else Verdict.OK
    return Check(
        verdict,
        "FAQ coverage",
        f"{path}: answered {coverage}, reached {reached} of {report.covered} covered questions; "
        f"false answers {report.false_answer_rate:.3f}",
    )


async def _redis(settings: Settings) -> Check:
    if settings.redis_url is None:
        return Check(Verdict.OK, "Redis", "not used (one process; set CSBOT_REDIS_URL for several)")
    from redis.asyncio import from_url
    from redis.exceptions import RedisError

    client = from_url(settings.redis_url, socket_timeout=settings.redis_timeout)
    try:
        await client.ping()
    except (RedisError, OSError) as error:
        return Check(Verdict.FAIL, "Redis", f"{_hidden(settings.redis_url)} does not answer ({error})")
    finally:
        await client.aclose()
    return Check(Verdict.OK, "Redis", f"{_hidden(settings.redis_url)} answers")


def _journal(settings: Settings) -> Check:
    from db.journal import Journal

    try:
        Journal(Path(settings.journal_path)).require_writable()
    except OSError as error:
        return Check(
            Verdict.FAIL,
            "CSBOT_JOURNAL_PATH",
            f"cannot write {settings.journal_path} ({error.strerror or error})",
        )
    return Check(Verdict.OK, "CSBOT_JOURNAL_PATH", f"{settings.journal_path} is writable")


def _staff(settings: Settings) -> Iterator[Check]:
    if settings.admin_ids:
        yield Check(Verdict.OK, "CSBOT_ADMIN_IDS", f"{len(settings.admin_ids)} admin(s)")
    else:
        yield Check(Verdict.FAIL, "CSBOT_ADMIN_IDS", "empty: nobody can use /stats, /reload or the console")
    if settings.support_chat_id is None:
        yield Check(
            Verdict.FAIL,
            "CSBOT_SUPPORT_CHAT_ID",
            "not set: a customer who asks for a person is told nobody is available",
        )
    else:
        yield Check(Verdict.OK, "CSBOT_SUPPORT_CHAT_ID", f"hand-offs go to chat {settings.support_chat_id}")


def _zone(settings: Settings) -> Check:
    from db.types import utcnow
    from services.shop.local_time import local_minute

    now = local_minute(utcnow(), settings.shop_policy().timezone)
    explicit = "shop_timezone" in settings.model_fields_set  # the environment's or .env's
    detail = f"{settings.shop_timezone}, now {now}" + (
        "" if explicit else " (the default: set CSBOT_SHOP_TIMEZONE)"
    )
    return Check(Verdict.OK if explicit else Verdict.WARN, "CSBOT_SHOP_TIMEZONE", detail)
