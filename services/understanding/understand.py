"""What the bot makes of one message: the intent, the FAQ entry, and which way to answer.

One decision for the bot and for `csbot eval`, so the evaluation measures the
routing customers actually get. Entities decide first (an order number, a SKU,
an RMA number); then a confident FAQ match answers questions about the shop,
including delivery and returns policy; a low-confidence intent with nothing
precise to go on asks the customer instead of guessing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from services.faq.lookup import FaqLookupAnswerer
from services.faq.matcher import FaqMatch
from services.text.normalize import normalize
from services.text.sentences import Language
from services.understanding.classifier import Classification, Intent, IntentClassifier
from services.understanding.complaints import Complaint, complaint_in
from services.understanding.entities import NEUTRAL_NOUNS, Entities, sku_like_tokens
from services.understanding.small_talk import SmallTalk, small_talk

INTENT_CALIBRATION_PATH = Path(__file__).parent / "data" / "intent_calibration.json"


def _clarify_below() -> float:
    """Below this intent confidence (fitted by bench/calibrate.py) the bot asks instead of guessing."""
    return float(json.loads(INTENT_CALIBRATION_PATH.read_text(encoding="utf-8"))["clarify_below"])


CLARIFY_BELOW = _clarify_below()

ABOUT_OWN_ORDER = re.compile(
    r"\bmy (order|package|parcel|delivery|stuff|shipment)\b|\bwhere('s| is)\b|\btrack"
    r"|\b(hasn't|has not|haven't|not) (arrived|come|received)"
    r"|(내|제|저의)\s?(주문|택배|물건|상품)|주문한|주문했|시킨|언제\s?(와|오)|어디|안\s?(왔|와)"
    r"|송장|운송장|조회|私の注文|注文した|届いて|届きません|追跡"
    r"|(注文|荷物|商品|配達)(は|が)?(今)?(どこ|どうなって|まだ)"
)
"""The customer asks about their own order (tracking), not about delivery policy."""
WANTS_TO_FILE_RETURN = re.compile(
    r"\b(i('d| would)? (want|like|need) to|please|let me|how can i start)\b.*"
    r"\b(return|exchange|refund|send (it|this) back)"
    r"|\b(start|file|open|make) an? (return|exchange|refund)"
    r"|\b(i|we)('d| would)? (want|need|demand) (my|our|the|a) (money|refund)\b|\bgive me my money back\b"
    r"|(반품|교환|환불)\s?(하고\s?싶|할래|해\s?주(?!(시)?나요|(시)?나\?|니|는지)|신청|요청|원해|받고\s?싶|하려고|할게)"
    r"|(返品|交換|返金)(したい|をお願い|希望)"
)
"""Asks to start one ("교환해 주세요", "I'd like to return it", "I want my money back"); "교환해
주나요?" (do you exchange?) asks about the policy."""
BEFORE_BUYING = re.compile(
    r"\bif i (order|buy|purchase)\b|\bbefore (i )?(order|buy)|\bhaven'?t (ordered|bought)|\bnot ordered yet"
    r"|주문하면|구매하면|주문\s?전|구매\s?전|아직\s?주문\s?안|注文したら|注文すると|買ったら|注文(する)?前|まだ注文して"
)
"""Asked before buying ("if I order today when will it get here?", "주문하면 언제 와요?", "注文したら
いつ届きますか"): about delivery, not about an order of the customer's, whatever else it says."""
ASKS_ABOUT_PICKUP = re.compile(
    r"(\bpick(ing)?[ -]?(it |them |my order |the order |my stuff )?up\b|\bcollect\b|\bin[ -]store\b"
    r"|픽업|(방문|직접|매장)\s?(수령|찾|가지러)|店舗で受け取|店頭受け取|店舗受取|受け取りに|取りに行)"
    r".*(\?|\b(can|could|may) (i|we)\b|possible|가능|되나요|될까요|할\s?수\s?있|できますか|できる|可能)"
    r"|(\b(can|could|may) (i|we)\b|\bis it possible\b|\bdo you (offer|allow|have)\b)"
    r".*(\bpick(ing)?[ -]?(it |them |my order |the order )?up\b|\bcollect\b|\bin[ -]store\b)"
)
"""Asks whether an order can be picked up ("can I pick up my order at the store?", "매장에서 픽업
가능한가요?", "店舗で受け取りできますか"): a question about the shop's options, not about where an
order of the customer's is, and not about a product's stock."""
ASKS_DELIVERY_POLICY = re.compile(
    r"\b(do|does|will) (you|u|your shop)\b|\b(can|could) (you|u) (ship|deliver|send)\b|\b(is|are) there\b"
    r"|\bhow (much|long) (does|do|is|are|will)\b"
    r"|(배송|발송|택배|배달)\s?(이|가|은|는|도)?\s?(되나요|돼요|되요|가능|하나요|하세요|있나요)|얼마"
    r"|(発送|配送|配達|送って|届けて)(は|も)?(でき|して(い)?ますか|可能|もらえ)|いくら"
    r"|\bship\w*\s+(cost|fee|charge|price|rate)s?\b|\bdelivery (cost|fee|charge|price|rate)s?\b"
    r"|\b(cost|fee|charge|price)s? (of|for) (shipping|delivery)\b|\bfree (shipping|delivery)\b"
    r"|\b(shipping|delivery) (is )?free\b|\bpostage\b"
    r"|배송비|택배비|배송\s?(비용|요금)|무료\s?배송|배송\s?무료|추가\s?(비용|요금|배송비)"
    r"|送料|配送料|配達料|無料配送|配送無料"
    r"|" + BEFORE_BUYING.pattern + r"|" + ASKS_ABOUT_PICKUP.pattern
)
"""A question about how the shop delivers ("Do you ship internationally?", what it costs: "shiping
cost pls", "무료배송 기준이 어떻게 되나요", "送料は？"), or asked before buying, not about the
customer's own orders: when no FAQ entry answers it, the honest "the FAQ doesn't
cover that" beats a list of the customer's orders, or "which order?" to someone who has none."""
ACTION_INTENTS = frozenset({Intent.STOCK, Intent.SHIPPING, Intent.RETURNS})
STOCK_GUESS_ABOVE = 0.75 * CLARIFY_BELOW
"""An unsure stock guess nearer the clarify bar than to chance (five intents: 0.2) is taken as a stock
question about a product the catalogue does not know; "still nothing" (0.26) is not. Not fitted:
chosen by hand on a few invented product names."""
ASKS_FOR_A_PERSON = re.compile(
    r"\b(?:talk|speak|chat)\s+(?:to|with)\s+(?:a\s+|an\s+|the\s+|some\s+)?(?:real\s+|live\s+)?"
    r"(?:human|person|agent|someone|staff|manager|representative)\b|\b(?:human|live) agent\b"
    r"|(?:상담원|상담사|직원분?|사람|매니저)(?:이?랑|과|하고|와)?\s?(?:얘기|이야기|대화|통화|상담)\s?(?:하고|하기|할래|하려|좀|원)"
    r"|(?:상담원|상담사|사람|직원)\s?(?:좀\s?)?(?:연결|바꿔)"
    r"|(?:オペレーター|担当者|スタッフ|人間|人)(?:と|に)(?:話|つな|代わ)|(?:オペレーター|担当者)(?:に|へ)?(?:接続|つないで)"
)
"""A person asked for in so many words, whatever else the message says ("상담원이랑 얘기하고 싶어요.
배송이 너무 늦어요" is a hand-off, not a shipping question): the words the bot itself tells
customers to type ('상담원 연결', 'talk to a person') and their like."""
UNHAPPY_ASKS_ABOVE = 0.6
"""An unhappy message whose closest FAQ entry is at least this likely asks that entry's question too
("my friend said your service is terrible, but what payment methods do you take?": 0.72) and gets the
entries to pick from, not a person; frustration alone (the `human` lines of `tests/data/complaints.tsv`)
scores 0.01-0.57 on the demo FAQ ("고객센터 왜 이래요 진짜" 0.57, "your service is awful" 0.53: their
"service" is the opening-hours entry's). Chosen by hand between the two, so the margin is small; 0.5
until a refit of the FAQ calibration moved frustration alone above it."""
ASKS_PRODUCT_FACT = re.compile(
    r"\b(wash|washing|washable|machine[- ]wash|hand[- ]wash|dry[- ]?clean|dryer|tumble|iron|ironed|ironing"
    r"|bleach|care (for|instructions|label)|made (of|from|in)|material|fabric|blend|itchy|scratchy|soft"
    r"|warm|thick|thin|breathable|waterproof|water[- ]?(resistant|repellent)|see[- ]?through|sheer"
    r"|transparent|shrink|shrinks|stretch|stretchy|fade|fades|pilling|pill|wrinkle|wrinkles"
    r"|run(s)? (small|large|big)|true to size|size (chart|guide)|measure|measurements|fit|fits"
    r"|real leather|genuine leather|vegan|sensitive skin|allergic|hypoallergenic|filling|fill power)\b"
    r"|세탁|빨아|빨래|드라이\s?클리닝|건조기|다림질|소재|재질|원단|혼방|성분|촉감|까끌|따가|따뜻|두께|두꺼|얇"
    r"|비치나|비쳐|방수|발수|줄어|늘어나|신축|보풀|물\s?빠|이염|핏|정사이즈|사이즈\s?(표|가이드|감|추천)"
    r"|(크게|작게)\s?나|실측|충전재|천연\s?가죽|합성\s?가죽|원산지|어디서\s?만들|민감|피부"
    r"|洗濯|洗え|手洗い|ドライクリーニング|乾燥機|アイロン|素材|生地|材質|混紡|肌触り|チクチク|暖か|温か"
    r"|厚さ|厚手|薄手|透け|防水|撥水|縮|伸縮|毛玉|色落ち|サイズ感|サイズ表|本革|合皮|原産|どこで作|敏感肌|中綿"
    # Taste, use and care of things that are not clothes: a coffee shop's beans and kettles.
    r"|\b(taste|tastes|flavou?r|flavou?rs|acidity|acidic|bitter|roast(ed)? (level|date)|recommend|induction"
    r"|dishwasher|microwave|oven[- ]safe|how (do i|to) use|caffeine)\b"
    r"|맛이|맛은|맛있|산미|쓴맛|향이|향은|고소|로스팅\s?(정도|날짜)|추천|인덕션|식세기|식기세척기|전자레인지|오븐"
    r"|사용법|쓰는\s?법|어떻게\s?(써|사용)|카페인"
    r"|味は|味が|酸味|苦味|香り|焙煎度|おすすめ|オススメ|IH|食洗機|電子レンジ|オーブン|使い方|カフェイン"
    r"|\bgift[- ]?wrap\w*|\bwrapping\b|선물\s?포장|포장\s?(돼|되|가능|해)|ラッピング|包装|のし"
)
"""Asks a fact about a product the catalogue does not hold: care, material, feel, fit ("is the merino
sweater itchy?", "울 비니 소재가 뭐예요?"); the stock line is no answer to it."""
ASKS_SIZING_OR_SPEC = re.compile(
    r"\b\d{2,3}\s?(cm|kg|lbs?)\b|\b\d{2}\s?(inch|inches)\b|\bshould i (get|buy|order|pick|go for)\b"
    r"|\bwill (it|they|this|that) fit\b|\bfit me\b|\bhow long (is|are)\b|\blength\b|\binseam\b"
    r"|\bwrinkly\b|\bcreases?\b|\b(wool|cotton|linen) (content|percentage)\b"
    r"|키\s?\d|\d{2,3}\s?(센치|키로)|몸무게|맞을까|맞을지|기장|총장|허리\s?\d|함량|몇\s?(프로|퍼센트)|구김"
    r"|身長|体重|\d{2,3}\s?(センチ|キロ)|(性|感)(は|が)?ありますか|に[^。？?]{0,8}入りますか|(?<!大)丈|シワ|しわ|何\s?(%|パーセント)"
)
"""Sizing advice and specifications that read like availability ("which size should I get for a 28 inch
waist?", "키 175에 M 맞을까요?", "デニムは伸縮性ありますか?"): a fact question even with a size or
"ありますか" in it."""
ASKS_AVAILABILITY = re.compile(
    r"\b(in stock|stock|available|availability|sold out|restock|back in|sell|price|cost|how much"
    r"|(what|which) (sizes|size|colou?rs?)|sizes? (do|does|are|is)|come in|colou?rs?"
    r"|have (it|them|any|the|this|that|one)|in (size )?(xs|s|m|l|xl|xxl|\d+))\b"
    r"|재고|품절|재입고|입고|가격|얼마|있어요|있나요|있어\?|나와요|나오나요|색상|컬러"
    r"|在庫|売り切れ|再入荷|入荷|値段|価格|いくら|ありますか|あります\?|色"
)
"""What the catalogue does answer: whether it is there, in which size or colour, and its price."""
RETURN_WORD = re.compile(
    r"\b(return|returns|returned|returning|exchange|exchanged|refund|refunded|send (it|them) back)\b"
    r"|반품|교환|환불|返品|交換|返金"
)
"""Names a return, an exchange or a refund: with a product named, still a returns question."""
ASKS_STOCK = re.compile(
    r"\b(in stock|stock|available|sold out|restock)\b|재고|품절|재입고|在庫|売り切れ|再入荷"
)
"""Whether a product is there (not its price: "how much is shipping" asks a fee)."""
ASKS_RETURN_STATUS = re.compile(
    r"\b(status|where is my (refund|return|exchange)|progress|processed)\b"
    r"|(환불|반품|교환)\s?(신청\s?)?(언제|진행|처리|상태|현황|어떻게\s?됐|접수\s?(됐|된|되었|확인))"
    r"|(반품|교환|환불)\s?(신청)?\s?(한\s?(거|것|건))[^?？]{0,12}(접수|처리|진행|됐|된|되었)"
    r"|(返金|返品|交換)(はいつ|状況|の状況|の進捗|(の)?申し?込み(は|の)(状況|受付))"
)


