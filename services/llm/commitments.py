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

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    REFUND = "refund"
    FULL_REFUND = "full refund"
    REFUND_WITHOUT_RETURN = "refund without a return"
    CASH_REFUND = "cash refund"
    DISCOUNT = "discount"
    COUPON = "coupon or credit"
    PRICE_MATCH = "price match"
    CHARGE = "charge"
    CALLBACK = "call-back"
    COMPENSATION = "compensation"
    EXCEPTION = "exception"
    FEE_REFUND = "refund of a fee"
    DONE = "action taken"
    """Something the bot cannot have done: "your refund has been approved"."""
    POLICY_CHANGE = "policy change"
    USED_RETURN = "return of a used item"
    NO_DEADLINE = "no time limit"
    WEEKEND_OPENING = "open on weekends or holidays"


class Condition(StrEnum):
    DEFECTIVE = "defective or wrong item"
    MEMBER = "members"
    THRESHOLD = "over an amount"
    BEFORE_DISPATCH = "before dispatch"
    CHANGE_OF_MIND = "change of mind"


class Charged(StrEnum):
    SHIPPING = "shipping"
    RETURN = "return"
    EXCHANGE = "exchange"
    CANCELLATION = "cancellation"
    WRAPPING = "wrapping"
    OTHER = "other"


