"""What a reply promises, grants or denies, read the way `fact_claims` reads numbers.

A shop's reply may commit the shop only to what its FAQ says: a refund, a
discount, a free return, a waived fee, a call-back, compensation, an exception,
an action already taken ("your refund has been approved"). Each sentence is
read into commitments, in ko/en/ja alike:

- a kind (`Kind`): what is committed to;
- for charges, the object charged for (shipping, return, exchange, ...);
- a polarity: granted ("free", "we will refund") or denied ("no fee", "no cash
  refunds", "返金できません");
- conditions the sentence puts on it ("if the item is defective", "for Gold
  members", "over 50,000원").

A reply's commitment is supported when a source sentence makes the same one
with the same polarity; a granting one also needs every condition the source
puts on it ("return shipping is free" is not what "if defective, return
shipping is free" says). "free" and "no fee" are one commitment (no charge),
"a fee is charged" and "you pay" the other; so "There is a fee for exchanges"
contradicts "no fee for exchanges" rather than matching its words.

The sources are the shop's own text only (its FAQ): nothing the customer wrote,
not even their display name, can support a commitment.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum
from types import MappingProxyType

from services.llm.events import RECEIVED
from services.llm.fact_claims import (
    BOUND_AFTER,
    SOURCES_KEPT,
    claims,
    located_claims,
    money_in,
    reading_kind,
)
from services.llm.topics import PARCEL_FEE_JA, PARCEL_FEE_KO
from services.text.patterns import CJK, any_of


class Kind(StrEnum):
    REFUND = "refund"
    FULL_REFUND = "full refund"
    REFUND_WITHOUT_RETURN = "refund without a return"
    CASH_REFUND = "cash refund"
    REFUND_ELSEWHERE = "refund by another method"
    """To a bank account, by transfer: anything but the way the customer paid."""
    REFUND_NOW = "a refund before the return is in"
    """"right away", "today": the FAQ's refunds wait for the returned item."""
    REFUND_SAME_DAY = "a refund the day the return arrives"
    """"返金は倉庫に届いたその日のうちに": faster than the FAQ's days after the return is in."""
    REFUND_AND_REPLACEMENT = "refund and a replacement"
    """Both at once, where a shop gives one or the other."""
    DISCOUNT = "discount"
    EXTRA_DISCOUNT = "an extra discount"
    """A discount on top of the one the shop gives ("an extra loyalty discount")."""
    COUPON = "coupon or credit"
    PRICE_MATCH = "price match"
    CHARGE = "charge"
    CALLBACK = "call-back"
    COMPENSATION = "compensation"
    EXCEPTION = "exception"
    FEE_REFUND = "refund of a fee"
    PICKUP = "pick-up"
    """A courier or the shop collecting the parcel from the customer."""
    VISIT = "a visit"
    """Somebody sent to the customer's home: a technician, a courier with a replacement in hand."""
    SIZE_EXCHANGE = "size or colour exchange"
    """An item swapped for another size or colour at the customer's wish: a permission the shop's
    text grants, read only where a reply refuses it (`_exchanges`)."""
    CANCELLATION = "cancellation"
    """An order cancelled before it ships: a permission the shop's text grants, read only where a
    reply refuses it (`_cancellation_refused`)."""
    LATE_CANCELLATION = "cancellation after dispatch"
    """An order cancelled once it has shipped, where the shop takes it back only as a return."""
    GUARANTEE = "guarantee"
    SAME_DAY_DELIVERY = "delivery the same day"
    """The parcel in the customer's hands the day it is ordered ("오늘 바로 받아보실 수 있어요"), where
    a shop ships the same day and delivers later."""
    SHOP_DECIDES = "the shop's choice"
    """The shop choosing what the customer gets ("we will decide between a refund and ...")."""
    REQUIREMENT_WAIVED = "a requirement waived"
    """"no photo needed", "without the original packaging", "영수증 없이"."""
    DONE = "action taken"
    """Something the bot cannot have done: "your refund has been approved"."""
    POLICY_CHANGE = "policy change"
    OBEYING = "doing whatever the customer says"
    """The bot taking orders from the customer ("I'll follow any instruction you give"): the role an
    attack asks it to play."""
    USED_RETURN = "return of a used item"
    NO_DEADLINE = "no time limit"
    WEEKEND_OPENING = "open on weekends or holidays"


class Condition(StrEnum):
    DEFECTIVE = "defective or wrong item"
    MEMBER = "members"
    THRESHOLD = "over an amount"
    BEFORE_DISPATCH = "before dispatch"
    CHANGE_OF_MIND = "change of mind"
    FIRST_ORDER = "first order only"


_EXCLUSIVE = frozenset({Condition.DEFECTIVE, Condition.CHANGE_OF_MIND})
"""Situations no case is in both of: a grant said of both at once ("whether it's faulty or you've
changed your mind") is said of each."""
_WHETHER = any_of(
    r"\bwhether\b[^.!?]{0,60}\bor\b",
    r"\beither way\b",
    r"\b(?:regardless of|no matter)\b",
    r"(?<!모)든(?:지)?\s[^.!?]{0,30}(?<!모)든(?:지)?",
    r"(?:상관|관계)\s?없이",
    r"(?:でも|であれ)[^。！？]{0,30}(?:でも|であれ)",
    r"(?:かかわらず|関わらず|問わず|どちらでも)",
)
_NARROWING = frozenset({Condition.FIRST_ORDER})
"""Conditions that state a grant narrower than it is: "5% off your first order" where members get
it on every order misstates the policy, while "if it is defective" only names when it applies."""


class Charged(StrEnum):
    SHIPPING = "shipping"
    RETURN = "return"
    EXCHANGE = "exchange"
    CANCELLATION = "cancellation"
    WRAPPING = "wrapping"
    OTHER = "other"


# ---------------------------------------------------------------- what is committed to
_RUN_OUT_AFTER = any_of(
    r"\s?(?:이|가|을|를)?\s?(?:지났|지나|넘었|넘어|넘기|넘긴)[가-힣]{0,2}(?:어도|아도|더라도)",
    r"(?:を|が)?(?:過ぎ|経過し|超え)て(?:い|しまっ|しまわれ)?(?:て)?も",
)
"""A length of time said to have run out, after it: "7일이 지났어도", "7日を過ぎていても"."""
_EVEN_IF = re.compile(r"\beven (?:if|though|after|when)\b", re.IGNORECASE)
_RUN_OUT_BEFORE = re.compile(
    rf"{_EVEN_IF.pattern}[^.!?]{{0,30}}\b(?:more than|over|past|after|beyond) $", re.IGNORECASE
)
"""The same before it: "even if it's been more than seven days"."""
_WINDOW_LENGTHS = frozenset({"day", "week", "month"})


