"""The shop's FAQ as data: import, export, replace, a malformed file, and a bot that notices changes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiogram.methods import SendMessage
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

import services.faq.store
from db.engine import create_engine, create_session_factory
from db.models import FaqEntry
from db.repositories import faq as faq_repository
from services.faq.files import FaqFileError, parse_faq_csv
from services.faq.store import export_faq, import_faq
from services.text.sentences import Language, t
from tests.harness import ADMIN_ID, OTHER_USER_ID, Harness
from tests.test_cli import csbot

HEADER = "slug,language,question,answer,tags,examples\n"
FIRST = (
    HEADER
    + "gift-cards,en,Do you sell gift cards?,Yes: digital gift cards from $10.,payment,Can I buy a voucher?\n"
    + "gift-cards,ko,기프트카드 판매하나요?,네: 1만 원부터 디지털 기프트카드가 있어요.,payment,\n"
    + "warranty,en,What warranty do you give?,Two years on electronics.,product,\n"
)


@pytest.fixture
async def sessions(database_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(database_url)
    yield create_session_factory(engine)
    await engine.dispose()


async def entries(sessions: async_sessionmaker[AsyncSession]) -> dict[tuple[str, str], FaqEntry]:
    async with sessions() as session:
        return {(e.slug, e.language): e for e in await faq_repository.all_entries(session)}


async def test_import_upserts_by_slug_and_language(sessions: async_sessionmaker[AsyncSession]) -> None:
    async with sessions() as session:
        counts = await import_faq(session, parse_faq_csv(FIRST.encode(), source="faq.csv"), replace=False)
    assert (counts.created, counts.updated, counts.removed) == (3, 0, 0)
    changed = HEADER + "warranty,en,What warranty do you give?,Three years now.,product,\n"
    changed += "store,en,Do you have a shop?,One showroom in Seoul.,store,\n"
    async with sessions() as session:
        counts = await import_faq(session, parse_faq_csv(changed.encode(), source="faq.csv"), replace=False)
    assert (counts.created, counts.updated, counts.unchanged, counts.removed) == (1, 1, 0, 0)
    rows = await entries(sessions)
    assert set(rows) == {
        ("gift-cards", Language.EN),
        ("gift-cards", Language.KO),
        ("warranty", Language.EN),
        ("store", Language.EN),
    }
    assert rows["warranty", Language.EN].answer == "Three years now."
    assert rows["gift-cards", Language.EN].examples == "Can I buy a voucher?"


async def test_replace_removes_entries_missing_from_the_file(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    async with sessions() as session:
        await import_faq(session, parse_faq_csv(FIRST.encode(), source="faq.csv"), replace=False)
    only = HEADER + "warranty,en,What warranty do you give?,Two years on electronics.,product,\n"
    async with sessions() as session:
        counts = await import_faq(session, parse_faq_csv(only.encode(), source="faq.csv"), replace=True)
    assert (counts.created, counts.updated, counts.unchanged, counts.removed) == (0, 0, 1, 2)
    assert set(await entries(sessions)) == {("warranty", Language.EN)}


async def test_a_malformed_row_imports_nothing(sessions: async_sessionmaker[AsyncSession]) -> None:
    async with sessions() as session:
        await import_faq(session, parse_faq_csv(FIRST.encode(), source="faq.csv"), replace=False)
    before = {key: (e.question, e.answer) for key, e in (await entries(sessions)).items()}
    bad = HEADER + "warranty,en,What warranty do you give?,Changed.,product,\nnew,en,New?,,x,\n"
    async with sessions() as session:
        with pytest.raises(FaqFileError, match="line 3: field 'answer' is empty"):
            await import_faq(session, parse_faq_csv(bad.encode(), source="faq.csv"), replace=True)
    assert {key: (e.question, e.answer) for key, e in (await entries(sessions)).items()} == before


async def test_export_is_the_import_format(sessions: async_sessionmaker[AsyncSession]) -> None:
    async with sessions() as session:
        await import_faq(session, parse_faq_csv(FIRST.encode(), source="faq.csv"), replace=False)
        exported = await export_faq(session)
    assert exported.startswith(HEADER)
    assert set(parse_faq_csv(exported.encode())) == set(parse_faq_csv(FIRST.encode()))


async def test_the_running_bot_answers_from_the_changed_faq_without_a_restart(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo FAQ has no gift cards: it says so; after an import it answers, with no restart."""
    monkeypatch.setattr(services.faq.store, "CHECK_EVERY_SECONDS", 0.0)
    [before] = await harness.say(OTHER_USER_ID, "Do you sell gift cards?")
    assert before in (t("faq_no_match", Language.EN), t("faq_no_match_choices", Language.EN))
    async with harness.app.session_factory() as session:
        await import_faq(session, parse_faq_csv(FIRST.encode(), source="faq.csv"), replace=False)
    [after] = await harness.say(OTHER_USER_ID, "Do you sell gift cards?")
    assert after == "Yes: digital gift cards from $10."


async def test_admin_reload_rebuilds_the_index_at_once(harness: Harness) -> None:
    async with harness.app.session_factory() as session:
        await import_faq(session, parse_faq_csv(FIRST.encode(), source="faq.csv"), replace=False)
    calls = await harness.feed(harness.updates.text(ADMIN_ID, "/reload"))
    [reply] = [c.text for c in calls if isinstance(c, SendMessage)]
    assert reply == "FAQ reloaded: 9 entries, 24 rows."
    [answer] = await harness.say(OTHER_USER_ID, "기프트카드 판매하나요?")
    assert answer == "네: 1만 원부터 디지털 기프트카드가 있어요."


