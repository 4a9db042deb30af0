"""`csbot import` / `csbot export` on the example shop files, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import SQLModel, select

from bot.cli import main
from db.engine import create_engine, create_session_factory
from db.models import Customer, Order, OrderItem, Product, ReturnKind, ReturnRequest, Shipment, ShipmentEvent
from services.settings import Settings
from services.shop.identity import LinkOutcome, link_contact
from services.shop.phone import normalize_phone

EXAMPLES = Path(__file__).parent.parent / "examples" / "shop"


@pytest.fixture
def shop(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working folder with copies of the example files, csbot pointed at the test database."""
    for name in list(__import__("os").environ):
        if name.startswith("CSBOT_") or name == "DATABASE_URL":
            monkeypatch.delenv(name)
    monkeypatch.setenv("CSBOT_DATABASE_URL", database_url)
    monkeypatch.chdir(tmp_path)
    for example in EXAMPLES.iterdir():
        shutil.copy(example, tmp_path / example.name)
    yield tmp_path


def rows(database_url: str, model: type[SQLModel]) -> list[SQLModel]:
    async def read() -> list[SQLModel]:
        engine = create_engine(database_url)
        try:
            async with create_session_factory(engine)() as session:
                return list((await session.exec(select(model))).all())
        finally:
            await engine.dispose()

    return asyncio.run(read())


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def import_all(capsys: pytest.CaptureFixture[str], folder: Path) -> list[str]:
    outputs = []
    for kind, name in (
        ("products", "products.csv"),
        ("customers", "customers.csv"),
        ("orders", "orders.jsonl"),
    ):
        code, out, err = run(capsys, "import", kind, str(folder / name))
        assert code == 0, err
        outputs.append(out.splitlines()[0])
    return outputs


