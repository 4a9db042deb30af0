"""Demo shop data from our scenarios, so a new user has something to ask about."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from db.models import (
    Customer,
    FaqEntry,
    Order,
    OrderItem,
    OrderStatus,
    Product,
    Shipment,
    ShipmentEvent,
)
from db.repositories.faq import holds_shop_data
from db.types import utcnow

DEMO_PHONE = "821012345678"
DEMO_CUSTOMER_IDS = ("DEMO-1", "DEMO-2")
"""How db/repositories/demo.py recognises the demo's customers."""
OTHER_CUSTOMER_PHONE = "821098765432"

DEMO_PRODUCTS: list[dict[str, Any]] = [
    {
        "sku": "SKU-7890",
        "name": "Linen Overshirt",
        "name_ko": "린넨 오버셔츠",
        "name_ja": "リネンオーバーシャツ",
        "price": 59_000,
        "stock": 42,
        "options": "S, M, L, XL; beige, navy",
    },
    {
        "sku": "SKU-1204",
        "name": "Canvas Tote Bag",
        "name_ko": "캔버스 토트백",
        "name_ja": "キャンバストートバッグ",
        "price": 32_000,
        "stock": 3,
        "options": "ivory, black",
    },
    {
        "sku": "SKU-5521",
        "name": "Merino Crew Sweater",
        "name_ko": "메리노 크루 스웨터",
        "name_ja": "メリノクルーセーター",
        "price": 89_000,
        "stock": 0,
        "restock_date": date(2027, 1, 12),
        "options": "S, M, L; grey, cream",
    },
    {
        "sku": "SKU-3300",
        "name": "Wool Beanie",
        "name_ko": "울 비니",
        "name_ja": "ウールビーニー",
        "price": 19_000,
        "stock": 0,
    },
    {
        "sku": "SKU-2045",
        "name": "Denim Wide Pants",
        "name_ko": "데님 와이드 팬츠",
        "name_ja": "デニムワイドパンツ",
        "price": 64_000,
        "stock": 17,
        "options": "26-34",
    },
]