class TestCommandLine:
    def test_malformed_file_is_one_line_exit_2_and_nothing_imported(self, tmp_path: Path) -> None:
        (tmp_path / "faq.csv").write_text(FIRST + "bad slug,en,Q?,A.,,\n", encoding="utf-8")
        result = csbot(tmp_path, "import", "faq", "faq.csv")
        assert result.returncode == 2
        assert result.stderr.strip().splitlines() == [
            "csbot: faq.csv: line 5: field 'slug' 'bad slug' must be lower-case letters, digits, "
            "'-', '_' or '.'; nothing was imported"
        ]
        exported = csbot(tmp_path, "export", "faq")
        assert exported.returncode == 0 and exported.stdout == HEADER

    def test_missing_file_is_one_line_exit_2(self, tmp_path: Path) -> None:
        result = csbot(tmp_path, "import", "faq", "nope.csv")
        assert result.returncode == 2 and "nope.csv: cannot read the file" in result.stderr
        assert "Traceback" not in result.stderr

    def test_a_fresh_database_with_an_imported_faq_chats_with_that_faq(self, tmp_path: Path) -> None:
        (tmp_path / "faq.csv").write_text(FIRST, encoding="utf-8")
        replies = _import_then_chat(
            tmp_path,
            "faq.csv",
            "Do you sell gift cards?\nIs SKU-7890 in stock?\nwhere is my order 20240115-001234?\n",
        )
        assert [r["turn"] for r in replies] == [1, 2, 3]
        assert replies[0]["faq"] == "gift-cards" and replies[0]["source"] == "faq"
        assert replies[0]["text"] == "Yes: digital gift cards from $10."
        assert replies[1]["intent"] == "stock" and "SKU-7890" in replies[1]["text"]  # no demo catalogue
        assert "couldn't find product code" in replies[1]["text"]
        assert replies[2]["faq"] is None and replies[2]["route"] == "shipping"
        assert set(replies[0]) >= {"text", "intent", "confidence", "route", "source", "faq", "turn"}

    def test_a_faq_only_shop_offers_the_entry_a_stock_guess_may_have_meant(self, tmp_path: Path) -> None:
        """No catalogue: "how much is ski gear a day?" read as a stock question could only get "I
        can't check stock here"; the rental entry is what the customer meant."""
        faq = Path(__file__).parent / "data" / "tuning_faq11.csv"
        guess, stock = _import_then_chat(
            tmp_path, str(faq), "스키 장비 빌리려는데 하루 얼마에요?\n헬멧 재고 있어요?\n"
        )
        assert guess["faq"] == "ski-rental" or (
            guess["route"] == "stock"
            and guess["offered"][:1] == ["ski-rental"]
            and guess["buttons"][0] == "스키 대여 되나요?"
        ), guess
        assert guess["text"] != t("no_stock_data", Language.KO)
        assert stock["text"] == t("no_stock_data", Language.KO) and stock["offered"] == []  # nothing likely


def _import_then_chat(tmp_path: Path, faq: str, messages: str) -> list[dict[str, Any]]:
    """`csbot import faq` into a fresh database, then `csbot chat --json` as a customer no one linked."""
    assert csbot(tmp_path, "import", "faq", faq).returncode == 0
    result = csbot(tmp_path, "chat", "--json", "--user", "4242", stdin=messages)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


class TestEvalCommand:
    def test_prints_coverage_false_answers_and_misses(self, tmp_path: Path) -> None:
        (tmp_path / "faq.csv").write_text(FIRST, encoding="utf-8")
        (tmp_path / "questions.tsv").write_text(
            "expected\tlanguage\tquestion\n"
            "gift-cards\ten\tcan I buy a gift card?\n"
            "warranty\ten\twhat warranty do I get?\n"
            "none\ten\tdo you sell bicycles?\n"
            "human\ten\tlet me talk to a real person\n",
            encoding="utf-8",
        )
        result = csbot(tmp_path, "eval", "questions.tsv", "--faq", "faq.csv")
        assert result.returncode == 0, result.stderr
        # A two-entry FAQ: "do you sell bicycles?" shares "sell" with the gift-card entry and nothing
        # competes with it; the calibration is fitted on smaller versions of the tuning FAQs too.
        assert (
            "FAQ coverage 1.000 (2 questions an entry answers); false-answer rate 0.000 (of 4 questions)"
            in result.stdout
        ), result.stdout
        assert "one tap away 0.000 (0 of the 2 covered questions" in result.stdout  # both answered outright
        assert "human" in result.stdout and "macro-F1" in result.stdout

    def test_a_bad_line_is_one_message_with_its_number(self, tmp_path: Path) -> None:
        (tmp_path / "questions.tsv").write_text(
            "expected\tlanguage\tquestion\nnone only two\n", encoding="utf-8"
        )
        result = csbot(tmp_path, "eval", "questions.tsv", "--faq", "demo")
        assert result.returncode == 2
        assert result.stderr.strip() == (
            "csbot: questions.tsv: line 2: expected three tab-separated fields: expected, language, question"
        )