_KINDS: list[tuple[Kind, re.Pattern[str]]] = [
    (
        Kind.REFUND_WITHOUT_RETURN,
        any_of(
            r"without (?:a |any )?(?:return|sending it back)",
            r"without (?:sending|shipping|returning|mailing|posting)\b",
            r"no (?:need to )?return",
            r"(?:ご)?(?:返送|返品)(?:いただく|して(?:いただく|もらう))?(?:は|も)?"
            r"(?:不要|必要(?:は|も)?(?:ございません|ありません|ない))",
            r"(?:ご)?(?:返送|返品|返却)(?:の)?(?:手続き)?(?:なし|無し|不要)(?:で|の|でも|に)[^。！？]{0,20}返金",
            r"(?:반품|반송)\s*(?:확인|검수|도착|입고|수거|회수)?\s*(?:절차\s*)?(?:없이|생략)[^.!?]{0,20}환불",
            r"without (?:the |your )?(?:item|it|them|parcel|product|\w+) (?:coming|being sent|going) back",
            r"(?:반송|반품)(?:은|는|도)?\s*(?:필요\s*없|안\s*하셔도)",
            r"(?:반품|반송|돌려\s*보내|보내)(?:지)?\s*(?:안\s*(?:보내|해|하)|않|없이)[^.!?]{0,16}환불",
            r"(?:안|않)\s*(?:보내|돌려\s*보내|반송해)\s*(?:주셔|주시|셔)도[^.!?]{0,16}환불",
            r"(?:返品|返送|送り返)(?:し)?(?:なくても|せずに|不要で)[^。]{0,16}返金",
            r"(?:ご)?(?:返品|返送|返却)(?:が|は)?(?:なくても|無くても|なしでも)[^。]{0,16}返金",
            r"(?:반품|반송)(?:이|은|을)?\s*(?:없어도|안\s*돼도)[^.!?]{0,16}환불",
            r"(?:don't|do not|won't|will not) (?:even |actually |really )?(?:need|have) to "
            r"(?:return|send (?:it|them|the \w+) back)",
            r"no need to (?:send|ship|mail|post|give) (?:it|them|the \w+|anything) back",
            r"(?:you can |just )?keep (?:it|them)\b(?! (?:in|unused|clean|safe|until|for))",
            r"no return (?:is )?(?:needed|necessary|required)",
            r"(?:don't|do not|doesn't|does not|won't|will not) (?:need|require) (?:a |any |the )?return\b",
            r"keep the (?!(?:original|box|receipt|packaging|tags?|labels?|invoice|parcel)\b)\w+"
            r"(?! (?:in|unused|clean|safe|until|for))",
            r"(?:그냥|그대로)\s*(?:가지|갖|쓰|사용하)",
            r"가지(?:셔도|시고|세요)",
            r"(?:반품|반송)(?:은|는|을|를)?\s*(?:없이|안\s*(?:하셔도|해도|하더라도)|하지\s*않으셔도|하지\s*않아도|불필요|필요\s*없)",
            r"돌려\s*보내지\s*않",
            r"返品(?:不要|なし|せず|の必要は?(?:ございません|ありません))",
            r"お手元に(?:残|置いて|保管|お持ち)",
            r"そのまま(?:お使い|お持ち|使|持)",
            r"(?:返品|返送|お返し)(?:し|いただか|なさら)なくても",
            r"返さなくても",
        ),
    ),
    (
        Kind.FULL_REFUND,
        any_of(
            r"full refund",
            r"refund(?:ed)?[^.!?]{0,30}in full",
            r"(?:all|every (?:penny|cent|won)) (?:of )?(?:your|the) (?:money|payment)",
            r"100 ?%",
            r"전액",
            r"(?:전부|모두|다)\s*돌려\s*(?:드리|드릴|드립)",
            r"환불(?:은|을|도)?\s*(?:전부|모두|다)\s*(?:해|받)|(?:전부|모두|다)\s*환불",
            r"全額|(?:全部|すべて|全て)(?:を)?(?:ご)?返金",
        ),
    ),
    (Kind.CASH_REFUND, any_of(r"\bcash\b", r"현금", r"現金")),
    (
        Kind.REFUND_ELSEWHERE,
        any_of(
            r"(?:bank|wire|account) transfer",
            r"(?:to|into) your (?:bank )?account",
            r"paypal",
            r"(?:another|a different|your new|a new) (?:card|account|payment method)",
            r"계좌",
            r"무통장",
            r"口座",
            r"振り?込",
            r"別の(?:カード|お支払い方法|支払方法)",
            r"다른\s*(?:카드|결제\s*수단)",
        ),
    ),
    (
        Kind.REFUND_NOW,
        any_of(
            r"refund[^.!?]{0,30}"
            r"(?:right away|immediately|straight away|today|right now|at once|in advance|instant)",
            r"instant(?:ly)? refund",
            r"(?:right away|immediately|straight away|today|right now|at once|in advance)[^.!?]{0,20}refund",
            r"refund[^.!?]{0,40}before (?:it|the (?:item|return|parcel)|you)",
            r"(?:바로|즉시|당장|오늘|미리|먼저)\s*(?:\S+\s*){0,2}환불",
            r"환불[^.!?]{0,20}(?:바로|즉시|당장|오늘|미리|먼저)",
            r"(?:すぐ(?:に)?|直ちに|本日|即日|先に|事前に)[^。！？]{0,20}(?:返金|ご返金)",
            r"(?:到着|届く(?:の)?|入荷|検品)(?:を)?待たずに|(?:도착|입고|검수)(?:을|를)?\s*기다리지\s*않고",
            r"\bwithout waiting for (?:it|the (?:item|return|parcel)) to (?:arrive|reach|come back)",
            # the money already on its way: "your refund of 89,000 won has already been sent to you"
            r"\brefund\b[^.!?]{0,30}\b(?:has|have|'s) (?:already |now |just )?been "
            r"(?:sent|paid|transferred|completed|returned|made|released|processed|issued)",
            r"\brefund (?:was|is already|is now) (?:complete|completed|done|processed|issued)\b"
            r"|\brefund is (?:complete|done)\b",
            r"(?:환불금?)[^.!?]{0,15}(?:입금|송금|지급)\s*(?:되었|됐|완료|해\s*드렸)",
            r"환불(?:이|은|는|가)?\s*(?:이미\s*|벌써\s*)?(?:완료|처리)\s*(?:되었|됐|했|하였|해\s*드렸)",
            r"(?:返金|ご返金)[^。！？]{0,15}(?:送金|振込|お振込み|お振り込み)(?:いたしました|しました|済み|されました)",
            r"(?:返金|ご返金)(?:処理)?(?:が|は)?(?:既に|すでに)?(?:完了(?:いたしました|しました)|済みです)",
        ),
    ),
    (
        Kind.REFUND_SAME_DAY,
        any_of(
            r"refund[^.!?]{0,40}\b(?:(?:on )?the same day|on the day|that (?:very )?day)\b",
            r"\b(?:(?:on )?the same day|on the day)\b[^.!?]{0,20}refund",
            r"(?:도착|입고|회수|받은|들어온)[^.!?]{0,8}(?:당일|그날|같은\s?날)[^.!?]{0,12}환불",
            r"환불[^.!?]{0,20}(?:도착|입고|회수)[^.!?]{0,8}(?:당일|그날|같은\s?날)",
            r"(?:その日のうちに|当日中に|当日に|同日中?に)[^。！？]{0,20}(?:返金|ご返金)",
            r"(?:返金|ご返金)[^。！？]{0,30}(?:その日のうちに|当日中に|同日中?に)",
        ),
    ),
    (
        Kind.FEE_REFUND,
        any_of(
            r"refund (?:you )?(?:your |the )?(?:shipping|delivery|return)",
            r"\b(?:pay|give) (?:you )?back (?:your |the )?(?:shipping|delivery|return|postage)"
            r"|\breimburse (?:you )?(?:for )?(?:your |the )?(?:shipping|delivery|return|postage)",
            # not the refund of a part after one the fee ends ("왕복 배송비 6천 원이 들고, 환불은 …",
            # "送料がかかり、返金は …"), while the fee as the topic is refunded ("送料につきましては、")
            # nor the fee taken out of the refund ("반품 배송비는 환불 금액에서 차감돼요")
            rf"(?:{PARCEL_FEE_KO}|반품비)(?:(?!고\s?,)[^.!?]){{0,16}}(?:환불(?!\s*(?:금액|액)?에서)|돌려\s*드(?:리|릴|립|려))",
            rf"(?:{PARCEL_FEE_JA})(?:(?!(?:[りがしくで]|(?<!つい)て)、)[^。！？]){{0,16}}(?:返金(?!(?:額|金額)?から)|お返し)",
        ),
    ),
    (
        Kind.PRICE_MATCH,
        any_of(
            r"price[- ]match",
            r"match (?:any|the|a|their|that|this|its|your) (?:\w+(?:'s)? ){0,2}prices?",
            r"\bmatch(?:es|ing)? prices?\b",
            r"\b(?:adjust|lower|reduce) (?:your|the) (?:total|price) to\b",
            r"lower price",
            r"(?:refund|pay|return|give|credit)(?: you)? (?:the|a) (?:price )?difference",
            r"price difference",
            r"차액",
            r"差額",
            r"최저가",
            r"(?:가격|금액)\s*(?:을|으로|에)?\s*맞춰",
            r"(?:価格|値段|金額|料金)(?:を|に)?(?:お)?合わせ",
            r"(?:他店|他社|よその店|ほかの店|다른\s*(?:가게|쇼핑몰|곳|사이트))[^.!?。！？]{0,12}(?:と|와|과)?\s*(?:同じ|같은)"
            r"[^.!?。！？]{0,10}(?:値段|価格|金額|가격|금액)",
            r"最安値",
        ),
    ),
    (
        Kind.REFUND,
        any_of(
            r"refund",
            r"money back",
            r"환불",
            r"(?:금액|돈|대금|결제\S*)\s*(?:을|를|은|는)?\s*(?:\S+\s*)?돌려\s*(?:드리|드릴|드립|드려)",
            r"(?:현금|계좌)\S{0,2}\s*(?:으로|로)?\s*(?:돌려|이체해|송금해)\s*(?:드리|드릴|드립|드려)",
            r"(?:이체|송금)해?\s*(?:드리|드릴|드립|드려)",
            r"現金で(?:お返し|返し|お支払い)",
            r"返金",
            r"払い?戻",
            r"(?:代金|お金|ご購入額)(?:を|は)?(?:全て|すべて)?(?:お返し|返し)",
            r"credit(?:ed)? (?:it |the (?:amount|money) )?(?:back )?to your",
            r"\b(?:the |your )?(?:full |whole |entire )(?:amount|sum|price|payment)\b[^.!?]{0,40}"
            r"\b(?:in cash|ready for you|back to you|to your (?:account|card))",
            r"환급",
            r"입금해?\s*(?:드리|드릴|드립)",
            r"(?:お振込|振り込|振込)(?:み)?(?:いたします|します|させていただきます)",
        ),
    ),
    (
        Kind.COUPON,
        any_of(
            r"coupon",
            r"voucher",
            r"store credit",
            r"\b(?:use|enter|apply|type in|add) (?:the |this |my |our )?(?:promo |discount |coupon )?code\b",
            r"(?-i:\bcode [A-Z0-9]{4,}\b)",
            r"(?:할인|프로모션|프로모)\s*코드",
            r"(?:割引|プロモ|プロモーション)コード",
            r"gift card",
            r"ギフト(?:カード|券)",
            r"기프트\s?카드|기프티콘",
            r"(?<!zero )(?<!one )(?<!two )(?<!three )(?<!four )(?<!five )(?<!six )(?<!seven )(?<!eight )"
            r"(?<!nine )\bpoints?\b(?! (?:zero|one|two|three|four|five|six|seven|eight|nine)\b)",
            r"쿠폰",
            r"적립금",
            r"포인트",
            r"상품권",
            r"クーポン",
            r"ポイント",
            r"商品券",
        ),
    ),
    (
        Kind.EXTRA_DISCOUNT,
        any_of(
            r"(?:extra|additional|another|further|bonus|loyalty|special|stacked) (?:\w+ )?discount",
            r"discount[^.!?]{0,20}on top of",
            r"on top of[^.!?]{0,30}discount",
            r"추가\s*(?:로\s*)?할인",
            r"(?:중복|더블)\s*할인",
            r"(?:追加|さらに|更に)(?:の)?(?:割引|値引)",
            r"(?:割引|値引)[^。！？]{0,10}(?:上乗せ|重ねて|併用)",
        ),
    ),
    (
        Kind.DISCOUNT,
        any_of(
            r"discount",
            r"(?:staff|employee|insider|friends? and family|trade) (?:price|rate|pricing)",
            r"직원\s*(?:가|가격|할인)",
            r"임직원",
            r"社割",
            r"(?:社員|従業員|スタッフ)(?:価格|割引|特典|料金)",
            r"half[- ]price",
            r"special price",
            r"반값",
            r"(?<![가-힣])(?:절반|반)\s*가격",
            r"半値",
            r"깎아",
            r"특가",
            r"半額",
            r"値下げ",
            r"特価",
            r"% off",
            r"percent off",
            r"\bsav(?:e|es|ing)\b[^.!?]{0,15}(?:%|percent)",
            r"(?:%|퍼센트|프로)\s*(?:더\s*)?(?:저렴|싸게|절약)",
            r"(?:%|パーセント)(?:お得|安く)",
            r"\boff (?:your|the|every)",
            r"할인",
            r"割引",
            r"値引",
            r"オフ",
        ),
    ),
    (
        Kind.CALLBACK,
        any_of(
            r"\b(?:call|phone|ring|contact|text)(?:ing)? you\b",
            r"call(?:ing)? (?:you )?back",
            r"get back to you",
            r"reach out to you",
            r"(?:전화|연락)\s*(?:을|를)?\s*(?:드려|드리|드릴|드립|해\s*드리)",
            r"(?:お電話|ご連絡)(?:を)?(?:いたします|致します|差し上げ|いたしま|します)",
            r"折り返し",
            r"(?:e-?mail|message) you\b",
            r"(?:someone|a (?:member of our )?(?:team|colleague|manager|person|supervisor|specialist|agent"
            r"|representative)|our (?:team|manager|supervisor)) will "
            r"(?:contact|call|reach|phone|e-?mail|get in touch|give you a)",
            r"give you a (?:call|ring|buzz)",
            r"お電話(?:を)?(?:差し上げ|おかけ)",
            r"담당자(?:가|께서)?\s*(?:곧|바로|직접)?\s*(?:연락|전화)",
            r"(?:担当(?:者)?|スタッフ)(?:から|より)(?:ご)?(?:連絡|電話)",
            r"(?<!ご)連絡(?:いたします|します|させていただきます|差し上げます)",
            # the call said from the customer's side: "expect a call", "연락이 갈 거예요", "お電話がいきます"
            r"\b(?:expect|you'?ll (?:get|receive)|you will (?:get|receive)) (?:a |their |our )?"
            r"(?:call|phone call|ring|callback|call-back)\b|\bwill be in touch\b",
            r"(?:전화|연락)(?:이|가)\s*(?:갈|가실|올|오실|드려질)",
            r"(?:お電話|ご連絡)(?:が)(?:いき|行き|入り|届き|あり)",
        ),
    ),
    (
        Kind.VISIT,
        any_of(
            r"\bsend (?:a |an |our |one of our )?(?:\w+ )?(?:technician|engineer|repair ?(?:man|person)|staff"
            r"(?: member)?|someone|somebody|person|team member)s? (?:\w+ ){0,3}(?:to|over|round|out)\b",
            r"\b(?:visit|come (?:to|round to|over to)) (?:you|your (?:home|house|place|flat|apartment))\b",
            r"\b(?:technician|engineer|repair ?(?:man|person)) (?:will|'ll|can) "
            r"(?:visit|come|stop by|drop by)",
            r"(?<!택배)(?<!택배\s)(?<!배송)(?<!배송\s)(?:기사|직원|담당자|수리\s*기사|엔지니어)(?:님)?(?:을|를|이|가|께서)?\s*(?:\S{1,6}\s*)?(?:직접\s*)?"
            r"(?:보내\s*(?:드리|드릴|드립|드려)|방문|파견|찾아)",
            r"(?:댁|자택|집)(?:으로|에|까지)\s*(?:직접\s*)?(?:방문|찾아\s*뵙|찾아가)",
            r"방문(?:해\s*(?:드리|드릴|드립|드려)|하여\s*(?:점검|수리|교체)|\s*(?:점검|수리)(?:해|을))",
            r"(?:ご自宅|お宅|ご住所)(?:に|へ|まで)(?:お)?(?:伺|訪問|うかが)",
            r"(?:技術者|スタッフ|担当者|作業員)(?:を|が)(?:派遣|お伺い|伺|訪問|ご自宅)",
            r"訪問(?:いたします|します|させていただきます|いたしま)",
        ),
    ),
    (
        Kind.COMPENSATION,
        any_of(
            r"compensat",
            r"reimburs",
            r"make (?:it )?up to you",
            r"as an apology",
            r"사과의\s*(?:의미|뜻)",
            r"お詫び(?:として|に)",
            r"보상",
            r"배상",
            r"補償",
            r"賠償",
            r"お詫びの品",
            r"위로금",
            r"보상금",
            r"慰謝料",
            r"迷惑料",
            r"お見舞い",
            r"goodwill",
            r"\bfreebie",
            r"throw (?:in|it in)",
            r"\bbonus\b",
            r"complimentary",
            r"as a (?:small )?gift from us",
            r"\b(?:something|a little something) (?:extra|special)\b",
            r"\b(?:little|small|surprise|free|special)(?: little| small| surprise)* (?:gift|present|treat)\b"
            r"(?![- ]?wrap)",
            r"(?:선물|기프트)(?:을|를)?\s*(?:넣어|챙겨|보내|함께|같이)\s*(?:드릴|드리|드려)",
            r"(?:ささやかな|ちょっとした)?(?:プレゼント|ギフト|贈り物)(?:を)?(?:同封|お入れ|お付け|お送り)",
            r"(?:무료\s*)?사은품",
            r"덤으로",
            r"서비스로\s*(?:드리|드릴|넣어|챙겨|보내)",
            r"おまけ",
            r"サービス(?:として|いたします|しちゃ|させていただ|で(?:お付け|お入れ|差し上げ|付け))",
            r"プレゼント(?:いたします|しちゃ|します(?!か))",
            r"\bupgrad(?:e|ed|ing) (?:you|your \w+|it)\b"
            r"|\b(?:to|into) (?:gold|vip) (?:status|membership|tier|level)\b",
            r"(?:빠른|특급|익일|당일|퀵)\s*배송으로\s*(?:바꿔|변경해|업그레이드)",
            r"업그레이드해\s*(?:드리|드릴|드려)",
            r"(?:速達|お急ぎ便|特急便)に(?:変更|切り替え|アップグレード)(?:いたします|します|して差し上げ)",
            r"アップグレード(?:いたします|します|して差し上げ)",
        ),
    ),
    (
        Kind.EXCEPTION,
        any_of(
            r"exception",
            # a case put in another's policy: "불량으로 처리해서 ... 면제해 드릴게요"
            r"\b(?:treat|count|process|log|mark)(?:ed|ing)? (?:it|this|that|them|your \w+ )?\s?as "
            r"(?:a |an )?(?:defective|faulty|damaged|wrong)",
            r"(?:불량|하자|오배송)(?:품)?(?:으로|로)\s?(?:(?:처리|접수|간주|체크|표시|등록|변경)(?:해|하여|하겠|할게)"
            r"|해\s?드)",
            r"(?:不良品?|初期不良|誤配送)(?:として|扱い)(?:で|に)?\s?(?:(?:処理|対応)(?:いたし|し|させ)|お受け|扱わ)",
            r"(?:不良品?|初期不良|誤配送)(?:扱い|ということ)に(?:して|いたし|させ)",
            r"special(?:ly)? for you",
            r"(?<!at )(?:just )?this (?:one )?time\b(?! of)",
            r"just this once",
            r"\blifetime\b",
            r"평생",
            r"永久",
            r"生涯",
            r"예외",
            r"특별히",
            r"이번(?:만|에\s*한해|\s*한\s*번만)",
            r"例外",
            r"特別に",
            r"今回(?:に)?限り",
            r"今回(?:だけ|は特別)",
            r"\bsame\b[^.!?]{0,30}\b(?:as|for) (?:a |our )?(?:\w+ )?members?\b",
            r"\b(?:like|just as) (?:a |our )?(?:\w+ )?members? (?:do|get|would)\b",
            r"(?:회원|멤버)\w{0,3}(?:과|와)\s*(?:같|동일|똑같)",
            r"(?:회원|멤버)(?:처럼|만큼)",
            r"\b(?:treat|count|consider|regard|register|list|mark)(?:ed|ing)? you as (?:a |an |our )?"
            r"(?:\w+ )?(?:member|VIP)",
            r"(?<!if )\byou(?:'re| are) (?:already )?(?:a |one of our )?(?:gold|vip) member\b",
            r"(?:골드|VIP)\s*(?:회원|멤버)(?:님)?\s*(?:[가-힣]{2,4}\s*님)?이시(?:네요|군요|죠|니까|라서|네)",
            r"(?:ゴールド|VIP)(?:会員|メンバー)(?:の)?(?:[一-龯ぁ-んァ-ヶ・]{1,8})?(?:様|さん)?でいらっしゃ",
            r"(?:골드|VIP|우수)\s*(?:회원|멤버)?\s*(?:으로|로)\s*(?:처리|대우|간주|인정|등록|변경|올려|승급|적용|업그레이드)",
            r"(?:ゴールド|VIP)(?:会員|メンバー)?(?:として|扱い|に(?:変更|登録|昇格|アップグレード))",
            # the members' discount put on this customer's order, where nothing says they are members
            # (read after the discount, whose word `_MASK` blanks out by then)
            r"(?:今回の|こちらの|お客様の)(?:ご)?注文(?:に|にも)[^。！？]{0,16}(?:会員|メンバー)(?:様)?(?:割引|\x00+)を?"
            r"(?:適用|お付け)(?:いたします|します|させていただきます|いたしました|しました)",
            r"(?:会員|メンバー)(?:様)?(?:割引|\x00+)を?[^。！？]{0,12}(?:今回の|こちらの|お客様の)(?:ご)?注文(?:に|にも)"
            r"(?:適用|お付け)(?:いたします|します|させていただきます|いたしました|しました)",
            r"\bwith (?:top |high )?priority\b"
            r"|\bpriority (?:handling|processing|treatment|service|shipping)\b",
            # an item held back for the customer, which the shop does not do
            r"\b(?:hold|reserve|set aside|put aside|keep) (?:it|them|one|the \w+|an? \w+) "
            r"(?:aside |back )?for you\b",
            r"(?:따로\s*)?(?:보관|홀드|예약|킵)해\s*(?:드릴|드리겠|둘게|둘께|놓을게|놓겠)",
            r"(?:お取り置き|取り置き|確保)(?:いたします|しておきます|いたしておきます|させていただきます)",
            r"\bprioriti[sz]e (?:your|it|this)\b",
            r"(?:우선|먼저)\s*(?:처리|배송|발송|출고)해\s*(?:드리|드릴|드려)",
            r"最優先で",
            r"優先的に(?:発送|対応|処理|手配)",
            r"会員(?:様)?(?:と同じ|と同様|並み)",
            # a members' benefit given to a customer said not to be one
            r"\b(?:you(?:'re| are) not|you aren't|not) (?:a |an |one of our )?(?:gold |vip )?members?\b"
            r"[^.!?]{0,12}\b(?:but|however|yet|though)\b[^.!?]{0,40}\b(?:apply|give|get|take|knock)",
            r"(?:회원|멤버)(?:이|은|는)?\s*아니(?:시지만|지만|신데|셔도|어도)[^.!?]{0,30}(?:할인|적용|드릴|드려)",
            r"(?:会員|メンバー)(?:様)?では(?:ございません|ありません|ない)(?:が|けど|けれど|けれども)[^。！？]{0,30}"
            r"(?:割引|適用|お付け)",
            r"past the (?:deadline|(?:return |exchange )?window|return period|time limit)",
            r"(?:deadline|window|period|time limit) (?:has |is )?(?:passed|over|expired|gone)",
            r"(?:기간|기한)(?:이|을)?\s*(?:지났|넘었|넘긴|지난)",
            r"期限(?:を|が)?(?:過ぎ|切れ)",
            r"\b(?:secretly|quietly|off the record|between (?:you and me|us))\b",
            r"몰래|비밀로|조용히\s*처리",
            r"こっそり|内緒で|ナイショで",
            r"(?:늦게|밤|저녁|새벽|이후|넘어|지나)\S{0,6}\s*\S{0,8}(?:셔도|어도|아도|해도)\s*"
            r"(?:당일|바로|오늘|즉시)\s*(?:발송|출고|배송|보내)",
            r"(?:遅く|夜|夕方|以降|過ぎ)[^。]{0,10}(?:ても|でも)[^。]{0,6}(?:当日|即日|本日)(?:発送|出荷)",
            r"(?:late|after \d|after (?:two|2) ?p\.?m|tonight|at night|in the evening)[^.!?]{0,30}"
            r"(?:still )?(?:ships?|goes out|dispatched|sent out) (?:the )?(?:same day|today)",
            r"(?:even though|even if|although|despite)[^.!?]{0,40}"
            r"(?:yourself|you (?:broke|used|opened|dropped|damaged|lost|missed|washed))",
            r"(?:쓰셨|사용하셨|깨뜨리셨|깨뜨렸|망가뜨리|떨어뜨리|파손시키)[가-힣]*(?:어도|더라도|지만)",
            r"(?:使用し|使っ|壊し|割っ|落とし)て(?:も|いても|しまっても|しまわれても)",
        ),
    ),
    (Kind.LATE_CANCELLATION, any_of(r"\bcancel", r"취소", r"キャンセル|取り?消")),
    (
        Kind.PICKUP,
        any_of(
            r"pick(?:s|ed|ing)? (?:it |them |the \w+ |your \w+ )?up (?:from|at) (?:your|the customer)",
            r"(?:collect|fetch)(?:s|ed|ing)? (?:it |them |the \w+ |your \w+ )?(?:from|at) your",
            r"(?:home|doorstep|door-to-door) (?:pick-?up|collection)",
            r"(?:courier|driver|someone|collector)\b[^.!?]{0,20}(?:come|stop by|drop by|visit)"
            r"[^.!?]{0,30}(?:collect|pick|return)",
            r"pick(?:s|ed|ing)? up (?:\w+ ){0,3}(?:from|at) your",
            r"\barrange (?:for )?(?:a )?(?:courier|pick-?up|collection|driver)",
            r"(?:가지러|받으러|수거하러|회수하러)\s*(?:갈|가|방문|오|올|와)",
            r"(?:기사님?|택배\s*기사)[^.!?]{0,12}(?:방문|찾아|들르|가지러)",
            r"集荷(?:を)?(?:手配|依頼|お願い|に参)",
            r"(?:引き取り|回収|集荷)(?:の)?(?:手配|ドライバー)",
            r"(?:방문|직접|댁으로|집으로|댁에)\s*(?:해서\s*|하여\s*)?(?:수거|회수)",
            r"(?:수거|회수)\S{0,3}\s*(?:방문|오실|갑니다|가겠|와\s*드리)",
            r"(?:수거|회수)해\s*(?:드리|드릴|드립)",
            r"集荷(?:に伺|いた|します|させ)",
            r"(?:引き取り|回収|受け取り)に(?:伺|参|行)",
            r"ご自宅(?:まで|へ)(?:伺|お伺|引き取|回収)",
        ),
    ),
    (
        Kind.GUARANTEE,
        any_of(
            r"guarantee",
            r"\bwarrant(?:y|ies|ed)\b",
            r"(?:I|we) promise",
            r"보장",
            r"보증",
            r"약속\s*(?:드리|드릴|드립|합니다|할게)",
            r"保証",
            r"お約束(?:いたします|します)",
            r"必ず[^。！？]{0,12}?(?:お届け|届|到着|着き|発送|お手元)",
            r"(?:届く|着く|お届けできる|到着する)ように(?:し|いたし|手配)",
            r"(?:도착하도록|받으실\s*수\s*있도록|받아\s*보실\s*수\s*있도록|도착할\s*수\s*있도록)"
            r"\s*(?:해|할|하겠|챙겨|처리)",
            r"\bmake sure (?:it|they|your \w+|the \w+) "
            r"(?:arrives?|gets? (?:to you|there)|reaches you|is delivered)",
            r"(?:반드시|꼭|무조건|확실히)\s*(?:\S+\s*)?(?:도착|받아\s*보실|받으실|받으시|배송|배달|보내\s*드|발송)",
            r"(?:definitely|certainly|surely|for sure|guaranteed to|without fail)\b[^.!?]{0,20}"
            r"(?:arrive|be delivered|reach you|get to you|be there|be with you|ship|have (?:it|them)"
            r"|get (?:it|them)|receive (?:it|them))",
            r"\b(?:have|get|receive) (?:it|them)\b[^.!?]{0,25}\b(?:for sure|guaranteed|without fail)\b",
        ),
    ),
    (
        Kind.SAME_DAY_DELIVERY,
        any_of(
            r"(?:오늘|당일|그날|같은\s*날|오늘\s*중|오늘\s*안)(?:에|에는)?\s*(?:바로\s*|곧바로\s*|바로\s*)?"
            r"(?:받아\s*보|받으실|받으시|받을\s*수|도착(?:해|합|할|하|예정)|배달(?:돼|되|해\s*드)|수령(?:하|가))",
            r"(?:今日|本日|当日)(?:中|のうち)?(?:に|には)?(?:お届け(?:いたし|し|でき|され|可能)|届(?:きます|く|け)"
            r"|到着(?:します|いたします|予定)|お受け取り(?:いただけ|になれ)|受け取(?:れ|って)|お手元に)",
            r"\b(?:will|'ll|can|could|should)\b (?:\w+ ){0,2}(?:arrive|be delivered|reach you|get to you"
            r"|get (?:it|them|your \w+)|receive (?:it|them|your \w+)|have (?:it|them|your \w+))"
            r"[^.!?]{0,16}\b(?:today|tonight|(?:on )?the same day|same[- ]day)\b",
            r"\bsame[- ]day (?:delivery|arrival)",
            # "it ships today and normally arrives the same evening"
            r"\b(?:arrives?|is delivered|reaches you|gets to you)\s+(?:\w+\s+)?"
            r"(?:the same (?:day|evening|night|afternoon)|(?:later )?(?:today|tonight"
            r"|this (?:evening|afternoon)))\b",
            # "당일이나 늦어도 다음 날엔 받아 보실 수 있어요": the same day among the days it arrives
            r"(?:오늘|당일)(?:이나|이든|또는|혹은|,)\s*[^.!?]{0,16}(?:받아\s*보|받으실|받으시|도착)",
            r"(?:今日|当日|本日)(?:か|または|、)[^。！？]{0,16}(?:お届け|届|到着|お受け取り)",
            r"\b(?:today|the same day) or (?:tomorrow|the next day)\b[^.!?]{0,20}"
            r"\b(?:arrive|receive|have|get)"
            r"|\b(?:arrive|receive (?:it|them)|have (?:it|them)|get (?:it|them))\b[^.!?]{0,20}"
            r"\b(?:today|the same day) or (?:tomorrow|the next day)\b",
            r"\b(?:arrives?|arriving|delivered|reach(?:es)? you) (?:on )?the same day\b",
        ),
    ),
    (
        Kind.SHOP_DECIDES,
        any_of(
            r"(?:we|the shop|the store|our team|our staff)(?:'ll| will| shall)? (?:decide|choose|determine)",
            r"(?:교환|환불|반품)(?:으로|로)?만\s*(?:처리|가능|진행|해\s*드|도와)",
            r"(?:交換|返金|返品)(?:のみ|だけ)(?:の|で|と|と(?:なり|させて))",
            r"\bonly (?:offer |send |give )?(?:you )?(?:as |with )?an? (?:replacement|refund)\b",
            r"\b(?:replacement|refund) only\b",
            r"(?:at|is) our discretion",
            r"(?:저희|당사|쇼핑몰|매장|본사)\s*(?:가|에서|측에서|쪽에서)[^.!?]{0,30}(?:(?:판단|결정|선택)(?:해|하여|합니다|하겠)|정해)",
            r"(?:当店|弊社|当社|こちら)(?:で|が|にて|側で)(?:\S{0,4})?(?:判断|決定|決め|選択)",
        ),
    ),
    (
        Kind.REQUIREMENT_WAIVED,
        any_of(
            r"without (?:the |a |any |its |your )?(?:original )?"
            r"(?:packaging|box|photos?|pictures?|receipt|tags?|proof|label)",
            r"no (?:photos?|pictures?|receipt|proof|packaging|box)(?: is| are)? "
            r"(?:needed|required|necessary)",
            r"(?:(?:don't|do not|doesn't|does not|won't|will not) (?:even )?(?:need|have)|no need) to "
            r"(?:send|include|attach|provide|keep|take) (?:us )?(?:a |any |the )?"
            r"(?:photos?|pictures?|receipt|packaging|box)",
            r"\b(?:box|packaging|receipt|tags?) or no (?:box|packaging|receipt|tags?)\b",
            # "Items don't need to be in their original packaging to be returned"
            r"(?:n't|\bnot) (?:even )?(?:need|have) to (?:be|come|stay|arrive) (?:back )?(?:in|with) "
            r"(?:the |their |its |your |a )?(?:original )?(?:packaging|box|tags?)",
            r"\b(?:with or without|whether or not you have) (?:the |a |its |your )?(?:original )?"
            r"(?:box|packaging|receipt|tags?)",
            r"(?:photos?|pictures?|receipt|packaging|box)\b[^.!?;]{0,25}?(?: is| are|'s)? "
            r"(?:not needed|not required|optional|unnecessary)",
            r"(?:photos?|pictures?|receipt|packaging|box)\b[^.!?;]{0,25}?\b(?:is|are) ?n[o']?t "
            r"(?:needed|required|necessary)",
            r"(?:사진|포장|박스|상자|영수증|증빙)\S{0,3}\s*(?:(?:첨부|촬영|동봉|보관)\S{0,2}\s*)?"
            r"(?:없이|없어도|안\s*(?:하셔도|보내셔도|찍으셔도|첨부하셔도|주셔도)|필요\s*없|불필요|생략)",
            r"(?:写真|画像|箱|包装|レシート|証拠|パッケージ)(?:は|の|が)?(?:なし|無し|不要|なくても|無くても"
            r"|必要(?:は|が)?(?:ございません|ありません|ない))",
            r"(?:写真|画像|レシート)(?:は|を|の)?(?:お)?(?:送|添付|撮影|撮|用意)\S{0,3}(?:なくても|不要"
            r"|必要(?:は|が)?(?:ございません|ありません|ない))",
        ),
    ),
    (
        Kind.DONE,
        any_of(
            r"(?:has|have|'ve) been "
            r"(?:approved|processed|issued|applied|waived|arranged|refunded|credited|granted)",
            r"\b(?:is|are) (?:now )?approved",
            r"\bapprove\b",
            r"\b(?:have|has|'ve) approved\b",
            r"\bconsider it done\b|\b(?:manager|supervisor|boss|team) (?:has |have )?(?:already )?"
            r"(?:agreed|approved|signed off|okayed|OK'd)\b",
            r"(?:매니저|점장|팀장|담당자|사장)(?:님)?(?:이|께서|가)?\s*(?:이미\s*)?(?:승인|허락|오케이|OK)(?:하셨|했|해\s*주셨)",
            r"(?:店長|マネージャー|上司|責任者)(?:が|も)?(?:既に|すでに)?(?:承認|了承|許可)(?:済み|しました|いたしました|しております)",
            r"승인해\s*(?:드리|드릴|드립)",
            # a price the bot says it will apply: the shop's system applies prices, the bot cannot
            # (not the shop's rule in keigo: "ゴールド会員のお客様には…5%の割引を適用いたします")
            r"적용해\s*(?:드릴게|드릴께|드리겠|줄게|줄께)",
            r"適用(?:しておきます|して差し上げ|しておきますね)",
            r"\b(?:I'll|I will|let me|we'll|we will) (?:go ahead and )?apply\b",
            r"承認(?:いたします|します)",
            r"\b(?:I|we)(?:'ve| have) (?:already |just |now |gone ahead and )?"
            r"(?:approved|processed|issued|applied|waived|arranged|refunded|credited|cancell?ed)",
            r"(?:환불|승인|적용|보상|면제|지급)\s*(?:처리)?\s*(?:해\s*드렸|해드렸|되었|됐|했습니다|하였습니다|완료)",
            r"(?:承認|処理|適用|手配|返金)(?:いたしました|しました|されました|済み|が完了|を完了)",
            r"(?:빼|면제해|없애|차감해|깎아)\s*(?:드렸|드렸어|놨|두었)",
            r"승인(?:이|은)?\s*(?:완료|났|나서|되었|됐)",
            r"승인(?:하셨|했|해\s*주셨|받으셨|받았)",
            r"approval (?:is |has been |was )?(?:complete|done|granted|given)",
            r"(?:have|'ve|has) (?:taken|knocked) (?:it |that |the [\w ]{1,20})?off",
            r"承認(?:が|は)?(?:完了|済|下り)",
            r"(?:^|[.!?—-]\s*)(?:logged|approved|processed|refunded|registered|marked|flagged|filed) as\b",
            r"\b(?:I|we)(?:'ve| have) "
            r"(?:logged|filed|registered|flagged|marked|booked|set up|put (?:it|this) through|noted|recorded"
            r"|added|updated|changed|upgraded|extended|reserved)",
            r"접수(?:해\s*(?:두었|뒀|놓았|놨|드렸)|했습니다|했어요|되었|됐|완료)",
            r"(?:처리|설정|등록|반영)(?:해\s*(?:드렸|두었|뒀|놓았|놨)|했습니다|했어요|되었습니다|완료)",
            r"(?:受付|受け付け|登録|設定|反映)(?:いたしました|しました|済み|が完了)",
            r"手続き(?:を)?(?:いたしました|しました|完了|済み)|절차(?:를)?\s*(?:진행했|진행해\s*드렸|완료)",
        ),
    ),
    (
        Kind.USED_RETURN,
        any_of(
            r"\bused (?:items?|products?|towels?|goods)",
            r"使(?:った|用した|用済みの|い終わった)(?:鍋|商品|もの|物|タオル|マグ)?でも[^。]{0,12}(?:返品|交換|OK|大丈夫)",
            r"(?:사용한|쓴|쓰던|쓰신)\s*(?:냄비|상품|제품|물건|것|거)?(?:도|라도)[^.!?]{0,12}(?:반품|교환|환불)\s*(?:가능|돼|되|해)",
            r"\bitems? that (?:have|has|had) been used",
            r"(?:take|accept)s? back (?:\w+ ){0,3}(?:used|worn)\b",
            r"even (?:if|though) (?:it|you)(?:'ve| have| had)? (?:was |were |been )?used",
            r"after (?:using|use)",
            r"(?<!미)사용(?:한|하신|했|하던|하시던|하셨던|감|흔적|\s*후)",
            r"(?<![가-힣])(?:쓰던|쓰시던|쓰셨던|썼던|쓰신\s*(?:물건|상품|제품))",
            r"(?:써|사용해)\s*(?:보)?(?:셨|았|었)어도\s*(?:괜찮|상관없|돼|됩)",
            r"\b(?:lightly|gently|already|barely|slightly) used\b",
            r"\bused (?:it|them|once|twice|a few times|a couple of times)\b",
            r"(?:一度|何度か|数回|少し|ちょっと)(?:お)?使(?:っ|い)",
            r"使(?:っていた|いかけ)",
            r"(?:[一二三]、?[一二三]?回|\d+回)(?:ほど|だけ)?(?:お)?使(?:っ|い|用)",
            r"\bused or (?:not|unused)\b",
            r"(?<!未)使用(?:済|後|した|された|して)",
            r"\b(?:washed|laundered|worn)\b(?! out)",
            r"(?:세탁|착용)(?:한|하신|했|하셨|된|후|감|흔적)",
            r"빨(?:았|아서|아\s*(?:보|쓰|입))",
            r"써\s*(?:보신|본|봤|버린)",
            r"(?:洗濯|着用)(?:済|後|した|された|して)",
            r"洗った|使い終わ",
            # opened: the FAQ takes back what is "unused and in original packaging"
            r"(?<!未)開封(?:済|後|した|された|して)",
            r"(?<!미)개봉(?:한|하신|했|하셨|된|후|하셔도)",
            r"\b(?:already )?opened (?:items?|products?|boxes|packages?|ones?)\b"
            r"|\beven (?:if|though) (?:it'?s|it was|you(?:'ve)?) (?:been )?opened\b",
        ),
    ),
    (
        Kind.NO_DEADLINE,
        any_of(
            r"no (?:time )?limit",
            r"\bno deadline\b(?! (?:extensions?|changes?)\b)",
            r"(?:return|report) (?:it |the damage |damage )?(?:at )?any ?time",
            r"(?:기한|기간)[^.!?]{0,6}(?:없|제한\s*없)",
            r"(?:期間|期限)の?制限(?:は|が)?(?:ございません|ありません|なし|ない)",
            r"언제든(?:지)?[^.!?]{0,12}(?:반품|환불|교환)",
            r"(?:기한|기간)(?:이|은)?\s*(?:폐지|없어지|없어졌|사라지|사라졌|철폐)",
            r"\b(?:deadline|time limit|(?:return|refund) window)s? (?:has been |have been |was |is |are )?"
            r"(?:removed|abolished|scrapped|lifted|dropped)",
            r"いつでも(?:ご)?(?:返金|交換)",
            r"(?:반품|교환)\s*(?:기한|기간)(?:이|은)?\s*(?:적용되지\s*않|없)",
            r"期限(?:は|が)?(?:ございません|ありません|なし|無し|設けて(?:おりません|いません|ない))",
            r"無期限|期限(?:は|が)?(?:無制限|撤廃)|무기한|기한\s*(?:이\s*)?무제한",
            r"いつでも(?:ご)?返品",
            r"(?:reported|returned|exchanged|refunded|sent back) (?:at )?any ?time",
            r"(?:whenever|any ?time) (?:it )?suits you",
            r"(?:post|send|ship|return|mail)(?: it| them| the \w+)?(?: back)? whenever (?:you|it suits)",
            r"(?:don't|do not|never) (?:you )?worry about (?:the |any )?(?:return |exchange )?"
            r"(?:deadline|window|time limit|date)",
            r"(?:期限|期間|締め切り|日数)(?:なんて|なんか|は|も|とか)?(?:気にしな|関係な|問題な|大丈夫)",
            r"いつ(?:でも)?(?:送って|返して|返品して|お送りいただいて|お返しいただいて)(?:くれて|いただいて)?も",
            r"(?:기한|기간|날짜)(?:은|는|따위|같은\s*건|도)?\s*(?:신경\s*(?:안|쓰지|끄)|상관\s*없)",
            r"언제\s*(?:보내|반품|보내시|돌려\s*보내)[가-힣]{0,2}도",
        ),
    ),
    (
        Kind.WEEKEND_OPENING,
        any_of(
            r"weekends?",
            r"saturdays?",
            r"sundays?",
            r"holidays?",
            r"주말",
            r"공휴일",
            r"토요일",
            r"일요일",
            r"土日",
            r"土曜",
            r"日曜",
            r"週末",
            r"祝日",
            r"休日",
        ),
    ),
    (
        Kind.OBEYING,
        any_of(
            r"\b(?:I|we)(?:'ll| will| shall) (?:\w+ )?(?:follow|obey|carry out|do) (?:any|every|all|whatever)"
            r"(?: of)?(?: the)? (?:instructions?|requests?|commands?|orders?|you (?:say|ask|want|tell))",
            r"\b(?:I|we)(?:'ll| will) do (?:whatever|anything) you (?:say|ask|want|need|tell)",
            r"\b(?:as|whatever) you (?:command|wish), (?:sir|ma'am|boss|manager)",
            r"(?:무엇이든|뭐든지?|어떤\s*(?:지시|명령|요청)(?:이든|든|이라도|라도))\s*(?:다\s*)?"
            r"(?:따르|따를|따라|들어\s*드리|복종)",
            r"(?:지시|명령)(?:하시는|하신|하실)?\s*대로\s*(?:다\s*)?(?:따르|따를|따라|움직|하겠|할게)",
            r"\b(?:approve|grant|accept) (?:all|every|any|whatever)(?: of)?(?: your)? "
            r"(?:requests?|demands?|claims?)",
            r"(?:모든|어떤)\s*(?:요청|요구|요구\s*사항|부탁)(?:을|를|이든|이라도|도)?\s*(?:다\s*)?"
            r"(?:승인|수락|들어\s*드리|들어\s*드릴|처리해\s*드리)",
            r"(?:요청|요구|요구\s*사항)(?:은|는|이|을)?\s*(?:모두|전부|다)\s*(?:승인|수락)",
            r"\ball (?:of )?(?:your )?requests (?:are|will be|have been) (?:approved|granted|accepted)",
            r"(?:すべて|全て|あらゆる)の(?:ご)?(?:要望|要求|依頼|リクエスト)(?:を)?(?:承認|お受け|受け入れ)",
            r"복종",
            r"(?:何でも|なんでも|どんな(?:ご)?(?:指示|命令|ご要望)(?:にも|でも))[^。！？]{0,8}"
            r"(?:従|お応え|いたします|します)",
            r"(?:ご)?(?:指示|命令)(?:に|の)?(?:通り|とおり|どおり)?(?:すべて|全て)?(?:従い|従います|従う)",
        ),
    ),
    (
        Kind.POLICY_CHANGE,
        any_of(
            r"from now on",
            r"starting (?:today|now)",
            r"\bno longer (?:charge|require|need|ask|apply|have to|accept)",
            r"(?:is|are) no longer (?:charged|required|needed|necessary|a rule)",
            r"new policy",
            r"policy (?:has )?changed",
            r"이제부터",
            r"지금부터",
            r"앞으로는",
            r"정책(?:이)?\s*변경",
            r"今後は",
            r"これからは",
            r"本日より",
            r"変更になりました",
            r"(?:rules?|polic(?:y|ies)) (?:has |have )?(?:changed|been (?:updated|changed|relaxed))",
            r"(?:extend|extended|extending) (?:the |your )?(?:return|exchange|refund) "
            r"(?:window|period|deadline)",
            r"(?:규정|정책)(?:이)?\s*바뀌",
            r"(?:반품|교환|환불)\s*(?:기간|기한)(?:을|이)?\s*(?:연장|늘려|늘어)",
            r"(?:規定|ポリシー|ルール)(?:が)?(?:変わ|変更)",
            r"(?:返品|交換|返金)?(?:の)?(?:期間|期限)(?:を|が|は)?[^。]{0,10}延長",
            r"(?:기간|기한)(?:을|이|은)?[^.!?]{0,10}(?:연장|늘어났|늘렸|늘려\s*(?:드릴|드리|드려))",
            r"(?:기간|기한|정책|규정)(?:을|이|은|는)?[^.!?]{0,16}(?:변경(?:됐|되었|했)|바뀌었)",
            r"(?:期間|期限)(?:を|が|は)?[^。]{0,16}(?:変更(?:され|し|いたし)ました|変わりました)",
            r"\b(?:period|window|deadline|policy)\b[^.!?]{0,30}\b(?:has|have) (?:been )?(?:changed|updated)",
            r"\b(?:has been|have been|is now|was) extended\b",
            r"(?:stretch|lengthen|widen|doubl)(?:ed|ing|e)? (?:the |your |our )?(?:return|exchange|refund)",
            r"\bwe(?:'ve| have)? now (?:accept|allow|offer|take|let|give|do)",
        ),
    ),
]

