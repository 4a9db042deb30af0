"""The customer's own numbers, judged against the shop's: "6:15 p.m. works, we're open 10:00-18:30".

A number in a reply must be one the sources give (`fact_guard`), but a customer asking whether they
may call at a quarter past six, writing at twenty to one, or asking about a 45,000 won basket gets
their own number back, judged against the shop's: "지금이 12시 40분이라 점심시간(12시 반~1시 반)이에요",
"a 45,000 won order has a 3,000 won shipping fee". Such a number is supported when its sentence
judges it against a bound the sources support that the reply states:

- a time (or a range of times) inside a range of times the reply states ("open 10:00-18:30"), its
  sentence saying it works, is now or is when to call ("works", "지금", "大丈夫", "お掛けください");
- a time inside the lunch break the sources state, its sentence saying it is lunch ("1시쯤 전화
  주시면 점심시간이라", "12時45分ですとちょうどお昼休みの時間帯");
- a time (or a range) a sentence on calling says works or is within the hours, inside the service
  hours the sources state and not in their lunch break ("午後六時十五分でしたら、まだ受付時間内です",
  "13시 30분부터 18시 30분 사이에 다시 걸어주세요");
- a time before a cutoff the reply states ("paid by 2 p.m."), or the sources' where it states none,
  said as the customer's case ("1시에 결제하시면"), however it is read (3시 may be 15:00);
- a time after such a cutoff, said to miss it ("3시 결제는 당일 출고 대상이 아니에요");
- an amount said as an order's ("a 45,000 won order", "45,000원짜리 주문"), beside another amount of
  its currency, or said to be in the customer's basket ("4만 8천 원어치 담으셨으니"); what the reply
  then says of the order (a fee, a waiver) is the commitments' to check.

A shop's own number said wrong ("orders by 3 p.m. ship the same day", "orders of 45,000 won or
more ship free") is stated, not judged, and stays unsupported.
"""

from __future__ import annotations

import functools
import re

from services.llm.events import said_as_a_deadline
from services.llm.fact_claims import (
    BOUND_AFTER,
    CURRENCIES,
    SOURCES_KEPT,
    Claim,
    claims,
    located_claims,
    reading_kind,
)
from services.llm.subjects import sentences
from services.text.patterns import any_of

