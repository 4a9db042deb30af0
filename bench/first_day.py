"""A shop's first day, played through the real dispatcher: its files imported into a fresh
database, its customers' messages (`messages.tsv`: n, customer, text, wants) sent in order, each
customer linked by their phone first, and the transcript printed beside what each customer wanted.

    .venv/bin/python -m bench.first_day tests/data/first_day [--timezone Asia/Seoul]

The folder holds products.csv, customers.csv, orders.jsonl, faq.csv and messages.tsv (formats:
docs/shop-data.md). The transcript is read against the `wants` column: docs/benchmarks.md has
the figures and how they were counted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import sys
import tempfile
from pathlib import Path

from bot.app import build_app
from bot.cli import main as csbot
from bot.local_chat import LocalChat
from services.settings import Settings
from services.shop.phone import normalize_phone

KINDS = (
    ("products", "products.csv"),
    ("customers", "customers.csv"),
    ("orders", "orders.jsonl"),
    ("faq", "faq.csv"),
)


def _import(folder: Path, database_url: str) -> None:
    import os

    os.environ["CSBOT_DATABASE_URL"] = database_url
    for kind, name in KINDS:
        with contextlib.redirect_stdout(sys.stderr):  # the import reports: not the transcript
            imported = csbot(["import", kind, str(folder / name)])
        if imported != 0:
            raise SystemExit(f"{folder / name}: not imported")


async def _play(folder: Path, settings: Settings) -> None:
    app = await build_app(settings)
    with (folder / "customers.csv").open(encoding="utf-8") as file:
        phones = {row["customer_id"]: row["phone"] for row in csv.DictReader(file)}
    chats: dict[str, LocalChat] = {}
    try:
        with (folder / "messages.tsv").open(encoding="utf-8") as file:
            rows = list(csv.DictReader(file, delimiter="\t"))
        for row in rows:
            who = row["customer"]
            if who not in chats:
                phone = normalize_phone(phones[who], settings.phone_country_code) if who in phones else ""
                chats[who] = LocalChat(app, user_id=950_000_000 + len(chats), phone=phone)
                if who in phones:
                    await chats[who].share_phone()
            replies = await chats[who].send(row["text"])
            print(f"#{row['n']} [{who}] {row['text']}")
            print(f"   wants: {row.get('wants', '')}")
            for reply in replies:
                print("   bot: " + reply.replace("\n", "\n        "))
            print()
    finally:
        await app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--timezone", default="Asia/Seoul")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        database_url = f"sqlite+aiosqlite:///{work}/shop.db"
        _import(args.folder, database_url)
        settings = Settings(
            database_url=database_url,
            journal_path=f"{work}/journal.jsonl",
            shop_timezone=args.timezone,
            support_chat_id=-1,
            _env_file=None,  # type: ignore[call-arg]
        )
        asyncio.run(_play(args.folder, settings))


if __name__ == "__main__":
    main()