FAQ: list[tuple[str, str, str, str, str, str]] = [
    # slug, language, question, answer, tags (comma separated), examples (one per line)
    (
        "return-method",
        "ko",
        "반품은 어떻게 하나요?",
        "상품 수령 후 7일 이내에 반품·교환을 신청하실 수 있어요. 챗봇에서 '반품 신청'을 "
        "누르거나 /return 을 보내 주시면 "
        "접수 번호(RMA)가 발급되고, 택배 기사님이 2영업일 안에 회수합니다. 단순 변심은 "
        "왕복 배송비 6,000원이 차감되며, 파손·오배송은 "
        "무료예요. 환불은 회수 확인 후 3영업일 이내에 결제 수단으로 처리됩니다.",
        "returns,refund,exchange",
        "반품하고 싶은데 어떻게 해요?\n반품 기간이 며칠이에요?\n교환은 어떻게 신청하나요?"
        "\n환불은 언제 들어와요?\n반품 배송비 얼마예요?\n반품 방법과 기간",
    ),
    (
        "return-method",
        "en",
        "How do I return an item?",
        "You can request a return or exchange within 7 days of delivery. Tap 'Start "
        "a return' or send /return to get an RMA number; a courier picks the parcel "
        "up within 2 business days. For a change of mind, the ₩6,000 round-trip "
        "shipping fee is deducted; damaged or wrong items are free. Refunds go "
        "back to your payment method within 3 business days after we receive the "
        "item.",
        "returns,refund,exchange",
        "How do I send something back?\nHow many days do I have to return an item?\nCan "
        "I exchange for another size?\nWhen will I get my refund?\nWho pays for return "
        "shipping?\nWhat is the return method and deadline?",
    ),
    (
        "return-method",
        "ja",
        "返品の方法と期限を教えてください",
        "商品到着後7日以内に返品・交換を申し込めます。チャットボットで「返品申請」を押すか /re"
        "turn を送るとRMA番号が発行され、2営業日以内に宅配業者が回収に伺います。お客様都合"
        "の場合は往復送料6,000ウォンを差し引き、破損・誤配送の場合は無料です。返金は商品到着確"
        "認後3営業日以内にお支払い方法へ行います。",
        "returns,refund,exchange",
        "返品したいのですがどうすればいいですか\n返品期限は何日ですか\n交換はどうやって申し込みます"
        "か\n返金はいつになりますか",
    ),
    (
        "membership-discounts",
        "ko",
        "회원 등급별 할인 혜택이 뭐예요?",
        "회원 등급은 최근 6개월 구매 금액으로 정해져요. 실버(30만 원 이상) 3% 할인,"
        " 골드(60만 원 이상) 5% 할인과 무료 "
        "배송, VIP(120만 원 이상) 8% 할인과 무료 배송·생일 쿠폰을 드립니다. 등급은 매월 1일에 갱신돼요.",
        "membership,discount,coupon",
        "VIP 혜택이 뭐예요?\n골드 등급 되려면 얼마나 사야 해요?\n회원 등급은 언제 바"
        "뀌어요?\n등급별 할인율 알려주세요\n멤버십 등급",
    ),
    (
        "membership-discounts",
        "en",
        "What discounts do membership tiers get?",
        "Your tier depends on what you spent in the last 6 months. Silver (₩300,000+) "
        "gets 3% off, Gold (₩600,000+) 5% off and free shipping, VIP (₩1,200,000+) "
        "8% off, free shipping and a birthday coupon. Tiers are updated on the "
        "1st of each month.",
        "membership,discount,coupon",
        "What do VIP members get?\nHow do I reach Gold tier?\nWhen are membership "
        "tiers updated?\nDo members get free shipping?",
    ),
    (
        "membership-discounts",
        "ja",
        "会員ランクごとの割引特典は何ですか",
        "会員ランクは直近6か月の購入金額で決まります。シルバー(30万ウォン以上)は3%割引、ゴー"
        "ルド(60万ウォン以上)は5%割引と送料無料、VIP(120万ウォン以上)は8%割引・送料"
        "無料・誕生日クーポンです。ランクは毎月1日に更新されます。",
        "membership,discount,coupon",
        "VIPの特典は何ですか\nゴールドになる条件は\n会員ランクはいつ更新されますか",
    ),
    (
        "same-day-dispatch",
        "ko",
        "오늘 주문하면 언제 도착하나요?",
        "평일 오후 2시까지 결제된 주문은 당일 발송되고, 보통 다음 날 도착해요 (제주·도서산간은 "
        "1~2일 더 걸려요). 오후 2시 "
        "이후나 주말·공휴일 주문은 다음 영업일에 발송됩니다. 배송비는 3,000원이며 "
        "5만 원 이상 구매 시 무료예요.",
        "shipping,delivery",
        "몇 시까지 주문하면 오늘 보내 주나요?\n배송 기간이 얼마나 걸려요?\n배송비 얼마예요?\n주말에 "
        "주문하면 언제 발송돼요?\n제주도는 "
        "배송 며칠 걸려요?\n당일 발송 마감 시간",
    ),
    (
        "same-day-dispatch",
        "en",
        "If I order today, when does it arrive?",
        "Orders paid by 2 p.m. on a weekday ship the same day and usually arrive "
        "the next day (Jeju and remote islands take 1-2 days more). Orders after "
        "2 p.m. or on weekends and holidays ship the next business day. Shipping "
        "is ₩3,000, free over ₩50,000.",
        "shipping,delivery",
        "What's the cut-off time for same-day shipping?\nHow long does delivery "
        "take?\nHow much is shipping?\nIs shipping free over a certain amount?\nWhen "
        "do weekend orders ship?\nWhat is the same-day dispatch cut-off?",
    ),
    (
        "same-day-dispatch",
        "ja",
        "今日注文したらいつ届きますか？",
        "平日午後2時までにお支払いが完了したご注文は当日発送し、通常翌日に届きます(済州・離島は1"
        "〜2日多くかかります)。午後2時以降や週末・祝日のご注文は翌営業日の発送です。送料は3,0"
        "00ウォン、5万ウォン以上で無料です。",
        "shipping,delivery",
        "何時までに注文すれば当日発送ですか\n配送にはどのくらいかかりますか\n送料はいくらですか\n当日発送の締め切り",
    ),
    (
        "payment-methods",
        "ko",
        "결제 수단은 뭐가 있나요?",
        "신용·체크카드(국내 모든 카드, 5만 원 이상 2~6개월 무이자 할부), 카카오페이,"
        " 네이버페이, 토스페이, 무통장입금(주문 "
        "후 24시간 이내 입금)으로 결제하실 수 있어요.",
        "payment",
        "카카오페이 되나요?\n무이자 할부 가능해요?\n무통장 입금 되나요?\n네이버페이로 결제할 수 있어요?"
        "\n카드 무통장 결제 방법",
    ),
    (
        "payment-methods",
        "en",
        "What payment methods do you accept?",
        "We accept Korean credit and debit cards (2-6 month interest-free installments "
        "over ₩50,000), KakaoPay, Naver Pay, Toss Pay, and bank transfer (pay within "
        "24 hours of ordering).",
        "payment",
        "Can I pay with KakaoPay?\nDo you offer interest-free installments?\nCan "
        "I pay by bank transfer?\nWhich cards do you take?",
    ),
    (
        "payment-methods",
        "ja",
        "支払い方法は何がありますか",
        "韓国のクレジットカード・デビットカード(5万ウォン以上で2〜6か月の無利息分割)、カカオペ"
        "イ、ネイバーペイ、トスペイ、銀行振込(注文後24時間以内)がご利用いただけます。",
        "payment",
        "カカオペイは使えますか\n分割払いはできますか\n銀行振込はできますか",
    ),
    (
        "order-change-cancel",
        "ko",
        "주문 취소나 주문 변경(주소 변경)은 어떻게 하나요?",
        "출고 전(결제 완료·상품 준비 중)에는 마이페이지 > 주문 내역에서 직접 취소하거나 "
        "배송지를 바꿀 수 있어요. 이미 출고된 주문은 "
        "취소 대신 수령 후 반품으로 처리됩니다.",
        "order,cancel,address",
        "주문 취소하고 싶어요\n배송지 주소 바꿀 수 있나요?\n결제했는데 취소 가능해요?\n이"
        "미 발송된 주문도 취소되나요?",
    ),
    (
        "order-change-cancel",
        "en",
        "How do I cancel or change my order (address)?",
        "Before dispatch (paid or being prepared) you can cancel or change the "
        "delivery address yourself under My Page > Orders. Once an order has shipped, "
        "it can't be cancelled; return it after delivery instead.",
        "order,cancel,address",
        "I want to cancel my order\nCan I change the shipping address?\nCan I cancel "
        "after paying?\nCan I still cancel once it has shipped?",
    ),
    (
        "order-change-cancel",
        "ja",
        "注文のキャンセルや変更(住所変更)はどうすればいいですか",
        "発送前(支払い済み・準備中)であれば、マイページ > 注文履歴からご自身でキャンセルや配送"
        "先の変更ができます。発送済みのご注文はキャンセルできないため、受け取り後に返品してください"
        "。",
        "order,cancel,address",
        "注文をキャンセルしたいです\n配送先の住所を変更できますか\n支払い後でもキャンセルできますか",
    ),
    (
        "opening-hours",
        "ko",
        "고객센터 운영 시간이 어떻게 되나요?",
        "고객센터는 평일 오전 10시부터 오후 6시까지(점심 12~1시) 운영해요. 챗봇은 "
        "24시간 답변하고, 운영 시간 외 상담 요청은 "
        "다음 영업일에 답변드려요.",
        "hours,contact",
        "고객센터 몇 시까지 해요?\n주말에도 상담 되나요?\n상담 가능 시간 알려주세요\n점심시간에도 "
        "상담하나요?",
    ),
    (
        "opening-hours",
        "en",
        "What are your customer service hours?",
        "Our team works weekdays 10 a.m. to 6 p.m. KST (lunch 12-1). The bot answers "
        "around the clock; requests for a person outside those hours are answered "
        "the next business day.",
        "hours,contact",
        "When is your support team available?\nAre you open on weekends?\nWhat time "
        "does customer service close?\nWhat are your office hours?",
    ),
    (
        "opening-hours",
        "ja",
        "カスタマーサービスの営業時間は？",
        "カスタマーサービスは平日午前10時から午後6時まで(昼休み12時〜1時、韓国時間)です。チ"
        "ャットボットは24時間対応し、営業時間外のご相談は翌営業日にお返事します。",
        "hours,contact",
        "週末も対応していますか\n問い合わせできる時間を教えてください\n何時まで営業していますか",
    ),
    (
        "receipts",
        "ko",
        "영수증이나 세금계산서 발급은 어떻게 하나요?",
        "카드 영수증과 현금영수증은 마이페이지 > 주문 내역에서 바로 출력할 수 있어요."
        " 세금계산서는 사업자등록증을 첨부해 상담원에게 "
        "요청해 주세요.",
        "invoice,receipt",
        "현금영수증 신청은 어떻게 해요?\n카드 영수증 출력하고 싶어요\n세금계산서 받을 수 "
        "있나요?\n거래명세서 발급 되나요?",
    ),
    (
        "receipts",
        "en",
        "How do I get a receipt or a tax invoice?",
        "Card and cash receipts can be printed under My Page > Orders. For a tax "
        "invoice, send your business registration to our team.",
        "invoice,receipt",
        "Can I get an invoice for my company?\nWhere can I print my card receipt?\nHow "
        "do I get a cash receipt?\nCan you issue a tax invoice?",
    ),
    (
        "receipts",
        "ja",
        "領収書や税金計算書の発行方法",
        "カード領収書と現金領収証はマイページ > 注文履歴から印刷できます。税金計算書は事業者登録"
        "証を添えて担当者にご依頼ください。",
        "invoice,receipt",
        "領収書をもらえますか\nインボイスを発行してもらえますか\n現金領収証の申請方法",
    ),
]