_JUDGED = any_of(
    r"\bnow\b|\bcurrently\b|\b(?:works|is (?:perfectly |totally |completely )?fine|is ok(?:ay)?|is within"
    r"|falls within)\b|\bthat'?s (?:fine|ok)",
    r"\bcall (?:us )?(?:between|at|after|before|from)\b",
    r"지금|현재|괜찮|(?:전화|걸어)\s*(?:주세요|주시면|하시면|주십시오)",
    r"今(?:は|が|、)|現在|大丈夫|問題(?:ありません|ございません|ない)|間に合|お掛けください|お電話ください",
)
_THE_CUSTOMERS_CASE = any_of(
    r"\bif you\b|\bwhen you\b|\b(?:paying|ordering|checking out|payment) (?:at|by|before|around)\b",
    r"\ban? \d{1,2}(?::\d\d)? ?(?:a\.?m\.?|p\.?m\.?)(?: on a)?(?: \w+day)? (?:payment|order)\b",
    r"(?:하시|시|으시)면|(?:셨|었|았|였)으면|라면|이면|(?:하셔|셔|해)도|(?:결제|주문)(?:하신|한|된)\s*(?:주문|건)",
    r"(?:なら|れば|たら|場合)",
    # the customer's case told back: "since you paid at 11 a.m.", "11시에 결제하셨으니",
    # "お支払いいただいたので"
    r"\byou(?:'ve| have)? (?:paid|ordered|placed (?:it|the order|your order)|checked out)\b",
    r"(?:결제|주문)(?:하셨|하신\s*게)(?:으니|으므로|기\s*때문에|는데|니까|으니까)",
    r"(?:お支払い|ご注文|決済)(?:いただいた|された|いただきました|済み)(?:ので|ため|から|のは)",
)
_NOW = any_of(
    r"\b(?:it'?s|it is) now\b|\bright now\b", r"지금이|현재\s?시각이", r"今は|現在の時刻は|ただいま"
)
"""The time now said as the customer's case: "지금이 오후 1시 45분이니까"."""
_AN_ORDER = re.compile(
    r"^\s*(?:(?:짜리|어치|대(?:의)?|정도(?:의)?|쯤(?:의)?|가량(?:의)?)\s*(?:를|을)?\s*)?(?:주문|결제\s*건)"
    r"|^\s*(?:ほど|くらい|ぐらい|程度)?(?:の)?(?:ご)?注文"
    r"|^\s*(?:or so )?(?:worth of )?(?:order|purchase|basket)\b",
    re.IGNORECASE,
)
"""An amount said as an order's ("a 45,000 won order", "45,000원짜리 주문", "3만 원대 주문", "3万ウォン
ほどのご注文"), not as the one orders are measured against ("orders of 45,000 won or more")."""
_IN_THE_BASKET = re.compile(
    r"^\s*(?:어치|정도)?\s*(?:를|을)?\s*(?:장바구니에\s*)?담(?:으셨|으신|았|겨)|^\s*(?:分)?(?:を)?カートに"
    r"|^\s*(?:worth of \w+ )?in (?:your|the) (?:cart|basket)\b",
    re.IGNORECASE,
)
"""An amount said to be in the customer's basket: "4만 8천 원어치 담으셨으니", "48,000 won in your cart";
the customer's own, as an order's is."""
_BASKET_COMES_TO = re.compile(
    r"\byour (?:cart|basket)(?: total)?(?:'s|'s at| is| is at| comes to| now comes to| totals"
    r"| adds up to)\s*$"
    r"|(?:장바구니|카트)(?:에 담긴 금액|\s?금액)?(?:이|가|은|는)\s*$"
    r"|カート(?:の)?(?:合計|金額)?(?:は|が)\s*$"
    r"|(?:고객님\s?)?주문\s?금액(?:이|가)\s*$|(?:ご)?注文金額(?:が)\s*$",
    re.IGNORECASE,
)
"""The basket's amount named before it: "Your basket comes to 52,000 won", or an order's amount
said as a case: "ご注文金額が49,000ウォンの場合は", "주문 금액이 49,000원이면" (not "주문 금액은 3만원
이상이면 무료", the threshold, which takes 은/は). What the reply then grants is the commitments' to
check against the threshold."""
_AN_EXAMPLE = re.compile(r"(?:이면|이라면|일\s?때|인\s?경우|なら|でしたら|の場合|だと)")
"""An amount the sentence opens with, said as a case: "49,000원이면 3,000원이 붙고요"."""
_EXAMPLE_OPENS = re.compile(
    r"\s*(?:(?:만약|만일|반면|반대로|그리고|또)\s*)?(?:if (?:it's|it is|the order is) )?$", re.IGNORECASE
)
_ORDER_AMOUNT = any_of(
    r"\border (?:total|amount|value)\b|\b(?:cart|basket) total\b",
    r"(?:주문|결제|구매)\s?금액",
    r"(?:ご)?(?:注文|購入|お買い上げ)金額",
)
"""The order's amount named, of which an amount the sentence after opens with is an example."""
_MISSED = any_of(
    r"\b(?:not|won't|isn't|doesn't|wouldn't) (?:be )?"
    r"(?:eligible|in time|ship|go out|leave|dispatched|shipped|sent)"
    r"|\bnext (?:business |working )?day\b|\btoo late\b"
    r"|\bmiss(?:es|ed)? (?:the |that day's |today's |the day's )?(?:cutoff|same|dispatch|shipping)",
    r"아니|안\s?(?:돼|되|나가)|어렵|어려(?:워|운|울)|불가|다음\s?날|익일|다음\s?영업일"
    r"|(?:출고|발송|출발)(?:가|이|는|도)?\s*(?:되지|하지)\s*않",
    r"対象外|ではありません|できません|難しい|翌|(?:発送|出荷)(?:に|と|は|には)?(?:なり|され|いたし)ません",
)
"""A time said to miss a cutoff: "3시 결제는 당일 출고 대상이 아니에요", "ships the next day"."""


def _minutes(reading: str) -> int:
    hours, minutes = reading.removeprefix("time:").split(":")
    return int(hours) * 60 + int(minutes)


def _times(needs: frozenset[str]) -> list[tuple[int, int]]:
    """A claim's readings as times of day, as spans of minutes running forward: a time is a span of
    one minute ("between 11:00 and 12:00" is also read as the bare numbers 11 to 12, not a time)."""
    spans = []
    for need in needs:
        if need.startswith("time:"):
            spans.append((_minutes(need), _minutes(need)))
        elif need.startswith("range:time:"):
            low, high = need.removeprefix("range:").split("~")
            spans.append((_minutes(low), _minutes(high)))
    return [(first, last) for first, last in spans if first <= last]