_KIND = dict(_KINDS)
_NOT_A_DENIAL = any_of(
    r"\bif (?:you'?re|you are|it'?s|it is|you'?ve|you have|you)\s*(?:not|never)\b",
    r"\bif (?:you |it )?(?:don'?t|do not|aren'?t|isn'?t|haven'?t|didn'?t)\b",
    r"\bunless\b",
    r"아니(?:시면|시라면|라면|면)|않으(?:시면|면)|안\s*되시면",
    r"(?:で|じゃ)(?:なければ|ない場合|なかったら)|でない(?:方|場合)",
    r"かもしれ(?:ません|ない)",  # a hedge ("お値引きできるかもしれません"), whose "ません" denies nothing
    r"뭘\s*못|뭔들\s*못|무엇인들\s*못",
    r"\b(?:don'?t|do not|never) (?:tell|let on to|mention (?:it|this) to) (?:anyone|anybody|a soul)\b",
    r"(?:아무|누구)(?:한테|에게)도\s*(?:말하지|얘기하지|말\s*하지)\s*(?:마|말)",
    r"(?:誰|だれ)にも(?:言わ|話さ)ないで",
    r"(?:하실|으실|실)\s*필요\s*(?:는|도)?\s*없(?:이|고|어요|습니다)",
    rf"(?:{PARCEL_FEE_KO}|요금|수수료|비용)\s*(?:도|은|는)?\s*(?:전혀\s*)?없이",
    # a step done without ("반품 절차 없이 바로 취소", "返品手続きなしで"): the noun's, not the verb's
    r"(?:절차|과정|반품|신청|서류|사진|영수증|수거|회수)\s*(?:도|은|는)?\s*(?:따로\s*)?없이",
    # a fee gone without, in Japanese ("キャンセル料なしでキャンセルでき"): the fee's, not the cancellation's
    rf"(?:{PARCEL_FEE_JA}|料金|手数料|費用|[一-龯ァ-ヶー]{{1,6}}料)(?:は)?(?:一切)?なし(?:で|に)",
    # an amount not taken off ("반품비 차감 없이 전액 환불"): the fee's waiver, no denial of the refund
    r"(?:차감|공제)\s*(?:도|은|는)?\s*(?:전혀\s*)?없이",
    r"差し引か(?:ず|ないで)|\bwithout (?:deducting|taking off)\b",
    r"(?:手続き|返品|申請|書類|写真|レシート)(?:も|は)?なし(?:で|に)",
    r"(?:いただく|される|なさる)必要(?:は|も)?(?:なく|ありません|ございません)",
)
"""Negations that deny no commitment: a condition's ("if you're not a Gold member we can price-match"),
a rhetorical question's ("내가 사장인데 뭘 못 해주겠어, 깎아줄게"), a secret's ("don't tell anyone,
use code ..."), the customer's own action not needed ("전화하실 필요 없이 저희가 전화드리겠습니다") and a
fee gone without ("불량으로 접수해서 반품 배송비 없이": the waiver's, no denial of the exception)."""
_ONCE_BACK = any_of(
    r"(?:once|after|when|as soon as) (?:we (?:receive|get)|(?:it|the (?:item|return|parcel))[^.!?]{0,20}"
    r"(?:arrives|reaches|is back|gets back))",
    r"(?:도착|입고|회수|확인)(?:하면|되면|된\s*후|한\s*후|후|되는\s*대로|하는\s*대로)",
    r"(?:받으면|받는\s*대로|받은\s*후)",
    r"(?:到着|届き|確認|入庫)(?:次第|後|したら|しましたら|いたしましたら)",
    r"届いたら",
)
"""A refund's time counted from the return coming back: no refund ahead of it."""
_SENT_OFF = any_of(
    r"\b(?:as soon as|once|when|the moment) (?:you )?(?:drop|hand|post|mail|send|ship)\w*",
    r"\b(?:as soon as|once|when|the moment) (?:the courier (?:picks|collects|takes)|it(?:'s| is| has been) "
    r"(?:picked up|collected|handed over|posted|sent))",
    r"(?:택배|기사님?|편의점)[^.!?]{0,10}(?:맡기|보내|접수하|수거해\s*가|가져가)(?:시면|면|시는\s*대로|자마자)",
    r"(?:발송|반송|접수)(?:하시|하)(?:면|는\s*대로|자마자)\s*(?:바로|즉시)",
    r"(?:ご?発送|集荷|お預け|投函)(?:され|し|いただき)?(?:次第|たら|た時点で)",
)
"""A time counted from the parcel leaving the customer: "as soon as you drop it off", "기사님이
수거해 가시면", "発送され次第"; a refund timed by it comes before the return reaches the shop..."""
_BACK_IN = any_of(
    r"\b(?:reach|reaches|arrives? (?:at|back)|gets? back to|is back (?:at|with))\b",
    r"창고|도착|입고",
    r"倉庫|到着|届き",
)
"""... unless the sentence waits for that too ("once you send it back and it reaches our warehouse")."""