def _id(product: Product) -> int:
    """Flushed rows have ids; the check makes that explicit for the type checker too."""
    assert product.id is not None
    return product.id


def demo_names(product: dict[str, Any]) -> tuple[str, ...]:
    """A demo product's names in every language it has, as the bot's catalogue index reads them."""
    return tuple(product[key] for key in ("name", "name_ko", "name_ja") if product.get(key))


async def seed_demo(session: AsyncSession, *, demo_telegram_user_id: int) -> bool:
    """Create the demo shop in a database with no shop data at all; returns False otherwise.

    A shop that imported only its FAQ into a fresh database chats with its own
    FAQ, not the demo's.
    """
    if await holds_shop_data(session):
        return False

    products = {spec["sku"]: Product(**spec) for spec in DEMO_PRODUCTS}
    demo = Customer(
        external_id=DEMO_CUSTOMER_IDS[0],
        name="김민지",
        phone=DEMO_PHONE,
        telegram_user_id=demo_telegram_user_id,
    )
    other = Customer(
        external_id=DEMO_CUSTOMER_IDS[1], name="Lee Jun", phone=OTHER_CUSTOMER_PHONE, language="en"
    )
    session.add_all([*products.values(), demo, other])
    await session.flush()

    now = utcnow()

    async def order(
        number: str, owner: Customer, status: OrderStatus, placed: datetime, lines: list[tuple[str, int, str]]
    ) -> Order:
        assert owner.id is not None
        created = Order(
            number=number,
            customer_id=owner.id,
            status=status,
            placed_at=placed,
            total=sum(products[sku].price * qty for sku, qty, _ in lines),
        )
        session.add(created)
        await session.flush()
        assert created.id is not None
        session.add_all(
            OrderItem(
                order_id=created.id,
                product_id=_id(products[sku]),
                quantity=quantity,
                unit_price=products[sku].price,
                option=option,
            )
            for sku, quantity, option in lines
        )
        return created

    async def shipment(
        for_order: Order,
        carrier: str,
        tracking: str,
        status: str,
        eta: date | None,
        events: list[tuple[timedelta, str, str]],
    ) -> None:
        assert for_order.id is not None
        created = Shipment(
            order_id=for_order.id, carrier=carrier, tracking_number=tracking, status=status, eta=eta
        )
        session.add(created)
        await session.flush()
        assert created.id is not None
        session.add_all(
            ShipmentEvent(shipment_id=created.id, at=now - ago, status=event, location=location)
            for ago, event, location in events
        )

    shipped = await order(
        "20240115-001234",
        demo,
        OrderStatus.SHIPPED,
        datetime(2024, 1, 15, 9, 12, tzinfo=UTC),
        [("SKU-7890", 1, "M / navy"), ("SKU-1204", 1, "ivory")],
    )
    delivered = await order(
        "20231202-000458",
        demo,
        OrderStatus.DELIVERED,
        datetime(2023, 12, 2, 14, 3, tzinfo=UTC),
        [("SKU-2045", 1, "28")],
    )
    await order(
        "20240120-000871",
        demo,
        OrderStatus.PAID,
        datetime(2024, 1, 20, 11, 40, tzinfo=UTC),
        [("SKU-5521", 1, "M / grey")],
    )
    other_order = await order(
        "20240116-009999",
        other,
        OrderStatus.SHIPPED,
        datetime(2024, 1, 16, 8, 0, tzinfo=UTC),
        [("SKU-7890", 2, "L / beige")],
    )
    await shipment(
        shipped,
        "CJ대한통운 (CJ Logistics)",
        "6523-1188-4410",
        "in_transit",
        (now + timedelta(days=1)).date(),
        [
            (timedelta(days=1, hours=3), "picked up", "Icheon hub"),
            (timedelta(hours=9), "in transit", "Gonjiam mega hub"),
        ],
    )
    await shipment(
        delivered,
        "Hanjin",
        "4120-7763-0021",
        "delivered",
        None,
        [(timedelta(days=400), "delivered", "Seoul Mapo-gu")],
    )
    await shipment(
        other_order,
        "Lotte Global",
        "2391-5500-7315",
        "in_transit",
        (now + timedelta(days=2)).date(),
        [(timedelta(hours=20), "picked up", "Busan hub")],
    )

    session.add_all(
        FaqEntry(slug=slug, language=language, question=question, answer=answer, tags=tags, examples=examples)
        for slug, language, question, answer, tags, examples in FAQ
    )
    await session.commit()
    return True