_THE_SAME_DAY = any_of(
    r"\bsame[- ]day\b|\b(?:ship|dispatch)\w* (?:out )?(?:today|that day)\b"
    r"|\b(?:go|goes|going|will go|leaves?|will leave) (?:out )?(?:today|that day)\b"
    r"|\b(?:that day|today)'s (?:dispatch|shipping)\b",
    r"당일|(?:오늘|그날)\s?(?:바로\s?)?(?:출고|발송)",
    r"当日|(?:本日|その日)(?:中に|のうちに)?(?:発送|出荷)",
)
"""A sentence about the day's deadline: what is paid by it ships the same day."""


_LUNCH = any_of(r"\blunch", r"점심", r"昼休み|お昼|昼食|ランチ")
LUNCH_REACH = 16
"""Characters after the word lunch where the range of the lunch break is written."""


_NOT_AT = any_of(
    r"\b(?:after|before|until|till|from)\b", r"이후|이전|부터|까지|지나", r"以降|以前|から|まで|過ぎ"
)
"""A time said as a bound, not as a moment in the lunch break: "1시 반 이후에 걸어 주세요"."""


_BOUND_BEFORE = re.compile(
    r"(?<!just )(?<!shortly )(?<!right )(?<!little )(?<!soon )\b(?:after|before|until|till|from|by)\s+$",
    re.IGNORECASE,
)
"""A time said as a bound ("call after 6 p.m."); not a moment near it ("a call just after 6 p.m.")."""


def _said_to_be_lunch(sentence: str, start: int, end: int) -> bool:
    """The time at `sentence[start:end]` is said to be in the lunch break: the word lunch follows it
    closely, nothing before or between saying it bounds something ("1시쯤 전화 주시면 점심시간이라",
    "12時45分ですとちょうどお昼休み", "1 p.m. is during our lunch break"; not "call after 1 p.m.,
    when lunch is over")."""
    word = _LUNCH.search(sentence, end)
    return (
        word is not None
        and word.start() - end <= LUNCH_REACH
        and not _NOT_AT.search(sentence, end, word.start())
        and not _BOUND_BEFORE.search(sentence, 0, start)
        and not _AFTER_LUNCH.match(sentence, word.start())  # "1시 45분이면 점심시간 끝난 뒤라"
        and not _BEFORE_LUNCH.match(sentence, word.start())  # "11시 50분이면 점심시간 전이라"
    )


@functools.lru_cache(maxsize=SOURCES_KEPT)
def lunch_breaks(text: str, offers: frozenset[str]) -> tuple[tuple[int, int], ...]:
    """The ranges of times `text` (the sources) states as the lunch break ("lunch 12:30-13:30"), as
    minutes, those `offers` support."""
    found: list[tuple[int, int]] = []
    for sentence in sentences(text):
        for word in _LUNCH.finditer(sentence):
            for start, _, claim in located_claims(sentence):
                spans = _times(frozenset(need for need in claim.needs & offers if need.startswith("range:")))
                if spans and word.end() <= start <= word.end() + LUNCH_REACH:
                    # the shortest reading: "12:30-13:30" is not also from half past midnight
                    found.append(min(spans, key=lambda span: span[1] - span[0]))
    return tuple(found)


_SERVICE = any_of(
    r"\bhours\b|customer (?:service|support)",
    r"고객\s*센터|상담|운영\s*시간|영업\s*시간",
    r"営業時間|受付時間|カスタマー",
)
"""A sentence of the sources on when the shop answers: "Customer service hours: weekdays 10:00-18:30"."""


@functools.lru_cache(maxsize=SOURCES_KEPT)
def opening_hours(text: str, offers: frozenset[str]) -> tuple[tuple[int, int], ...]:
    """The ranges of times `text` (the sources) states as its service hours, as minutes, those
    `offers` support, the lunch break aside: "weekdays 10:00-18:30 (lunch 12:30-13:30)"."""
    lunch = set(lunch_breaks(text, offers))
    found: list[tuple[int, int]] = []
    for sentence in sentences(text):
        if not _SERVICE.search(sentence):
            continue
        for _, _, claim in located_claims(sentence):
            spans = _times(frozenset(need for need in claim.needs & offers if need.startswith("range:")))
            if spans:
                span = min(spans, key=lambda span: span[1] - span[0])
                if span not in lunch:
                    found.append(span)
    return tuple(found)