ASKS_WHERE_A_PURCHASE_IS = re.compile(
    r"\b(i|we) (ordered|bought|purchased)\b.*\b(where|when|arrive|arrived|ship|shipped|deliver|delivered)\b"
    r"|\b(where|when)\b.*\b(i|we) (ordered|bought)\b"
    r"|(시킨|주문한|주문했던|구매한|산)\s?(거|것|건|게)?\s?(는|은|이|가)?.{0,12}(어디|언제|도착|배송|와요|오나요|왔|발송|보내)"
    r"|(注文した|頼んだ|買った).{0,12}(どこ|いつ|届|発送|配送)"
)
"""A product named as something the customer bought, asking where or when it is: "콜롬비아 시킨거는
지금 어디쯤이에요?", "where is the kettle I ordered?". Their order, not the product's stock."""


def names_own_order(text: str, entities: Entities) -> bool:
    """The message is about an order of the customer's own (a number, "my order", "where is"), not
    about how the shop delivers."""
    clean = normalize(text)
    return bool(
        entities.order_numbers
        or (
            ABOUT_OWN_ORDER.search(clean)
            and not BEFORE_BUYING.search(clean)
            and not ASKS_ABOUT_PICKUP.search(clean)
        )
    )


def _only_order_numbers(clean: str, entities: Entities) -> bool:
    rest = clean
    for number in entities.order_numbers:
        rest = rest.replace(number.lower(), " ")
    return not _NOT_A_WORD.sub("", rest)