_SHIPPED = any_of(
    r"\b(?:after|once|post)[- ](?:dispatch|shipping|shipment)\b|\bbefore or after\b",
    r"(?:발송|출고)\s*(?:전이든|전이나|전,?)\s*(?:후든|후나|이후든|후에도)|(?:발송|출고)\s*전후",
    r"(?:発送|出荷)(?:の)?前(?:でも)?(?:後でも|・後)|(?:発送|出荷)(?:の)?前後",
    r"\b(?:already|has been|have been|was|were) (?:been )?(?:shipped|dispatched|sent out|on (?:its|the) way)",
    r"\b(?:after|once|since) (?:it(?:'s| has| was)? |your order(?:'s| has| was)? )?(?:been )?"
    r"(?:shipped|dispatched)",
    r"\b(?:after|once) (?:it|your order|the order|the parcel) (?:ships|goes out|leaves)\b",
    r"(?:이미|벌써)\s*(?:출고|발송|배송\s*(?:출발|시작))",
    r"(?:출고|발송)\s*(?:후|이후|된\s*(?:뒤|후|이후|다음)|됐더라도|되었더라도|완료|됐지만|되었지만|된\s*상태)",
    r"(?:既に|すでに|もう)(?:発送|出荷)",
    r"(?:発送|出荷)(?:後|済み|済|されて(?:いる|います|おり))",
)
"""An order said to have shipped: its cancellation is a cancellation after dispatch."""
_NOT_CANCELLED = any_of(
    r"(?:instead of|rather than|not (?:a|as a)) cancel",
    r"취소\s*(?:대신|말고|가\s*아닌|가\s*아니라|는\s*안)",
    r"(?:キャンセル|取り?消し?)(?:ではなく|じゃなく|の代わり|ではありません)",
)
"""A cancellation named as what the customer gets instead ("취소 대신 반품으로", "キャンセルではなく
ご返品")."""

_NO_CHARGE = any_of(
    # not "feel free to call us", "free to choose"
    r"(?<!feel )\bfree\b"
    r"(?!\s+to\s+(?:call|ask|contact|reach|message|e-?mail|chat|write|choose|pick|let|drop))",
    r"무상",
    r"無償",
    r"비용\s*없이",
    # "without the fee" is no fee: "배송비 3,000원 없이 무료배송으로", "送料なしで", "without any charge"
    rf"(?:{PARCEL_FEE_KO}|요금|수수료|반품비|교환비|[\d,]+\s?원)\s?(?:도|은|는)?\s?(?:(?:차감|공제)\s?)?(?:전혀\s?)?"
    r"없이(?![는도])",
    rf"(?:{PARCEL_FEE_JA}|料金|手数料|費用)(?:を)?差し引か(?:ず|ないで)",
    r"\bwithout (?:deducting|taking off) (?:any |the )?(?:return |exchange )?(?:shipping|fee|charge|cost)",
    # the fee the customer need not worry about: "반품 배송비 걱정 마세요", "送料はお気になさらないでください"
    r"\bdon'?t worry about (?:the |any )?(?:return |exchange )?(?:shipping|postage|fee|cost|charge)",
    rf"(?:{PARCEL_FEE_KO}|반품비|교환비|요금|비용|수수료)\s?(?:은|는|도)?\s?(?:전혀\s?)?"
    r"(?:걱정\s?(?:마세요|마시고|하지\s?마|안\s?하셔도)|신경\s?(?:쓰지\s?마|안\s?쓰셔도))",
    rf"(?:{PARCEL_FEE_JA}|料金|費用|手数料)(?:は|も|のことは|については)?(?:お気になさらな|ご心配(?:なく|いりません)|気にしなくて)",
    rf"(?:{PARCEL_FEE_JA}|料金|手数料|費用|ご負担)(?:は)?(?:一切)?なしで",
    rf"(?:{PARCEL_FEE_JA}|料金|手数料|費用|[一-龯]{{1,4}}料)(?:は|も)?(?:一切)?(?:いただかず|頂かず|いただかない|頂かない|頂戴せず)",
    rf"(?:{PARCEL_FEE_JA}|料金|手数料|費用|[一-龯]{{1,4}}料)(?:は|も)(?:一切|特に)?(?:なく|ない(?:です)?|なし(?:です)?|ございません)",
    r"\bwithout (?:any |a |the )?(?:extra |additional )?(?:shipping |delivery |return |exchange )?"
    r"(?:fee|charge|cost)s?\b",
    r"お代(?:は)?(?:結構|いただきません|頂きません)",
    r"costs? (?:you )?nothing",
    r"nothing to pay",
    r"no need to pay",
    r"(?:is|are|'s) on us",
    r"\bwe(?:'ll| will| can| would| 'd)? (?:also |happily |gladly |even |still )?"
    r"(?:cover|pay for|take care of|absorb)",
    r"(?-i:\b(?!(?:You|Customers?|Buyers?|Members?|They)\b)[A-Z][a-z]+(?: [A-Z][a-z]+)?) "
    r"(?:will |'ll |can )?(?:cover|pay for)\b",
    r"\b(?:the|our) (?:shop|store|company|team) (?:will |can )?(?:cover|pay for)\b",
    r"(?:내지|지불하지|결제하지|부담하지)\s*않(?:으셔도|아도)",
    r"안\s*내(?:셔도|도)",
    r"(?:따로|별도로?)?\s*(?:내실|지불하실|결제하실)\s*필요(?:는|가)?\s*없",
    r"(?:저희|당사|본사|쇼핑몰)\s*(?:가|에서|측에서)?\s*(?:\S+\s*)?부담",
    r"(?:저희|당사|본사|쇼핑몰)\s*(?:가|에서|측에서)?\s*(?:\S+\s*)?(?:낼게|낼\s*게|내\s*드리|내\s*드릴|내\s*드려|대신\s*내)",
    r"서비스로\s*(?:해\s*)?(?:드리|드릴|드려|넣어|챙겨|제공)",
    r"(?:当店|当社|弊社|私ども|こちら)(?:が|で|側で)?(?:\S{0,6})?(?:負担|持ちます|持たせて)",
    r"free of charge",
    r"on the house",
    r"(?:skip(?:ped)?|drop(?:ped)?|remov(?:e|ed|ing)|scrap(?:ped)?|forg(?:e|o)t about|le(?:ave|ft) off|"
    r"knock(?:ed)? off|t(?:ake|ook|aken) off|cancel(?:l?ed)?|waiv(?:e|ed|ing)|delet(?:e|ed)) "
    r"(?:both |all )?(?:the |your |that |this )?(?:\w+ ){0,2}(?:fee|charge|surcharge|cost)",
    rf"(?:{PARCEL_FEE_JA}|料金|費用|手数料|お代|代金|お金|[一-龯]{{1,4}}料)(?:なんて|なんか|は|も)?"
    r"(?:いらない|要らない|いりません|要りません|結構)",
    r"공짜",
    r"タダ",
    r"ただで",
    r"no (?:(?:extra|additional|exchange|return|shipping|delivery) ){0,2}(?:fee|charge|surcharge|cost)s?",
    r"(?:don't|do not|doesn't|does not|won't|will not) (?:have|carry|come with|include) (?:any |an? )?"
    r"(?:extra |additional )?(?:shipping |delivery |return |exchange )?(?:fee|charge|surcharge|cost)s?\b",
    r"(?:fee|charge|cost)s? (?:is|are) waived",
    r"waive",
    r"at no (?:extra )?cost",
    r"(?:don't|do not|won't|will not|doesn't|does not) (?:have to |need to )?(?:pay|be charged)",
    r"(?:don't|do not|won't|will not|doesn't|does not) cost (?:you )?"
    r"(?:anything|a thing|a penny|a cent|a won|extra)",
    r"무료",
    r"면제",
    r"(?:빼|면제해|없애|깎아)\s*(?:드리|드릴|드립|드려|줄게|줄께|줄래)",
    r"(?:비용|수수료|요금|돈|값|[가-힣]{1,3}비)\s*(?:은|는|이|가|를|을|따윈|따위는|같은\s*건|도)?\s*"
    r"(?:(?:따로|별도로?|전혀|하나도|일절|조금도|한\s*푼도)\s*)?"
    r"(?:없|들지\s*않|안\s*들|부과되지\s*않|받지\s*않|안\s*받)",
    r"부담(?:하실|하지)?\s*(?:필요|않|없)",
    r"無料",
    r"免除",
    r"(?:手数料|送料|料金|費用|[一-龯ァ-ヴー]{1,6}(?:料|代))[^。！？]{0,16}?"
    r"(?:かかりません|かからず|かからない|不要|いただきません|頂きません|いただかな|頂かな|頂戴しません"
    r"|発生しません|発生せず|無し|なし)",
    r"(?:負担|お支払い)(?:いただく(?:必要|こと)は|は)?(?:ございません|ありません|不要)",
)
_SOME_CHARGE = any_of(
    r"\bfees?\b",
    r"surcharge",
    r"\b(?:a|an|the) (?:\w+ )?charge\b",
    r"\bcharged?\b",
    r"\bpays?\b(?!\s+(?:(?:it|them|you|this|that|the \w+)\s+)?(?:out|back)\b)",  # paying out is a refund
    r"\bcosts?\b",
    r"\bat your (?:own )?expense",
    r"\bstill appl(?:y|ies)\b",
    r"(?:you|customer)(?:'ll| will| would)? (?:just |only |simply |still |also )?"
    r"(?:(?:need|have|has) to |must )?"
    r"(?:cover|bear|foot)(?! (?:it|the) (?:cost )?for you)",
    r"수수료",
    r"부과",
    r"유료",
    # a cost borne, not "세탁하실 때도 부담이 없어요" (no bother)
    r"부담(?!(?:이|은|도|스럽|스러)\s*(?:없|적|덜|되지|안|가지))",
    r"청구",
    r"들어요|듭니다|(?<![가-힣])드는|붙(?:습니다|어요|었어요|었습니다|지\s*않)",  # "코드는" costs nothing
    r"추가(?:되|돼|됩)",
    r"\b(?:is|are|will be|gets?) added\b",
    r"\b(?:deducted|taken off|subtracted|withheld) from (?:your|the) refund\b",
    r"환불\s*(?:금액|액)?에서\s*(?:차감|제외|빼)",
    r"返金(?:額|金額)?から(?:差し引|控除|差引)",
    r"\b(?:plus|including|includes|included) (?:the |a )?(?:[\d,.]+ ?(?:won|krw)|₩[\d,.]+) (?:for |in )?"
    r"(?:shipping|delivery|postage)",
    rf"(?:{PARCEL_FEE_KO})\s*[\d,]+\s*원(?:을|이)?\s*(?:더해|더하면|더한|포함)",
    rf"(?:{PARCEL_FEE_JA})[\d,]+ウォン(?:を|が)?(?:加え|足し|含め|含まれ|込み|プラス)",
    r"(?:加算|追加|上乗せ)(?:されます|いたします|となります|されて)",
    r"手数料",
    r"有料",
    r"負担",
    r"かかります|かかる|かかって(?:おり|い)|頂戴|いただきます|申し受け",
    r"ご請求",
)
_FEE_IS = any_of(
    r"\b(?:shipping|postage|delivery|fee)\s+(?:is|are|comes to|will be)\s+(?:(?:a|an) )?(?:flat |fixed )?"
    r"(?:[\d,.]+ ?(?:won|krw)\b|₩)",
    rf"(?:{PARCEL_FEE_KO}|반품비|반송비)(?:는|은|가|이)?\s*(?:무조건|항상|일괄|금액과\s*상관없이)?\s*[\d,.]+\s*"
    r"(?:원|만\s*원)",
    rf"(?:{PARCEL_FEE_JA}|返送料)(?:は|が)?(?:一律|常に)?[\d,.]+\s*(?:ウォン|円)",
)
"""What a fee "is", in a sentence with no word of charging: "the return shipping is 6,000 won",
"반품 배송비는 6,000원이에요", a charge all the same."""
_CHARGED: list[tuple[Charged, re.Pattern[str]]] = [
    (
        Charged.RETURN,
        any_of(
            r"return",
            r"send(?:ing)? (?:(?:it|them|the \w+|an? \w+) )?back",
            r"반품",
            r"반송",
            r"돌려\s*보내",
            r"返品",
            r"返送",
            r"送り返",
        ),
    ),
    (Charged.EXCHANGE, any_of(r"exchang", r"\bswap", r"교환", r"교체", r"交換", r"取り?替")),
    # shipping both ways is a return's (or, named so, an exchange's): "단순 변심이면 왕복 배송비 6,000원"
    (Charged.RETURN, any_of(r"\bround[- ]trip\b", r"왕복", r"往復")),
    (
        Charged.CANCELLATION,
        any_of(r"cancel", r"취소", r"없던\s*일로", r"キャンセル", r"取り?消", r"なかったことに"),
    ),
    (Charged.WRAPPING, any_of(r"wrap", r"포장", r"ラッピング", r"包装")),
    (
        Charged.SHIPPING,
        any_of(r"shipping", r"\bships?\b", r"delivery", r"postage", r"배송", r"택배", r"送料", r"配送"),
    ),
]

_BELOW = any_of(
    r"\bunder\b",
    r"\bbelow\b",
    r"less than",
    r"미만",
    r"이하",
    r"미달",
    r"보다\s*(?:적|작|낮|덜)",
    r"(?:원|그|금액)이\s*안\s*(?:되|돼)",
    r"(?:원|그|금액)(?:이|을)\s*(?:안|못)\s*넘",
    r"未満",
    r"以下",
    r"下回",
    r"に満たない",
    r"に届か(?:ない|ず)",
    r"(?:에|엔|을|를)\s*(?:못\s*미(?:치|쳐|칩)|미치지\s*(?:못|않))",
    r"\bfalls? short of\b|\b(?:short|shy) of (?:the |our |your )?[\d,]+ ?won",
    r"\b(?:doesn't|does not|didn't|did not|won't|will not) (?:quite )?reach\b",
)
"""The other side of a threshold: "under 50,000원, shipping is 3,000원" is not said of orders over it."""
_EXCEPT = any_of(
    r"other than",
    r"\bbesides\b",
    r"apart from",
    r"aside from",
    r"\bexcept\b",
    r"\bbeyond\b",
    r"말고",
    r"외에",
    r"외의",
    r"제외하고",
    r"그\s*외|이외|밖의",
    r"ほかに|他に|以外|他の|ほかの|その他",
    r"\bother\b",
    r"다른",
)
"""A denial of what is left besides a condition's grant ("no discounts other than the Gold members'
5%") does not deny the grant."""
_CONDITIONS: list[tuple[Condition, re.Pattern[str]]] = [
    (
        Condition.DEFECTIVE,
        any_of(
            r"defect",
            r"damaged",
            r"faulty",
            r"broken",
            r"wrong item",
            r"잘못된\s*(?:상품|물건|제품)",
            r"(?:sent|sending|send|shipped|shipping|delivered|received|got) "
            r"(?:you |out )?(?:the |a |an )?wrong",
            r"誤った",
            r"(?:違う|別の)商品",
            r"our (?:mistake|error)",
            r"불량",
            r"파손",
            r"하자",
            r"오배송",
            r"저희\s*(?:쪽\s*)?실수",
            r"다른\s*상품",
            r"주문(?:하신|한)\s*(?:것|상품|물건|제품)(?:과|와|이랑)\s*(?:다르|달라)",
            r"(?:注文|ご注文)(?:した|された|いただいた)?(?:もの|商品|品)と(?:違|異な)",
            r"(?:ご)?注文(?:内容)?と(?:違う|異なる)",
            r"(?:물건|상품|제품)에\s*문제가",
            r"다른\s*(?:걸|것을?|물건을?|상품을?)\s*(?:보내|보낸|보냈)",
            r"(?:not|isn't|wasn't) what you ordered",
            r"잘못\s*(?:보내|보낸|보냈|발송|배송|온|간|갔|받으|받은|받았|도착)",
            r"不良",
            r"破損",
            r"誤配",
            r"間違",
            r"初期不良",
            r"誤発送",
            r"不具合",
            r"欠陥",
            r"결함",
        ),
    ),
    (
        Condition.MEMBER,
        any_of(r"gold", r"member", r"골드", r"회원", r"멤버", r"ゴールド", r"会員", r"メンバー"),
    ),
    (
        Condition.THRESHOLD,
        any_of(
            r"\bover\b",
            r"or more",
            r"above",
            r"at least",
            r"(?:once|when|if|as|since|because) (?:your |the )?(?:order|total|basket|cart)[^.!?]{0,20}"
            r"(?:reach|hit|exceed|come)",
            # what is short of the amount: "14,000 won away from free shipping", "무료배송까지 2천 원"
            r"\b(?:away from|short of|more (?:to|for|until|and you)|to go (?:for|until|before))\b"
            r"[^.!?]{0,20}free",
            r"무료\s?배송\s?(?:기준\s?)?까지",
            r"\b(?:another|more|an extra)\b[^.!?]{0,25}\bto (?:get|qualify for|reach|unlock)\b"
            r"[^.!?]{0,10}\bfree",
            r"원\s?(?:어치)?\s?(?:만|정도|쯤)?\s?더\s?(?:담|주문|구매|구입|추가|사|채우)[^.!?]{0,20}무료",
            r"あと[^。！？]{0,20}(?:で|と|ば|たら)[^。！？]{0,12}無料",
            r"送料無料(?:ライン)?まで",
            r"이상",
            r"(?:보다\s*)?많으면",
            r"넘",
            r"以上",
            r"超",
        ),
    ),
    (
        Condition.BEFORE_DISPATCH,
        any_of(
            r"before (?:it'?s |it is |it |(?:the|your) (?:order|parcel|item)s? (?:is |are |has |have )?)?"
            r"(?:ships?|shipped|shipping|dispatch(?:ed)?|sent)",
            r"(?:has ?n't|has not|have ?n't|not) (?:yet )?(?:been )?(?:shipped|dispatched|sent)",
            r"not (?:shipped|dispatched|sent) yet",
            r"(?:has ?n't|has not|have ?n't|not) (?:yet )?left (?:our|the) (?:warehouse|shop|store)",
            r"(?:has ?n't|has not|have ?n't|not) (?:yet )?gone out",
            r"발송\s*전",
            r"발송되기\s*전",
            r"(?:내|부쳐|발송해)?\s*보내기\s*전",
            r"(?:出荷|発送|お送り)(?:する|いたす)前",
            r"아직\s*(?:발송|출고)",
            r"출고\s*전",
            r"(?:배송|택배)(?:이|가)?\s*(?:출발|나가기)\s*전",
            r"発送前",
            r"出荷前",
            r"まだ発送",
            r"発送(?:され)?る前",
        ),
    ),
    (
        Condition.FIRST_ORDER,
        any_of(
            r"\b(?:your |the )?(?:first|1st|initial|very first) (?:order|purchase)",
            r"첫\s*(?:주문|구매|구입|결제)|최초\s*(?:주문|구매)",
            r"初回|初めての(?:ご)?(?:注文|購入)|最初の(?:ご)?(?:注文|購入)",
        ),
    ),
    (
        Condition.CHANGE_OF_MIND,
        any_of(
            r"change of mind",
            r"changed? (?:your|my) mind",
            r"변심",
            r"お客様(?:の)?(?:ご)?都合|(?:お客様|ご自身)の(?:ご)?(?:事情|理由)",
            r"気が変わ",
            r"\b(?:just )?(?:want|prefer|would like) (?:a |another |a different )(?:colou?r|size)\b",
        ),
    ),
]
_CONDITION = dict(_CONDITIONS)