_ABOUT_CALLS = any_of(
    r"\b(?:call(?:ing)?|phone|ring|contact|reach us|customer (?:service|support)|hours)\b",
    r"전화|통화|연락|상담|고객\s*센터|문의|걸어|운영|영업",
    r"電話|連絡|問い合わせ|受付|営業|カスタマー|窓口|お掛け|相談",
)
_NOT_ABOUT_CALLS = any_of(
    r"\b(?:ship|dispatch|deliver|order|pay|paid|payment)",
    r"발송|출고|배송|주문|결제|입금",
    r"発送|出荷|配送|注文|決済|支払",
)
_WITHIN_HOURS = any_of(
    r"\b(?:within|during|inside) (?:our |the |normal |regular )?"
    r"(?:business |opening |office |service |working )?hours\b|\b(?:gets?|will get|'ll get) through\b",
    r"시간\s*(?:내|안|중)|운영\s*중|영업\s*중|(?:상담|통화|전화|문의)\s*(?:가능한|되는|할\s*수\s*있는)\s*시간",
    r"時間内|営業中|受付中|(?:対応|受付|お電話|ご相談)(?:可能な|できる|いただける)時間",
    r"(?:전화|통화|상담원|상담사)(?:가|는|도|과|와)?\s*(?:바로\s*)?(?:연결(?:돼|되|됩)|잘\s*(?:돼|됩))"
    r"|(?:お)?電話(?:が|は|も)?(?:すぐ(?:に)?)?(?:つながり|繋がり)",
)
"""A time said to be one the shop answers at: "まだカスタマーサービスの受付時間内です", "아직 상담
가능한 시간이에요"."""


_STATED_RANGE = r"(?:\s*[(（][^)）]{0,24}[)）])?"
"""The range of the lunch break, written in brackets after its word: "昼休み（12時半〜13時半）"."""
_AFTER_LUNCH = any_of(
    r"\bafter (?:the |our )?lunch|\blunch (?:break |hour )?(?:ends|is over|has ended|finishes)\b",
    rf"점심\s*(?:시간)?{_STATED_RANGE}\s*(?:이|은|는|도)?\s*(?:끝난|지난|끝났|지났)|점심\s*(?:시간\s*)?이후",
    rf"(?:お)?昼休み{_STATED_RANGE}(?:の)?(?:後|明け|が終わった後)"
    rf"|(?:お)?昼休み{_STATED_RANGE}(?:は|が|も)(?:終わ|明け|過ぎ)",
)
"""A time said to be after the lunch break: "오후 1시 45분이면 점심시간 끝난 뒤라", "昼休み（12時半〜
13時半）は終わっておりますので"."""
_BEFORE_LUNCH = any_of(
    r"\bbefore (?:the |our )?lunch",
    rf"점심\s*(?:시간)?{_STATED_RANGE}\s*(?:이\s*)?(?:시작\s*)?전",
    rf"(?:お)?昼休み{_STATED_RANGE}(?:の|に入る)?前",
)
"""A time said to be before the lunch break: "12시 40분이면 아직 점심시간 전이라"."""


def _on_its_side(
    spans: list[tuple[int, int]], lunch: tuple[tuple[int, int], ...], *, after: bool, before: bool
) -> bool:
    """A time said to be after the lunch break is at or past its end, one said to be before it at or
    before its start: "午後一時十五分でしたら昼休みが明けています" is false of a 12:30-13:30 lunch."""
    return all(
        (not after or first >= high) and (not before or last <= low)
        for first, last in spans
        for low, high in lunch
    )


_NOT_ANSWERED = any_of(
    r"\b(?:won'?t|will not|can'?t|cannot) (?:get through|reach us|be answered|answer)"
    r"|\b(?:won'?t|will not|wouldn'?t|would not|doesn'?t|does not) work\b"
    r"|\b(?:has|have|is|are) (?:already )?closed for (?:today|the day)\b|\bnobody will (?:pick up|answer)\b",
    r"연결(?:되지|이)\s*(?:않|안)|(?:통화|상담|연결)(?:이|가)?\s*(?:어려|안\s*돼|안\s*됩|불가)",
    r"(?:つながり|繋がり)(?:ません|にくい)|(?:つながら|繋がら)ない|(?:お)?(?:受け|応対|対応)(?:でき|いたしかね)(?:ません|ない)",
)
"""A time said to be one the shop does not answer at: "12시 40분에는 연결되지 않습니다", "so 12:45 won't
work"."""
_BEFORE_OPENING = any_of(
    r"\bbefore (?:we|the (?:line|lines|shop|office)|customer (?:service|support)|our (?:line|lines|office))"
    r" opens?\b"
    r"|\bbefore opening\b|\bnot (?:yet )?open\b",
    r"(?:상담|운영|영업|업무|고객\s*센터)\s*(?:시작|개시|오픈)?\s*전(?:이|에)|오픈\s*전",
    r"(?:受付|営業|業務)(?:開始)?(?:前|時間外|の時間外)|まだ(?:開いて|始まって)いません",
)
"""A time said to be before the shop answers: "아침 9시 반은 아직 상담 시작 전이라서"."""


