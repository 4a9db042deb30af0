"""The `csbot` command."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from bot.cli_demo import add_parsers as add_demo_parsers
from bot.cli_demo import holds_shop_data, on_demo, refuse_demo_rows, run_demo_command
from bot.cli_doctor import add_parsers as add_doctor_parsers
from bot.cli_doctor import run_doctor
from bot.cli_output import OneLineParser, emit_line, positive_int
from bot.cli_shop_files import add_parsers as add_shop_file_parsers
from bot.cli_shop_files import run_export, run_import
from bot.logging_setup import configure_logging
from db.engine import DatabaseUnreachable
from services.settings import ConfigError, Settings, load_settings

if TYPE_CHECKING:
    from aiogram import Bot
    from aiogram.types import User
    from aiohttp import web

    from bot.app import App
    from services.faq.lookup import FaqLookupAnswerer
    from services.understanding.classifier import IntentClassifier

logger = logging.getLogger("csbot")


DEFAULT_HTTP_PORT = 8080


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="csbot", description="Customer-service chatbot for online shops.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "run", help="serve Telegram: long polling, or a webhook with --webhook (needs CSBOT_BOT_TOKEN)"
    )
    run.add_argument(
        "--demo",
        action="store_true",
        help="serve the demo shop (CSBOT_DEMO_DATABASE_URL) instead of the shop's database",
    )
    run.add_argument(
        "--webhook",
        action="store_true",
        help="receive updates at CSBOT_WEBHOOK_URL's path (also implied by CSBOT_WEBHOOK_URL)",
    )
    run.add_argument(
        "--set-webhook",
        action="store_true",
        help="call setWebhook (URL, secret, allowed updates, max connections) at start: from one instance",
    )
    run.add_argument(
        "--no-migrate",
        action="store_true",
        help="do not apply migrations at start (deployments that run `csbot db upgrade` as a step)",
    )
    chat = commands.add_parser("chat", help="talk to the bot in the terminal on the embedded defaults")
    chat.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per bot reply: text, intent, confidence, route, source, faq, turn",
    )
    chat.add_argument(
        "--user",
        type=int,
        metavar="ID",
        help="talk as this Telegram user id (linked to no customer unless they share a contact)",
    )
    chat.add_argument(
        "--phone",
        metavar="NUMBER",
        help="talk as the shop's customer with this phone, as if they had shared it (010-1234-5678)",
    )
    chat.add_argument(
        "--demo",
        action="store_true",
        help="talk to the demo shop even when the shop's database holds data of its own",
    )
    chat.add_argument(
        "--generate",
        action="store_true",
        help="answer FAQ questions with the local model's own speculative-decoded text, labelled "
        "(needs the `local` extra; SmolLM2-135M is too small to face customers)",
    )

    classify = commands.add_parser("classify", help="print intent, confidence and entities as JSON")
    classify.add_argument("text", nargs="?", help="one utterance; without it, one per stdin line")
    classify.add_argument(
        "--evaluate", metavar="TSV", help="labelled set (intent<TAB>text): print precision/recall"
    )

    evaluate = commands.add_parser(
        "eval", help="route labelled questions like the bot does: per-class precision/recall, FAQ coverage"
    )
    evaluate.add_argument("file", metavar="FILE.tsv", help="expected<TAB>language<TAB>question per line")
    evaluate.add_argument(
        "--faq",
        metavar="CSV",
        help="evaluate against this FAQ file (import format) or `demo`; default: the database's FAQ",
    )
    evaluate.add_argument(
        "--learn",
        metavar="SHARE",
        type=_share,
        help="file this first share of the questions (e.g. 0.5) under their entries as examples, then ask "
        "the rest: the learning curve, before and after",
    )

    database = commands.add_parser("db", help="database maintenance")
    db_commands = database.add_subparsers(dest="db_command", required=True)
    db_commands.add_parser("upgrade", help="apply migrations")
    db_commands.add_parser("seed-demo", help="create the demo shop in CSBOT_DEMO_DATABASE_URL (once)")

    add_shop_file_parsers(commands)
    add_demo_parsers(commands)
    add_doctor_parsers(commands)

    logs = commands.add_parser("logs", help="conversation logs, oldest first")
    logs.add_argument("--user", type=int, help="Telegram user id")
    logs.add_argument("--intent", choices=["stock", "shipping", "returns", "human", "faq"])
    logs.add_argument("--since", type=_parse_since, help="ISO date/time (UTC) or a period such as 24h, 7d")
    logs.add_argument("--limit", type=positive_int, default=50)
    logs.add_argument("--json", action="store_true", help="one JSON object per line")
    logs.add_argument(
        "--failed",
        action="store_true",
        help="only messages that failed, were abandoned, or whose reply Telegram refused",
    )

    admin = commands.add_parser(
        "admin",
        help="serve the admin web console at /admin on its own port (when the bot polls; "
        "with a webhook or CSBOT_HTTP_PORT `csbot run` serves it too)",
    )
    admin.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    admin.add_argument("--port", type=positive_int, default=8081, help="port (default 8081)")

    stats = commands.add_parser("stats", help="volume, intents, hand-offs, latency, errors")
    stats.add_argument("--period", type=_period, default="24h", help="e.g. 1h, 24h, 7d (default 24h)")
    stats.add_argument("--json", action="store_true")
    stats.add_argument(
        "--by-arm",
        action="store_true",
        help='per canary arm: answers, acceptance, guard rejections, fallbacks, "I don\'t know", '
        "hand-offs after an answer, latency, cost, with sample sizes",
    )

    replay = commands.add_parser(
        "replay",
        help="re-answer the period's real FAQ-style questions with a candidate LLM configuration "
        "(nothing is sent to customers) and compare",
    )
    replay.add_argument(
        "--since", type=_parse_since, required=True, help="a period such as 7d, or an ISO date"
    )
    replay.add_argument("--limit", type=positive_int, default=None, help="at most this many questions")
    replay.add_argument(
        "--config", required=True, metavar="CANDIDATE.json", help="a CSBOT_LLM value (its baseline chain)"
    )
    replay.add_argument("--concurrency", type=positive_int, default=4, help="questions answered at once")
    replay.add_argument("--json", action="store_true", help="the full report as JSON")
    replay.add_argument(
        "--restart", action="store_true", help="start over instead of resuming an interrupted replay"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = load_settings()
    except ConfigError as error:
        print(f"csbot: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level, settings.log_format, settings.secrets())
    try:  # one place turns a bad setting into one line, whichever command met it
        if args.command == "classify":
            return _classify(args, settings)
        if args.command == "eval":
            return _evaluate(args, settings)
        return asyncio.run(_run_async(args, settings))
    except ConfigError as error:
        print(f"csbot: {error}", file=sys.stderr)
        return 2
    except DatabaseUnreachable as error:
        print(f"csbot: CSBOT_DATABASE_URL: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


async def _run_async(args: argparse.Namespace, settings: Settings) -> int:
    if args.command in ("run", "chat"):
        _require_local_model(args, settings)
        from services.understanding.classifier import warm_up

        warm_up()
    if args.command == "run":
        token = settings.require_bot_token()
        if _wants_webhook(args, settings):
            settings.require_webhook()  # a missing URL or secret stops here, before any database work
        from bot.telegram_check import check_bot_token

        me = await check_bot_token(token, settings)  # a refused token or a silent Telegram: before it too
        from bot.app import build_app  # aiogram takes seconds to import: only when serving
        from bot.heap import settle_heap

        if args.demo:
            settings = on_demo(settings)
        app = await build_app(settings, upgrade=not args.no_migrate, seed=args.demo)
        settle_heap()
        try:
            if not args.demo:
                await refuse_demo_rows(app.session_factory)
            return await _serve(app, token, settings, args, me)
        finally:
            await app.close()
    if args.command == "chat":
        from bot.app import build_app
        from bot.heap import settle_heap
        from bot.local_chat import BANNER, SHOP_BANNER, UnknownPhone, run_local_chat
        from services.shop.phone import normalize_phone

        if args.generate:
            settings = settings.model_copy(
                update={"local_model": settings.local_model or "bundled", "generated_label": "[local model] "}
            )
        # The demo shop, in its own database, until the shop's own database holds data.
        demo = args.demo or (
            settings.shop_api_url is None and not await holds_shop_data(settings.database_url)
        )
        if demo:
            settings = on_demo(settings)
        app = await build_app(settings, seed=demo)
        settle_heap()
        try:
            await run_local_chat(
                app,
                user_id=args.user if args.user is not None else settings.local_chat_user_id,
                as_json=args.json,
                phone=normalize_phone(args.phone, settings.phone_country_code) if args.phone else None,
                banner=BANNER if demo else SHOP_BANNER,
            )
        except UnknownPhone:
            raise ConfigError(f"--phone: no customer of the shop has the phone {args.phone}") from None
        finally:
            await app.close()
        return 0
    if args.command == "admin":
        return await _serve_console(args, settings)
    if args.command == "db":
        return await _db(args, settings)
    if args.command == "import":
        return await run_import(args, settings)
    if args.command == "demo":
        return await run_demo_command(args, settings)
    if args.command == "doctor":
        return await run_doctor(args, settings)
    if args.command == "export":
        return await run_export(args, settings)
    if args.command == "replay":
        from bot.cli_replay import run_replay

        return await run_replay(args, settings)
    return await _read_logs(args, settings)


def _require_local_model(args: argparse.Namespace, settings: Settings) -> None:
    """A local model asked for but not installable here: one line naming who asked, before anything."""
    from services.llm.local.availability import LocalModelUnavailable, require_local_model

    generate = args.command == "chat" and args.generate
    model = settings.local_model or ("bundled" if generate else None)
    if model is None or settings.llm.target:  # a configured target model wins over the local one
        return
    try:
        require_local_model(model)
    except LocalModelUnavailable as error:
        asked_by = "CSBOT_LOCAL_MODEL" if settings.local_model else "--generate"
        raise ConfigError(f"{asked_by}: {error}") from error


def _wants_webhook(args: argparse.Namespace, settings: Settings) -> bool:
    return bool(args.webhook or args.set_webhook or settings.webhook_url)


async def _serve(app: App, token: str, settings: Settings, args: argparse.Namespace, me: User) -> int:
    """Long polling, or the webhook when asked; health checks on CSBOT_HTTP_PORT either way."""
    from urllib.parse import urlsplit

    from bot.dispatcher import create_bot
    from bot.http_server import HttpFront
    from bot.middlewares.telegram_limits import limiter_for
    from bot.middlewares.telegram_retry import TelegramRetryMiddleware
    from bot.polling import PollingConflict
    from bot.serving import serve

    webhook = _wants_webhook(args, settings)
    url, secret = settings.require_webhook() if webhook else (None, None)
    port = settings.http_port or (DEFAULT_HTTP_PORT if webhook else None)
    redis = getattr(app.state_store.storage, "redis", None) if app.state_store else None
    bot = create_bot(
        token,
        retry=TelegramRetryMiddleware(budget=settings.telegram_retry_budget),
        api_url=settings.telegram_api_url,
        metrics=app.metrics,
        limiter=limiter_for(redis, prefix=settings.redis_prefix, redis_timeout=settings.redis_timeout),
    )
    front = (
        HttpFront(
            app.dispatcher,
            bot,
            engine=app.engine,
            state_store=app.state_store,
            concurrency=settings.max_concurrent_updates,
            metrics=app.metrics,
            webhook_path=urlsplit(url).path or "/" if url else None,
            webhook_secret=secret,
            console=_console(app, bot, settings),
        )
        if port is not None
        else None
    )
    try:
        if url is not None and args.set_webhook:
            await bot.set_webhook(
                url,
                secret_token=secret,
                allowed_updates=app.dispatcher.resolve_used_update_types(),
                max_connections=settings.webhook_max_connections,
            )
            logger.info("webhook set", extra={"url": url})
        return await serve(
            app.dispatcher,
            bot,
            concurrency=settings.max_concurrent_updates,
            shutdown_timeout=settings.shutdown_timeout,
            poll=not webhook,
            front=front,
            listen=(settings.http_host, port) if port is not None else None,
            admin_ids=settings.admin_ids,
            me=me,
        )
    except PollingConflict as error:
        print(f"csbot: {error}", file=sys.stderr)
        return 2
    finally:
        await bot.session.close()


def _console(app: App, bot: Bot | None, settings: Settings) -> web.Application | None:
    """The web console for a bot with admins (nobody could sign in to one without)."""
    if not settings.admin_ids:
        return None
    from bot.console import create_console
    from bot.console.wiring import console_deps

    return create_console(
        console_deps(settings, app.session_factory, bot=bot, answerer=app.answerer, canary=app.canary)
    )


async def _serve_console(args: argparse.Namespace, settings: Settings) -> int:
    """`csbot admin`: the console alone, next to a polling bot (same database, same settings)."""
    from aiohttp import web

    from bot.console import standalone_application
    from bot.console.wiring import console_deps
    from bot.dispatcher import create_bot
    from bot.serving import listen_on
    from db import migrate
    from db.engine import check_connection, create_engine, create_session_factory

    if not settings.admin_ids:
        raise ConfigError("CSBOT_ADMIN_IDS is empty: nobody could sign in to the console")
    if settings.console_signing_key() is None:
        raise ConfigError(
            "the console needs CSBOT_BOT_TOKEN (or CSBOT_CONSOLE_SECRET) to check sign-in links"
        )
    engine = create_engine(settings.database_url)
    token = settings.require_bot_token() if settings.bot_token else None
    bot = create_bot(token, api_url=settings.telegram_api_url) if token else None
    runner: web.AppRunner | None = None
    try:
        await check_connection(engine)
        await migrate.upgrade(engine)  # the console's own tables, as `csbot run` would
        deps = console_deps(settings, create_session_factory(engine), bot=bot)
        runner = web.AppRunner(standalone_application(deps), access_log=None)
        await runner.setup()
        await listen_on(runner, args.host, args.port, setting="--port")
        emit_line(f"admin console at http://{args.host}:{args.port}/admin (sign in: /console in Telegram)")
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        import signal

        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
    finally:
        if runner is not None:
            await runner.cleanup()
        if bot is not None:
            await bot.session.close()
        await engine.dispose()
    return 0


async def _db(args: argparse.Namespace, settings: Settings) -> int:
    from db import migrate
    from db.engine import check_connection, create_engine, create_session_factory
    from db.seed import seed_demo

    if args.db_command == "seed-demo":  # the demo's own database, never the shop's
        settings = on_demo(settings)
    engine = create_engine(settings.database_url)
    try:
        await check_connection(engine)
        await migrate.upgrade(engine)
        if args.db_command == "seed-demo":
            async with create_session_factory(engine)() as session:
                created = await seed_demo(session, demo_telegram_user_id=settings.local_chat_user_id)
            emit_line("demo data created" if created else "demo data already present")
        else:
            emit_line("database is at the latest schema")
    finally:
        await engine.dispose()
    return 0


async def _read_logs(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli_database import open_recorded
    from db.engine import create_session_factory
    from db.repositories import logs
    from services.admin.stats import collect_stats
    from services.admin.views import inbound_as_json, render_logs

    engine = await open_recorded(settings)
    try:
        async with create_session_factory(engine)() as session:
            if args.command == "stats" and args.by_arm:
                from bot.cli_replay import print_by_arm

                return await print_by_arm(session, args, settings)
            if args.command == "stats":
                stats = await collect_stats(
                    session,
                    period=args.period,
                    exclude_users=settings.team_ids,
                    zone=settings.shop_policy().timezone,
                )
                emit_line(
                    json.dumps(stats.as_dict())
                    if args.json
                    else stats.render(settings.shop_policy().timezone)
                )
                return 0
            rows = await logs.inbound(
                session,
                user_id=args.user,
                intent=args.intent,
                since=args.since,
                limit=args.limit,
                exclude_users=settings.team_ids,
                failed=args.failed,
            )
            replies = await logs.replies_to(session, [row.id for row in rows if row.id is not None])
    finally:
        await engine.dispose()
    if args.json:
        for row in rows:
            emit_line(json.dumps(inbound_as_json(row, replies), ensure_ascii=False))
    else:
        emit_line(render_logs(rows, replies))
    return 0


def _evaluate(args: argparse.Namespace, settings: Settings) -> int:
    from services.faq.evaluation import EvalFileError, evaluate, load_questions, render

    questions = _labelled_file(args.file, load_questions, EvalFileError)
    if questions is None:
        return 2
    try:
        classifier, lookup = _eval_answerers(args.faq, settings)
    except ValueError as error:  # FaqFileError included
        print(f"csbot: {error}", file=sys.stderr)
        return 2
    if args.learn is not None:
        from services.faq.evaluation import learning_curve, render_learning

        emit_line(render_learning(learning_curve(questions, classifier, lookup, first=args.learn)))
        return 0
    emit_line(render(evaluate(questions, classifier, lookup)))
    return 0


T = TypeVar("T")


def _labelled_file(path: str, load: Callable[[str], T], malformed: type[Exception]) -> T | None:
    """A labelled set read by `load`; None after one line on stderr when it cannot be read or a
    line is malformed (the caller exits 2)."""
    try:
        return load(path)
    except OSError as error:
        print(f"csbot: {path}: cannot read the file ({error.strerror})", file=sys.stderr)
    except (malformed, UnicodeDecodeError) as error:
        print(f"csbot: {error}", file=sys.stderr)
    return None


def _share(value: str) -> float:
    try:
        share = float(value)
    except ValueError:
        share = -1.0
    if not 0 < share < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a share between 0 and 1 (e.g. 0.5)")
    return share


def _eval_answerers(faq: str | None, settings: Settings) -> tuple[IntentClassifier, FaqLookupAnswerer]:
    """The FAQ named on the command line, else the shop's database (its catalogue names too)."""
    from db.seed import DEMO_PRODUCTS, demo_names
    from services.faq.lookup import FaqLookupAnswerer
    from services.understanding.classifier import IntentClassifier
    from services.understanding.entities import CatalogueName

    demo_catalogue = [CatalogueName(p["sku"], demo_names(p)) for p in DEMO_PRODUCTS]
    bar = settings.faq_min_confidence  # the bot's own bar: eval answers as the bot would
    if faq == "demo":
        from services.faq.store import demo_documents

        return IntentClassifier(demo_catalogue), FaqLookupAnswerer(demo_documents(), min_confidence=bar)
    if faq is not None:
        from services.faq.store import file_documents

        path = Path(faq)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise ValueError(f"{path}: cannot read the file ({error.strerror})") from error
        documents = file_documents(data, source=str(path))
        return IntentClassifier(demo_catalogue), FaqLookupAnswerer(documents, min_confidence=bar)
    return asyncio.run(_shop_answerers(settings))