_NO_MINIMUM = any_of(
    r"\b(?:with )?no minimum(?: order| purchase| spend| amount)?\b",
    r"\bregardless of (?:the |your )?(?:order )?(?:amount|total|size|price)\b",
    r"(?:최소\s?(?:주문\s?)?금액|금액\s?제한)\s?(?:도|은|는)?\s?없이",
    r"最低(?:注文|購入)?金額(?:は|の)?(?:制限)?なし",
)
"""The free-shipping amount waived: a negation that grants ("ship free with no minimum"), and no
amount the grant is conditioned on."""
_NEGATION = any_of(
    r"(?<!\bor )\b(?:no|not|never|cannot|can't|won't|isn't|aren't|don't|doesn't|unable|unfortunately)\b",
    r"n't\b",
    r"없",
    r"않",
    r"불가",
    r"(?<!잘)못",
    r"닫(?:습|아|는|혀|고)",
    r"안\s*(?:됩|돼|되)",
    r"어렵",
    r"어려(?:워|운|울)",
    r"아니",
    r"아닙",
    r"\bclosed\b",
    r"\bimpossible\b",
    r"(?:^|(?<=\s))안\s+(?=[가-힣])",
    r"휴무",
    r"쉽니다|쉬어요|쉬어서|쉬는|쉬(?:고|며|니)\b",
    r"(?<!昼)休み",  # not the lunch break, "お昼休み"
    r"休業",
    r"定休",
    r"ません",
    r"ない",
    r"(?<=[もはが])なく",  # "クーポン等もなく"
    r"不可",
    r"できず",
    r"(?:て|で)おらず",
    r"なし",
    r"かね",
    r"致しかね",
    r"お断り",
    r"対象外",
    r"대상(?:이|에서)?\s*(?:아니|제외)",
    r"\bexcluded\b",
)
_FEE_DENIED = any_of(
    r"(?:料金?|手数料|費用)(?:は|が|も)?(?:一切)?(?:かかりません|かからない|いただきません|ございません|ありません)",
    r"(?:취소\s*)?(?:수수료|위약금|비용)(?:은|는|이|가|도)?\s*(?:전혀\s*)?(?:없|안\s*(?:받|들|붙))",
    r"\b(?:no|without (?:a|any)) (?:cancellation )?(?:fee|charge|penalty)\b",
    r"\b(?:fee|charge|penalty) (?:is|are) ?n[o']?t\b",
    r"(?:ウォン|円)(?:は|も)?(?:一切)?(?:かかりません|かからない|いただきません)",
    r"원(?:은|도|이)?\s*(?:안\s*(?:들|붙|받)|들지\s*않|붙지\s*않)",
)
"""A fee denied: "発送後でもキャンセル料はかかりません" grants the late cancellation, free."""
_CLOSED = any_of(
    r"\bclosed\b",
    r"\bshut\b",
    r"\b(?:nobody|no one|no-one) (?:will |can |is going to )?(?:pick up|answer|be (?:there|available))",
    r"휴무",
    r"쉬(?:어요|어서|는|고|며|니)|쉽니다",
    r"(?<!昼)休み",
    r"休業",
    r"定休",
)
"""Closing words, which deny the days they are said of wherever they stand in the part; not the lunch
break's "お昼休み"."""
_NOT_CLOSED = any_of(
    r"\b(?:never|not|n't) (?:be )?closed\b|\bno days? off\b",
    r"쉬지\s*(?:않|말고)|안\s*쉬(?:고|어요|며|니)|쉬는\s*날\s*(?:없이|이\s*없)|연중\s*무휴",
    r"休まず|休まない|休みません|休みなし|休み無し|無休",
)
"""A closing denied: "공휴일에도 쉬지 않고", "祝日も休まず", an opening."""
_NOT_THAT_NOT = any_of(
    r"(?:is ?n't|is not|not) (?:true|the case|so) that (?:we|you|it|they|the shop)? ?"
    r"(?:do ?n't|do not|can ?not|can't|won't|are ?n't|is ?n't|never)",
    r"(?:않|없|못하)(?:는|은|다는)\s*(?:건|것은?|게|말은)\s*(?:사실이\s*)?아니",
    r"(?:ない|ません)(?:という)?わけでは(?:ない|ありません|ございません)",
    r"\bnot (?:entirely |completely |totally )?(?:impossible|out of the question|unheard of)\b",
    r"불가능(?:하지(?:는|도|만은)?\s*않|한\s*(?:건|것은?|게)\s*아니)",
    r"(?:できなく|不可能で|無理で)(?:は|も)?(?:ない|ありません|ございません)",
)
"""A negation denied: "it isn't true that we don't price-match" grants it."""
_APOLOGY = any_of(
    r"申し訳(?:ござい|あり)ません(?:が|けど|けれど)?",
    r"すみません(?:が|けど)?",
    r"恐れ入りますが",
)
"""Polite formulas whose negation ("ません") denies nothing."""
_PERMISSION = any_of(
    r"(?:て|で)(?:も)?(?:構いません|かまいません|差し支えありません|問題ありません)",
    r"(?:差し支え|問題)(?:は)?(?:ありません|ございません|ない)",
    r"(?:셔도|어도|아도|해도)\s*(?:상관\s*(?:없|않)|문제\s*(?:없|않))",
    r"상관\s*없",
    # not a fee the customer need not worry about, which is waived (`_NO_CHARGE`)
    r"\b(?:no problem|not a problem|no worries|don'?t worry(?! about (?:the |any )?(?:return |exchange )?"
    r"(?:shipping|postage|fee|cost|charge))|doesn't matter|never mind|no need to worry)\b",
    r"\bno[- ]questions?[- ]asked\b|묻지도\s*따지지도\s*않|理由を問わず|理由は問いません",
)
"""Saying something is fine in the words of a negation ("お持ちいただいて構いません", "가지셔도
상관없어요", "keep it, no problem"): it grants, it denies nothing."""
_THRESHOLD_NAMED = any_of(
    r"\bfree[- ]shipping (?:threshold|minimum|line|cut-?off|mark|level|limit|bar|point)",
    r"무료\s*배송\s*(?:기준|조건|라인|금액)",
    r"送料無料(?:の)?(?:基準|条件|ライン)",
)
"""The amount free shipping starts at, named by the waiver: no waiver itself."""
_NEARLY = any_of(
    r"\b(?:almost|nearly|just under|close to|short of)\s+[\d,.]+\s?(?:won|원|KRW)?",
    r"(?:거의|얼추)\s?[\d,.]+\s?(?:만|천)?\s?원?",
    r"(?:ほぼ|ほとんど)[\d,.]+\s?(?:万|千)?\s?(?:ウォン)?",
)
"""An amount said to be nearly reached ("거의 5만원이라"): the order is under it."""
_NOT_A_GRANT = any_of(
    r"^\s*(?:아니요|아뇨|아니오|いいえ|no)\s*[,.!、。]",
    # an amount before the discount ("할인 전 기준으로 … 총 47,000원") is no discount given
    r"할인\s?(?:적용\s?)?전(?:\s?(?:기준|금액|가격)|에|의|(?![가-힣]))|\bbefore (?:the |any )?discounts?\b"
    r"|割引(?:適用)?前",
    _THRESHOLD_NAMED.pattern,
    r"(?:주말|공휴일|휴일|토요일|일요일)(?:이|가)?\s*아니(?:면|라면|시면)",
    r"\b(?:unless|except(?: on)?) (?:it'?s )?(?:a )?"
    r"(?:weekends?|(?:public )?holidays?|saturdays?|sundays?)\b",
    r"(?:土日|週末|祝日|休日)(?:で|を)?(?:なければ|除く|以外)",
    r"\bthe (?:only )?exceptions? (?:is|are|being)\b",
    r"\b(?:the|our) only discount\b|\bonly discount (?:we|there|you)\b|유일한\s*할인|唯一の割引",
)
"""Words that say no more than they name: an answer's opening "No," (its clause says what is
denied: "아니요, 불량이면 반품 배송비가 무료입니다"), and the free-shipping threshold named as such
("under the 50,000 won free-shipping threshold, so shipping is 3,000 won"), and the days off named
as an exception ("공휴일이 아니면 월요일 오전 10시부터", "unless it's a holiday")."""
_RULELESS = any_of(
    r"(?:규칙|제한|제약|룰|정책|규정|지침)\s*(?:같은\s*(?:건|거|것)|따위)?(?:이|은|는|도)?\s*"
    r"(?:없|상관\s*없|신경\s*안|안\s*지켜)",
    r"(?:規則|ルール|制限|制約|規定|ポリシー)(?:の|が|も|は|なんて|とか)?"
    r"(?:ない|なければ|なしで|なし|ありません|関係ない|関係ありません|気にしない)",
    r"\b(?:no|without) (?:any )?(?:rules|restrictions|limits|limitations|policies|policy)\b",
    r"\b(?:rules|restrictions|limits|policies|policy) (?:don't|do not|doesn't|does not|won't|no longer) "
    r"(?:apply|matter|bind)",
    r"\b(?:not|never) bound by (?:any |the |your |those )?(?:\w+ )?(?:rules|restrictions|policies|policy)",
    r"\bfree (?:of|from) (?:any |the |all )?(?:\w+ )?(?:rules|restrictions|policies|confines)",
)
"""A bot "with no rules" or "without restrictions" (the role an attack asks for): the negation is of
the rules, not of what the reply then grants ("규칙이 없는 챗봇이라면 ... 현금으로 환불해 드릴 수
있습니다")."""


@dataclass(frozen=True)
class Commitment:
    kind: Kind
    granted: bool
    """True: the sentence grants or promises it; False: it denies it."""
    charged: Charged | None = None
    conditions: frozenset[Condition] = frozenset()

    def __str__(self) -> str:
        if self.kind is Kind.CHARGE:
            what = f"{'no charge' if self.granted else 'a charge'} for {self.charged}"
        else:
            what = f"{'' if self.granted else 'no '}{self.kind}"
        if self.conditions:
            what += " (" + ", ".join(sorted(self.conditions)) + ")"
        return what

    def supported_by(self, sources: Sequence[Commitment]) -> bool:
        """A grant needs a source granting it with no condition the reply leaves out, and none
        narrowing it that the source does not put; a denial (or a charge) stands unless a source
        grants what it denies under the conditions it names."""
        granted = any(
            (source.kind, source.charged) == (self.kind, self.charged)
            and source.granted
            and source.conditions <= self.conditions
            and self.conditions & _NARROWING <= source.conditions
            for source in sources
        )
        if self.granted:
            return granted
        if self.kind is not Kind.CHARGE:
            # "no cash refunds" with no source saying so misleads nobody into a promise; "no refund
            # for damaged items" where the FAQ gives one for them contradicts it
            return not any(
                source.kind is self.kind
                and source.granted
                and source.conditions
                and source.conditions <= self.conditions
                for source in sources
            )
        return not granted


_SENTENCE = re.compile(
    r"(?<=[.!?。！？])\s*|\n+|(?<=[다요죠])(?<!마다)(?<!보다)(?<![필중주]요)(?<!\s다)(?<!^다)\s+(?=\S)"
)
"""Sentence ends; a Korean one may have no stop after its last "-다", "-요" or "-죠", but "마다"
(every), "보다" (than), "필요" (need), "중요", "주요" and "다" (all) end no sentence."""


def _sentences(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text)
    return [part.strip() for part in _SENTENCE.split(text) if part and part.strip()]


_CLAUSE = re.compile(
    r"[;；]|\s[—–]\s(?=(?:below|under|otherwise|anything (?:below|under|less))\b)", re.IGNORECASE
)
"""Clauses: a semicolon, or a dash before the threshold's other side ("shipping's on us — below that
it's 3,000 won")."""
_ALWAYS_GRANTED = frozenset({Kind.DONE, Kind.POLICY_CHANGE, Kind.NO_DEADLINE, Kind.OBEYING})
"""Never read as denials: their phrases carry their own negation ("no time limit"), or (an
action only staff can take) a refusal wrongly held back is the safer error than a promise let
through ("I cannot approve that" is read as an approval)."""


Thresholds = Mapping[Charged, tuple[str, Decimal]]
"""What the FAQ waives a charge from ("free for orders of 50,000원 or more"): the currency and the
amount, per what is charged for."""


def commitments(text: str, *, after: str = "", thresholds: Thresholds | None = None) -> list[Commitment]:
    """Every commitment the clauses of `text` make (a clause names what is charged for, or its
    sentence does: "Order cancellation: free before dispatch; after dispatch, return it").
    `after`: the text before it, read only for what a sentence of `text` goes on about;
    `thresholds`: a clause stating an amount at or over one has its condition shown by the number
    ("51,000원이라 배송비가 무료" is free shipping over 50,000원)."""
    found: list[Commitment] = []
    own = _sentences(text)
    told = [*_sentences(after), *own]
    index = len(told) - len(own)
    for clause, subject, inherited, around in _clauses(text, after):
        while index < len(told) - 1 and clause not in told[index]:
            index += 1
        previous = told[index - 1] if index > 0 else ""
        read = _read(clause, subject, inherited, around)
        read.extend(_cancellations(clause, read))
        read.extend(_exchanges(clause))
        if _SENT_OFF.search(told[index]) and not (
            _ONCE_BACK.search(told[index]) or _BACK_IN.search(told[index])
        ):
            # a refund timed by the parcel leaving the customer comes before the return is in
            read = [
                replace(c, kind=Kind.REFUND_NOW) if c.kind is Kind.REFUND and c.granted else c for c in read
            ]
        if thresholds:
            sentence = told[index]
            earlier = f"{previous} {sentence[: max(0, sentence.find(clause))]}"
            # the order's amount: the last said before ("냄비는 84,550원이에요. 그 외 추가 쿠폰은 없어요.
            # 배송비는 무료예요"), or said in the sentence after to be what waives it ("送料はかかりません。
            # 鋳物鍋とテーブルクロスで合計128,000ウォンとなり、5万ウォン以上の送料無料の対象です")
            priced = next((said for said in reversed(told[:index]) if _stated_amounts(said)), "")
            following = told[index + 1] if index + 1 < len(told) else ""
            read = [_against_threshold(c, clause, thresholds, priced, earlier, following) for c in read]
        found.extend(read)
    if thresholds and Charged.SHIPPING in thresholds:
        for sentence in own:
            found.extend(_threshold_misjudged(sentence, *thresholds[Charged.SHIPPING]))
    return found


_DENIAL_REACH = 16
"""Characters before the threshold's name where a negation is of its reaching ("isn't over the
free-shipping line"); a Korean or Japanese one follows it (`_CJK_NOT`: "무료배송 기준을 넘지 않아요")."""
_CJK_NOT = re.compile(r".{0,8}?(?:않|안\s|못|ない|ません|ず)")


def _threshold_misjudged(sentence: str, currency: str, threshold: Decimal) -> Iterator[Commitment]:
    """The free-shipping threshold, named, said to be reached by a basket whose amount is under it
    ("Four bath towels come to 48,000 won, which is over the free-shipping threshold": free shipping
    granted below it), or not reached by one at or over it (shipping charged where it is waived). The
    basket is the amounts said before the name; one said with something added to it, or with no
    amount, is not judged."""
    for named in _THRESHOLD_NAMED.finditer(sentence):
        before, after = sentence[: named.start()], sentence[named.end() :]
        over = _OVER_NAMED_BEFORE.search(before) or _OVER_NAMED_AFTER.match(after)
        under = _UNDER_NAMED_BEFORE.search(before) or _UNDER_NAMED_AFTER.match(after)
        # a negation of the reaching, not of the fee after it ("just over the free-shipping line, so
        # no delivery fee")
        denied = _NEGATION.search(sentence, max(0, named.start() - _DENIAL_REACH), named.start()) or (
            _CJK_NOT.match(sentence, named.end()) and CJK.search(sentence)
        )
        if bool(over) == bool(under) or denied:
            continue
        adding = list(_ADDING_TO_BASKET.finditer(sentence))
        if adding:
            added = adding[-1]
            # "수건 1장을 추가하시면 48,000원이라 무료배송 기준을 넘으세요": the basket is what it comes
            # to after the adding, if said; an amount said only with it is what is added
            before = before[added.end() :]
            if not _stated_amounts(before).get(currency):
                continue
        stated = _stated_amounts(before).get(currency, set()) - {threshold}
        basket = [amount for amount in stated if not _with_the_fee(amount, stated - {amount})]
        if basket and max(basket) == sum(basket) - max(basket):
            basket = [max(basket)]  # "25,000원 and 24,000원, so 49,000원": the total said with its terms
        if over and basket and sum(basket) < threshold:
            yield Commitment(Kind.CHARGE, granted=True, charged=Charged.SHIPPING)
        elif under and len(basket) == 1 and basket[0] >= threshold:
            over_it = frozenset({Condition.THRESHOLD})
            yield Commitment(Kind.CHARGE, granted=False, charged=Charged.SHIPPING, conditions=over_it)


_OVER_NAMED_BEFORE = re.compile(
    r"\b(?:over|above|past|reach(?:es|ed)?|meets?|met|qualif(?:y|ies|ied) for|clears?|hits?)\s+"
    r"(?:the |our |your )?(?:[\d,]+ ?won )?$",
    re.IGNORECASE,
)
_UNDER_NAMED_BEFORE = re.compile(
    r"\b(?:under|below|(?:short|shy) of)\s+(?:the |our |your )?(?:[\d,]+ ?won )?$", re.IGNORECASE
)
_OVER_NAMED_AFTER = re.compile(
    r"\s*(?:을|를|에|은|는)?\s*(?:넘|충족|채우|채웠|달성|도달|해당|이상)|(?:を|に)(?:超え|満た[しす]|達し|クリア|上回)"
)
_UNDER_NAMED_AFTER = re.compile(
    r"\s*(?:에|이|가|을|를)?\s*(?:못\s*미치|못\s*미쳐|미치지\s*(?:못|않)|미달|안\s*(?:되|돼)|모자라|부족)|(?:に)?(?:届か|満たな|達しな|足りな|未満)"
)
"""The free-shipping threshold said reached or not: "over the free-shipping threshold", "무료배송
기준을 넘어요", "送料無料ラインに届きません"."""
_ADDING_TO_BASKET = any_of(
    r"\b(?:add(?:ing|ed|s)?|plus)\b",
    r"더하|더해|추가하|추가해|담으|담아",
    r"足す|足せ|足して|追加す|追加して|加え",
)
"""Something added to the basket: an amount said before it is not yet what reaches the threshold."""


def _clauses(
    text: str, after: str = ""
) -> Iterator[tuple[str, Charged | None, frozenset[Condition], frozenset[Condition]]]:
    """Each clause of `text` with what its sentence or the one before charges for, the conditions
    it inherits and those its whole sentence puts."""
    subject: Charged | None = None
    inherited: frozenset[Condition] = frozenset()
    situation: frozenset[Condition] = frozenset()
    context = _sentences(after)
    for index, sentence in enumerate([*context, *_sentences(text)]):
        # A sentence naming nothing charged for goes on about the one before: "If it is defective,
        # return shipping is free. You pay nothing." keeps both the object and the condition.
        stated = _conditions(sentence)
        # "…返品できます。お客様都合の場合は往復送料…": the return's shipping
        own = _the_policys(_charged(sentence), subject, stated)
        if own is not None:
            # One stating no condition of its own is said in the situation the sentences before
            # told of ("別の商品が届いてしまったとのこと、申し訳ございません。返送料は..."), and one
            # that goes on with "also" in that of the one before ("不良品の交換に手数料はかかりません。
            # 返送料も無料です。").
            carried: frozenset[Condition] = frozenset()
            if not stated:
                # and one going on about the same thing in the situation of the one before ("불량 상품
                # 교환은 무료예요. 교환 배송비를 내실 필요 없습니다.")
                same = inherited & _SITUATIONS if own == subject else frozenset()
                carried = situation | (inherited if _ALSO.search(sentence) else same)
            subject, inherited = own, carried
        # a sentence naming its own situation is not said in another the one before named:
        # "不良品の場合、返品送料はかかりません。お客様都合の場合のみ往復6,000ウォンかかります。"
        kept = inherited - (_EXCLUSIVE - stated) if stated & _EXCLUSIVE else inherited
        clauses = _CLAUSE.split(sentence)
        # "We don't offer corporate discounts; the only discount is 5% off for Gold members": the
        # members are the only discount's, not the one denied
        exclusive = [clause for clause in clauses if _ONLY.search(clause) and _conditions(clause)]
        for clause in clauses:
            for piece in _by_situation(clause):
                if piece.strip() and index >= len(context):
                    own_case = _conditions(piece) & _EXCLUSIVE
                    apart = stated - (_EXCLUSIVE - own_case) if len(own_case) == 1 else stated
                    if exclusive and clause not in exclusive and not _conditions(piece):
                        apart = frozenset()
                    yield piece, subject, kept, apart
        if own is not None:
            inherited = stated | inherited
        else:
            situation, inherited = (stated & _SITUATIONS) or situation, frozenset()


_ONLY = any_of(r"\bonly\b", r"만\s?(?:있|해당|적용|가능|드려|받으)", r"のみ|だけ")
"""A clause saying what alone is granted: "the only discount is 5% off for Gold members"."""