_OPENS_OR_CLOSES = any_of(
    r"\b(?:open|opens|opening|close|closes|closed|closing|shut)\b",
    r"마감|끝나|끝납|닫|종료|오픈|시작",
    r"閉|終了|終わ|締め|開始|開店|オープン",
)
"""A word saying when the shop opens or closes: the time written nearest it (`_nearest`) is the hours,
not one within them."""


def _nearest(sentence: str, word: re.Match[str], located: list[tuple[int, int, Claim]]) -> Claim | None:
    """The claim of `located` written nearest to `word`: the time a word of opening or closing is
    said of ("the line stays open until 6:30 p.m.", "受付終了の六時半")."""
    return min(
        located,
        key=lambda found: max(found[0] - word.end(), word.start() - found[1], 0),
        default=(0, 0, None),
    )[2]


def _when_open(
    spans: list[tuple[int, int]], opening: tuple[tuple[int, int], ...], lunch: tuple[tuple[int, int], ...]
) -> bool:
    """A time, or a range of times, inside the service hours and not in the lunch break."""
    for first, last in spans:
        # a time is within the hours before they end: calling at 18:30 is calling at closing
        inside = any(
            low <= first and (last < high if first == last else last <= high) for low, high in opening
        )
        at_lunch = any(
            (low <= first < high) if first == last else (first < high and last > low) for low, high in lunch
        )
        if inside and not at_lunch:
            return True
    return False


@functools.lru_cache(maxsize=SOURCES_KEPT)
def cutoffs(text: str, offers: frozenset[str] | None = None) -> tuple[int, ...]:
    """The times of day `text` states as deadlines ("paid by 2 p.m.", "14시까지"), as minutes; with
    `offers`, only those they support."""
    found: list[int] = []
    for sentence in sentences(text):
        for start, end, claim in located_claims(sentence):
            if said_as_a_deadline(sentence, start, end):
                found.extend(
                    _minutes(need)
                    for need in (claim.needs if offers is None else claim.needs & offers)
                    if need.startswith("time:")
                )
    return tuple(found)


_THEN = any_of(
    r"^(?:then|in that case)\b",
    r"^(?:그럼|그러면|그렇다면|그런 경우)",
    r"^(?:それなら|その場合|でしたら|それでしたら)",
)
"""An answer to the case asked back before it: "Paid at 1:45 p.m. on a weekday? Then it ships the
same day"."""


def _cases_joined(said: list[str]) -> list[tuple[str, bool]]:
    """The reply's sentences, each with whether it is the customer's case asked back: a question
    joined to the answer after it."""
    joined: list[tuple[str, bool]] = []
    for sentence in said:
        if joined and joined[-1][0].rstrip().endswith(("?", "？")) and _THEN.search(sentence.lstrip()):
            joined[-1] = (f"{joined[-1][0]} {sentence}", True)
        else:
            joined.append((sentence, False))
    return joined