_NOT_A_WORD = re.compile(r"[\W_]+")
_NEUTRAL_NOUNS = re.compile(
    "|".join(rf"\b{re.escape(noun)}\b" if noun.isascii() else noun for noun in NEUTRAL_NOUNS)
)


def asks_return_policy(text: str, entities: Entities) -> bool:
    """A returns question the returns service answers from the policy (the FAQ): not an RMA
    number, a status check or a request to file one."""
    clean = normalize(text)
    return not (
        entities.rma_numbers or ASKS_RETURN_STATUS.search(clean) or WANTS_TO_FILE_RETURN.search(clean)
    )


class Route(StrEnum):
    STOCK = "stock"
    ORDERS = "orders"
    """The customer's own orders and shipments (database)."""
    RETURNS = "returns"
    """Filing a return or its status (database, guided flow)."""
    HANDOFF = "handoff"
    FAQ_ENTRY = "faq_entry"
    """Answered with the matched FAQ entry (also delivery and returns policy)."""
    NO_ENTRY = "no_entry"
    """A question for the FAQ that no entry answers with confidence."""
    CLARIFY = "clarify"
    SMALL_TALK = "small_talk"
    """A greeting, thanks, goodbye or "are you a bot?" and nothing more: answered in kind."""


@dataclass(frozen=True)
class Understanding:
    classification: Classification
    faq: FaqMatch | None
    """The best FAQ entry with its evidence, answered or not (for the logs)."""
    route: Route
    intent: Intent
    """What the message was taken to be about (a stock question answered by the FAQ is `faq`)."""
    small_talk: SmallTalk | None = None
    complaint: Complaint | None = None
    """A damaged or wrong item, or frustration: the reply begins with an apology."""

    @property
    def entry(self) -> FaqMatch | None:
        return self.faq if self.route is Route.FAQ_ENTRY else None

    @property
    def label(self) -> str:
        """What `csbot eval` compares with `expected`: an intent, a FAQ slug, or `none`."""
        if self.route is Route.FAQ_ENTRY and self.faq is not None:
            return self.faq.slug
        if self.route in (Route.NO_ENTRY, Route.CLARIFY, Route.SMALL_TALK):
            return "none"
        return self.intent.value