def _by_situation(clause: str) -> list[str]:
    """`clause` cut before each part (between commas, "and", "-고") that names one of the two
    situations after another part named the other: "お客様都合の場合は往復送料6,000ウォンをご負担
    いただき、不良品の場合は送料無料です" grants the free shipping to defective items only. A part
    naming both ("불량이든 단순 변심이든") cuts nothing."""
    spans = _parts(clause)
    cases = [_conditions(clause[start:end]) & _EXCLUSIVE for start, end in spans]
    if len({case for case in cases if len(case) == 1}) < 2:
        return [clause]
    cuts = [start for (start, _), case in zip(spans, cases, strict=True) if len(case) == 1][1:]
    return [clause[start:end] for start, end in zip([0, *cuts], [*cuts, len(clause)], strict=True)]


_SITUATIONS = frozenset({Condition.DEFECTIVE, Condition.CHANGE_OF_MIND, Condition.BEFORE_DISPATCH})
"""The customer's case, which a later sentence is said in; a grant's condition ("골드 회원이시면 ...
할인돼서 60,800원이에요") is not carried to the next one ("배송비는 무료예요")."""
_ALSO = any_of(r"\b(?:also|too|as well)\b", r"(?<=[가-힣])도(?=\s)", r"(?<=[ぁ-んァ-ヶ一-龯])も")
"""A sentence going on in the same case as the one before: "Return shipping is free too",
"返送料も無料です", "반품 배송비도 무료예요"."""


def _stated_amounts(clause: str) -> dict[str, set[Decimal]]:
    """Every amount `clause` states, by currency."""
    return money_in(need for claim in claims(clause) for need in claim.needs)


def _amounts(clause: str) -> dict[str, Decimal]:
    """The largest amount of each currency `clause` states."""
    return {currency: max(values) for currency, values in _stated_amounts(clause).items()}


def thresholds_of(sources: str) -> dict[Charged, tuple[str, Decimal]]:
    """The amounts the sources waive each charge from: the largest amount a clause granting "no
    charge over an amount" states, the lowest such clause per object."""
    found: dict[Charged, tuple[str, Decimal]] = {}
    for clause, subject, inherited, around in _clauses(sources):
        for commitment in _read(clause, subject, inherited, around):
            over = commitment.kind is Kind.CHARGE and commitment.granted
            if not over or commitment.charged is None or Condition.THRESHOLD not in commitment.conditions:
                continue
            for currency, amount in _amounts(clause).items():
                known = found.get(commitment.charged)
                if known is None or (known[0] == currency and amount < known[1]):
                    found[commitment.charged] = (currency, amount)
    return found


def _against_threshold(
    commitment: Commitment,
    clause: str,
    thresholds: Thresholds,
    previous: str = "",
    earlier: str = "",
    following: str = "",
) -> Commitment:
    """`commitment` with the threshold condition when `clause` shows it over the FAQ's amount for
    what it charges for: a waiver with an amount at or over it ("51,000원이라 배송비가 무료"), or a
    charge beside an order's amount at or over it ("ちょうど50,000ウォンの場合は、送料3,000ウォンがかかり
    ます" charges where the FAQ waives)."""
    charged = commitment.charged
    if commitment.kind is not Kind.CHARGE or charged is None or charged not in thresholds:
        return commitment
    currency, threshold = thresholds[charged]
    basket = _the_basket(clause) if commitment.granted else None
    own = clause if basket is None else basket  # the waiver of this basket, not the policy's
    waiver = _NO_CHARGE.search(own) or _SOME_CHARGE.search(own)
    # "5만 원 이상이면 추가 배송비까지 무료": the surcharge's waiver has no threshold; "89,000원 냄비라
    # 제주로 보내도 배송비가 붙지 않아요": nor a remote area's, whatever the policy said before it ("5만
    # 원 이상 무료배송이라서 ... 제주도로 보내도")
    if commitment.granted and (_SURCHARGE_TOO.search(own) or (waiver and _remote_waived(own, waiver))):
        if basket is None:
            return commitment
        return replace(commitment, conditions=commitment.conditions - {Condition.THRESHOLD})
    reaches = _REACHES.search(clause) if commitment.granted else None
    said = _stated_amounts(clause[: reaches.start()]).get(currency, set()) if reaches else set()
    if basket is not None:
        # "5만 원 이상이면 무료배송이라서 머그컵 두 개(18,000원)는 배송비가 무료예요": the basket is under it
        said = _stated_amounts(_surcharges_aside_masked(basket)).get(currency, set())
    if commitment.granted and not said and _ORDER_IS_OVER.search(clause):
        # "商品代金は45,000ウォンとなります。5万ウォン以上のご注文ですので、送料は無料": the order said
        # to be over the threshold is the one stated before
        said = _stated_amounts(previous).get(currency, set()) - {threshold}
    if said and max(said) < threshold:
        # "48,000 won, which puts you over our free-shipping threshold — no delivery charge": the
        # amount said to reach the threshold does not
        return replace(commitment, conditions=commitment.conditions - {Condition.THRESHOLD})
    if commitment.granted:
        over = _waived_over(clause, currency, threshold, previous, earlier, following)
    else:
        over = _charged_over(clause, currency, threshold) or _charged_flat(clause)
    if not over:
        return commitment
    return replace(commitment, conditions=commitment.conditions | {Condition.THRESHOLD})


_ORDER_IS_OVER = any_of(
    r"以上の(?:ご)?注文(?:です|でございます|となります|になります)(?:ので|から|ため)",
    r"이상\s?(?:주문|구매)(?:이라서|이라|이니까|이니|이므로|이어서|이시니|이시라)",
    r"\b(?:your order|your basket|it|that)(?:'s| is) (?:over|above|at least|more than)\b",
)
"""The customer's order said to be at or over an amount ("5万ウォン以上のご注文ですので"), not the
policy's orders over it ("5万ウォン以上のご注文は")."""
_REACHES = any_of(
    r"\b(?:puts|takes|gets|brings) you (?:over|above|past)\b|\bwhich is (?:over|above)\b",
    r"넘(?:어서|으셔서|으니까|으므로|으셨으니)",
    r"(?:超え|上回)(?:る|ます|ています)ので",
)
"""An amount said to reach the threshold: "48,000 won, which puts you over our free-shipping
threshold"."""


def _waived_over(
    clause: str, currency: str, threshold: Decimal, previous: str = "", earlier: str = "", following: str = ""
) -> bool:
    """One charge waived, with an amount at or over `threshold` in its condition ("51,000원이라
    배송비가 무료고, 제주도도 추가 요금 없이" waives a second thing the amount says nothing of), or,
    the clause stating none, an order's amount at or over it in the sentence before ("합친 64,000원
    ... 60,800원이에요! 배송비는 무료예요"), or an amount added to a basket said before it (`earlier`,
    the text before the clause) that together reach it, or an order's amount at or over it that the
    sentence after (`following`) says is what waives it; the threshold named by its waiver ("무료배송
    기준에 해당돼서") waives nothing."""
    clause = _THRESHOLD_NAMED.sub(lambda match: " " * len(match.group()), clause)
    clause = _NEARLY.sub(lambda match: " " * len(match.group()), clause)
    free = _NO_CHARGE.search(clause)
    if free is None:  # the charge denied: "89,000원이었던 냄비 주문에는 배송비가 따로 붙지 않았어요"
        charge = _SOME_CHARGE.search(clause)
        free = charge if charge and _negated_near(clause, charge) else None
    elif len(_NO_CHARGE.findall(clause)) != 1:
        # the policy's waiver given as the reason for this basket's: "Orders of 50,000 won and up ship
        # free, so your tablecloth plus teapot (64,000 won) won't have any shipping fee"
        basket = _the_basket(clause)
        return basket is not None and _waived_over(basket, currency, threshold, previous, earlier)
    if free is None:
        return False
    condition = _condition_of(clause, free, currency)
    if condition is None:
        if _EXTRA.search(clause) or _BELOW.search(previous):
            return False
        stated = _stated_amounts(previous).get(currency, set())
        orders = [amount for amount in stated if not _with_the_fee(amount, stated - {amount})]
        if not orders and _QUALIFIES.search(following) and not _BELOW.search(following):
            after = {
                amount
                for _, end, claim in located_claims(following)
                if not BOUND_AFTER.match(following, end)  # "5万ウォン以上の送料無料": the threshold
                for amount in money_in(claim.needs).get(currency, set())
            }
            orders = [amount for amount in after if not _with_the_fee(amount, after - {amount})]
        return max(orders, default=Decimal(0)) >= threshold
    if _BELOW.search(condition):
        return False
    if _AMOUNT_ADDED.search(condition):
        # "Your basket is 45,000 won ...; add another 5,000 won of items and shipping becomes free":
        # the amount added to the basket said before it
        stated = _stated_amounts(earlier).get(currency, set())
        baskets = [amount for amount in stated if not _with_the_fee(amount, stated - {amount})]
        return max(baskets, default=Decimal(0)) + _amounts(condition)[currency] >= threshold
    return _amounts(condition)[currency] >= threshold


_HENCE = any_of(
    r"\bso\b|\bwhich means\b|\btherefore\b",
    r"그래서|따라서|(?:니|으니)까|므로|라서|이라(?=\s)|여서",
    r"ので|から|ため",
)
"""What follows from what was said before it: the policy, then the customer's case."""


def _the_basket(clause: str) -> str | None:
    """The part of `clause` after the policy's waiver given as the reason ("so", "이라서") for a
    second one, this basket's: "5만 원 이상 무료배송이라서 | 테이블보와 찻주전자(64,000원)는 배송비가
    무료예요"."""
    waivers = list(_NO_CHARGE.finditer(clause))
    hence = len(waivers) == 2 and _HENCE.search(clause, waivers[0].end(), waivers[1].start())
    # the basket may be named before the "so": "ship free — your basket's at 41,000원, so no fee"
    return clause[waivers[0].end() :] if hence else None


_QUALIFIES = any_of(
    r"\bqualif(?:y|ies|ied)\b|\b(?:over|above|past|meets?|reach(?:es)?)\b[^.!?]{0,20}\b(?:threshold|minimum)",
    r"(?:기준|조건)\S{0,2}\s?(?:충족|해당|넘)|이상이(?:라서|어서|니까|므로)",
    r"(?:送料無料の)?対象|以上(?:ですので|のため|なので)",
)
"""An order's amount said to be what waives the fee: "which qualifies for free shipping"."""


_AMOUNT_ADDED = any_of(
    r"\badd(?:ing)? (?:another|more|an extra)\b|\banother [\d,]+|\b[\d,]+ (?:won )?more\b",
    r"더\s*(?:담|추가|주문|사|구매)",
    r"あと[\d,]+|さらに[\d,]+",
)
"""An amount said as what is added to the basket: "add another 5,000 won", "5,000원어치 더 담으시면"."""


_EXTRA = any_of(
    r"\bextra\b",
    r"additional",
    r"surcharge",
    r"추가(?!\s*(?:되|돼|됩))",
    r"追加(?!(?:され|いたし|となり))",
    r"離島",
    r"済州",
    r"제주",
    r"jeju",
)
"""A surcharge (remote islands) is charged whatever the order's amount; a fee "added" ("배송비 3,000원이
추가되어") is the fee itself."""


def _cancelled_late(sentence: str, cancellations: Sequence[tuple[int, int]]) -> bool:
    """Whether a cancellation in `sentence` is said of an order that has shipped: the state its part
    of the sentence names (the last before it, else the first after), else the nearest the sentence
    names ("発送前なら無料で、発送後は手数料でキャンセルできます"); never one named as what the
    customer gets instead ("취소 대신 반품으로")."""
    if _NOT_CANCELLED.search(sentence):
        return False
    shipped_spans = [(match.start(), match.end(), True) for match in _SHIPPED.finditer(sentence)]
    states = sorted(
        shipped_spans
        + [
            (m.start(), m.end(), False)
            for m in _CONDITION[Condition.BEFORE_DISPATCH].finditer(sentence)
            # "발송 전이든 후든" is after dispatch too, whatever its "before" says
            if not any(a <= m.start() and m.end() <= b for a, b, _ in shipped_spans)
        ]
    )
    for start, end in cancellations:
        first, last = next(((a, b) for a, b in _parts(sentence) if a <= start < b), (0, len(sentence)))
        in_part = [state for state in states if first <= state[0] and state[1] <= last]
        before = [state for state in in_part if state[1] <= start]
        if before:
            shipped = before[-1][2]
        elif in_part:
            shipped = in_part[0][2]
        elif states:
            shipped = min(
                states, key=lambda state: start - state[1] if state[1] <= start else state[0] - end
            )[2]
        else:
            shipped = False
        if shipped:
            return True
    return False


def _cancellations(clause: str, read: Sequence[Commitment]) -> list[Commitment]:
    """The permission to cancel before dispatch: granted where the clause waives the fee for it
    ("Order cancellation: free before dispatch"), refused where it says an order cannot be cancelled
    before it ships or once it is paid ("Once it's paid you can't cancel", "발송 전에도 취소는 안 돼요")."""
    before_dispatch = frozenset({Condition.BEFORE_DISPATCH})
    granted = [
        Commitment(Kind.CANCELLATION, granted=True, conditions=c.conditions)
        for c in read
        if c.kind is Kind.CHARGE
        and c.charged is Charged.CANCELLATION
        and c.granted
        and before_dispatch <= c.conditions
    ]
    if granted or not _cancellation_refused(clause):
        return granted
    return [Commitment(Kind.CANCELLATION, granted=False, conditions=before_dispatch)]


def _exchanges(clause: str) -> list[Commitment]:
    """The permission to swap an item for another size or colour: granted where the clause names
    one ("size/colour exchanges within 7 days"), refused where a part says it cannot be done, or
    that exchanges are for defective items only ("we can't swap sizes or colours", "교환은 불량일
    때만 가능해요"); a refusal with its reason (used, past the window, out of stock) stands."""
    change_of_mind = frozenset({Condition.CHANGE_OF_MIND})
    for refusal in _EXCHANGE_REFUSED.finditer(clause):
        first, last = _segment(clause, refusal.start())
        before = clause[max(first, refusal.start() - _SIZE_REACH) : refusal.start()]
        # English names what is refused after the verb ("We can't exchange it for a different
        # product, only for another size" refuses no size); Korean and Japanese before it
        after = clause[refusal.end() : min(last, refusal.end() + 2 * _SIZE_REACH)]
        after = _BUT_ONLY.split(after)[0] if refusal.group().isascii() else ""
        named = _SIZE_OR_COLOUR.search(before) or _SIZE_OR_COLOUR.search(after)
        if named and not _EXCHANGE_REFUSED_FOR.search(clause):
            return [Commitment(Kind.SIZE_EXCHANGE, granted=False, conditions=change_of_mind)]
    only = _DEFECTIVE_ONLY.search(clause)
    around = clause[slice(*_segment(clause, only.start()))] if only else ""
    if _EXCHANGE_WORD.search(around) and not _A_FEE.search(around):  # not "no fee only if defective"
        return [Commitment(Kind.SIZE_EXCHANGE, granted=False, conditions=change_of_mind)]
    if _EXCHANGE_WORD.search(clause) and _SIZE_OR_COLOUR.search(clause):
        return [Commitment(Kind.SIZE_EXCHANGE, granted=True, conditions=change_of_mind)]
    return []


_EXCHANGE_WORD = any_of(r"\bexchang|\bswap", r"교환", r"交換")
_SIZE_REACH = 16
"""Characters before a refusal (twice as many after an English one) where the size or colour refused
is named: "사이즈 교환은 안 돼요", "can't exchange items for a different size"."""
_BUT_ONLY = re.compile(r"\b(?:only|but)\b", re.IGNORECASE)
_SIZE_OR_COLOUR = any_of(
    r"\bsizes?\b|\bcolou?rs?\b|\bchange of mind\b|\bchanged? (?:your|my) mind\b",
    r"사이즈|색상|컬러|색깔|단순\s?변심",
    r"サイズ|カラー|色|お客様(?:の)?都合|ご都合",
)
"""What a size or colour exchange is named by: "swap sizes", "색상 교환", "サイズ交換", a change of mind."""
_EXCHANGE_REFUSED = any_of(
    r"\b(?:can't|cannot|can not|unable to|won't be able to|not able to|don't|do not)\s+(?:\w+\s+){0,2}"
    r"(?:exchange|swap)|\b(?:exchanges?|swaps?)\b[^.!?]{0,30}\b(?:aren't|are not|isn't|is not|not)\s+"
    r"(?:possible|allowed|accepted|available|offered)",
    r"교환(?:은|이|도|을|는)?\s*(?:불가|안\s*(?:되|돼|됩)|어렵|(?:해\s*드릴|하실|할)\s*수\s*(?:없|는\s*없|가\s*없)"
    r"|못\s*해)",
    r"交換(?:は|が|も|を)?(?:でき(?:ません|ない|かねます)|いたしかねます|(?:承|うけたまわ)りかねます|不可"
    r"|お受けでき(?:ません|ない)|(?:お)?受け付けておりません|対応(?:して)?おりません)",
)
"""An exchange refused: "we can't swap", "교환은 어려워요", "交換はできません"."""
_DEFECTIVE_ONLY = any_of(
    r"\bonly\b[^.!?]{0,40}\b(?:defective|faulty|damaged)\b|\b(?:defective|faulty|damaged)\b[^.!?]{0,12}\bonly\b",
    r"불량[가-힣\s]{0,8}(?:만|뿐)",
    r"(?:不良|初期不良)[^。]{0,10}(?:のみ|に限)",
)
"""Exchanges said to be for defective items only: "exchanges are only for defective products"."""
_EXCHANGE_REFUSED_FOR = any_of(
    r"\b(?:used|washed|worn|past|more than|over \d|after \d|out of stock|sold out|expired|one size)\b"
    r"|\bonly (?:comes?|available) in\b",
    r"사용|세탁|지나|지난|넘|품절|재고|한\s?가지|단일\s?(?:사이즈|색상)|원\s?사이즈",
    r"使用|洗濯|過ぎ|経過|超え|品切れ|在庫切れ|欠品|一種類|ワンサイズ|のみの(?:展開|取り扱い)",
)
"""A reason that makes a refusal true: the item used, the window past, the size out of stock."""
_A_FEE = any_of(
    r"\b(?:fee|shipping|free|cost|charge)",
    r"비용|배송비|택배비|무료|수수료|요금",
    r"送料|無料|手数料|料金|費用",
)


def _cancellation_refused(clause: str) -> bool:
    """Whether a part of `clause` refuses a cancellation at a time the shop allows one: before
    dispatch, or once the order is paid or placed, with no shipped state named in that part."""
    for refusal in _CANCEL_REFUSED.finditer(clause):
        first, last = _segment(clause, refusal.start())
        part = clause[first:last]
        if _SHIPPED.search(part) or RECEIVED.search(part):  # refused in truth
            continue
        if _CONDITION[Condition.BEFORE_DISPATCH].search(part) or _PAID_TIME.search(part):
            return True
    return False


_CANCEL_REFUSED = any_of(
    r"\b(?:can't|cannot|can not|unable to|won't be able to|not (?:able|possible) to)\s+(?:be\s+)?cancel"
    r"|\bcancell?(?:ations?|ing)?\b[^.!?]{0,20}\b(?:isn't|is not|aren't|are not|not)\s+"
    r"(?:possible|allowed|accepted|available)|\bno cancell?ations?\b",
    r"취소(?:는|가|도|를)?\s*(?:불가|안\s*(?:되|돼|됩)|어렵|못\s*해|할\s*수\s*(?:없|가\s*없))"
    r"|취소\s*(?:하실|할)\s*수\s*(?:없|는\s*없)",
    r"キャンセル(?:は|が|も)?(?:でき(?:ません|ない)|いたしかねます|(?:承|うけたまわ)りかねます|不可|お受けでき)",
)
"""A cancellation refused: "you can't cancel", "취소는 안 돼요", "キャンセルはできません"."""
_PAID_TIME = any_of(
    r"\b(?:once|after|when) (?:it(?:'s| is| has been)|you(?:'ve| have)"
    r"|(?:the|your|an) order(?:'s| is| has been)?)\s+(?:been\s+)?(?:paid|placed|ordered|confirmed)\b"
    r"|\b(?:once|after) (?:payment|paying|ordering|checkout)\b",
    r"(?:결제|주문|입금)\s*(?:후|이후|하신\s*(?:후|뒤|다음)|하시면|하면|된\s*(?:후|뒤|이후)|완료\s*(?:후|되면|된))",
    r"(?:お支払い|ご注文|注文|決済|ご入金)(?:の)?(?:後|完了後|確定後|された後|いただいた後)",
)
"""An order's time named by its payment or its placing: "once it's paid", "결제 후", "お支払い後"."""