def judged(
    reply: str,
    offers: frozenset[str],
    *,
    before: str = "",
    deadlines: tuple[int, ...] = (),
    lunch: tuple[tuple[int, int], ...] = (),
    opening: tuple[tuple[int, int], ...] = (),
) -> frozenset[str]:
    """The numbers of `reply` (as its claims write them) that their sentence judges against a bound
    `offers` (the sources' `Claim.offers`) support, in it or in the text before it (`before`, the
    reply already released), or, where the reply states no deadline of the day, `deadlines` (the
    sources' `cutoffs`); a range of times holds its ends (open 10:00-18:30:
    a call between 17:00 and 18:30). A time a sentence says is in the lunch break is judged by the
    sources' `lunch_breaks` (`lunch`): "1시쯤 전화 주시면 점심시간이라" is true of a 12:30-13:30 lunch.
    A time or a range its sentence on calling says works or is within the hours is judged by the
    sources' `opening_hours` (`opening`), the lunch break aside: "午後六時十五分でしたら、まだ受付
    時間内です", "13시 30분부터 18시 30분 사이에 다시 걸어주세요"; not a sentence on orders, payment
    or dispatch, whose times are the cutoff's."""
    found: set[str] = set()
    text = f"{before}\n{reply}"
    ranges = [
        span
        for claim in claims(text)
        for need in claim.needs & offers
        if need.startswith("range:time:")
        for span in _times(frozenset({need}))
    ]
    stated = cutoffs(text, offers)
    # the sources' deadline of the day, for a sentence on the same day, where the reply states none
    fallback = deadlines if not stated and not cutoffs(text) else ()
    previous = ""
    for sentence, asked in _cases_joined(sentences(reply)):
        # an amount opening a sentence as a case, of the order's amount the sentence before named:
        # "주문 금액이 딱 50,000원이면 ... 없어요. 49,000원이면 3,000원이 붙고요"
        of_the_order = bool(_ORDER_AMOUNT.search(previous) or _ORDER_AMOUNT.search(sentence))
        previous = sentence
        located = located_claims(sentence)
        supported = [claim for _, _, claim in located if claim.needs & offers]
        currencies = {reading_kind(need) for claim in supported for need in claim.needs} & CURRENCIES
        judging = bool(_JUDGED.search(sentence))
        bounds = stated or (fallback if _THE_SAME_DAY.search(sentence) else ())
        the_customers = (
            asked or bool(_THE_CUSTOMERS_CASE.search(sentence)) or _NOW.search(sentence) is not None
        )
        after_lunch = bool(_AFTER_LUNCH.search(sentence))
        said_hours = list(
            _OPENS_OR_CLOSES.finditer(_AFTER_LUNCH.sub(lambda word: " " * len(word.group()), sentence))
        )
        before_lunch = bool(_BEFORE_LUNCH.search(sentence))
        calls = bool(_ABOUT_CALLS.search(sentence)) and not _NOT_ABOUT_CALLS.search(sentence)
        before_cutoff: list[int] = []
        for start, end, claim in located:
            spans = _times(claim.needs)
            if claim in supported:
                if the_customers:  # "It's now 1:30 pm" (13:30 is also when lunch ends)
                    before_cutoff.extend(
                        cutoff - last for _, last in spans for cutoff in bounds if last <= cutoff
                    )
                continue
            # a call said to work inside the hours stated is not one in the lunch break; one inside the
            # lunch break stated is judged to be in it, not said to get through
            inside = judging and any(
                low <= first
                and last <= high
                and not (
                    calls
                    and (
                        bool(_WITHIN_HOURS.search(sentence))
                        if (low, high) in lunch
                        else any(begins <= first < ends for begins, ends in lunch)
                    )
                )
                for first, last in spans
                for low, high in ranges
            )
            open_then = (
                bool(opening)
                and (judging or bool(_WITHIN_HOURS.search(sentence)))
                and calls
                # "3시 10분쯤 전화 주시면 점심시간이라": said to be lunch; not "점심시간 끝난 뒤라", nor
                # "open 10:00-18:30 with lunch 12:30-13:30, so a call just after 6 p.m.": another's
                and not (
                    any(_nearest(sentence, word, located) is claim for word in _LUNCH.finditer(sentence))
                    and not (after_lunch or before_lunch)
                )
                and _on_its_side(spans, lunch, after=after_lunch, before=before_lunch)
                and not _MISSED.search(sentence)
                and not _NOT_ANSWERED.search(sentence)  # "a call at 2:40 p.m. won't be answered"
                and not _BEFORE_OPENING.search(sentence)
                # "We're closed at 6 p.m.": the hours said; not "昼休みは終わっております", nor "is
                # fine: the line stays open until 6:30", which says it of another time
                and not any(_nearest(sentence, word, located) is claim for word in said_hours)
                # a bound of when to call is no time said to work: "call us after 6 p.m." misleads
                and not _BOUND_BEFORE.search(sentence, 0, start)
                and not _NOT_AT.match(sentence[end:].lstrip())
                and _when_open(spans, opening, lunch)
            )
            at_lunch = (
                _said_to_be_lunch(sentence, start, end)
                # "점심시간에는 상담이 어려워 12시 40분에는 연결되지 않습니다"
                or bool(_LUNCH.search(sentence, 0, start) and _NOT_ANSWERED.search(sentence, end))
            ) and any(low <= first and last <= high for first, last in spans for low, high in lunch)
            # every reading before it: "3시에 결제하시면" may be 15:00, after a 14:00 cutoff
            said_to_miss = bool(_MISSED.search(sentence))
            in_time = (
                the_customers
                and not said_to_miss  # "1시 15분에 결제하시면 당일 출고는 어려워요" is false
                and bool(spans)
                and any(all(last <= cutoff for _, last in spans) for cutoff in bounds)
            )
            # a reading after it, said to miss it: "3시 결제는 당일 출고 대상이 아니에요"
            missed = said_to_miss and any(first > cutoff for first, _ in spans for cutoff in bounds)
            kinds = {reading_kind(need) for need in claim.needs}
            an_order = bool(kinds) and kinds <= currencies and bool(_AN_ORDER.match(sentence[end:]))
            basket = (
                bool(kinds)
                and kinds <= CURRENCIES
                and bool(
                    _IN_THE_BASKET.match(sentence[end:])
                    or (_BASKET_COMES_TO.search(sentence[:start]) and not BOUND_AFTER.match(sentence[end:]))
                    or (
                        of_the_order
                        and _EXAMPLE_OPENS.match(sentence[:start])
                        and _AN_EXAMPLE.match(sentence[end:])
                    )
                )
            )
            # "상담은 평일 오전 10시부터라서 9시 반에 전화하시면 아직 연결이 안 돼요"
            closed_then = (
                bool(opening)
                and calls
                and bool(spans)
                and bool(_NOT_ANSWERED.search(sentence, end) or _BEFORE_OPENING.search(sentence))
                and not _BOUND_BEFORE.search(sentence, 0, start)
                and not _NOT_AT.match(sentence[end:].lstrip())
                and not _when_open(spans, opening, lunch)
            )
            if inside or open_then or closed_then or at_lunch or in_time or missed or an_order or basket:
                found.add(claim.text)
                if in_time:
                    before_cutoff.extend(
                        cutoff - last for _, last in spans for cutoff in bounds if last <= cutoff
                    )
        # the minutes from a time in the lunch break to its end, the sentence naming it: "お昼休みは12時
        # 30分から13時30分までですので、13時にお電話いただいた場合は30分ほどお待ち"
        if _LUNCH.search(sentence):
            waits = {
                f"minute:{high - first}": claim.text
                for _, _, claim in located
                for first, last in _times(claim.needs)
                if first == last
                for low, high in lunch
                if low <= first < high
            }
            for _, _, claim in located:
                if told := [waits[need] for need in claim.needs if need in waits]:
                    found.update((claim.text, *told))
        # the minutes from a time judged in time to the cutoff: "지금이 1시 45분이니까, 15분 안에"
        found.update(
            claim.text
            for _, _, claim in located
            if claim not in supported and before_cutoff
            if {f"minute:{left}" for left in before_cutoff} & claim.needs
        )
    return frozenset(found)