def decide(classification: Classification, faq: FaqMatch | None, text: str) -> Understanding:
    intent = classification.intent
    pleasantry = small_talk(text)
    if pleasantry is not None:
        return Understanding(classification, faq, Route.SMALL_TALK, intent, small_talk=pleasantry)
    complaint = complaint_in(text)

    def made(route: Route, as_intent: Intent = intent) -> Understanding:
        return Understanding(classification, faq, route, as_intent, complaint=complaint)

    answered = faq is not None and faq.answered
    faq_surer = answered and faq is not None and faq.confidence > classification.confidence
    if intent is Intent.HUMAN and classification.confidence >= CLARIFY_BELOW and not faq_surer:
        return made(Route.HANDOFF)  # "when can I talk to support?" is the opening-hours entry's
    if ASKS_FOR_A_PERSON.search(normalize(text)) and not faq_surer:
        return made(Route.HANDOFF, Intent.HUMAN)
    if complaint is Complaint.DAMAGED and not classification.entities.rma_numbers and not answered:
        # "my sweater arrived torn": a return to offer, whatever product or order it names, unless
        # the shop wrote an entry for it
        return made(Route.RETURNS, Intent.RETURNS)
    routed = _route(classification, faq, normalize(text), made)
    asks_an_entry = faq is not None and faq.confidence >= UNHAPPY_ASKS_ABOVE
    if (
        complaint is Complaint.UNHAPPY
        and routed.route in (Route.CLARIFY, Route.NO_ENTRY)
        and not asks_an_entry
    ):
        # "your service is awful" asks nothing the bot can answer: a person, with an apology
        return made(Route.HANDOFF, Intent.HUMAN)
    return routed