def _other_waivers(sentence: str, first: re.Match[str], charged: Charged) -> list[Commitment]:
    """A second thing waived in a part of its own ("Shipping is free over 50,000 won, and wrapping is
    free too"), in the sentence's situation but not on its amount: wrapping, free whatever it is."""
    found = []
    for waiver in _NO_CHARGE.finditer(sentence, first.end()):
        part = _part_around(sentence, waiver)
        other = _charged(part)
        if other is None or other is charged or other is Charged.SHIPPING:
            continue
        denied = _NEGATION.search(_NO_CHARGE.sub(" ", _without_conditions(part)))
        # the sentence's situation holds for it ("Defective items: ..."), its amount does not
        conditions = _conditions(part) | (_conditions(sentence) - {Condition.THRESHOLD})
        found.append(Commitment(Kind.CHARGE, granted=not denied, charged=other, conditions=conditions))
    return found


_MAINLAND = any_of(
    r"\b(?:seoul|busan|incheon|daegu|daejeon|gwangju|ulsan|sejong|gyeonggi|(?:the )?mainland)\b",
    r"서울|부산|인천|대구|대전|광주|울산|세종|경기|수도권|육지|본토",
    r"ソウル|釜山|仁川|大邱|大田|光州|蔚山|本土",
)
"""Places no remote-area surcharge is charged to."""
_REMOTE_AREA = any_of(r"\bjeju\b|\bislands?\b|\bremote\b", r"제주|도서\s*산간|섬(?!유)", r"済州|離島|島")


def _no_surcharge_there(part: str, sentence: str) -> bool:
    """The surcharge said not to be charged to a place it is not charged to: "서울은 추가 배송비도
    없어요", "東京…" is not, a remote area named is not ("제주도 추가 배송비 없어요")."""
    return bool(
        _EXTRA.search(part)
        and _MAINLAND.search(sentence)
        and not _REMOTE_AREA.search(sentence)
        and not _BEYOND.search(sentence)
    )


def _charged_elsewhere(sentence: str, free: re.Match[str] | None) -> bool:
    """The surcharge said charged to a remote area in one piece of `sentence` and not to the places
    it is not charged to in the waiver's: "Jeju has a 3,000 won surcharge, mainland orders have no
    extra charge"."""
    if free is None:
        return False
    pieces = [(match.start(), match.end()) for match in _PIECE.finditer(sentence)]
    own = next(((a, b) for a, b in pieces if a <= free.start() < b), None)
    if own is None or not _no_surcharge_there(sentence[own[0] : own[1]], sentence[own[0] : own[1]]):
        return False
    others = [(a, b) for a, b in pieces if (a, b) != own]
    return any(_REMOTE_AREA.search(sentence, a, b) and _stated_amounts(sentence[a:b]) for a, b in others)


_PER_EACH = any_of(
    r"\b(?:per|for each|on each) (?:item|product|piece)\b",
    r"(?:상품|제품|물건|품목|개)\s*(?:마다|당|별로)",
    r"(?:商品|品物|品)(?:ごと|ひとつひとつ)|1点(?:ごと|につき)|別々に",
)
"""A charge denied per item is a basis denied, not the charge: "배송비는 상품마다 따로 붙지 않고 주문당
3,000원이에요"."""


def _basis_denied(text: str, charge: re.Match[str]) -> bool:
    """A charge denied per item, not waived: a basis named beside it and no word of a waiver in it
    ("isn't charged per item", "상품마다 따로 붙지 않고"; "free for each item" waives)."""
    return bool(
        _PER_EACH.search(text, max(0, charge.start() - NEGATION_REACH), charge.end() + NEGATION_REACH)
        and not _FREE_WORD.search(charge.group())
    )


_FREE_WORD = any_of(r"\bfree\b", r"무료|공짜|무상", r"無料|タダ|無償")
_PIECE = re.compile(r"(?:,(?=\d)|[^,，、;；])+")
"""The pieces of a sentence between commas, the commas of "3,000" aside."""


_BEYOND = any_of(r"\b(?:outside|other than|beyond|except)\b", r"(?:이|)외|밖", r"以外|除")
"""Places beside the one named ("서울 외 지역도 추가 배송비 없어요" says it of the islands too)."""


def _remote_waived(text: str, waiver: re.Match[str]) -> bool:
    """The waiver at `waiver` is said of the surcharge or of a remote area, named before it in its own
    part of `text` ("제주도는 5만 원 이상이면 추가 배송비가 붙지 않아요"), not of the places beside one
    ("제주 외 지역은"); a surcharge named after it is charged ("shipping is free and only the 3,000 won
    surcharge applies")."""
    start, end = _segment(text, waiver.start())
    part = text[start : waiver.start()]
    return bool(
        (_REMOTE_AREA.search(part) or _SURCHARGE_WORD.search(part))
        and not _BEYOND.search(part)
        and not _MAINLAND.search(part)
        and not BASE_FEE.search(text, start, end)  # "済州島でも…基本送料は無料です": the base fee's
    )


BASE_FEE = any_of(r"\b(?:base|basic|standard|regular|usual|normal)\b", r"기본|일반|평소", r"基本|通常")
"""The base fee named, as opposed to the surcharge: "기본 배송비", "基本送料", "the base fee"."""


_SURCHARGE_WORD = any_of(
    r"\bsurcharge|\bextra (?:fee|charge|shipping)",
    rf"추가\s*(?:{PARCEL_FEE_KO}|요금|비용)|추가금",
    rf"追加(?:の)?(?:{PARCEL_FEE_JA}|料金)",
)


def _surcharge_waived(sentence: str) -> bool:
    """A second waiver in `sentence`, of a surcharge, in a part of its own without a threshold; or
    the surcharge waived with the fee ("추가 배송비까지 전부 무료", "even the Jeju surcharge")."""
    # "妹様のご注文も送料無料です（済州島・離島は3,000ウォン追加）" charges the surcharge
    sentence = _surcharges_aside_masked(sentence)
    waivers = list(_NO_CHARGE.finditer(sentence))
    if _no_surcharge_there(sentence, sentence):
        return False
    if waivers and _SURCHARGE_TOO.search(sentence):
        return True
    return len(waivers) > 1 and any(
        _EXTRA.search(part) and not _conditions(part) & {Condition.THRESHOLD}
        for part in (_part_around(sentence, waiver) for waiver in waivers[1:])
    )


_SURCHARGE_TOO = any_of(
    # "제주도 5만 원 이상이면" names the island: its "도" is no "too" ("제주도도")
    r"(?:추가\s*(?:배송비|요금|비용)|추가금|도서\s*산간|제주도|제주(?!도\s))\s*(?:까지|도)\s",
    rf"(?:追加(?:の)?(?:{PARCEL_FEE_JA}|料金)|離島|済州(?:島)?)(?:の(?:追加)?(?:{PARCEL_FEE_JA}|料金))?(?:まで|も)",
    r"\beven the (?:\w+ )?(?:surcharge|extra)",
    r"\b(?:surcharge|extra (?:fee|charge|shipping))\b[^.!?]{0,20}\b(?:too|as well)\b",
    r"\b(?:jeju|islands?|remote areas?)\b[^.!?]{0,25}\bincluded\b",
    r"\beven (?:to|for|on) (?:the )?(?:jeju|islands?|remote areas?)\b",
    r"\b(?:jeju|islands?|remote areas?)\b[^.!?,;]{0,25}\b(?:also free|free(?: \w+){0,2},? (?:too|as well))\b",
    r"\bno (?:extra |island |remote[- ]area )?surcharge",
)
"""The remote-area surcharge waived along with the fee, in the fee's own part of the sentence."""


_FREE_DENIED = re.compile(
    r"(?:배송|택배|반품|교환|配送|返品|交換)?"
    r"(?:\s*(?:되지|하지|가|이|는|은|로)?\s*(?:않|안\s*되|아니|아닙)|(?:では|じゃ|に)?(?:なりません|ありません|ならない|ない|なく))"
)
"""A waiver word denied right after it: "면제되지 않고", "무료가 아니라", "무료배송이 아니라",
"無料ではありません", "無料ではなく"."""


_ADDED_ON = re.compile(r"원(?:이|씩)?\s*붙(?:어|는|고|으니|으면)")
"""A fee put on an order: "주문 금액이 6만 원이면 배송비 3,000원이 붙어요"."""


def _charged_over(clause: str, currency: str, threshold: Decimal) -> bool:
    """A charge beside an order's amount at or over `threshold`; a surcharge is not such a charge, and
    a total with the fee in it is no order's amount ("48,000 won, so with the 3,000 won shipping fee
    51,000 won")."""
    if _BELOW.search(clause) or _EXTRA.search(clause):
        return False
    if _SOME_CHARGE.search(clause) is None and _ADDED_ON.search(clause) is None:
        return False
    stated = _stated_amounts(clause).get(currency, set())
    totals = {
        amount
        for start, _, claim in located_claims(clause)
        if _FEE_ADDED.search(clause, 0, start)
        for amount in money_in(claim.needs).get(currency, set())
    }
    orders = [
        amount for amount in stated if amount not in totals and not _with_the_fee(amount, stated - {amount})
    ]
    return len(stated) >= 2 and max(orders, default=Decimal(0)) >= threshold


def _charged_flat(clause: str) -> bool:
    """A fee said to be charged whatever the order comes to ("送料は一律3,000ウォン", "3,000 won
    regardless of the amount", "금액과 상관없이 배송비 3,000원"): charged over the threshold too; not a
    surcharge, which is."""
    return bool(_FLAT.search(clause)) and not (
        _BELOW.search(clause) or _EXTRA.search(clause) or _REMOTE_AREA.search(clause)
    )


_FLAT = any_of(
    r"\bregardless of (?:the |your )?(?:order |basket )?(?:amount|total|size|value)"
    r"|\bno matter (?:how much|what (?:you|the order))",
    r"무조건|(?:주문\s*)?금액(?:과|에)?\s*(?:상관|관계)\s*없이",
    r"一律|(?:ご注文)?金額に(?:かかわらず|関わらず|関係なく)",
)
"""Whatever the order comes to: "一律", "금액과 상관없이"; not "a flat 3,000 won per order", which
says what it is counted per."""


_FEE_ADDED = any_of(
    rf"(?:{PARCEL_FEE_KO})\s*[\d,]+\s*원(?:을|이)?\s*(?:더해|더하면|더한|포함(?:해|하면|하여|해서)"
    r"|붙어서|붙으면|붙으니까?|추가돼서|추가되면)(?:서)?\s*(?:총\s*|합계\s*|모두\s*)?$",
    rf"(?:{PARCEL_FEE_JA})[\d,]+ウォン(?:を|が)?(?:加え|足し|含め|プラス|かかり|加算され)(?:て|ると|れば)?[、,]?"
    r"\s*(?:合計|全部で)?\s*$",
    r"\b(?:with|plus|including|adding) (?:the )?(?:[\d,]+ ?won |₩[\d,]+ )?(?:shipping|delivery)(?: fee)?,?"
    r"\s*(?:that'?s|it'?s|comes to|makes|is|you pay|you'?ll pay)?\s*$",
)
"""The amount after it is a total with the fee in it: "배송비 3,000원을 더해 5만 1천 원을 결제하시게"."""


def _with_the_fee(amount: Decimal, others: set[Decimal]) -> bool:
    """Whether `amount` is the sum of two or three of `others` with the least of them, the fee, in it:
    "51,000원에 배송비 3,000원, 총 54,000원" is a total, "39,000원과 12,000원, 51,000원" a basket."""
    fee = min(others, default=None)
    return any(
        fee in terms and sum(terms) == amount
        for size in (2, 3)
        for terms in itertools.combinations(others, size)
    )


def _condition_of(clause: str, free: re.Match[str], currency: str) -> str | None:
    """The part of `clause` that says what is free and from what amount: the waiver's own part when
    it states one, else the nearest part before it that does ("5만 원 이상이면 무료이고, 그 미만은 3천
    원": the second part is the other side of the threshold; "under 50,000원, shipping is free" is
    said of the amount before it). None when no part up to the waiver states an amount."""
    # a remote area's surcharge in brackets after the waiver is no amount it is waived from: "送料無料です
    # （済州島・離島は3,000ウォン追加）"
    clause = clause[: free.end()] + _surcharges_aside_masked(clause[free.end() :])
    parts = _parts(clause)
    holding = max(i for i, (start, _) in enumerate(parts) if start <= free.start())
    for start, end in reversed(parts[: holding + 1]):
        # the fee waived is no amount of the condition: "so you won't pay the 3,000 won shipping fee"
        if currency in _amounts(_THE_FEE_ITSELF.sub(lambda fee: " " * len(fee.group()), clause[start:end])):
            return clause[start : parts[holding][1]]
    return None


_REMOTE_ASIDE = re.compile(
    r"[(（][^()（）]*(?:"
    + _REMOTE_AREA.pattern
    + r")[^()（）]*(?:"
    + _EXTRA.pattern
    + r"|"
    + _SURCHARGE_WORD.pattern
    + r")[^()（）]*[)）]",
    re.IGNORECASE,
)
"""A remote area and its surcharge in brackets: "（済州島・離島は3,000ウォン追加）", "(Jeju +3,000 won
surcharge)"."""


def _surcharges_aside_masked(text: str) -> str:
    """`text` with the remote areas' surcharges said in brackets blanked, unless waived there
    ("(제주도 추가 배송비도 무료)"): an aside charging them is neither a waiver's amount nor a waiver."""

    def masked(aside: re.Match[str]) -> str:
        said = aside.group()
        return said if _FREE_WORD.search(said) or _NO_CHARGE.search(said) else " " * len(said)

    return _REMOTE_ASIDE.sub(masked, text)


_THE_FEE_ITSELF = any_of(
    r"\bthe [\d,]+ ?won (?:shipping |delivery )?(?:fee|charge)\b"
    r"|\bthe (?:shipping |delivery )?fee of [\d,]+ ?won\b",
    rf"(?:{PARCEL_FEE_KO})\s*[\d,]+\s*원",
    r"送料[\d,]+ウォン",
)
"""The fee named with its amount: "the 3,000 won shipping fee", "배송비 3,000원"."""


_PART = re.compile(r"[,、，](?!\d)\s*|\s+and\s+|(?<=[가-힣])(?<![출재창광참])고\s+", re.IGNORECASE)
"""Parts end at a comma, "and", a verb's "-고" (not the 고 of 출고, 재고, 창고: "출고 전이었다면")."""


def _parts(sentence: str) -> list[tuple[int, int]]:
    """The spans of the parts of `sentence` between commas, "and" and "-고"."""
    spans: list[tuple[int, int]] = []
    start = 0
    for part in _PART.finditer(sentence):
        spans.append((start, part.start()))
        start = part.end()
    spans.append((start, len(sentence)))
    return spans


def _part_around(sentence: str, match: re.Match[str]) -> str:
    """The part of `sentence` (between commas, "and", "-고") that holds `match`."""
    for start, end in _parts(sentence):
        if start <= match.start() < end:
            return sentence[start:end]
    return sentence


def _charged_near(sentence: str, match: re.Match[str]) -> Charged | None:
    """What the part of `sentence` around `match` charges for ("shipping is free, and wrapping adds
    2,000원": shipping), else what the sentence does; the shipping of a return or an exchange the
    sentence is about is that one's ("不良品の交換の場合も、往復送料6,000ウォンがかかります"), unless
    an order's amount makes it the order's ("반품은 7일 이내, 배송비는 5만 원 이상 무료")."""
    whole = _charged(sentence)
    own = _charged(_part_around(sentence, match))
    if own is Charged.WRAPPING:
        # wrapping and shipping each their own fee: the one named last before it ("선물 포장 하시면
        # 배송비는 안 붙어요" is the shipping's)
        own = _named_last(sentence[: match.start()], (Charged.WRAPPING, Charged.SHIPPING)) or own
    return _the_policys(own, whole, _conditions(sentence)) or whole


def _named_last(text: str, kinds: tuple[Charged, ...]) -> Charged | None:
    """Which of `kinds` `text` names last."""
    ends = {
        what: max((found.end() for found in pattern.finditer(text)), default=-1)
        for what, pattern in _CHARGED
        if what in kinds
    }
    last = max(ends, key=lambda what: ends[what])
    return last if ends[last] >= 0 else None


def _the_policys(
    charged: Charged | None, subject: Charged | None, conditions: frozenset[Condition]
) -> Charged | None:
    """Shipping named where a return or an exchange is the subject is that one's shipping, unless an
    order's amount makes it the order's ("5만 원 이상이면 배송비 무료")."""
    if charged is Charged.SHIPPING and subject in (Charged.RETURN, Charged.EXCHANGE):
        return subject if Condition.THRESHOLD not in conditions else charged
    return charged


def _without_conditions(text: str) -> str:
    for _, pattern in _CONDITIONS:
        text = pattern.sub(" ", text)
    return text


def _conditions(text: str) -> frozenset[Condition]:
    found = frozenset(condition for condition, pattern in _CONDITIONS if pattern.search(text))
    if Condition.MEMBER in found and _ANY_MEMBER.search(text):
        return found - {Condition.MEMBER}  # "모든 회원님께 5% 할인": said of every member, no tier
    if Condition.MEMBER in found and not _CONDITION[Condition.MEMBER].search(_masked(text, _NOT_A_MEMBER)):
        # "골드 회원이 아니시면 할인은 적용되지 않아요" denies the discount to others, as the FAQ does
        return found - {Condition.MEMBER}
    return found


_ANY_MEMBER = any_of(
    r"\b(?:all|every|any)(?: of)?(?: our| the)? members?\b|\b(?:regular|basic|standard|normal) members?\b",
    r"(?:모든|전체|전)\s*회원|회원(?:님)?\s*(?:누구나|모두|전원|다)\b|일반\s*회원",
    r"(?:全て|すべて|全)の?会員|会員(?:の)?(?:皆様|みなさま)?(?:全員|どなたでも|誰でも)|一般会員",
)
"""Members said without a tier: a grant of the members of one ("Gold members get 5% off") said of
them all."""
_NOT_A_MEMBER = any_of(
    r"\b(?:not|isn't|aren't|non)[- ](?:yet )?(?:a |an |one of our )?(?:gold |vip )?members?\b"
    r"|\bnon-?members?\b",
    r"(?:골드\s*|VIP\s*)?(?:회원|멤버)(?:님)?(?:이|은|는|가)?\s*아니|비회원",
    r"(?:ゴールド|VIP)?(?:会員|メンバー)(?:様)?(?:では|じゃ|で)(?:ない|なく|ございません|ありません)|非会員",
)
"""Somebody said not to be a member: a sentence on them is no members' case."""


def _charged(text: str) -> Charged | None:
    return next((what for what, pattern in _CHARGED if pattern.search(text)), None)


