"""The demo shop, kept apart from the shop's own database.

`csbot chat` talks to the demo (its own file, `CSBOT_DEMO_DATABASE_URL`, ./csbot-demo.db) until
the shop's database holds products, customers, orders or FAQ of its own; `csbot run` refuses a
database that holds demo rows unless told `--demo` (then it serves the demo database);
`csbot demo remove` deletes the demo from a database that has it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sqlalchemy.exc import OperationalError, ProgrammingError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.cli_database import missing_sqlite_file
from bot.cli_output import emit_line
from services.settings import ConfigError, Settings


def add_parsers(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    demo = commands.add_parser("demo", help="the demo shop: remove it from a database that holds it")
    demo_commands = demo.add_subparsers(dest="demo_command", required=True)
    remove = demo_commands.add_parser(
        "remove", help="delete the demo's products, customers, orders and FAQ from CSBOT_DATABASE_URL"
    )
    remove.add_argument("--dry-run", action="store_true", help="say what would be removed; remove nothing")


def on_demo(settings: Settings) -> Settings:
    """The same settings on the demo's own database, and a journal of its own unless one is set
    (the default journal is the shop's: the demo's updates must never replay into its database)."""
    update: dict[str, object] = {"database_url": settings.demo_database_url}
    if "journal_path" not in settings.model_fields_set:
        journal = Path(settings.journal_path)
        update["journal_path"] = str(journal.with_name(f"{journal.stem}-demo{journal.suffix}"))
    return settings.model_copy(update=update)


async def holds_shop_data(database_url: str) -> bool:
    """Whether the shop's database has data of its own; a SQLite file that does not exist yet, or a
    database without csbot's tables, has none (and is not created by asking)."""
    from db.engine import check_connection, create_engine, create_session_factory
    from db.repositories.faq import holds_shop_data as holds

    if missing_sqlite_file(database_url) is not None:
        return False
    engine = create_engine(database_url)
    try:
        await check_connection(engine)
        async with create_session_factory(engine)() as session:
            try:
                return await holds(session)
            except (OperationalError, ProgrammingError):  # no tables yet: nothing imported
                return False
    finally:
        await engine.dispose()


async def refuse_demo_rows(session_factory: async_sessionmaker[AsyncSession]) -> None:
    """`csbot run` on a database with demo rows: one line saying how to go on."""
    from db.repositories.demo import demo_rows

    async with session_factory() as session:
        found = await demo_rows(session)
    if found:
        raise ConfigError(
            f"CSBOT_DATABASE_URL: the database holds the demo shop ({found.render()}); customers would be "
            "answered from it. Remove it with `csbot demo remove`, or serve the demo with `csbot run --demo`"
        )


async def run_demo_command(args: argparse.Namespace, settings: Settings) -> int:
    from db import migrate
    from db.engine import check_connection, create_engine, create_session_factory
    from db.repositories.demo import demo_rows, remove_demo

    engine = create_engine(settings.database_url)
    try:
        await check_connection(engine)
        await migrate.upgrade(engine)
        async with create_session_factory(engine)() as session:
            if args.dry_run:
                found = await demo_rows(session)
                emit_line(f"demo: would remove {found.render()}" if found else "demo: none in this database")
                return 0
            removed = await remove_demo(session)
            await session.commit()
        emit_line(f"demo: removed {removed.render()}" if removed else "demo: none in this database")
    finally:
        await engine.dispose()
    return 0