def _any(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


# ---------------------------------------------------------------- what is committed to
_KINDS: list[tuple[Kind, re.Pattern[str]]] = [
    (
        Kind.REFUND_WITHOUT_RETURN,
        _any(
            r"without (?:a |any )?(?:return|sending it back)",
            r"without (?:sending|shipping|returning|mailing|posting)\b",
            r"no (?:need to )?return",
            r"no need to (?:send|ship|mail|post|give) (?:it|them|the \w+|anything) back",
            r"(?:you can |just )?keep (?:it|them)\b(?! (?:in|unused|clean|safe|until|for))",
            r"no return (?:is )?(?:needed|necessary|required)",
            r"keep the (?!(?:original|box|receipt|packaging|tags?|labels?|invoice|parcel)\b)\w+"
            r"(?! (?:in|unused|clean|safe|until|for))",
            r"(?:그냥|그대로)\s*(?:가지|갖|쓰|사용하)",
            r"가지(?:셔도|시고|세요)",
            r"반품\s*(?:없이|안\s*하셔도|하지\s*않으셔도|하지\s*않아도|불필요|필요\s*없)",
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
        _any(
            r"full refund",
            r"refund(?:ed)?[^.!?]{0,30}in full",
            r"(?:all|every (?:penny|cent|won)) (?:of )?(?:your|the) (?:money|payment)",
            r"100 ?%",
            r"전액",
            r"(?:전부|모두|다)\s*돌려\s*(?:드리|드릴|드립)",
            r"全額",
        ),
    ),
    (Kind.CASH_REFUND, _any(r"\bcash\b", r"현금", r"現金")),
    (
        Kind.FEE_REFUND,
        _any(
            r"refund (?:you )?(?:your |the )?(?:shipping|delivery|return)",
            r"(?:배송비|택배비|반품비)[^.!?]{0,12}(?:환불|돌려\s*드리)",
            r"(?:送料|配送料)[^。！？]{0,12}(?:返金|お返し)",
        ),
    ),
    (
        Kind.REFUND,
        _any(
            r"refund",
            r"money back",
            r"환불",
            r"(?:금액|돈|대금|결제\S*)\s*(?:을|를|은|는)?\s*(?:\S+\s*)?돌려\s*(?:드리|드릴|드립)",
            r"返金",
            r"払い?戻",
            r"(?:代金|お金|ご購入額)(?:を|は)?(?:全て|すべて)?(?:お返し|返し)",
            r"credit(?:ed)? (?:it |the (?:amount|money) )?(?:back )?to your",
            r"환급",
            r"입금해?\s*(?:드리|드릴|드립)",
            r"(?:お振込|振り込|振込)(?:み)?(?:いたします|します|させていただきます)",
        ),
    ),
    (
        Kind.PRICE_MATCH,
        _any(
            r"price[- ]match",
            r"match (?:any|the|a|their|that|this|its|your) (?:\w+ )?price",
            r"lower price",
            r"(?:refund|pay|return|give|credit)(?: you)? (?:the|a) (?:price )?difference",
            r"price difference",
            r"차액",
            r"差額",
            r"최저가",
            r"가격\s*(?:을\s*)?맞춰",
            r"価格(?:を)?合わせ",
            r"最安値",
        ),
    ),
    (
        Kind.COUPON,
        _any(
            r"coupon",
            r"voucher",
            r"store credit",
            r"gift card",
            r"\bpoints?\b",
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
        Kind.DISCOUNT,
        _any(
            r"discount",
            r"half[- ]price",
            r"special price",
            r"반값",
            r"깎아",
            r"특가",
            r"半額",
            r"値下げ",
            r"特価",
            r"% off",
            r"percent off",
            r"\boff (?:your|the|every)",
            r"할인",
            r"割引",
            r"値引",
            r"オフ",
        ),
    ),
    (
        Kind.CALLBACK,
        _any(
            r"(?:call|phone|ring|contact|text) you",
            r"call (?:you )?back",
            r"get back to you",
            r"reach out to you",
            r"(?:전화|연락)\s*(?:을|를)?\s*(?:드리|드릴|드립|해\s*드리)",
            r"(?:お電話|ご連絡)(?:を)?(?:いたします|致します|差し上げ|いたしま|します)",
            r"折り返し",
            r"(?:e-?mail|message) you\b",
            r"(?:someone|a (?:member of our )?(?:team|colleague|manager|person)|our (?:team|manager)) will "
            r"(?:contact|call|reach|phone|e-?mail|get in touch)",
            r"담당자(?:가|께서)?\s*(?:곧|바로|직접)?\s*(?:연락|전화)",
            r"(?:担当(?:者)?|スタッフ)(?:から|より)(?:ご)?(?:連絡|電話)",
            r"(?<!ご)連絡(?:いたします|します|させていただきます|差し上げます)",
        ),
    ),
    (
        Kind.COMPENSATION,
        _any(
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
            r"\bfreebie",
            r"throw (?:in|it in)",
            r"\bbonus\b",
            r"complimentary",
            r"as a (?:small )?gift from us",
            r"(?:무료\s*)?사은품",
            r"덤으로",
            r"서비스로\s*(?:드리|드릴|넣어|챙겨|보내)",
            r"おまけ",
            r"サービス(?:として|いたします|しちゃ|で(?:お付け|お入れ|差し上げ|付け))",
            r"プレゼント(?:いたします|しちゃ|します(?!か))",
        ),
    ),
    (
        Kind.EXCEPTION,
        _any(
            r"exception",
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
        ),
    ),
    (
        Kind.DONE,
        _any(
            r"(?:has|have|'ve) been "
            r"(?:approved|processed|issued|applied|waived|arranged|refunded|credited|granted)",
            r"\b(?:is|are) (?:now )?approved",
            r"\bapprove\b",
            r"승인해\s*(?:드리|드릴|드립)",
            r"承認(?:いたします|します)",
            r"\bI(?:'ve| have) (?:approved|processed|issued|applied|waived|arranged|refunded|credited)",
            r"\bwe(?:'ve| have) (?:approved|processed|issued|applied|waived|arranged|refunded|credited)",
            r"(?:환불|승인|적용|보상|면제|지급)\s*(?:처리)?\s*(?:해\s*드렸|해드렸|되었|됐|했습니다|하였습니다|완료)",
            r"(?:承認|処理|適用|手配|返金)(?:いたしました|しました|されました|済み|が完了)",
            r"(?:빼|면제해|없애|차감해|깎아)\s*(?:드렸|드렸어|놨|두었)",
            r"승인(?:이|은)?\s*(?:완료|났|나서|되었|됐)",
            r"approval (?:is |has been |was )?(?:complete|done|granted|given)",
            r"(?:have|'ve|has) (?:taken|knocked) (?:it |that |the [\w ]{1,20})?off",
            r"承認(?:が|は)?(?:完了|済|下り)",
        ),
    ),
    (
        Kind.USED_RETURN,
        _any(
            r"\bused (?:items?|products?|towels?|goods)",
            r"even (?:if|though) (?:it|you) (?:was |were |have )?used",
            r"after (?:using|use)",
            r"(?<!미)사용(?:한|하신|했|하던|감|흔적|\s*후)",
            r"(?<!未)使用(?:済|後|した|された|して)",
        ),
    ),
    (
        Kind.NO_DEADLINE,
        _any(
            r"no (?:time )?limit",
            r"return (?:it )?(?:at )?any ?time",
            r"(?:기한|기간)[^.!?]{0,6}(?:없|제한\s*없)",
            r"언제든(?:지)?\s*반품",
            r"期限(?:は|が)?(?:ございません|ありません|なし|無し)",
            r"いつでも返品",
        ),
    ),
    (
        Kind.WEEKEND_OPENING,
        _any(
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
        Kind.POLICY_CHANGE,
        _any(
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
            r"(?:반품|교환|환불)\s*기간(?:을|이)?\s*(?:연장|늘려|늘어)",
            r"(?:規定|ポリシー|ルール)(?:が)?(?:変わ|変更)",
            r"(?:返品|交換|返金)?(?:の)?期間(?:を|が)?延長",
            r"기간(?:을|이)?\s*(?:연장|늘어났|늘렸)",
            r"\b(?:has been|have been|is now|was) extended\b",
        ),
    ),
]

_NO_CHARGE = _any(
    r"\bfree\b",
    r"무상",
    r"無償",
    r"비용\s*없이",
    r"お代(?:は)?(?:結構|いただきません|頂きません)",
    r"costs? (?:you )?nothing",
    r"nothing to pay",
    r"(?:is|are|'s) on us",
    r"\bwe(?:'ll| will)? (?:cover|pay for|take care of|absorb)",
    r"(?-i:\b(?!(?:You|Customers?|Buyers?|Members?|They)\b)[A-Z][a-z]+(?: [A-Z][a-z]+)?) "
    r"(?:will |'ll |can )?(?:cover|pay for)\b",
    r"\b(?:the|our) (?:shop|store|company|team) (?:will |can )?(?:cover|pay for)\b",
    r"(?:내지|지불하지|결제하지|부담하지)\s*않(?:으셔도|아도)",
    r"안\s*내(?:셔도|도)",
    r"(?:따로|별도로?)?\s*(?:내실|지불하실|결제하실)\s*필요(?:는|가)?\s*없",
    r"(?:저희|당사|본사|쇼핑몰)\s*(?:가|에서|측에서)?\s*(?:\S+\s*)?부담",
    r"(?:当店|弊社|私ども)(?:が|で)?(?:\S{0,6})?負担",
    r"free of charge",
    r"공짜",
    r"タダ",
    r"ただで",
    r"no (?:extra |additional |exchange |return |shipping )?(?:fee|charge|cost)s?",
    r"(?:fee|charge|cost)s? (?:is|are) waived",
    r"waive",
    r"at no (?:extra )?cost",
    r"(?:don't|do not|won't|will not|doesn't|does not) (?:have to |need to )?(?:pay|be charged)",
    r"무료",
    r"면제",
    r"(?:비용|수수료|배송비|요금)\s*(?:은|는|이|가)?\s*(?:없|들지\s*않|안\s*들|부과되지\s*않|받지\s*않)",
    r"부담(?:하실|하지)?\s*(?:필요|않|없)",
    r"無料",
    r"免除",
    r"(?:手数料|送料|料金|費用)[^。！？]{0,16}?(?:かかりません|不要|いただきません|頂きません|発生しません|無し|なし)",
    r"(?:負担|お支払い)(?:いただく必要は|は)?(?:ございません|ありません|不要)",
)
_SOME_CHARGE = _any(
    r"\bfees?\b",
    r"\b(?:a|an|the) (?:\w+ )?charge\b",
    r"\bcharged?\b",
    r"\bpays?\b",
    r"\bcosts?\b",
    r"\bat your (?:own )?expense",
    r"(?:you|customer)(?:'ll| will)? (?:cover|bear)(?! (?:it|the) (?:cost )?for you)",
    r"수수료",
    r"부과",
    r"유료",
    r"부담",
    r"청구",
    r"들어요|듭니다|드는|붙습니다",
    r"手数料",
    r"有料",
    r"負担",
    r"かかります|かかる|頂戴|いただきます|申し受け",
    r"ご請求",
)
_CHARGED: list[tuple[Charged, re.Pattern[str]]] = [
    (
        Charged.RETURN,
        _any(
            r"return",
            r"send(?:ing)? (?:(?:it|them|the \w+|an? \w+) )?back",
            r"반품",
            r"돌려\s*보내",
            r"返品",
            r"返送",
            r"送り返",
        ),
    ),
    (Charged.EXCHANGE, _any(r"exchang", r"교환", r"交換")),
    (Charged.CANCELLATION, _any(r"cancel", r"취소", r"キャンセル", r"取り?消")),
    (Charged.WRAPPING, _any(r"wrap", r"포장", r"ラッピング", r"包装")),
    (
        Charged.SHIPPING,
        _any(r"shipping", r"\bships?\b", r"delivery", r"postage", r"배송", r"택배", r"送料", r"配送"),
    ),
]

_CONDITIONS: list[tuple[Condition, re.Pattern[str]]] = [
    (
        Condition.DEFECTIVE,
        _any(
            r"defect",
            r"damaged",
            r"faulty",
            r"broken",
            r"wrong item",
            r"sent the wrong",
            r"誤った",
            r"(?:違う|別の)商品",
            r"our (?:mistake|error)",
            r"불량",
            r"파손",
            r"하자",
            r"오배송",
            r"저희\s*(?:쪽\s*)?실수",
            r"다른\s*상품",
            r"잘못\s*(?:보내|보낸|보냈|발송|배송|온|간|갔)",
            r"不良",
            r"破損",
            r"誤配",
            r"間違",
            r"初期不良",
        ),
    ),
    (
        Condition.MEMBER,
        _any(r"gold", r"member", r"골드", r"회원", r"멤버", r"ゴールド", r"会員", r"メンバー"),
    ),
    (
        Condition.THRESHOLD,
        _any(
            r"\bover\b",
            r"or more",
            r"above",
            r"at least",
            r"(?:once|when|if) (?:your |the )?(?:order|total|basket|cart)[^.!?]{0,20}"
            r"(?:reach|hit|exceed|come)",
            r"이상",
            r"넘",
            r"以上",
            r"超",
        ),
    ),
    (
        Condition.BEFORE_DISPATCH,
        _any(
            r"before (?:it'?s |it is |it |the order is |your order is )?"
            r"(?:ships?|shipped|shipping|dispatch(?:ed)?|sent)",
            r"(?:has ?n't|has not|have ?n't|not) (?:yet )?(?:been )?(?:shipped|dispatched|sent)",
            r"not (?:shipped|dispatched|sent) yet",
            r"발송\s*전",
            r"발송되기\s*전",
            r"아직\s*(?:발송|출고)",
            r"출고\s*전",
            r"発送前",
            r"まだ発送",
            r"発送(?:され)?る前",
        ),
    ),
    (
        Condition.CHANGE_OF_MIND,
        _any(r"change of mind", r"changed? (?:your|my) mind", r"변심", r"お客様都合", r"気が変わ"),
    ),
]

_NEGATION = _any(
    r"(?<!\bor )\b(?:no|not|never|cannot|can't|won't|isn't|aren't|don't|doesn't|unable|unfortunately)\b",
    r"n't\b",
    r"없",
    r"않",
    r"불가",
    r"(?<!잘)못",
    r"닫(?:습|아|는|혀|고)",
    r"안\s*(?:됩|돼|되)",
    r"어렵",
    r"아니",
    r"아닙",
    r"\bclosed\b",
    r"휴무",
    r"쉽니다|쉬어요|쉬는",
    r"休み",
    r"休業",
    r"定休",
    r"ません",
    r"ない",
    r"不可",
    r"できず",
    r"なし",
    r"かね",
    r"致しかね",
    r"お断り",
)


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
        """A grant needs a source granting it with no condition the reply leaves out; a denial (or a
        charge) stands unless a source grants what it denies under the conditions it names."""
        granted = any(
            (source.kind, source.charged) == (self.kind, self.charged)
            and source.granted
            and source.conditions <= self.conditions
            for source in sources
        )
        if self.granted:
            return granted
        # "no cash refunds" with no source saying so misleads nobody into a promise
        return self.kind is not Kind.CHARGE or not granted


_SENTENCE = re.compile(r"(?<=[.!?。！？])\s*|\n+|(?<=[다요죠])\s+(?=\S)")


def _sentences(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text)
    return [part.strip() for part in _SENTENCE.split(text) if part and part.strip()]


_CLAUSE = re.compile(r"[;；]")
_ALWAYS_GRANTED = frozenset({Kind.DONE, Kind.POLICY_CHANGE, Kind.NO_DEADLINE})
"""Never read as denials: their phrases carry their own negation ("no time limit"), or (an
action only staff can take) a refusal wrongly held back is the safer error than a promise let
through ("I cannot approve that" is read as an approval)."""


def commitments(text: str, *, after: str = "") -> list[Commitment]:
    """Every commitment the clauses of `text` make (a clause names what is charged for, or its
    sentence does: "Order cancellation: free before dispatch; after dispatch, return it").
    `after`: the text before it, read only for what a sentence of `text` goes on about."""
    found: list[Commitment] = []
    subject: Charged | None = None
    inherited: frozenset[Condition] = frozenset()
    context = _sentences(after)
    for index, sentence in enumerate([*context, *_sentences(text)]):
        # A sentence naming nothing charged for goes on about the one before: "If it is defective,
        # return shipping is free. You pay nothing." keeps both the object and the condition.
        own = _charged(sentence)
        if own is not None:
            subject, inherited = own, frozenset()
        for clause in _CLAUSE.split(sentence):
            if clause.strip() and index >= len(context):
                found.extend(_read(clause, subject, inherited))
        inherited = _conditions(sentence) if own is not None else frozenset()
    return found


def _without_conditions(text: str) -> str:
    for _, pattern in _CONDITIONS:
        text = pattern.sub(" ", text)
    return text


def _conditions(text: str) -> frozenset[Condition]:
    return frozenset(condition for condition, pattern in _CONDITIONS if pattern.search(text))


def _charged(text: str) -> Charged | None:
    return next((what for what, pattern in _CHARGED if pattern.search(text)), None)


def _read(sentence: str, subject: Charged | None, inherited: frozenset[Condition]) -> list[Commitment]:
    conditions = _conditions(sentence)
    found: list[Commitment] = []
    spans: dict[Kind, tuple[int, int]] = {}
    rest = sentence
    for kind, pattern in _KINDS:
        match = pattern.search(rest)
        if match is None:
            continue
        # "no return needed" states the refund's terms, not a denial of it: read apart from the rest
        spans[kind] = match.span()
        rest = _masked(rest, pattern)
        found.append(Commitment(kind, granted=True, conditions=conditions))
    for _, pattern in _CONDITIONS:
        rest = _masked(rest, pattern)  # "as long as it hasn't shipped" denies nothing
    for index, commitment in enumerate(found):
        if commitment.kind not in _ALWAYS_GRANTED:
            start, end = _segment(rest, spans[commitment.kind][0])
            denied = _NEGATION.search(rest[start:end]) is not None
            found[index] = Commitment(commitment.kind, not denied, conditions=conditions)
    kinds = {c.kind for c in found}
    if kinds & {Kind.FULL_REFUND, Kind.REFUND_WITHOUT_RETURN, Kind.FEE_REFUND, Kind.CASH_REFUND}:
        found = [c for c in found if c.kind is not Kind.REFUND]  # the stronger claim says it all
    free = _NO_CHARGE.search(sentence)
    charge = _SOME_CHARGE.search(sentence)
    unconditioned = _without_conditions(sentence)  # "as long as it hasn't shipped" denies nothing
    if free or charge:
        own = _charged(sentence)
        charged = own or subject or Charged.OTHER
        no_charge = bool(free) and not (_NEGATION.search(_NO_CHARGE.sub(" ", unconditioned)) and not charge)
        bare_charge = _SOME_CHARGE.search(unconditioned)
        if bare_charge and not free and _negated_near(unconditioned, bare_charge):
            no_charge = True  # "isn't charged", "we don't charge anything", "부과되지 않습니다"
        if own is None:
            conditions |= inherited
        found.append(Commitment(Kind.CHARGE, granted=no_charge, charged=charged, conditions=conditions))
    return found


NEGATION_REACH = 12
"""Characters either side of a charge word where a negation turns it into "no charge"."""
_TURN = re.compile(
    r",?\s+(?:so|but|and then|however|though|yet)\s+|\s+[—–]\s+|\s*(?:그래서|하지만|그런데)\s*"
    r"|(?<=[가-힣])(?:지만|는데|니까)\s|(?:けど|けれど|ですが|ので|から)、",
    re.IGNORECASE,
)
"""Where a sentence turns to another thought: a negation on one side denies nothing on the other
("no rules for me, so ... a full refund"), while a list keeps it ("no discounts, coupons or ...")."""


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


_MASK = "\x00"


def _masked(text: str, pattern: re.Pattern[str]) -> str:
    """`text` with `pattern`'s matches blanked out, every other character where it was."""
    return pattern.sub(lambda match: _MASK * len(match.group()), text)


def _negated_near(sentence: str, match: re.Match[str]) -> bool:
    before = sentence[max(0, match.start() - NEGATION_REACH) : match.start()]
    after = sentence[match.end() : match.end() + NEGATION_REACH]
    return bool(_NEGATION.search(before) or _NEGATION.search(after))


class CommitmentGuard:
    """The commitments the shop's own text makes; `unsupported` names a reply's others."""

    def __init__(self, sources: str) -> None:
        self._offers = commitments(sources)

    def unsupported(self, reply: str, *, before: str = "") -> list[Commitment]:
        return [claim for claim in commitments(reply, after=before) if not claim.supported_by(self._offers)]