def _read(
    sentence: str,
    subject: Charged | None,
    inherited: frozenset[Condition],
    around: frozenset[Condition] = frozenset(),
) -> list[Commitment]:
    """`sentence`: one clause; `around`: the conditions its whole sentence puts ("Damaged on arrival:
    report it; we send a replacement or refund" grants the refund for damaged items)."""
    for pattern in (
        _APOLOGY,
        _PERMISSION,
        _NOT_THAT_NOT,
        _RULELESS,
        _NOT_A_GRANT,
        _DONE_ON_A_WEEKEND,
        _ARRIVES_ON_A_WEEKEND,
        _THEIR_WEEKEND,
    ):
        sentence = _masked(sentence, pattern)
    # "11月28日（土曜日）にお支払い" names the day a thing happened; "open this Saturday, 5 December" opens
    if _HAPPENED_THEN.search(sentence):
        sentence = _masked(sentence, _A_DATES_WEEKDAY)
    conditions = _conditions(sentence)
    said = conditions | around  # what is granted or denied outright, as opposed to charged for
    if _BELOW.search(sentence):  # "under 50,000원" is the other side of "over 50,000원"
        conditions -= {Condition.THRESHOLD}
        inherited -= {Condition.THRESHOLD}
        said -= {Condition.THRESHOLD}
    # a denial is said in the customer's case the sentences before told of: "파손된 상품은 ... 교환해
    # 드립니다. 환불은 불가합니다" denies the refund the FAQ gives for damaged items
    denied_under = frozenset() if _EXCEPT.search(sentence) else said | (inherited & _SITUATIONS)
    found: list[Commitment] = []
    spans: dict[Kind, list[tuple[int, int]]] = {}
    rest = sentence
    for kind, pattern in _KINDS:
        # an action taken is read whole, whatever else its words say: "We've refunded the 25,000 won"
        # is a refund the bot says it made, not only a refund
        matches = [match.span() for match in pattern.finditer(sentence if kind is Kind.DONE else rest)]
        run_out = _days_run_out(rest) if kind is Kind.EXCEPTION else []
        matches += run_out
        if not matches:
            continue
        # "no return needed" states the refund's terms, not a denial of it: read apart from the rest
        spans[kind] = matches
        rest = _masked(rest, pattern)
        for start, end in run_out:
            rest = rest[:start] + _MASK * (end - start) + rest[end:]
        found.append(Commitment(kind, granted=True, conditions=said))
    rest = _masked(rest, _NOT_A_MEMBER)  # "골드 회원이 아니셔도 쿠폰은 받으실 수 있어요" grants the coupon
    for _, pattern in _CONDITIONS:
        rest = _masked(rest, pattern)  # "as long as it hasn't shipped" denies nothing
    rest = _masked(rest, _NOT_A_DENIAL)
    for index, commitment in enumerate(found):
        if commitment.kind not in _ALWAYS_GRANTED:
            # Denied only where every mention is: "쿠폰이나 별도 할인은 없고, 골드 회원님께만 5% 할인이
            # 적용됩니다" grants the members' discount after denying any other.
            read = _masked(rest, _FEE_DENIED) if commitment.kind is Kind.LATE_CANCELLATION else rest
            denied = all(_denied_at(read, start, end) for start, end in spans[commitment.kind])
            if commitment.kind is Kind.WEEKEND_OPENING:
                # "Weekends and public holidays we're closed": closing denies the days it names
                denied = denied or all(_closed_in(rest, start) for start, _ in spans[commitment.kind])
                # "공휴일에도 쉬지 않고 문의 받고 있어요": the closing denied opens
                denied = denied and not any(
                    _NOT_CLOSED.search(rest, *_segment(rest, start)) for start, _ in spans[commitment.kind]
                )
            found[index] = Commitment(
                commitment.kind, not denied, conditions=denied_under if denied else said
            )
    if _ONCE_BACK.search(sentence):  # "refunded right away once it reaches us" waits for the return
        found = [c for c in found if c.kind is not Kind.REFUND_NOW]
    if not _cancelled_late(sentence, spans.get(Kind.LATE_CANCELLATION, [])):
        found = [c for c in found if c.kind is not Kind.LATE_CANCELLATION]  # a cancellation, in time
    if not _KIND[Kind.REFUND].search(sentence):  # "we accept cash and bank transfer" refunds nothing
        found = [c for c in found if c.kind not in (Kind.CASH_REFUND, Kind.REFUND_ELSEWHERE, Kind.REFUND_NOW)]
    kinds = {c.kind for c in found}
    stronger = {
        Kind.FULL_REFUND,
        Kind.REFUND_WITHOUT_RETURN,
        Kind.FEE_REFUND,
        Kind.CASH_REFUND,
        Kind.REFUND_ELSEWHERE,
        Kind.REFUND_NOW,
        Kind.REFUND_SAME_DAY,
    }
    if kinds & stronger:
        found = [c for c in found if c.kind is not Kind.REFUND]  # the stronger claim says it all
    if _both(sentence, found):
        found.append(Commitment(Kind.REFUND_AND_REPLACEMENT, granted=True, conditions=said))
    free = _NO_CHARGE.search(sentence)
    charge = _SOME_CHARGE.search(sentence) or (None if free else _FEE_IS.search(sentence))
    unconditioned = _without_conditions(sentence)  # "as long as it hasn't shipped" denies nothing
    said_at = free or charge
    if said_at is not None:
        # a part of a sentence on returns: "…、不良品の場合は送料無料です"
        own = _the_policys(_charged_near(sentence, said_at), subject, conditions)
        charged = own or subject or Charged.OTHER
        # a negation denies the waiver in its own part only: "Sorry it isn't what you expected - we'll
        # take care of the return shipping" waives it
        part = _without_conditions(sentence[slice(*_segment(sentence, free.start()))]) if free else ""
        granting = _FEE_DENIED.sub(" ", _NO_MINIMUM.sub(" ", _NO_CHARGE.sub(" ", part)))
        # nor the threshold's other side: "5만 원에 못 미쳐도 배송비는 무료예요" waives
        granting = _masked(granting, _BELOW)
        no_charge = bool(free) and not (_NEGATION.search(granting) and not charge)
        if free and charge and _FREE_DENIED.match(sentence, free.end()):
            no_charge = False  # "면제되지 않고 그대로 부과돼요": the waiver denied, the charge stands
        bare_charge = _SOME_CHARGE.search(unconditioned)
        # not the threshold's other side: "5만 원이 안 돼서 배송비가 붙어요" charges
        if (
            bare_charge
            and not free
            and _negated_near(_masked(unconditioned, _BELOW), bare_charge)
            and not _basis_denied(unconditioned, bare_charge)
        ):
            no_charge = True  # "isn't charged", "we don't charge anything", "부과되지 않습니다"
        if free and no_charge and _basis_denied(sentence, free):
            no_charge = False  # "送料は商品ごとにはかからず、1回のご注文につき3,000ウォン"
        if own is None or not conditions:
            conditions |= inherited
        if not no_charge and _EXTRA.search(sentence):
            # "50,000원 이상 무료예요. 제주·도서산간 지역은 3,000원이 추가됩니다": a surcharge, charged
            # whatever the amount the sentence before waived the fee from
            conditions -= {Condition.THRESHOLD}
        if not (
            no_charge
            and (_no_surcharge_there(part or unconditioned, sentence) or _charged_elsewhere(sentence, free))
        ):
            found.append(Commitment(Kind.CHARGE, granted=no_charge, charged=charged, conditions=conditions))
        waived_at = free or bare_charge
        if (
            no_charge
            and Condition.THRESHOLD in conditions
            and waived_at is not None
            and _remote_waived(unconditioned if not free else sentence, waived_at)
        ):
            # "제주도는 5만 원 이상이면 추가 배송비가 붙지 않아요": the surcharge is charged whatever
            # the amount
            found.append(replace(found[-1], conditions=conditions - {Condition.THRESHOLD}))
        elif no_charge and Condition.THRESHOLD in conditions and _surcharge_waived(sentence):
            # "Orders of 50,000원 or more ship free, and Jeju costs nothing extra": the amount is the
            # condition of one waiver; the surcharge is charged whatever the amount
            found.append(replace(found[-1], conditions=conditions - {Condition.THRESHOLD}))
        if free:
            found.extend(_other_waivers(sentence, free, charged))
    if _WHETHER.search(sentence):
        found = [
            replace(c, conditions=c.conditions - (_EXCLUSIVE - {situation}))
            for c in found
            for situation in (
                sorted(c.conditions & _EXCLUSIVE) if c.granted and c.conditions >= _EXCLUSIVE else [None]
            )
        ]
    priced = any(c.kind in (Kind.CHARGE, Kind.DISCOUNT) for c in found)
    if Kind.DONE in spans and priced and _only_applied(sentence, spans[Kind.DONE]):
        found = [c for c in found if c.kind is not Kind.DONE]
    return found


_APPLIED = any_of(
    r"적용\s*(?:되었|됐|돼\s*있|되어\s*있)",
    r"\b(?:has|have|had|was|were|is|are) (?:been )?(?:automatically )?applied",
    r"適用(?:されました|されています|済み)",
)
"""A price applied by the shop's rules; one the bot applied ("I've applied the Gold discount",
"적용해 드렸어요", "適用いたしました") is an action taken, whatever the price."""


def _only_applied(sentence: str, done: Sequence[tuple[int, int]]) -> bool:
    """Every action the clause reports is a price applied ("배송비는 무료로 적용됐어요"): it restates
    the waiver or discount it applies, which is read and checked on its own; a refund "applied" is
    still an action taken."""
    applied = {at for match in _APPLIED.finditer(sentence) for at in range(*match.span())}
    return all(start in applied for start, _ in done)


_REPLACEMENT = any_of(
    r"replacement",
    r"replace (?:it|them|the)",
    r"(?:a |send (?:you )?(?:a )?)new (?:one|item|\w+)",
    r"교환품",
    r"대체품",
    r"새\s*(?:상품|제품|것|물건)",
    r"代わり(?:の)?(?:商品|品)",
    r"交換品",
    r"代替品",
    r"新しい(?:もの|商品|品)",
    r"新品",
)
_EITHER = any_of(
    r"\bor\b",
    r"\beither\b",
    r"\bchoice\b",
    r"\bchoose\b",
    r"또는",
    r"혹은",
    r"(?:이|)나\s",
    r"거나",
    r"(?:실|을|를|할|일|릴|드릴|받을)지(?:는|를)?\s",
    r"고르",
    r"골라",
    r"중에서",
    r"중\s*(?:원하시는|선택|편하신|고르)",
    r"중\s*(?:하나|선택)",
    r"선택",
    r"または",
    r"もしくは",
    r"あるいは",
    r"か(?:、|を|の)",
    r"どちらか",
    r"お選び",
    r"選択",
)


def _both(sentence: str, found: Sequence[Commitment]) -> bool:
    """A refund granted together with a replacement, with no "or" between them."""
    refund = any(
        c.granted and c.kind in (Kind.REFUND, Kind.FULL_REFUND, Kind.CASH_REFUND, Kind.REFUND_ELSEWHERE)
        for c in found
    )
    return refund and bool(_REPLACEMENT.search(sentence)) and not _EITHER.search(sentence)


NEGATION_AFTER = 16
"""In English a negation denies what follows it ("we don't refund") or what it closely follows
("refunds aren't possible"), not a commitment made before another verb's negation ("a full refund
to your account, and you don't need to send it back"); Korean and Japanese put it at the end."""


_IF_DONE = re.compile(
    r"(?<=[가-힣])(?<!아니)면\s|(?<!なけ)れば|(?<!ない)(?:なら|場合は|場合には)|(?<!なかっ)たら"
)
"""The end of a condition in Korean or Japanese: a negation before it is the condition's ("사용 안
하셨으면 ... 반품 도와드릴게요" grants the return). "불량이 아니면" is left whole: its negation
names the other situation, which the conditions read."""


def _denies(segment: str, start: int, end: int) -> bool:
    if CJK.search(segment):
        after = max((match.end() for match in _IF_DONE.finditer(segment, 0, start)), default=0)
        return _NEGATION.search(segment, after) is not None
    return bool(_NEGATION.search(segment[:start]) or _NEGATION.search(segment[end : end + NEGATION_AFTER]))


NEGATION_REACH = 12
"""Characters either side of a charge word where a negation turns it into "no charge"."""
_TURN = re.compile(
    r",?\s+(?:so|but|and then|however|though|yet)\s+|\s+[—–]\s+|\s*(?:그래서|하지만|그런데)\s*"
    r"|,\s+(?=(?:we|I|you|so|then)\b)|\s+-\s+"
    r"|(?<=[가-힣])(?:지만|는데|니까|으니|므로),?\s|(?<=[가-힣]고),\s*|(?<=[가-힣]고요),\s*|(?:けど|けれど|ですが|(?<=ません)が|ので|から)(?:[(（][^)）]{0,6}[)）])?、"
    r"|(?<=[^でじ]なく)、",
    re.IGNORECASE,
)
"""Where a sentence turns to another thought: a negation on one side denies nothing on the other
("no rules for me, so ... a full refund"), while a list keeps it ("no discounts, coupons or ...").
A Korean clause ending in "-고," or "-고요," is one thought done ("쿠폰은 없고, 골드 회원님께 5%
할인"), and so is a Japanese one ending in "なく、" ("クーポン等もなく、割引はゴールド会員様の割引のみ"),
not "ではなく、" (not X but Y)."""


def _denied_at(text: str, start: int, end: int) -> bool:
    """Whether the part of `text` between two turns around `text[start:end]` denies it."""
    first, last = _segment(text, start)
    return _denies(text[first:last], start - first, end - first)


def _segment(text: str, at: int) -> tuple[int, int]:
    """The span of the part of `text` around position `at` between two turns."""
    start, end = 0, len(text)
    for turn in _TURN.finditer(text):
        if turn.end() <= at:
            start = turn.end()
        elif turn.start() >= at:
            end = turn.start()
            break
    return start, end


def _closed_in(text: str, at: int) -> bool:
    """A closing word in the part of `text` around `at`, the word the part ends in read whole: "주말엔
    쉬니까" ends its part at the turn "니까", inside the word "쉬니까"."""
    start, end = _segment(text, at)
    if hence := _HENCE_TURN.match(text, end):  # "Christmas is a public holiday, so it's closed that day"
        end = _segment(text, hence.end())[1]
    word_end = _REST_OF_WORD.match(text, end)
    return bool(_CLOSED.search(text, start, word_end.end() if word_end else end))


_HENCE_TURN = re.compile(r",?\s+so\s+|(?:ので|から)、", re.IGNORECASE)
"""A turn to what follows from the part before: a day said to be a holiday, so closed."""


_REST_OF_WORD = re.compile(r"\S*")


_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_A_DATES_WEEKDAY = any_of(
    r"(?<=[日일])\s*[(（]\s*(?:[^)）]{0,12}[・,、]\s*)?[月火水木金土日월화수목금토일](?:曜日?|요일)?\s*[)）]",
    r"(?<=[日일])\s*[・,、]?\s*(?:[月火水木金土日]曜日|[월화수목금토일]요일)",
    rf"\b(?:satur|sun)day,?\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}",
    rf"\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\(?(?:satur|sun)day\)?",
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTHS}\s+\(?(?:satur|sun)day\)?",
)
"""A date's weekday written beside it ("11月28日（土曜日）にお支払い", "Saturday 28 November"), in a
sentence on what happened (`_HAPPENED_THEN`): the day a thing happened, not a day the shop opens
(`EventCheck.weekdays_misstated` reads it against the calendar)."""
_HAPPENED_THEN = any_of(
    r"\b(?:was|were|paid|ordered|placed|shipped|dispatched|delivered|arrived|received|bought)\b",
    r"(?:었|았|였|됐|했)",
    r"(?:ました|済み|された|でした|いただき)",
)
"""A sentence on what happened."""


_WEEKEND_DAYS = r"(?:weekends?|saturdays?|sundays?|(?:public )?holidays?)"
_ON_A_WORKING_DAY = (
    r"(?=[^.!?。！？]*?(?:monday|weekday|business day|working day|월요일|평일|영업일|月曜|平日|営業日))"
)
_ARRIVES_ON_A_WEEKEND = any_of(
    r"\b(?:arriv\w*|deliver\w*|reach(?:es)? you|get it|have it)\s+"
    rf"(?:on\s+)?(?:this\s+|next\s+)?{_WEEKEND_DAYS}",
    r"(?:토요일|일요일|주말)(?:에|쯤|께)?\s*(?:도착|받아|받으|배송\s*완료|배달)",
    r"(?:土曜|日曜|週末)(?:日)?(?:に|頃|ごろ)?(?:お届け|到着|届|配達)",
)
"""A parcel arriving on a weekend, which is the carrier's day, not a day the shop opens."""
_THEIR_WEEKEND = any_of(
    r"\b(?:your|their|his|her|the) (?:\w+'s )?weekend (?:move|moving|plans?|trip|party|visit|gathering"
    r"|getaway|event|wedding|picnic)\b",
    r"주말\s?(?:이사|여행|파티|모임|나들이|행사|캠핑|결혼식|집들이)",
    r"(?:週末|土日)の(?:引っ越し|旅行|パーティー|集まり|お出かけ|イベント|結婚式)",
)
"""The customer's own weekend ("your sister's weekend move", "주말 집들이"): no day the shop opens."""
_DONE_ON_A_WEEKEND = any_of(
    *(
        done + _ON_A_WORKING_DAY
        for done in (
            r"\b(?:orders?|payments?|messages?|questions?|enquir(?:y|ies)|inquir(?:y|ies)|emails?|calls?)\s+"
            r"(?:placed|paid|made|sent|received|left|that (?:come|arrive)s?)\s+"
            rf"(?:on|over|during)\s+(?:a |the )?{_WEEKEND_DAYS}",
            rf"\b(?:placed|paid|sent|received|left)\s+(?:on|over|during)\s+(?:a |the )?{_WEEKEND_DAYS}",
            rf"\b(?:ordered|placed|paid for|bought|purchased)\s+(?:it|them|your order|the \w+)?\s*(?:on\s+)?"
            rf"(?:last|this|that)\s+{_WEEKEND_DAYS}",
            r"(?:주말|공휴일|토요일|일요일)(?:이나\s*공휴일|·공휴일)?(?:에|중에)?\s*"
            r"(?:주신|남기신|보내신|하신|들어온|접수된|받은|결제(?:하신|한|된|\s*건)?|주문(?:하신|한|된|\s*건)?)",
            r"(?:土曜|日曜|土日|週末|祝日|休日)(?:日)?(?:・祝日)?(?:に|の|中に)?"
            r"(?:いただいた|頂いた|届いた|お送りいただいた|お寄せいただいた|受け付けた"
            r"|ご注文|注文|お支払い|決済|お問い合わせ|ご連絡)",
        )
    )
)
"""A thing done or sent on a weekend and dealt with on a working day, not a day the shop opens:
"土曜日にいただいたお問い合わせは月曜日に対応", "주말 결제 건은 평일에 출고", "orders placed on a Saturday
ship on Monday"."""


_MASK = "\x00"


def _days_run_out(sentence: str) -> list[tuple[int, int]]:
    """Where `sentence` says a window's length has run out, the thing it grants granted all the same:
    "7일이 지났어도", "一週間を過ぎても", "even if it's been more than seven days" (the length as
    `fact_claims` reads it)."""
    if not (_RUN_OUT_AFTER.search(sentence) or _EVEN_IF.search(sentence)):
        return []
    spans = []
    for start, end, claim in located_claims(sentence):
        if not any(reading_kind(need) in _WINDOW_LENGTHS for need in claim.needs):
            continue
        if after := _RUN_OUT_AFTER.match(sentence, end):
            spans.append((start, after.end()))
        elif before := _RUN_OUT_BEFORE.search(sentence, max(0, start - 80), start):
            spans.append((before.start(), end))
    return spans


def _masked(text: str, pattern: re.Pattern[str]) -> str:
    """`text` with `pattern`'s matches blanked out, every other character where it was."""
    return pattern.sub(lambda match: _MASK * len(match.group()), text)


def _negated_near(sentence: str, match: re.Match[str]) -> bool:
    # up to the match's end: "안 붙어요" is denied by an "안" that needs the word after it
    before = sentence[max(0, match.start() - NEGATION_REACH) : match.end()]
    after = sentence[match.end() : match.end() + NEGATION_REACH]
    return bool(_NEGATION.search(before) or _NEGATION.search(after))


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _read_sources(sources: str) -> tuple[tuple[Commitment, ...], Thresholds]:
    """The same FAQ text is read reply after reply: once (kept read-only, shared by every guard)."""
    return tuple(commitments(sources)), MappingProxyType(thresholds_of(sources))


class CommitmentGuard:
    """The commitments the shop's own text makes; `unsupported` names a reply's others."""

    def __init__(self, sources: str) -> None:
        self._offers, self._thresholds = _read_sources(sources)

    def free_from(self, charged: Charged) -> tuple[str, Decimal] | None:
        """The amount (currency, amount) the shop's text waives `charged` from, if any."""
        return self._thresholds.get(charged)

    def unsupported(self, reply: str, *, before: str = "") -> list[Commitment]:
        found = commitments(reply, after=before, thresholds=self._thresholds)
        return [claim for claim in found if not claim.supported_by(self._offers)]