def test_import_is_idempotent_and_dry_run_writes_nothing(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert import_all(capsys, shop) == [
        "products: imported 5 new, 0 changed, 0 unchanged",
        "customers: imported 3 new, 0 changed, 0 unchanged",
        "orders: imported 3 new, 0 changed, 0 unchanged",
    ]
    assert import_all(capsys, shop) == [
        "products: imported 0 new, 0 changed, 5 unchanged",
        "customers: imported 0 new, 0 changed, 3 unchanged",
        "orders: imported 0 new, 0 changed, 3 unchanged",
    ]
    text = (shop / "products.csv").read_text(encoding="utf-8")
    (shop / "products.csv").write_text(
        text.replace("BAG-30L,Trail Daypack 30L,79000,3", "BAG-30L,Trail Daypack 30L,79000,0")
        + "NEW-1,Camp Chair,39000,8,,,,캠핑 의자,,\n",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "import", "products", "products.csv", "--dry-run")
    assert code == 0
    assert out.splitlines() == [
        "products: would import 1 new, 1 changed, 4 unchanged (dry run: nothing written)",
        "  changed BAG-30L: stock",
        "  new NEW-1",
    ]
    stock = {p.sku: p.stock for p in rows(database_url, Product)}  # type: ignore[attr-defined]
    assert stock["BAG-30L"] == 3 and "NEW-1" not in stock
    code, out, _ = run(capsys, "import", "products", "products.csv")
    stock = {p.sku: p.stock for p in rows(database_url, Product)}  # type: ignore[attr-defined]
    assert stock["BAG-30L"] == 0 and stock["NEW-1"] == 8

    # A file with one product updates that one and deletes nothing.
    (shop / "one.csv").write_text(
        "sku,name,price,stock\nMUG-TI-450,Titanium Mug 450ml,32000,39\n", encoding="utf-8"
    )
    code, out, _ = run(capsys, "import", "products", "one.csv")
    assert out.splitlines()[-1] == "  5 products not in this file are left as they are"
    assert len(rows(database_url, Product)) == 6
    [mug] = [p for p in rows(database_url, Product) if p.sku == "MUG-TI-450"]  # type: ignore[attr-defined]
    assert mug.stock == 39 and mug.name_ko == "티타늄 머그 450ml"  # type: ignore[attr-defined]


def test_columns_and_keys_a_file_leaves_out_are_left_as_they_are(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import_all(capsys, shop)
    (shop / "names.csv").write_text("customer_id,name,phone\nC-1001,박서준,010-2345-6789\n", encoding="utf-8")
    code, out, _ = run(capsys, "import", "customers", "names.csv")
    assert code == 0 and out.startswith("customers: imported 0 new, 0 changed, 1 unchanged")
    [park] = [c for c in rows(database_url, Customer) if c.external_id == "C-1001"]  # type: ignore[attr-defined]
    assert park.email == "seojun.park@example.com"  # type: ignore[attr-defined]

    # Without a currency column, a price is read in the product's own currency.
    (shop / "usd.csv").write_text(
        'sku,name,price,stock\nLMP-HEAD,"Headlamp 400, rechargeable",19.90,25\n', encoding="utf-8"
    )
    code, out, _ = run(capsys, "import", "products", "usd.csv")
    assert code == 0 and "changed LMP-HEAD: price" in out
    [lamp] = [p for p in rows(database_url, Product) if p.sku == "LMP-HEAD"]  # type: ignore[attr-defined]
    assert (lamp.price, lamp.currency) == (1990, "USD")  # type: ignore[attr-defined]
    (shop / "new.csv").write_text("sku,name,price,stock\nNEW-9,New Thing,19.90,1\n", encoding="utf-8")
    code, _, err = run(capsys, "import", "products", "new.csv")
    assert code == 2
    assert (
        err.splitlines()[0]
        == "new.csv:2: price: '19.90': KRW has no decimal places (the product is priced in KRW)"
    )

    # An order line without a "shipment" key keeps its shipment; "shipment": null removes it.
    line = '{"order_number": "20261120-0000101", "customer_id": "C-1001", "status": "delivered", '
    line += '"placed_at": "2026-11-20T10:15:00+09:00", "items": [{"sku": "TNT-2P-GRN", "quantity": 1, '
    line += '"option": "green"}, {"sku": "MUG-TI-450", "quantity": 2}]'
    (shop / "status.jsonl").write_text(line + "}\n", encoding="utf-8")
    code, out, _ = run(capsys, "import", "orders", "status.jsonl")
    assert code == 0 and out.startswith("orders: imported 0 new, 0 changed, 1 unchanged")
    assert len(rows(database_url, Shipment)) == 2
    (shop / "status.jsonl").write_text(line + ', "shipment": null}\n', encoding="utf-8")
    code, out, _ = run(capsys, "import", "orders", "status.jsonl")
    assert code == 0 and "changed 20261120-0000101: shipment" in out
    assert len(rows(database_url, Shipment)) == 1


def test_export_then_import_is_lossless(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import_all(capsys, shop)
    first = {}
    for kind, name in (
        ("products", "products.csv"),
        ("customers", "customers.csv"),
        ("orders", "orders.jsonl"),
    ):
        code, out, _ = run(capsys, "export", kind)
        assert code == 0
        first[name] = out
    # The export carries everything the import file said (the catalogue price an item
    # took and the order total are written out; the rest is the file's own values).
    assert "24.90,USD" in first["products.csv"] and "green|sand" in first["products.csv"]
    assert "+821087654321" in first["customers.csv"]
    assert '"placed_at": "2026-11-29T21:05:00+09:00"' in first["orders.jsonl"]
    assert '"unit_price": 71100' in first["orders.jsonl"]
    exported = shop / "exported"
    exported.mkdir()
    for name, text in first.items():
        (exported / name).write_text(text, encoding="utf-8")
    assert import_all(capsys, exported) == [
        "products: imported 0 new, 0 changed, 5 unchanged",
        "customers: imported 0 new, 0 changed, 3 unchanged",
        "orders: imported 0 new, 0 changed, 3 unchanged",
    ]
    # Into an empty database and out again: the same bytes.
    _empty(database_url)
    import_all(capsys, exported)
    for kind, name in (
        ("products", "products.csv"),
        ("customers", "customers.csv"),
        ("orders", "orders.jsonl"),
    ):
        assert run(capsys, "export", kind)[1] == first[name]


def _empty(database_url: str) -> None:
    async def wipe() -> None:
        engine = create_engine(database_url)
        try:
            async with engine.begin() as connection:
                for model in (ShipmentEvent, Shipment, OrderItem, Order, Customer, Product):
                    await connection.execute(model.__table__.delete())  # type: ignore[union-attr]
        finally:
            await engine.dispose()

    asyncio.run(wipe())


def test_a_malformed_row_is_named_and_nothing_is_imported(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (shop / "bad.csv").write_text(
        "sku,name,price,stock\nOK-1,Fine,1000,5\nOK-2,Broken,12x,3\n", encoding="utf-8"
    )
    code, out, err = run(capsys, "import", "products", "bad.csv")
    assert code == 2 and out == ""
    assert err.splitlines() == ["bad.csv:3: price: '12x' is not a number", "csbot: bad.csv: nothing imported"]
    assert rows(database_url, Product) == []

    (shop / "nocols.csv").write_text("sku,title\nA,B\n", encoding="utf-8")
    code, _, err = run(capsys, "import", "products", "nocols.csv")
    assert code == 2 and err.splitlines()[0] == "nocols.csv:1: missing columns: name, price, stock"


def test_an_order_naming_an_unknown_product_imports_nothing(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "import", "products", "products.csv")
    run(capsys, "import", "customers", "customers.csv")
    lines = (shop / "orders.jsonl").read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace('"BAG-30L"', '"BAG-99L"')
    (shop / "orders.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "import", "orders", "orders.jsonl")
    assert code == 2
    assert err.splitlines()[0] == "orders.jsonl:2: items[0].sku: no product 'BAG-99L' (import products first)"
    assert rows(database_url, Order) == []

    (shop / "bad.jsonl").write_text('{"order_number": "X", "customer_id": "C-1001"}\n', encoding="utf-8")
    code, _, err = run(capsys, "import", "orders", "bad.jsonl")
    assert code == 2 and err.splitlines()[0] == "bad.jsonl:1: status: missing"


@pytest.mark.parametrize(
    "raw", ["010-1234-5678", "01012345678", "+82 10 1234 5678", "821012345678", "+82 010-1234-5678"]
)
def test_phone_formats_are_one_number(raw: str) -> None:
    assert normalize_phone(raw) == "821012345678"


def test_a_shop_elsewhere_sets_its_country_code(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CSBOT_PHONE_COUNTRY_CODE", "81")
    (shop / "jp.csv").write_text(
        "customer_id,name,phone\nJ1,Sato,090-1234-5678\nJ2,Ito,+81 80 1111 2222\n", encoding="utf-8"
    )
    code, _, err = run(capsys, "import", "customers", "jp.csv")
    assert code == 0, err
    assert sorted(c.phone for c in rows(database_url, Customer)) == ["818011112222", "819012345678"]  # type: ignore[attr-defined]


def test_imported_customer_links_through_their_own_contact_only(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "import", "customers", "customers.csv")

    async def link(sender: int, contact_user: int, phone: str) -> LinkOutcome:
        engine = create_engine(database_url)
        try:
            async with create_session_factory(engine)() as session:
                result = await link_contact(
                    session, sender_user_id=sender, contact_user_id=contact_user, phone_number=phone
                )
                return result.outcome
        finally:
            await engine.dispose()

    # customers.csv has 010-2345-6789; Telegram sends it as +82 10 2345 6789 (or without the +).
    assert asyncio.run(link(41, 42, "+82 10 2345 6789")) == LinkOutcome.NOT_OWN_CONTACT
    assert asyncio.run(link(41, 41, "821023456789")) == LinkOutcome.LINKED
    [linked] = [c for c in rows(database_url, Customer) if c.telegram_user_id == 41]  # type: ignore[attr-defined]
    assert linked.external_id == "C-1001"  # type: ignore[attr-defined]

    # A new number in the shop's file undoes the link: it proved the old number only.
    text = (shop / "customers.csv").read_text(encoding="utf-8").replace("010-2345-6789", "010-2345-0000")
    (shop / "customers.csv").write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "import", "customers", "customers.csv")
    assert code == 0 and "changed C-1001: phone, Telegram link removed" in out
    assert not [c for c in rows(database_url, Customer) if c.telegram_user_id == 41]  # type: ignore[attr-defined]


def test_changed_order_keeps_item_rows_that_returns_point_at(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import_all(capsys, shop)
    [order] = [o for o in rows(database_url, Order) if o.number == "20261120-0000101"]  # type: ignore[attr-defined]
    items = sorted((i for i in rows(database_url, OrderItem) if i.order_id == order.id), key=lambda i: i.id)  # type: ignore[attr-defined]

    async def file_return() -> None:
        engine = create_engine(database_url)
        try:
            async with create_session_factory(engine)() as session:
                session.add(
                    ReturnRequest(
                        rma_number="RMA-1",
                        idempotency_key="k",
                        customer_id=order.customer_id,  # type: ignore[attr-defined]
                        order_id=order.id,  # type: ignore[attr-defined]
                        order_item_id=items[1].id,  # type: ignore[attr-defined]
                        kind=ReturnKind.REFUND,
                        reason="size",
                    )
                )
                await session.commit()
        finally:
            await engine.dispose()

    asyncio.run(file_return())
    lines = (shop / "orders.jsonl").read_text(encoding="utf-8").splitlines()
    lines[0] = (
        lines[0]
        .replace('"quantity": 2}', '"quantity": 3}')
        .replace('"status": "delivered", "placed', '"status": "delivered", "placed')
    )
    (shop / "orders.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "import", "orders", "orders.jsonl")
    assert code == 0 and "changed 20261120-0000101: total, items" in out
    after = sorted((i for i in rows(database_url, OrderItem) if i.order_id == order.id), key=lambda i: i.id)  # type: ignore[attr-defined]
    assert [i.id for i in after] == [i.id for i in items] and after[1].quantity == 3  # type: ignore[attr-defined]

    # Dropping the returned item is refused, with the line and the RMA number.
    lines[0] = lines[0].replace(', {"sku": "MUG-TI-450", "quantity": 3}', "")
    (shop / "orders.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "import", "orders", "orders.jsonl")
    assert (
        code == 2
        and err.splitlines()[0] == "orders.jsonl:1: items: would remove an item with return request RMA-1"
    )


def test_chat_answers_stock_from_an_imported_catalogue_in_korean_and_english(tmp_path: Path) -> None:
    """A fresh database, the shop's catalogue, then `csbot chat`: the demo shop stays out."""
    from tests.test_cli import csbot

    imported = csbot(tmp_path, "import", "products", str(EXAMPLES / "products.csv"))
    assert imported.returncode == 0, imported.stderr
    questions = [
        "트레일 데이팩 재고 있나요?",  # partial Korean name
        "Do you have the titanium mug in stock?",  # partial English name
        "tnt-2p-grn 재고?",  # the shop's own SKU, any case
        "チタンマグの在庫ありますか",  # Japanese name
        "가스 스토브 언제 입고돼요?",
        "SKU-7890 재고 있나요?",  # the demo shop's product: not in this shop
    ]
    chat = csbot(tmp_path, "chat", stdin="\n".join(questions) + "\n")
    assert chat.returncode == 0, chat.stderr
    replies = [block for block in chat.stdout.split("\n\n") if block.strip()]
    assert len(replies) == len(questions)
    assert replies[0].startswith("트레일 데이팩 30L (BAG-30L): 3개")
    assert replies[1].startswith("Titanium Mug 450ml (MUG-TI-450): in stock (40")
    assert replies[2].startswith("릿지 2인용 텐트 (TNT-2P-GRN)")
    assert "MUG-TI-450" in replies[3]
    assert "2027-02-15" in replies[4]
    assert "SKU-7890" in replies[5] and "Linen" not in replies[5] and "린넨" not in replies[5]


def test_faq_file_imports_once_and_exports_the_same(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "import", "faq", "faq.csv")
    assert code == 0 and out.startswith("faq: imported 4 new, 0 changed, 0 unchanged")
    _, exported, _ = run(capsys, "export", "faq")
    (shop / "again.csv").write_text(exported, encoding="utf-8")
    code, out, _ = run(capsys, "import", "faq", "again.csv")
    assert out.startswith("faq: imported 0 new, 0 changed, 4 unchanged")
    (shop / "bad.csv").write_text(
        "slug,language,question,answer\nhi,ko,Hi?,Hello\nwhy,en,Why?,\n", encoding="utf-8"
    )
    code, _, err = run(capsys, "import", "faq", "bad.csv")
    assert code == 2 and err.startswith("csbot: bad.csv: line 3") and "nothing was imported" in err


async def test_products_imported_while_the_bot_runs_are_found_by_name(
    settings: Settings, tmp_path: Path
) -> None:
    from bot.app import build_app
    from services.shop.files.products import read_products
    from services.shop.sync.products import import_products
    from tests.harness import Harness

    app = await build_app(
        settings.model_copy(update={"catalogue_refresh_seconds": 0}), upgrade=False, seed=False
    )
    try:
        harness = Harness(app)
        [before] = await harness.say(700_100_001, "캠핑 의자 재고 있나요?")
        assert "CH-1" not in before  # not in the catalogue yet: asked which product, or what was meant
        (tmp_path / "more.csv").write_text(
            "sku,name,price,stock,name_ko\nCH-1,Camp Chair,39000,8,캠핑 의자\n", encoding="utf-8"
        )
        async with app.session_factory() as session:
            await import_products(session, read_products(tmp_path / "more.csv")[0])
            await session.commit()
        [after] = await harness.say(700_100_001, "캠핑 의자 재고 있나요?")
        assert after.startswith("캠핑 의자 (CH-1): 재고 있어요 (8개)")
    finally:
        await app.close()


def test_every_problem_of_a_file_is_reported_in_one_pass(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A row problem and a conflict with the stored data (a price read in the product's stored
    currency) come out of one run, not one after the other."""
    (shop / "krw.csv").write_text("sku,name,price,stock,currency\nKR-1,Cap,19000,5,KRW\n", encoding="utf-8")
    assert run(capsys, "import", "products", "krw.csv")[0] == 0
    (shop / "two.csv").write_text(
        "sku,name,price,stock\nKR-1,Cap,19.90,5\nOK-2,Broken,12x,3\n", encoding="utf-8"
    )
    code, _, err = run(capsys, "import", "products", "two.csv")
    assert code == 2
    assert err.splitlines() == [
        "two.csv:2: price: '19.90': KRW has no decimal places (the product is priced in KRW)",
        "two.csv:3: price: '12x' is not a number",
        "csbot: two.csv: nothing imported",
    ]
    run(capsys, "import", "customers", "customers.csv")
    run(capsys, "import", "products", "products.csv")
    lines = (shop / "orders.jsonl").read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace('"delivered"', '"lost"', 1)
    lines[1] = lines[1].replace('"BAG-30L"', '"BAG-99L"')
    (shop / "orders.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "import", "orders", "orders.jsonl")
    assert code == 2
    assert [line.split(": ")[0:2] for line in err.splitlines()[:2]] == [
        ["orders.jsonl:1", "status"],
        ["orders.jsonl:2", "items[0].sku"],
    ]
    assert rows(database_url, Order) == []


@pytest.mark.parametrize(
    ("price", "currency", "problem"),
    [
        ("$5", "KRW", "price: '$5' is written with '$', but the price is in KRW"),
        ("5,000원", "JPY", "price: '5,000원' is written with '원', but the price is in JPY"),
        ("59000", "WON", "currency: 'WON' is not a currency code; use KRW"),
        ("59000", "ABC", "currency: 'ABC' is not an ISO 4217 currency code (e.g. KRW, JPY, USD)"),
    ],
)
def test_a_price_or_currency_that_contradicts_itself_is_refused(
    shop: Path, capsys: pytest.CaptureFixture[str], price: str, currency: str, problem: str
) -> None:
    (shop / "p.csv").write_text(
        f'sku,name,price,stock,currency\nA-1,Thing,"{price}",1,{currency}\n', encoding="utf-8"
    )
    code, _, err = run(capsys, "import", "products", "p.csv")
    assert code == 2 and err.splitlines()[0] == f"p.csv:2: {problem}"


def test_signs_that_agree_with_the_currency_are_read() -> None:
    from services.shop.money import parse_price

    assert parse_price("₩59,000", "KRW") == 59000 == parse_price("59,000원", "KRW")
    assert parse_price("$24.90", "USD") == 2490 and parse_price("¥1,200", "JPY") == 1200


def test_a_semicolon_separated_file_is_read_and_another_separator_is_named(
    shop: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (shop / "semi.csv").write_text("sku;name;price;stock\nA-1;Thing;1000;4\n", encoding="utf-8")
    code, out, err = run(capsys, "import", "products", "semi.csv")
    assert code == 0, err
    assert out.startswith("products: imported 1 new")
    (shop / "odd.csv").write_text("sku;title;price\nA-1;Thing;1000\n", encoding="utf-8")
    code, _, err = run(capsys, "import", "products", "odd.csv")
    assert code == 2
    assert err.splitlines()[0] == (
        "odd.csv:1: missing columns: name, stock (the header is separated by semicolons; csbot reads commas)"
    )
