"""A real shop's first day, scripted: an invented coffee roastery's own files (tests/data/first_day,
written by someone who never saw csbot's code) imported into a fresh database through `csbot
import`, then its customers' messages through the real dispatcher. Each test is a row of what a
new shop met on its first day: the demo's data in its answers, UTC times, its own product words
and order codes not understood, a return form that swallowed every message, replies in the wrong
language, and `csbot doctor` says what is missing before customers arrive."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiogram.methods import SendMessage

from bot.app import build_app
from db.models import Product
from services.settings import Settings
from services.text.sentences import Language, t
from tests.cli_runner import csbot
from tests.harness import ADMIN_ID, SUPPORT_CHAT_ID, Harness

SHOP = Path(__file__).parent / "data" / "first_day"
MINJI, DOHYUN, SARAH, KEN, YUNA = 910_101, 910_102, 910_103, 910_104, 910_105
PHONES = {
    MINJI: "010-3412-7788",
    DOHYUN: "010-9087-1123",
    SARAH: "+82 10 4455 2190",
    KEN: "+81 90-1234-5678",
    YUNA: "01066120934",
}
NEW = 910_900
"""Someone who is not a customer yet."""


def import_shop(folder: Path, database_url: str) -> list[str]:
    """The shop's files, as the README's go-live steps import them; the reports' first lines."""
    reports = []
    for kind, name in (
        ("products", "products.csv"),
        ("customers", "customers.csv"),
        ("orders", "orders.jsonl"),
        ("faq", "faq.csv"),
    ):
        result = csbot(folder, "import", kind, str(SHOP / name), CSBOT_DATABASE_URL=database_url)
        assert result.returncode == 0, result.stderr
        reports.append(result.stdout.splitlines()[0])
    return reports


@pytest.fixture
def imported(database_url: str, tmp_path: Path) -> str:
    """A fresh database with the shop's files in it (a sync fixture: `csbot` runs its own loop)."""
    assert import_shop(tmp_path, database_url) == [
        "products: imported 11 new, 0 changed, 0 unchanged",
        "customers: imported 5 new, 0 changed, 0 unchanged",
        "orders: imported 10 new, 0 changed, 0 unchanged",
        "faq: imported 15 new, 0 changed, 0 unchanged, 0 removed",
    ]
    return database_url


@pytest.fixture
async def shop(imported: str, tmp_path: Path) -> AsyncIterator[Harness]:
    database_url = imported
    settings = Settings(
        database_url=database_url,
        journal_path=str(tmp_path / "journal.jsonl"),
        admin_ids=frozenset({ADMIN_ID}),
        support_chat_id=SUPPORT_CHAT_ID,
        shop_timezone="Asia/Seoul",
        return_window_days=3650,  # the data's deliveries stay returnable whatever today's date is
        _env_file=None,  # type: ignore[call-arg]
    )
    app = await build_app(settings, upgrade=False)  # no demo: the shop's own data only
    harness = Harness(app)
    for user, phone in PHONES.items():
        await harness.feed(harness.updates.contact(user, phone, contact_user_id=user))
    yield harness
    await app.close()


async def test_the_shop_serves_its_own_data_and_never_the_demos(shop: Harness) -> None:
    assert [p.sku for p in await shop.rows(Product) if p.sku.startswith("SKU-")] == []
    [reply] = await shop.say(NEW, "SKU-7890 재고 있나요?")
    assert "린넨" not in reply and "Linen" not in reply
    calls = await shop.feed(shop.updates.text(NEW, "/help"))
    [help_text] = [c.text for c in calls if isinstance(c, SendMessage)]
    assert "SKU-7890" not in help_text and "20240115-001234" not in help_text
    assert "MC" in help_text, "the example order number has the shop's own shape"
    [reply] = await shop.say(MINJI, "주문 MC20991231-0001 배송 조회")
    assert "20240115-001234" not in reply and "MC" in reply.split("(예:")[-1]


@pytest.mark.parametrize(
    ("text", "sku"),
    [
        ("콜롬비아 원두 남았나요?", "BN-COL"),
        ("에티오피아 원두 있어요?", "BN-YIR"),
        ("ケニアの豆はありますか？", "BN-KEN"),
        ("yirgacheffe beans in stock?", "BN-YIR"),
        ("핸드밀 품절이던데 언제 다시 들어와요?", "TL-GRINDER"),
    ],
)
async def test_the_shops_own_words_find_its_products(shop: Harness, text: str, sku: str) -> None:
    [reply] = await shop.say(NEW, text)
    assert f"({sku})" in reply, reply
    assert "carry" not in reply and "취급" not in reply