_NOT_A_WEEKDAY = any_of(
    r"\b(?:weekends?|saturdays?|sundays?|(?:public )?holidays?)\b",
    r"주말|공휴일|휴일|토요일|일요일|연휴",
    r"土日|土曜|日曜|週末|祝日|休日|連休",
)
"""A day the shop does not work: "토요일 1시 반에 결제하시면 당일 출고가 어려워요" is true of it."""
_NAMED_BOUND = re.compile(r"\s*(?:cut-?off|deadline|마감|締め切り|締切)", re.IGNORECASE)
"""A time named as the bound itself: "beats the 2 p.m. cutoff"."""
_AFTER_IT = re.compile(r"\s*(?:이후|부터|지나|넘어|以降|から|過ぎ|を過ぎ)")
_AFTER_BEFORE_IT = re.compile(r"\b(?:after|past|from)\s+$", re.IGNORECASE)
"""A time said as where something starts: "6시 반 이후에 전화 주시면", "call after 6:30"."""
_BEFORE_IT = re.compile(r"\s*(?:이전|전에|전까지|까지|まで|前に|より前)")
_BEFORE_BEFORE_IT = re.compile(r"\b(?:before|until|till|by)\s+$", re.IGNORECASE)
"""A time said as where something ends: "10시 전에 전화 주시면", "call before 10"."""