def _route(
    classification: Classification,
    faq: FaqMatch | None,
    clean: str,
    made: Callable[..., Understanding],
) -> Understanding:
    """The route by what the message asks (`decide` has taken pleasantries, requests for a person
    and complaints)."""
    entities = classification.entities
    intent = classification.intent
    answered = faq is not None and faq.answered
    confident = classification.confidence >= CLARIFY_BELOW
    if intent is Intent.STOCK and (
        WANTS_TO_FILE_RETURN.search(clean) or (RETURN_WORD.search(clean) and not ASKS_STOCK.search(clean))
    ):
        # "받은 스웨터가 너무 커서 반품하고 싶어요", "반품 가능한가요? 린넨 오버셔츠가 커요": the product's
        # name pulled it towards stock
        return made(Route.RETURNS, Intent.RETURNS)
    asks_fact = ASKS_SIZING_OR_SPEC.search(clean) or (
        ASKS_PRODUCT_FACT.search(clean) and not ASKS_AVAILABILITY.search(clean)
    )
    if entities.products and ASKS_WHERE_A_PURCHASE_IS.search(clean) and not ASKS_STOCK.search(clean):
        return made(Route.ORDERS, Intent.SHIPPING)
    if intent is Intent.STOCK and not entities.skus and not answered and asks_fact:
        return made(Route.NO_ENTRY, Intent.FAQ)  # "is the merino sweater itchy?": not a stock question
    if intent is Intent.STOCK and (entities.skus or (entities.products and not answered)):
        return made(Route.STOCK)  # a SKU is precise; a product name may be in a care question
    read = normalize(classification.read or clean)
    if entities.products and not _NOT_A_WORD.sub("", _NEUTRAL_NOUNS.sub("", read)):
        return made(Route.STOCK, Intent.STOCK)  # "denim pants?": a product's name and nothing else
    names_a_product = bool(
        entities.skus or entities.products or any(c.isdigit() for c in "".join(sku_like_tokens(clean)))
    )
    if (
        classification.runner_up is Intent.STOCK
        and names_a_product
        and ASKS_STOCK.search(clean)
        and not answered
    ):
        # "is the canvas tote bag in stock and how much is shipping?": two questions, the stock one
        # first; its line comes first and the FAQ's answer to the rest follows (second_question.py)
        return made(Route.STOCK, Intent.STOCK)
    if intent is Intent.SHIPPING and names_own_order(clean, entities):
        return made(Route.ORDERS)
    if entities.order_numbers and _only_order_numbers(clean, entities):
        # A bare order number asks for that order, whatever its digits' embedding reads like
        # (a delivered order's number was taken for a returns question and got "I don't know").
        return made(Route.ORDERS, Intent.SHIPPING)
    if intent is Intent.RETURNS and (entities.rma_numbers or WANTS_TO_FILE_RETURN.search(clean)):
        return made(Route.RETURNS)
    if answered:  # "when do refunds arrive?" is answered by the policy entry when there is one
        policy = intent in (Intent.SHIPPING, Intent.RETURNS) and confident
        return made(Route.FAQ_ENTRY, intent if policy else Intent.FAQ)
    if intent is Intent.SHIPPING and ASKS_DELIVERY_POLICY.search(clean):
        return made(Route.NO_ENTRY)  # own orders were handled above; this one asks about the shop
    has_entities = bool(entities.skus or entities.products or entities.order_numbers or entities.rma_numbers)
    if intent is Intent.STOCK and not has_entities and ASKS_ABOUT_PICKUP.search(clean):
        return made(Route.NO_ENTRY)  # "is pickup possible?" is not about a product's stock
    if not confident and not has_entities and intent is not Intent.FAQ:
        if (
            intent is Intent.STOCK
            and classification.runner_up not in ACTION_INTENTS
            and (classification.confidence >= STOCK_GUESS_ABOVE or ASKS_AVAILABILITY.search(clean))
        ):
            # "is the quantum toaster available?": stock or nothing, and a product the catalogue does
            # not know; the stock reply asks which product, a sharper question than the generic one.
            return made(Route.STOCK)
        # Unsure between things the bot can *do* (look up an order, stock, a return): ask.
        # An unsure question about the shop that no entry answers gets the honest "I don't know".
        return made(Route.CLARIFY)
    return made(
        {
            Intent.STOCK: Route.STOCK,
            Intent.SHIPPING: Route.ORDERS,
            Intent.RETURNS: Route.RETURNS,
            Intent.HUMAN: Route.HANDOFF,
        }.get(intent, Route.NO_ENTRY)
    )