async def _shop_answerers(settings: Settings) -> tuple[IntentClassifier, FaqLookupAnswerer]:
    from bot.cli_database import open_recorded
    from db.engine import create_session_factory
    from services.answerers import load_answerers

    engine = await open_recorded(settings)
    try:
        return await load_answerers(create_session_factory(engine), settings)  # as the bot would load them
    finally:
        await engine.dispose()


PERIOD_SHAPE = re.compile(r"\s*[-+]?[\d.]+\s*[mhdw]?\s*$", re.IGNORECASE)


def _period(value: str) -> timedelta:
    """argparse type for --period: a bad one is a one-line usage error naming the option."""
    from services.admin.stats import parse_period

    try:
        return parse_period(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _parse_since(value: str) -> datetime:
    """argparse type for --since: an ISO date/time (UTC unless it says) or a period back from now."""
    from datetime import UTC

    from db.types import utcnow
    from services.admin.stats import parse_period

    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        try:
            return utcnow() - parse_period(value)
        except ValueError as error:
            if PERIOD_SHAPE.match(value):  # meant as a period: say what is wrong with it
                raise argparse.ArgumentTypeError(str(error)) from None
            raise argparse.ArgumentTypeError(
                f"expected an ISO date/time such as 2026-01-31T09:00 or a period such as 24h or 7d, "
                f"not {value!r}"
            ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


async def _shop_classifier(settings: Settings) -> IntentClassifier:
    """The shop's own catalogue names when its database is there; none otherwise."""
    from sqlalchemy.exc import SQLAlchemyError

    from db.engine import create_engine, create_session_factory
    from services.answerers import load_answerers
    from services.understanding.classifier import IntentClassifier

    engine = create_engine(settings.database_url)
    try:
        classifier, _ = await load_answerers(create_session_factory(engine), settings)
        return classifier
    except (SQLAlchemyError, OSError):
        return IntentClassifier()
    finally:
        await engine.dispose()


def _classify(args: argparse.Namespace, settings: Settings) -> int:
    from services.understanding.classifier import IntentClassifier

    if args.evaluate:
        from db.seed import DEMO_PRODUCTS, demo_names
        from services.understanding.entities import CatalogueName
        from services.understanding.evaluation import evaluate, load_labelled, render_report

        # The demo catalogue's names, so the report is the same on every machine.
        labelled = _labelled_file(args.evaluate, load_labelled, ValueError)
        if labelled is None:
            return 2
        classifier = IntentClassifier(CatalogueName(p["sku"], demo_names(p)) for p in DEMO_PRODUCTS)
        emit_line(render_report(evaluate(classifier, labelled)))
        return 0
    from bot.cli_database import missing_sqlite_file

    if missing_sqlite_file(settings.database_url) is not None:  # connecting would create it
        classifier = IntentClassifier()
    else:
        classifier = asyncio.run(_shop_classifier(settings))
    lines = [args.text] if args.text is not None else (line.rstrip("\n") for line in sys.stdin)
    for line in lines:
        result = classifier.classify(line)
        emit_line(
            json.dumps(
                {
                    "intent": result.intent.value,
                    "confidence": result.confidence,
                    "entities": result.entities.as_dict(),
                },
                ensure_ascii=False,
            )
        )
    return 0