def _plausible(spans: list[tuple[int, int]], opening: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    """The readings of a time within the service hours (their ends too), where any is: "6시 반" said
    of calling is 18:30, not 06:30."""
    within = [
        (first, last) for first, last in spans if any(low <= first and last <= high for low, high in opening)
    ]
    return within or spans


def _closed_at(
    first: int, last: int, opening: tuple[tuple[int, int], ...], lunch: tuple[tuple[int, int], ...]
) -> bool:
    """No call is answered at any moment from `first` to `last`, their edges aside: outside the hours,
    or inside the lunch break (a call at 18:30 or 12:30 exactly is left to be read either way)."""
    outside = all(last < low or first > high for low, high in opening)
    at_lunch = any(low < first and last < high for low, high in lunch)
    return outside or at_lunch


def misjudged(
    reply: str,
    offers: frozenset[str],
    *,
    deadlines: tuple[int, ...] = (),
    lunch: tuple[tuple[int, int], ...] = (),
    opening: tuple[tuple[int, int], ...] = (),
) -> list[str]:
    """Times the sources state, said on the wrong side of a bound they also state (`deadlines`, the
    sources' `cutoffs`; `lunch`, `opening`). `judged` supports the customer's own times said on the
    right side; a time the sources state needs no support, but what a sentence says of it can still
    be false:

    - said to miss the day's cutoff, every reading before it ("1:30 p.m. would miss that day's
      dispatch" of a 14:00 cutoff), or said to ship the same day, every reading after it ("6시 반에
      결제하셔도 당일 출고돼요"), on a working day;
    - said to be the lunch break, outside it ("2시쯤 전화 주시면 점심시간이라"), or before it, after its
      start ("오후 2시면 점심시간 전"), or after it, before its end;
    - said to be when a call gets through, when none does ("6시 반 이후에 전화 주시면 연결돼요", "call
      at 7:45 p.m., it's fine").
    """
    wrong: list[str] = []
    for sentence, asked in _cases_joined(sentences(reply)):
        located = located_claims(sentence)
        said_to_miss = bool(_MISSED.search(sentence))
        same_day = bool(_THE_SAME_DAY.search(sentence))
        # the sources' cutoff, in a sentence on orders, payment or dispatch ("1시 반에 전화하시면 ...
        # 어려워요" is on calls)
        bounds = deadlines if _NOT_ABOUT_CALLS.search(sentence) and (same_day or said_to_miss) else ()
        the_customers = (
            asked or bool(_THE_CUSTOMERS_CASE.search(sentence)) or _NOW.search(sentence) is not None
        )
        working_day = not _NOT_A_WEEKDAY.search(sentence)
        after_lunch = bool(_AFTER_LUNCH.search(sentence))
        before_lunch = bool(_BEFORE_LUNCH.search(sentence))
        calls = bool(_ABOUT_CALLS.search(sentence)) and not _NOT_ABOUT_CALLS.search(sentence)
        said_hours = list(
            _OPENS_OR_CLOSES.finditer(_AFTER_LUNCH.sub(lambda word: " " * len(word.group()), sentence))
        )
        gets_through = (
            calls
            and bool(_JUDGED.search(sentence) or _WITHIN_HOURS.search(sentence))
            and not (
                _MISSED.search(sentence) or _NOT_ANSWERED.search(sentence) or _BEFORE_OPENING.search(sentence)
            )
            and not _LUNCH.search(sentence)
        )
        for start, end, claim in located:
            spans = _times(claim.needs)
            # a range the sources state is the hours or the lunch break said, not a moment judged
            if not spans or not claim.needs & offers or any(first != last for first, last in spans):
                continue
            a_bound = bool(
                said_as_a_deadline(sentence, start, end)
                or _BOUND_BEFORE.search(sentence, 0, start)
                or _NOT_AT.match(sentence[end:].lstrip())
                or _NAMED_BOUND.match(sentence, end)
            )
            if the_customers and working_day and bounds and not a_bound:
                # the cutoff itself is left to be read either way: "2시에 결제하시면" may be just too late
                if said_to_miss and all(last < cutoff for _, last in spans for cutoff in bounds):
                    wrong.append(f"{claim.text} (said to miss the day's cutoff, which it is before)")
                    continue
                if (
                    same_day
                    and not said_to_miss
                    and all(first > cutoff for first, _ in spans for cutoff in bounds)
                ):
                    wrong.append(f"{claim.text} (said to make the day's cutoff, which it is after)")
                    continue
            if not (lunch and opening and calls) or any(
                _nearest(sentence, word, located) is claim for word in said_hours
            ):
                continue
            readings = _plausible(spans, opening)
            if not a_bound and _said_to_be_lunch(sentence, start, end):
                if not any(low <= first and last <= high for first, last in readings for low, high in lunch):
                    wrong.append(f"{claim.text} (said to be the lunch break, which it is not in)")
                continue
            if (
                not a_bound
                and (after_lunch or before_lunch)
                and not _on_its_side(readings, lunch, after=after_lunch, before=before_lunch)
            ):
                wrong.append(f"{claim.text} (said to be on the other side of the lunch break)")
                continue
            if not gets_through:
                continue
            after = _AFTER_IT.match(sentence, end) or _AFTER_BEFORE_IT.search(sentence, 0, start)
            until = _BEFORE_IT.match(sentence, end) or _BEFORE_BEFORE_IT.search(sentence, 0, start)
            if after:
                closed = all(first >= high for first, _ in readings for _, high in opening)
            elif until:
                closed = all(last <= low for _, last in readings for low, _ in opening)
            else:
                closed = not a_bound and all(
                    _closed_at(first, last, opening, lunch) for first, last in readings
                )
            if closed:
                wrong.append(f"{claim.text} (said to be when a call gets through, which it is not)")
    return wrong