def asks_the_faq(understanding: Understanding, text: str) -> bool:
    """Where the FAQ's entries are what the customer may have meant: the bot has no answer of its
    own (an honest "I don't know", a "what is this about?"), or its service cannot answer from what
    the message names: a question about the returns policy (not an RMA number, a status check or a
    request to file one), a delivery question that names no order of the customer's ("배송비",
    "free shipping over how much?": the orders service asks which order or lists theirs, and the
    entries follow), a stock guess that names no catalogue product and no product code ("스키 장비
    빌리려는데 하루 얼마에요?" to a rental shop's FAQ). The closest entries are offered there
    (services.faq.choices), and the retrieval encoder takes its second look. Questions about the
    customer's own order or return ("where is my order?", "what is my RMA status?") get their
    service's answer, with the entries beside it only where `beside_its_service` says: the closest
    entries' probability does not tell them apart from policy questions ("where is my order?" is
    0.83 likely to be the demo FAQ's cancellation entry)."""
    entities = understanding.classification.entities
    match understanding.route:
        case Route.NO_ENTRY | Route.CLARIFY:
            return True
        case Route.RETURNS:
            return asks_return_policy(text, entities)
        case Route.ORDERS:
            return not names_own_order(text, entities)
        case Route.STOCK:
            return not (entities.skus or entities.products)
    return False