@pytest.mark.parametrize(
    ("text", "has", "lacks"),
    [
        ("안녕하세요~ 예가체프 200g 재고 있나요??", "200g: 현재 품절", "4개 남았어요"),
        ("케냐 500그람 있어요?", "500g: 현재 품절", "재고 있어요 (8개)"),
        ("머그 차콜색 있나요?", "차콜: 현재 품절", "17개"),
        ("is the kenya 1kg available?", "in 1kg: in stock (1 available)", "8 available"),
        ("드립백 예가체프맛 재고있나요?", "(DB-10) 예가체프: 현재 품절", "(BN-YIR)"),
    ],
)
async def test_stock_is_answered_for_the_asked_size_or_colour(
    shop: Harness, text: str, has: str, lacks: str
) -> None:
    [reply] = await shop.say(NEW, text)
    assert has in reply and lacks not in reply, reply


@pytest.mark.parametrize(
    "text",
    [
        "구스넥 주전자 인덕션에서도 돼요? 집에 인덕션밖에 없어서요",
        "예가체프 원두 맛이 어때요?",
        "머그컵 식세기 돌려도 되나요?",
        "반품 가능한가요? 머그컵 입구가 깨져서 왔어요",
        "케냐 원두 하나는 안 뜯었는데 반품되나요?",
    ],
)
async def test_a_question_about_a_product_that_is_not_about_stock_gets_no_stock_line(
    shop: Harness, text: str
) -> None:
    replies = await shop.say(MINJI, text)
    assert not any("재고 있어요" in reply or "남았어요" in reply for reply in replies), replies


@pytest.mark.parametrize(
    ("user", "text", "number"),
    [
        (YUNA, "MC20261130-0007 배송 조회", "MC20261130-0007"),
        (DOHYUN, "어제 주문한거 아직 안보냈으면 취소해주세요 MC202611300008", "MC20261130-0008"),
        (DOHYUN, "언제 도착했는지 알수있을까요? 20261122-0002", "MC20261122-0002"),
        (YUNA, "mc20261130-0007 어디쯤이에요?", "MC20261130-0007"),
    ],
)
async def test_the_shops_order_codes_are_read_whole(shop: Harness, user: int, text: str, number: str) -> None:
    [reply] = await shop.say(user, text)
    assert number in reply and "찾지 못했어요" not in reply, reply


async def test_times_are_the_shops_and_tracking_has_its_page(shop: Harness) -> None:
    [reply] = await shop.say(MINJI, "MC20261129-0005 지금 어디쯤이에요??")
    # the last event is 2026-12-01 07:50 in Seoul: 2026-11-30 22:50 UTC, the day before
    assert "2026-12-01 07:50 KST" in reply and "2026-11-30" not in reply, reply
    assert "https://trace.cjlogistics.com/next/tracking.html?wblNo=" in reply
    [reply] = await shop.say(DOHYUN, "MC20261122-0002 배송 조회")
    assert "https://www.hanjin.com/" in reply and "2026-11-24 07:58 KST" in reply


async def test_the_staff_brief_dates_orders_in_the_shops_zone(shop: Harness) -> None:
    calls = await shop.feed(shop.updates.text(YUNA, "상담원 연결해 주세요"))
    [brief] = [c.text for c in calls if isinstance(c, SendMessage) and c.chat_id == SUPPORT_CHAT_ID]
    # placed 2026-12-01 01:14 in Seoul, which is still 2026-11-30 in UTC
    assert "MC20261201-0010 paid, placed 2026-12-01" in brief, brief


async def test_inside_the_return_form_a_person_is_always_reachable(shop: Harness) -> None:
    said = await shop.say(DOHYUN, "/return")
    assert said == [t("return_choose_order", Language.KO)]
    for text in ("MC20261122-0002 배송 조회", "반품 신청 현황 알려주세요", "케냐 200g 재고 있나요?"):
        said = await shop.say(DOHYUN, text)
        assert t("return_reprompt_choice", Language.KO) not in said, (text, said)
    said = await shop.say(DOHYUN, "아 그냥 상담원 연결해주세요 말로하는게 편할듯")
    assert t("return_reprompt_choice", Language.KO) not in said
    assert any("상담원" in reply or "담당자" in reply for reply in said), said


async def test_every_reply_is_in_the_customers_language(shop: Harness) -> None:
    [reply] = await shop.say(KEN, "BN-KENの在庫はありますか")
    assert "在庫" in reply or "品切れ" in reply, reply
    [reply] = await shop.say(YUNA, "MC20261130-0007をキャンセルできますか")
    assert reply == t(
        "cancel_not_possible", Language.JA, number="MC20261130-0007", status=t("status_shipped", Language.JA)
    )