def beside_its_service(understanding: Understanding, text: str) -> bool:
    """A message its service answers from the customer's own order or return, or hands to a person,
    whose closest entries may still be what was meant: "how can i see where is my parcel now?" (the
    order-tracking entry), "반품 보낸 지 5일 됐는데 환불 언제 돼요?" (refund timing), "상담시간이
    어떻게 되나요? 아까 전화했는데 안 받으셔서요" (the hours). The entries are offered beside that
    answer where it cannot answer yet (a customer not linked) or hands over
    (services.faq.choices). A message naming an order or RMA number asks about that one."""
    entities = understanding.classification.entities
    if entities.order_numbers or entities.rma_numbers or asks_the_faq(understanding, text):
        return False
    return understanding.route in (Route.ORDERS, Route.RETURNS, Route.HANDOFF)


def understand(
    text: str, language: Language, classifier: IntentClassifier, lookup: FaqLookupAnswerer
) -> Understanding:
    classification = classifier.classify(text)
    found = lookup.match(text, language=language, embedded=classification.read)
    understood = decide(classification, found, text)
    if found is None or found.answered or not asks_the_faq(understood, text):
        return understood
    # A question for the FAQ the calibration would not answer: the retrieval encoder looks again
    # (services/faq/second_look.py); only here, as it costs ten times the rest of understanding
    # (beside a service's answer the first look's ranking is offered: the second gave no more).
    looked = lookup.match(text, language=language, embedded=classification.read, second_look=True)
    return understood if looked is found else decide(classification, looked, text)