def test_chat_as_a_customer_by_phone(imported: str, tmp_path: Path) -> None:
    """`csbot chat --phone` tries the shop's own orders before going live."""
    database_url = imported
    result = csbot(
        tmp_path,
        "chat",
        "--json",
        "--phone",
        "010-9087-1123",
        stdin="저번에 주문한거 언제 도착했는지 알수있을까요? 20261122-0002\n",
        CSBOT_DATABASE_URL=database_url,
    )
    assert result.returncode == 0, result.stderr
    assert "MC20261122-0002" in result.stdout and "520188346620" in result.stdout
    unknown = csbot(tmp_path, "chat", "--phone", "010-0000-0000", stdin="", CSBOT_DATABASE_URL=database_url)
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr
    assert unknown.stderr.strip().splitlines()[-1] == (
        "csbot: --phone: no customer of the shop has the phone 010-0000-0000"
    )


def test_doctor_says_what_is_missing_one_line_each(imported: str, tmp_path: Path) -> None:
    database_url = imported
    result = csbot(tmp_path, "doctor", "--offline", CSBOT_DATABASE_URL=database_url)
    lines = result.stdout.splitlines()
    assert result.returncode == 1
    verdicts = {line.split(":")[0].split(None, 1)[1]: line.split()[0] for line in lines[:-1]}
    assert verdicts["bot token"] == "FAIL" and verdicts["CSBOT_ADMIN_IDS"] == "FAIL"
    assert verdicts["CSBOT_SUPPORT_CHAT_ID"] == "FAIL" and verdicts["demo data"] == "ok"
    assert verdicts["shop data"] == "ok" and verdicts["FAQ"] == "ok" and verdicts["bot's sentences"] == "ok"
    ready = csbot(
        tmp_path,
        "doctor",
        "--offline",
        CSBOT_DATABASE_URL=database_url,
        CSBOT_BOT_TOKEN="123456:doctor-test-token",
        CSBOT_ADMIN_IDS="1",
        CSBOT_SUPPORT_CHAT_ID="-1001",
        CSBOT_SHOP_TIMEZONE="Asia/Seoul",
    )
    assert ready.returncode == 0, ready.stdout
    assert ready.stdout.splitlines()[-1] == "ready: 0 to fix, 0 to look at, 12 ok"


DOCTOR_MENTION = re.compile(r"[Dd]octor:\s+((?:`[^`]+`[,;]?\s*(?:and\s+|with several instances,\s*)?)+)")
"""The README's "(doctor: `A`, `B`)" notes: the checks that watch a go-live step."""


def test_the_readmes_go_live_list_is_what_doctor_checks(imported: str, tmp_path: Path) -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Going live", 1)[1].split("\n## ", 1)[0]
    listed = {
        name for mention in re.findall(DOCTOR_MENTION, section) for name in re.findall(r"`([^`]+)`", mention)
    }
    questions = tmp_path / "questions.tsv"
    questions.write_text("shipping-fee\tko\t배송비 얼마예요?\nnone\tko\t주차 되나요?\n", encoding="utf-8")
    checked: set[str] = set()
    for extra in (
        {},
        {
            "CSBOT_WEBHOOK_URL": "https://bot.example/hook",
            "CSBOT_WEBHOOK_SECRET": "s3cret-value",
            "CSBOT_REDIS_URL": "redis://127.0.0.1:1/0",
        },
    ):
        result = csbot(
            tmp_path,
            "doctor",
            "--offline",
            "--questions",
            str(questions),
            CSBOT_DATABASE_URL=imported,
            **extra,
        )
        checked |= {line.split(":")[0].split(None, 1)[1] for line in result.stdout.splitlines()[:-1]}
    assert listed == checked


@pytest.mark.parametrize(
    "text", ["그리고 콜롬비아 시킨거는 지금 어디쯤이에요??", "where is the colombia beans i ordered?"]
)
async def test_a_product_the_customer_bought_asks_for_its_order(shop: Harness, text: str) -> None:
    [reply] = await shop.say(MINJI, text)
    assert "MC20261129-0005" in reply and "MC20261120-0001" not in reply, reply
    assert "재고" not in reply and "in stock" not in reply


async def test_gift_wrapping_with_a_product_is_not_a_stock_question(shop: Harness) -> None:
    replies = await shop.say(NEW, "선물포장 되나요? 기프트세트랑 같이 사면요")
    assert not any("남았어요" in reply or "재고 있어요" in reply for reply in replies), replies
