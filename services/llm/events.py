"""A deadline is counted from something: the duration must be the one the sources give from that event.

"within 48 hours" is true of a damaged parcel reported after it arrives and false of one counted
from the order; "3 business days" is the refund's time after the return reaches the warehouse, not
after the customer posts it or asks for it. Each clause of the sources that states a duration
(days, business days, hours, weeks, months) is read for the event it runs from (`Event`: receipt,
the order or payment, dispatch, the return reaching the shop, the customer sending it back or
asking for it). A reply's clause that states a duration and names one event is checked against the
sources' clauses stating that duration: if every one of them names an event and none names the
reply's, the duration is counted from the wrong event. A reply clause naming a policy (`topics`:
returns, exchanges) is checked against the sources' clauses about it where there are any. A source
clause that names no event ("exchanges within 7 days") decides nothing, and neither does a reply
clause naming two events or none.

Dates are read the same way, by the event word nearest to them in their clause ("shipped
2026-11-29, delivered 2026-11-30"): "your order was delivered on 29 November" fails when the 29th
is the day it shipped. A deadline is a date too: a duration of the sources counted from the day the
facts give its event ("within 7 days of receiving the item", delivered on 30 November: until 7
December) supports the date it ends on, and no other.

A date the sources do not give is the calendar's when a word beside it names the same day, in the
calendar of the facts' `Today:` (its weekday, how far it is from today, a weekend, a holiday:
`EventCheck.calendar_named`), and dates are worked out: a deadline counted in the reply from a date
it gives by a duration it states (`counted_in_reply`), the days an order said to leave today or
tomorrow arrives on (`arrivals`), the days left until a deadline (`days_left`).
"""

from __future__ import annotations

import datetime
import functools
import re
from enum import StrEnum

from services.llm.fact_claims import SOURCES_KEPT, Claim, located_claims, prepare, reading_kind
from services.llm.fact_claims import claims as claims_of
from services.llm.subjects import MARGIN, encoded, masked_numbers
from services.llm.topics import Topic, about_the_same, clauses_about, covers, topics
from services.text.patterns import CJK, any_of
from services.understanding.encoder import SentenceEncoder, shared_encoder


class Event(StrEnum):
    RECEIPT = "receipt"
    ORDER = "order or payment"
    DISPATCH = "dispatch"
    RETURN_RECEIVED = "the return reaching the shop"
    SENT_BACK = "the customer sending it back"
    REQUEST = "the customer's request"
    TODAY = "today"
    """Not an event anything is counted from: the day the facts say it is ("Today: 2026-12-02"),
    which no parcel arrived on unless the facts say so too."""


# Most specific first: "after you ship it back" is the customer sending it, not the shop's dispatch.
_EVENTS: list[tuple[Event, re.Pattern[str]]] = [
    (
        Event.REQUEST,
        any_of(
            r"(?:of|after|from|since|once) (?:you )?(?:request|apply|submit|fil|lodg)(?:ing|ed|e|s)?\b",
            r"(?:of|after|from|since) (?:the (?:date|day|time) (?:of )?)?(?:your |the )?"
            r"(?:(?:return|refund|exchange) )?(?:request|application|submission|claim)",
            r"(?:신청|접수|요청)(?:하신|한|하고|하시고|된|해\s*주신)?\s*(?:후|뒤|날|일로부터|다음|시점|부터)",
            r"(?:お)?申(?:し)?込(?:み)?(?:日|後|から|いただいてから|いただいた日|された日)",
            r"(?:ご)?(?:申請|依頼|受付)(?:日|後|から|いただいてから|いただいた日)",
        ),
    ),
    (
        Event.SENT_BACK,
        any_of(
            r"(?:of|after|from|since|once) (?:you )?(?:post|send|ship|mail|drop)(?:ing|ed|s)? "
            r"(?:it |them |the \w+ |your \w+ |the parcel )?(?:back|off)",
            r"(?:of|after|from|since) (?:you )?(?:posting|sending|shipping|mailing|dropping) "
            r"(?:it|the \w+|your \w+)",
            r"(?:of|after|from|since) the (?:day|date|time) (?:you )?"
            r"(?:post|send|ship|mail|drop)(?:ped|ed)?\b",
            r"(?:반송|보내신|보내\s*주신|발송하신|부치신)\s*(?:후|뒤|날|다음)",
            r"(?:返送|投函|発送|お送り)(?:して|いただいて|していただいて|なさって)から",
            r"(?:返送|投函)(?:後|日)",
            r"(?:返送|投函)(?:された|いただいた|なさった)(?:日|後|時点)",
            r"お客様(?:が|から)[^。、]{0,10}?(?:発送|お送り|送付)(?:された|いただいた|なさった)(?:日|後|時点)",
        ),
    ),
    (
        Event.RETURN_RECEIVED,
        any_of(
            r"(?:reach|get|come)(?:es|s|ed|ing)?(?: back)? (?:to )?us\b",
            r"(?:reach|arriv|get|come)(?:es|s|ed|ing)?(?: back)? (?:at |to |in )?(?:our|the) "
            r"(?:warehouse|shop|store|(?:fulfil?ment|distribution|logistics|returns?) cent(?:re|er))",
            r"(?:we|the warehouse) (?:receive|get)s? (?:it|the \w+|your \w+) back",
            r"(?:once|after|when) we (?:receive|get) (?:it|the return|the \w+ back)",
            r"(?:창고|물류\s*센터|센터)(?:에|로)?\s*(?:도착|입고|들어|회수)",
            r"입고\s*(?:후|뒤|된)",
            r"(?:반품|반송)(?:하신|된|한|되는|해\s*주신)?\s*(?:상품|물건|제품|택배|물품|품)\s*(?:이|가|은|는)?\s*"
            r"(?:(?:저희|당사)\S*\s*)?(?:도착|입고|회수)",
            r"(?:저희|당사|쇼핑몰)(?:가|에|쪽에|로)?\s*(?:받은|받고|도착|회수|들어)",
            r"(?:倉庫|物流センター|センター)(?:に|へ)?(?:到着|届|入)",
            r"(?:当社|弊社|当店)(?:に|へ|が)(?:到着|届|受け取|受領|確認)",
            r"(?:返品|返送)(?:商品|品)?(?:が|を)?(?:当社|弊社|当店)?(?:に|へ)?(?:到着|届)",
        ),
    ),
    (
        Event.DISPATCH,
        any_of(
            r"(?:of|after|from|since|once) (?:the )?(?:dispatch|shipping|shipment)",
            r"(?:of|after|from|since|once) (?:it|the order|your order|the parcel) "
            r"(?:is |was |'s |has been )?(?:shipped|dispatched|sent|left|leaves|ships)",
            r"(?:of|after|from|since|once) we (?:ship|dispatch|send)",
            r"(?:start|begin|began|run|count)(?:s|ed|ing)? (?:from |on |at )?when (?:it|the \w+|your \w+) "
            r"(?:is |was |has been )?(?:shipped|dispatched|sent out)",
            r"(?:발송|출고|배송\s*시작)(?:되고|된|되신|하고|한)?\s*(?:후|뒤|나서|다음|일로부터|부터)",
            r"출고되고",
            r"(?:発送|出荷)(?:されて|して|いたして)?(?:から|後|日から)",
        ),
    ),
    (
        Event.RECEIPT,
        any_of(
            r"(?:of|after|from|since|once|on) (?:you )?(?:receiv|get(?:ting)? (?:it|the|your)|deliver|arriv)",
            r"(?:of|after|from|since|once) (?:it|the \w+|your \w+|the parcel) "
            r"(?:arriv|reach(?:es|ed)? you|is delivered|was delivered)",
            r"(?:on|upon|after) (?:arrival|delivery|receipt)",
            r"(?:수령|수취|도착|배송\s*완료)\s*(?:후|뒤|일로부터|하신|시|한)",
            r"받으(?:신|시고|셨)\s*(?:후|뒤|날|다음|지|때)",
            r"받은\s*(?:후|뒤|날|다음|지)",
            r"(?:お)?受け?取り?(?:から|後|日から|いただいてから|になってから)",
            r"(?:到着|お届け|着荷)(?:から|後|日から|して)",
            r"(?:届いて|届き次第|お手元に届)",
        ),
    ),
    (
        Event.ORDER,
        any_of(
            r"(?:of|after|from|since|once) (?:you )?(?:plac|order|pay|purchas|buy|bought|paid)",
            r"(?:of|after|from|since) (?:the |your )?(?:order|payment|purchase)",
            r"(?:주문|결제|구매|구입)(?:하신|한|하고|하시고)?\s*(?:후|뒤|날|일로부터|다음|시점)",
            r"(?:ご)?(?:注文|購入|お支払い|支払い|決済)(?:いただいて|して|されて)?(?:から|後|日から)",
        ),
    ),
]
_TODAY_KO = "오늘|금일"
_TODAY_JA = "本日|今日"
"""The words for today, which a date beside them is said of (`_TODAY_BEFORE`, `_TODAY_AFTER`)."""
RECEIVED = any_of(
    r"delivered|arriv(?:ed|es?|ing)|reached you|received|came",
    r"배송(?:이|은|가)?\s*완료|배달|도착|수령|받(?:으|아|은|았)",
    r"届|配達|着荷|到着|受け取",
)
"""The words of an order reaching the customer: "delivered", "배송 완료", "届いた"."""
_HAPPENED: list[tuple[Event, re.Pattern[str]]] = [
    (
        Event.DISPATCH,
        any_of(
            r"shipped|dispatched|sent out|went out|was sent|left (?:us|our warehouse)|departed",
            r"발송|출고|출발|나갔|나간",
            r"発送|出荷|出発",
        ),
    ),
    (Event.RECEIPT, RECEIVED),
    (
        Event.ORDER,
        # not the means of payment a refund goes back to ("original payment method", "결제 수단")
        any_of(
            r"placed|ordered|paid|payment(?! method)|purchased",
            r"주문|결제(?!\s?(?:수단|방법|하신\s?(?:수단|카드)))|구매",
            r"注文|支払(?!い?方法)|決済(?!方法|手段)|購入",
        ),
    ),
    (Event.TODAY, any_of(r"\btoday\b", _TODAY_KO, _TODAY_JA)),
]
"""What happened on a date, by the word beside it."""
IF = any_of(
    r"\b(?:if|unless|once|in case|as long as|so long as|provided|until)\b",
    r"(?:으)?면\s|경우",
    r"なら|場合|れば",
)
"""A condition: "if your order hasn't shipped yet" says nothing of where it is."""
_ON_THE_DAY = re.compile(r"\s?(?:에|には|に)(?!\s?(?:한|一)\s?(?:번|度|回))")
"""A bare day of the month with its particle is a date: "28日に発送", "29일에 출고"."""
_TODAY_BEFORE = any_of(
    r"\btoday(?: is)?[\s,:(]*$",
    rf"(?:{_TODAY_KO})(?:은|이|는)?[\s,:(]*$",
    rf"(?:{_TODAY_JA})(?:は)?[\s,:（(、]*$",
)
_TODAY_AFTER = any_of(r"\s?\(today\)", rf"\s?[(（]?(?:{_TODAY_KO}|{_TODAY_JA})[)）]")
"""A today written right against a date: the date is said to be today's."""
_SAME_DAY = any_of(
    r"\b(?:on )?(?:the|that) (?:very )?same day\b",
    r"같은\s?날|同日|同じ日",
    # "당일" alone names the day only said of what happened on it: "당일 발송 마감" is a policy
    r"당일(?=(?:에|\s?바로)?\s?(?:발송|출고|배송|도착|배달)(?:이\s?)?(?:되었|됐|했|하였|처리되))",
)
"""The day named before in the sentence: "11月28日にお支払いいただき、同日に発送"."""
_NEXT_DAY = any_of(
    r"\b(?:on )?the (?:very )?(?:next|following) day\b"
    # not the day after an event the clause names: "on 29 November, the day after you paid"
    r"|\bthe (?:very )?day after\b(?! (?:you|we|it|your|the order|payment)\b)",
    r"다음\s?날|이튿날|익일(?=\s?(?:에\s?)?(?:발송|출고|배송|도착|배달)(?:이\s?)?(?:되었|됐|했|하였|처리되))",
    r"翌日|次の日",
)
"""The day after the one named before in the sentence: "11月28日にお支払い、翌日に発送"."""


def _the_day_after(day: frozenset[str]) -> frozenset[str]:
    """The readings of the day after `day` (its dates: "md:11-28" is "md:11-29", a bare "dom:28" is
    "dom:29")."""
    after = set()
    for reading in day:
        kind, _, value = reading.partition(":")
        try:
            if kind == "md":
                moved = datetime.date(2001, *map(int, value.split("-"))) + datetime.timedelta(days=1)
                after.add(f"md:{moved:%m-%d}")
            elif kind == "dom" and int(value) < 31:  # a bare day of the month: "28일에"
                after.add(f"dom:{int(value) + 1}")
            elif kind == "date":
                moved = datetime.date.fromisoformat(value) + datetime.timedelta(days=1)
                after.add(f"date:{moved.isoformat()}")
        except ValueError:
            continue
    return frozenset(after)


_PAST = any_of(
    r"\b(?:was|were|has been|had been|went|left|arrived|shipped|dispatched|delivered|sent)\b",
    r"(?:었|았|였|됐|했)",
    r"(?:ました|済み|された|でした|されて(?:い|お|ござ))",
)
"""What happened: "결제 당일 바로 발송되었어요", not "주문 당일 출고는 2시까지 결제하신 주문만 돼요"."""
_DAY_OF: list[tuple[Event, re.Pattern[str]]] = [
    (
        Event.ORDER,
        any_of(
            r"(?:주문|결제|구매)(?:하신|한)?\s?(?:당일|날)",
            r"(?:ご)?(?:注文|お支払い|支払い|決済)(?:の|した|された|いただいた)?(?:当日|日)",
            r"\bthe (?:same )?day (?:you|it was|the order was) (?:paid|ordered|placed)\b",
        ),
    ),
]
"""The day another event of the order happened, said by the event: "결제 당일 바로 발송"."""
_PART = re.compile(r"[,、，]\s*|\s+and\s+", re.IGNORECASE)
_DATE_PART = re.compile(
    r"[,、，](?!\d)\s*|[;；]\s*|\s+and\s+|(?<=[가-힣])고\s+|(?<=[.!?。！？])\s+|\n+", re.IGNORECASE
)
_DURATIONS = frozenset({"day", "bday", "hour", "minute", "month"})
"""Readings of a length of time (weeks read as days)."""
_CLAUSE = re.compile(r"[;；]\s*|(?<=[.!?。！？])\s+|\n+")


def _events(text: str) -> frozenset[Event]:
    found: set[Event] = set()
    rest = text
    for event, pattern in _EVENTS:
        if pattern.search(rest):
            found.add(event)
            rest = pattern.sub(" ", rest)
    return frozenset(found)


def _durations(text: str) -> list[Claim]:
    return [
        claim
        for _, _, claim in located_claims(text)
        if claim.needs and all(reading_kind(need) in _DURATIONS for need in claim.needs)
    ]


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _anchored(sources: str) -> tuple[tuple[str, frozenset[str], frozenset[Event], frozenset[Topic]], ...]:
    """Each source clause stating a duration: its text, the readings it offers, the events it names
    and the policies it is about, or its line's title is ("3. Returns: within 7 days ... For a change
    of mind ..." is all about returns)."""
    found = []
    for clause, about in clauses_about(prepare(sources), _CLAUSE):
        offers = frozenset().union(*(claim.offers for claim in _durations(clause)))
        if offers:
            found.append((clause, offers, _events(clause), about))
    return tuple(found)


_AROUND = 12
"""Characters either side of a date whose script says which side its event is named on."""


def _dated(clause: str) -> list[tuple[Claim, Event]]:
    """Each date of `clause` with the event named beside it: the first word after it in Korean and
    Japanese ("29일에 발송되어"), the last before it in English ("shipped on 29 November"), else
    the nearest on the other side."""
    found = []
    words = sorted(
        (match.start(), event) for event, pattern in _HAPPENED for match in pattern.finditer(clause)
    )
    if not words:
        return []
    for start, end, claim in located_claims(clause):
        if not any(need.startswith(("date:", "md:")) for need in claim.needs) and not (
            any(need.startswith("dom:") for need in claim.needs) and _ON_THE_DAY.match(clause, end)
        ):
            continue
        if _said_as_an_end(clause, start, end):
            continue  # a deadline ("받으셨으니 12월 2일까지 해 주세요") is no day a thing happened on
        # the language around the date, not a Korean carrier's name later in an English clause
        after_first = bool(CJK.search(clause, max(0, start - _AROUND), end + _AROUND))
        after = [event for at, event in words if at >= end]
        before = [event for at, event in reversed(words) if at < start]  # the nearest first
        sides = (after, before) if after_first else (before, after)
        event = next((side[0] for side in sides if side), None)
        if _TODAY_BEFORE.search(clause, 0, start) or _TODAY_AFTER.match(clause, end):
            # the date is said of today ("오늘(12월 2일) 주문하시면", "本日12月2日の時点で"), and of
            # the event after it only when it is that event's day too ("오늘 12월 2일에 도착했어요")
            found.append((claim, Event.TODAY))
            if not _ON_THE_DAY.match(clause, end) or event == Event.TODAY:
                continue
        if event is not None:
            found.append((claim, event))
    return found


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _dates_of(sources: str) -> tuple[tuple[frozenset[str], Event], ...]:
    return tuple(
        (claim.offers, event)
        for clause in _DATE_PART.split(prepare(sources))
        for claim, event in _dated(clause)
    )


def _whole_days(offers: frozenset[str]) -> set[int]:
    """A duration's length in whole calendar days: "7 days", "a week", "48 hours" (not business days,
    which need the shop's calendar)."""
    found = set()
    for offer in offers:
        kind, _, value = offer.partition(":")
        if kind == "day" and value.isdigit():
            found.add(int(value))
        elif kind == "hour" and value.isdigit() and int(value) % 24 == 0:
            found.add(int(value) // 24)
    return found


def _ends(sources: str, dates: str) -> list[tuple[str, frozenset[Topic], set[datetime.date]]]:
    """Each source clause whose duration ends on a known day, counted from the date the facts give
    its event ("within 7 days of receiving the item" and "delivered 2026-11-30" end on 7 December):
    the clause, the policies it is about and the days it ends on."""
    happened = _dates_of(dates)
    found = []
    for clause, offers, events, about in _anchored(sources):
        ends = {
            datetime.date.fromisoformat(offer[5:]) + datetime.timedelta(days=days)
            for days in _whole_days(offers)
            for date_offers, event in happened
            if event in events
            for offer in date_offers
            if offer.startswith("date:")
        }
        if ends:
            found.append((clause, about, ends))
    return found


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _deadlines(sources: str, dates: str) -> tuple[tuple[str, frozenset[str], frozenset[Topic]], ...]:
    """Each source clause whose duration ends on a known day (`_ends`): the clause with its numbers
    masked, the readings of the days it ends on and the policies it is about."""
    return tuple(
        (
            masked_numbers(clause),
            frozenset(f"{kind}:{end:{form}}" for end in ends for kind, form in _DAYS),
            about,
        )
        for clause, about, ends in _ends(sources, dates)
    )


_DAYS = (("date", "%Y-%m-%d"), ("md", "%m-%d"))
"""How a day is read (`Claim.needs`): with its year and without."""


def _today_of(happened: tuple[tuple[frozenset[str], Event], ...]) -> datetime.date | None:
    """The day the facts say it is (`Today:`, read by `_dates_of`), if they say one."""
    days = {
        datetime.date.fromisoformat(offer[5:])
        for offers, event in happened
        if event is Event.TODAY
        for offer in offers
        if offer.startswith("date:")
    }
    return next(iter(days)) if len(days) == 1 else None


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _return_window(sources: str, dates: str) -> tuple[datetime.date, datetime.date, datetime.date] | None:
    """Today and the first and the last of the days the return windows end on (a duration of the
    returns' clauses counted from each day the facts give its event: one per order), or None where
    either is not known."""
    today = _today_of(_dates_of(dates))
    ends = set().union(*(ends for _, about, ends in _ends(sources, dates) if Topic.RETURN in about))
    if today is None or not ends:
        return None
    return today, min(ends), max(ends)


_WINDOW = r"(?:return|exchange)s? (?:window|period|deadline)"
_WINDOW_KO = r"(?:반품|교환)\s?(?:가능\s?)?(?:기간|기한)"
_WINDOW_JA = r"(?:返品|交換)(?:の|可能)?(?:期限|期間|受付期間)"
_WINDOW_CLOSED = any_of(
    rf"\b(?:{_WINDOW}|time to return)\b[^.!?]{{0,24}}?\b(?:has |have |had |is )?(?:already )?"
    r"(?:passed|closed|expired|over|ended|gone)\b",
    rf"\b(?:past|outside|beyond|after) (?:the |your )?(?:\d+-day |seven-day )?{_WINDOW}",
    rf"{_WINDOW_KO}(?:이|은|는|이\s?이미)?\s*(?:이미\s*)?(?:지났|지나서|지나\s|지난|만료|끝났|끝나서|넘었|넘어서)",
    rf"{_WINDOW_JA}(?:は|が|を)?(?:すでに|既に|もう)?(?:過ぎ|切れ|終了|超過)",
)
"""The return window said to have closed: "返品期限はすでに過ぎております", "반품 기간이 지나서"."""
_WINDOW_OPEN = any_of(
    rf"\b(?:still )?(?:within|inside|in) (?:the |your )?(?:\d+-day |seven-day )?{_WINDOW}",
    rf"(?:아직|여전히)\s*{_WINDOW_KO}\s*(?:이내|안|내)|{_WINDOW_KO}\s*(?:이내|안|내)(?:이|예|입)",
    rf"{_WINDOW_JA}内(?:です|でございます|ですので|のため|なので)",
)
"""The customer's return window said to be open: "still within the return window", "返品期間内です"."""


def _window_said(sentence: str, pattern: re.Pattern[str]) -> bool:
    """`pattern` said of the customer's case, not as a condition ("if the return window has
    passed")."""
    return any(
        not IF.search(sentence, max(0, said.start() - _IF_REACH), said.end() + 6)
        for said in pattern.finditer(sentence)
    )


_IF_REACH = 24
"""Characters before the window's words where a condition on them is said ("If it's been more than
a week and the return window has passed")."""


_WEEKDAYS = {
    **{name: day for day, name in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))},
    **{name: day for day, name in enumerate("月火水木金土日")},
    **{name: day for day, name in enumerate("월화수목금토일")},
}
_WEEKDAY_AFTER = re.compile(
    r"\s*[(（]\s*(?:[^)）]{0,12}[・,、]\s*)?(?:(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?|([月火水木金土日월화수목금토일])"
    r"(?:曜日?|요일)?)\s*[)）]"
    r"|[・,、]\s*([月火水木金土日])曜日?|\s*([월화수목금토일])요일|\s*([月火水木金土日])曜日"
    r"|,?\s+\(?(mon|tue|wed|thu|fri|sat|sun)(?:day|nesday|rsday|urday|sday)\b",
    re.IGNORECASE,
)
"""A weekday written right after a date: "12월 7일(월)", "11月28日（土曜日）", "12月2日・水曜日", "30 November
(Monday)"."""
_WEEKDAY_BEFORE = re.compile(
    r"\b(mon|tue|wed|thu|fri|sat|sun)(?:day|nesday|rsday|urday|sday),?\s+(?:\(\s*)?(?:the\s+)?$"
    r"|([月火水木金土日])曜日?\s*[(（]\s*$|([월화수목금토일])요일\s*[(（]\s*$",
    re.IGNORECASE,
)
"""A weekday written right before a date: "Tuesday 30 November", "Monday, the 7th of December", "this
Friday (4 Dec)", "今週土曜日(12月5日)", "월요일(12월 7일)"."""


def _weekday_said(text: str, start: int, end: int) -> int | None:
    """The weekday (0 for Monday) written right beside the date at `text[start:end]`, if any."""
    after = _WEEKDAY_AFTER.match(text, end)
    before = _WEEKDAY_BEFORE.search(text, max(0, start - 16), start)
    said = next((group for match in (after, before) if match for group in match.groups() if group), None)
    return None if said is None else _WEEKDAYS[said[:3].lower() if said.isascii() else said]


def _calendar_day(reading: str, today: datetime.date) -> datetime.date | None:
    """The day a date's reading names, in the year that puts it nearest `today` ("md:11-30" on 2
    December 2026 is 30 November 2026)."""
    kind, _, value = reading.partition(":")
    try:
        if kind == "date":
            return datetime.date.fromisoformat(value)
        if kind == "md":
            month, day = (int(part) for part in value.split("-"))
            days = []
            for year in (today.year - 1, today.year, today.year + 1):
                try:
                    days.append(datetime.date(year, month, day))
                except ValueError:
                    continue
            return min(days, key=lambda day: abs(day - today), default=None)
    except ValueError:
        return None
    return None


_RELATIVE = {
    word: offset
    for offset, words in (
        (-2, "the day before yesterday|그저께|그제|一昨日|おととい"),
        (2, "the day after tomorrow|모레|明後日|あさって"),
        (-1, "yesterday|어제|昨日"),
        (0, "today|오늘|금일|本日|今日"),
        (1, "tomorrow|내일|明日"),
    )
    for word in words.split("|")
}
_RELATIVE_WORDS = "|".join(sorted(map(re.escape, _RELATIVE), key=len, reverse=True))
_RELATIVE_BEFORE = re.compile(
    rf"(?<![A-Za-z])({_RELATIVE_WORDS})(?:은|는|이|の|は)?\s*(?:[(（,]\s*)?"
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+|[月火水木金土日]曜日?\s*|[월화수목금토일]요일\s*)?$",
    re.IGNORECASE,
)
_RELATIVE_AFTER = re.compile(rf"\s*[(（]\s*({_RELATIVE_WORDS})\s*[)）・,、]", re.IGNORECASE)
"""A day named by how far it is from today, right beside a date: "昨日（12月1日）", "3 December
(tomorrow)"."""


def _sentence_begun(text: str, at: int) -> int:
    """Where the sentence holding `text[at]` begins. A word said of a date right before it ("내일(12월
    3일)", "until Monday, 7 December") is in its sentence: a pattern ending at the date is searched
    from there, not from the start of the reply."""
    return max(text.rfind(stop, 0, at) for stop in ".!?。！？\n") + 1


def _relative_said(text: str, start: int, end: int) -> re.Match[str] | None:
    """The word naming the date at `text[start:end]` by how far it is from today, if any."""
    begun = _sentence_begun(text, start)
    return _RELATIVE_BEFORE.search(text, begun, start) or _RELATIVE_AFTER.match(text, end)


_WEEKEND = any_of(
    r"\b(?:this |next |the )?weekend\s*\(",
    r"(?:이번\s?|다음\s?)?주말\s*[(（]",
    r"(?:今週|来週)?(?:末|週末|土日)\s*[(（]",
)
"""A weekend, its dates in brackets after it: "今週末（12月5日・6日）", "this weekend (5-6 December)"."""
_ENDS_BEFORE = re.compile(
    r"\b(?:ends?|closes?|expires?|runs? out|last day(?: is| being)?)\s+(?:on\s+)?"
    r"(?:(?:next |this |the )?(?:coming )?(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?$",
    re.IGNORECASE,
)
_ENDS_AFTER = re.compile(
    r"\s*(?:[(（][^)）]{0,12}[)）])?\s*(?:에|が|は|이|가|で)?\s*(?:마감|만료|끝|期限|締切|締め切り|終了)"
)
"""A date stated as the day something ends: "the window closes on 7 December", "12월 7일 마감"."""
_HOLIDAYS = (
    ((12, 25), any_of(r"\bchristmas(?! eve)", r"크리스마스(?!\s?이브)|성탄절", r"クリスマス(?!イブ)")),
    ((12, 24), any_of(r"\bchristmas eve\b", r"크리스마스\s?이브", r"クリスマスイブ")),
    ((1, 1), any_of(r"\bnew year'?s day\b", r"신정|새해\s?첫날", r"元日|元旦")),
)
"""Days of the year named by a name of their own: "12월 25일 성탄절", "Christmas Day (25 December)"."""
_HOLIDAY_REACH = 12
"""Characters either side of a date where its day's own name is written."""
_SUPPOSED = re.compile(r"(?:でし)?たら")
"""A Japanese condition "IF" does not read: "昨日（12月1日）の到着でしたら"."""


def _sentences_at(text: str) -> list[tuple[int, int]]:
    """Where each sentence of `text` starts and ends."""
    return [match.span() for match in re.finditer(r"[^.!?。！？\n]+[.!?。！？]*|\n", text)] or [
        (0, len(text))
    ]


_LEFT_AFTER = re.compile(
    r"\s*(?:(?:이|가|은|는|정도|쯤|밖에|more|or so)\s*)?(?:남았|남아|남은|남습|left\b|remaining\b|to go\b)"
    r"|\s*(?:ほど|くらい|程度)?(?:が|は|も)?(?:残って|残り|残ってい|残されて)",
    re.IGNORECASE,
)
_LEFT_BEFORE = re.compile(
    r"(?:残り|あと|남은\s*(?:기간은|날은|일수는)?|\bstill (?:have|got)\s+)\s*$", re.IGNORECASE
)
"""Days said to be left until a deadline: "5일 남았어요", "残り5日", "あと5日", "5 days left"."""
_SHIPS_TODAY = any_of(
    r"\b(?:ships?|shipped|dispatch(?:ed|es)?|goes out|go out|sent out|leaves)\b"
    r"[^.!?]{0,12}?\b(?:today|that day)\b",
    r"\bsame[- ]day (?:dispatch|shipping)\b|\bships? (?:out )?the same day\b",
    r"(?:오늘|당일|그날)\s*(?:바로\s*|중(?:으로|에)?\s*)?(?:출고|발송)",
    r"(?:本日|今日|当日)(?:中に|のうちに)?(?:の)?(?:発送|出荷)",
)
_SHIPS_TOMORROW = any_of(
    r"\b(?:ships?|dispatch(?:ed|es)?|goes out|go out|sent out|leaves)\b[^.!?]{0,12}?\btomorrow\b",
    r"(?:내일|다음\s?날|익일)\s*(?:바로\s*)?(?:출고|발송)",
    r"(?:明日|翌日)(?:の)?(?:発送|出荷)",
)
"""A sentence saying when the order leaves: today (if paid in time) or the next day."""
_CLAUSE_TURN = re.compile(r"[,、，;；]")
_ACTED = any_of(
    r"\b(?:send|sends|ship|ships|goes out|go out|dispatch(?:es)?|issues?|issued|processe?[sd]?|call(?: you)?"
    r"|contact(?: you)?|replace[sd]?)\b",
    r"보내|발송|출고|처리|연락|전화|교체",
    r"送|発送|出荷|処理|連絡|電話|交換",
)
_ACTED_ON = frozenset({Topic.REFUND, Topic.EXCHANGE, Topic.RETURN, Topic.DAMAGE, Topic.CANCELLATION})
"""An action of the shop a sentence may promise a day for: a refund, a dispatch, a call."""
_EVENTFUL = frozenset({Event.DISPATCH, Event.RECEIPT, Event.ORDER})


def _days_of_a_range(needs: frozenset[str], month: int, today: datetime.date) -> list[datetime.date]:
    """The days a range of days of the month names after its month ("12월 3~4일"), in the year nearest
    `today`."""
    for need in needs:
        if need.startswith("range:dom:") and "~dom:" in need:
            low, _, high = need.removeprefix("range:dom:").partition("~dom:")
            ends = [
                _calendar_day(f"md:{month:02d}-{int(day):02d}", today) for day in (low, high) if day.isdigit()
            ]
            if len(ends) == 2 and all(ends):
                return [day for day in ends if day is not None]
    return []


def _business_days_after(day: datetime.date, count: int) -> datetime.date:
    """The `count`th weekday after `day` (public holidays are not known)."""
    while count:
        day += datetime.timedelta(days=1)
        count -= day.weekday() < 5
    return day


UNTIL_BEFORE = re.compile(
    r"(?:until|till|by|before|no later than|up to|through)\s+"
    r"(?:(?:next |this |the )?(?:coming )?(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?$",
    re.IGNORECASE,
)
UNTIL_AFTER = re.compile(
    r"^\s*(?:[(（]\s?(?:[月火水木金土日월화수목금토일](?:曜日?|요일)?|[A-Z][a-z]{2}\.?)\s?[)）]\s*|[)）]\s*)?"
    r"(?:[가-힣]{1,4}\s?(?:시각|시간)\s?|の?(?:[ぁ-ん一-龯]{1,4}の)?(?:同)?時刻)?"
    r"(?:까지|안에|이내|전까지|이전|まで|以内|前)"
)
"""A date or a time stated as a deadline: "until 7 December", "12월 7일까지", "12月7日（月）まで",
"金曜日（12月4日）まで", "paid by 2 p.m.", "12월 2일 수령 시각 전까지"."""


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _delivery_days(sources: str) -> frozenset[int]:
    """The days after dispatch the sources say delivery takes ("delivery usually takes 1-2 days after
    dispatch": 1 and 2)."""
    found: set[int] = set()
    for clause in _CLAUSE.split(prepare(sources)):
        if Event.DISPATCH not in _events(clause):
            continue
        for claim in claims_of(clause):
            for need in claim.needs:
                if need.startswith("range:day:") and "~day:" in need:
                    low, _, high = need.removeprefix("range:day:").partition("~day:")
                    if low.isdigit() and high.isdigit() and int(high) - int(low) <= _LONGEST_RANGE:
                        found.update(range(int(low), int(high) + 1))
                elif need.startswith("day:") and need[4:].isdigit():
                    found.add(int(need[4:]))
    return frozenset(found)


_LONGEST_RANGE = 7
"""The widest range of days read as a delivery time, day by day."""


def said_as_a_deadline(text: str, start: int, end: int) -> bool:
    """The date or time at `text[start:end]` is said as a deadline: "until 7 December", "12월 7일까지"."""
    begun = _sentence_begun(text, start)
    return bool(UNTIL_BEFORE.search(text, begun, start) or UNTIL_AFTER.match(text[end:]))


def _said_as_an_end(text: str, start: int, end: int) -> bool:
    """The date at `text[start:end]` is said as a deadline or as the day something ends."""
    return bool(
        said_as_a_deadline(text, start, end)
        or _ENDS_BEFORE.search(text, _sentence_begun(text, start), start)
        or _ENDS_AFTER.match(text, end)
    )


def _counted(begun: datetime.date, offer: str) -> datetime.date | None:
    """The day a duration's reading ("bday:3", "day:7", "hour:48") ends on, counted from `begun`."""
    kind, _, value = offer.partition(":")
    if not value.isdigit():
        return None
    if kind == "bday":
        return _business_days_after(begun, int(value))
    if kind == "day" or (kind == "hour" and int(value) % 24 == 0):
        return begun + datetime.timedelta(days=int(value) // (24 if kind == "hour" else 1))
    return None


class EventCheck:
    """Built once per set of sources."""

    def __init__(
        self, sources: str, *, dates: str | None = None, encoder: SentenceEncoder | None = None
    ) -> None:
        """`sources`: what durations are counted from (the FAQ); `dates`: what happened when (the
        customer's facts and the FAQ; default `sources`)."""
        self._clauses = _anchored(sources)
        self._dates = _dates_of(sources if dates is None else dates)
        self._deadlines = _deadlines(sources, sources if dates is None else dates)
        self._window = _return_window(sources, sources if dates is None else dates)
        self._delivery = _delivery_days(sources)
        self.deadlines: frozenset[str] = frozenset().union(*(ends for _, ends, _ in self._deadlines))
        """Dates the sources' durations end on, from the day of the event each is counted from
        (`Claim.needs` readings)."""
        self._encoder = encoder

    def deadlines_stated(self, reply: str) -> frozenset[str]:
        """The dates of `reply` (as its claims write them) stated as deadlines that a duration of the
        sources ends on; a date the reply gives anything else happening on is not one."""
        stated = set()
        for clause in _CLAUSE.split(prepare(reply)):
            for start, end, claim in located_claims(clause):
                if not claim.needs & self.deadlines:
                    continue
                if not _said_as_an_end(clause, start, end):
                    continue
                if self._of_its_duration(claim, clause):
                    stated.add(claim.text)
        return frozenset(stated)

    def _of_its_duration(self, claim: Claim, clause: str) -> bool:
        """The clause is about a duration that ends on this day: among the sources' clauses whose
        durations end on a known day, the closest in meaning (numbers masked) is one ending on it,
        or no further than the subject check's MARGIN from one ("report damage until 7 December" is about the
        48 hours for damage, not the 7 days for returns)."""
        if len(self._deadlines) < 2:
            return True
        if named := topics(clause):  # "the return window ends on 7 December": the returns' deadline
            about = [ends for _, ends, about in self._deadlines if covers(about, named)]
            if about:
                return any(claim.needs & ends for ends in about)
        if self._encoder is None:
            self._encoder = shared_encoder()
        vectors = encoded(self._encoder, tuple(text for text, _, _ in self._deadlines))
        similarity = vectors @ self._encoder.encode_one(masked_numbers(clause))
        ending = [
            float(similarity[n]) for n, (_, ends, _) in enumerate(self._deadlines) if claim.needs & ends
        ]
        return bool(ending) and max(ending) >= float(similarity.max()) - MARGIN

    def misplaced(self, reply: str) -> list[Claim]:
        """The reply's durations counted from another event than the sources count them from."""
        wrong: list[Claim] = []
        for clause in _CLAUSE.split(prepare(reply)):
            events = _events(clause)
            if len(events) != 1:
                continue
            for claim in _durations(clause):
                stating = [
                    (named, about) for _, offers, named, about in self._clauses if claim.needs & offers
                ]
                # "ご注文日から一週間以内であれば、ご返品を承ります": the returns' 7 days, not the
                # exchanges' (which name no event)
                stating = about_the_same(stating, lambda item: item[1], topics(clause))
                if (
                    stating
                    and all(named for named, _ in stating)
                    and not any(events <= named for named, _ in stating)
                ):
                    wrong.append(claim)
        return wrong

    def weekdays_misstated(self, reply: str) -> list[str]:
        """Dates written with a weekday that is not theirs in the calendar of today (the facts'
        `Today:`): "delivered on Tuesday 30 November" where 30 November 2026 is a Monday."""
        today = _today_of(self._dates)
        if today is None:
            return []
        wrong = []
        text = prepare(reply)
        for start, end, claim in located_claims(text):
            said = _weekday_said(text, start, end)
            if said is None:
                continue
            for reading in claim.needs:
                day = _calendar_day(reading, today)
                if day is not None and day.weekday() != said:
                    wrong.append(f"{claim.text} (a {day:%A}, not the weekday said)")
                    break
        return wrong

    def _named_day(
        self, text: str, start: int, end: int, claim: Claim, today: datetime.date
    ) -> datetime.date | None:
        """The day the date at `text[start:end]` names when it is written with a word that names that
        day too: its weekday ("12月7日(月)", "Monday the 28th"), how far it is from today ("昨日（12月
        1日）", "tomorrow, 3 December"), a weekend ("今週末（12月5日・6日）") or a day's own name ("12월
        25일 성탄절"); None when the word names another day, or when there is none."""
        relative = _relative_said(text, start, end)
        weekday = _weekday_said(text, start, end)
        weekend = next(
            (
                True
                for opened in _WEEKEND.finditer(text, max(0, start - 40), start)
                if not re.search(r"[)）]", text[opened.end() : start])
            ),
            False,
        )
        holiday = next(
            (
                month_day
                for month_day, pattern in _HOLIDAYS
                if pattern.search(text, max(0, start - _HOLIDAY_REACH), end + _HOLIDAY_REACH)
            ),
            None,
        )
        if relative is None and weekday is None and not weekend and holiday is None:
            return None
        if any(reading.startswith(("date:", "md:")) for reading in claim.needs):
            days = [day for reading in claim.needs if (day := _calendar_day(reading, today))]
        else:  # a day of the month: this month's or the next one's
            numbers = [int(reading[4:]) for reading in claim.needs if reading.startswith("dom:")]
            days = []
            for number in numbers:
                for month in (today.month, today.month % 12 + 1):
                    year = today.year + (month < today.month)
                    try:
                        days.append(datetime.date(year, month, number))
                    except ValueError:
                        continue
        for day in days:
            if relative is not None and day != today + datetime.timedelta(
                days=_RELATIVE[relative.group(1).lower()]
            ):
                continue
            if weekday is not None and day.weekday() != weekday:
                continue
            if weekend and day.weekday() < 5:
                continue
            if holiday is not None and (day.month, day.day) != holiday:
                continue
            return day
        return None

    def calendar_named(self, reply: str) -> frozenset[str]:
        """The dates of `reply` that only name a day its words name too (`_named_day`), in the calendar
        of today (the facts' `Today:`): "今週土曜日(12月5日)と日曜日(12月6日)はご対応できません",
        "昨日（12月1日）". What the reply says of that day is read by the rest of the guard ("we're open
        on Saturday"). A date is not named so when it is said as a deadline ("until Thursday 10
        December"); nor, unless by how far it is from today, when it is the day the order's dispatch,
        delivery or payment happened ("delivered on Tuesday 1 December") or the day of an action the
        sentence promises ("your refund will be issued on Friday 4 December"), unless its own clause
        supposes it ("if it gets to us this Friday (4 Dec)"); nor when it is past, unless by how far
        it is from today."""
        today = _today_of(self._dates)
        if today is None:
            return frozenset()
        text = prepare(reply)
        eventful: set[str] = set()
        for sentence in _CLAUSE.split(text):
            # by its clause, else by its sentence: "delivered yesterday, December 1st"
            dated = {
                claim.text: event for clause in _DATE_PART.split(sentence) for claim, event in _dated(clause)
            }
            for claim, event in _dated(sentence):
                dated.setdefault(claim.text, event)
            eventful.update(said for said, event in dated.items() if event in _EVENTFUL)
        spans = _sentences_at(text)
        named = set()
        for start, end, claim in located_claims(text):
            day = self._named_day(text, start, end, claim, today)
            if day is None or _said_as_an_end(text, start, end):
                continue
            by_distance = _relative_said(text, start, end) is not None
            first, last = next(part for part in spans if part[0] <= start < part[1])
            sentence = text[first:last]
            # the clause of the date supposes it: "if it gets to us this Friday (4 Dec)", "昨日（12月1日）
            # の到着でしたら"; not "if you return it today, the refund is issued on Friday 4 December"
            opens = max((match.end() for match in _CLAUSE_TURN.finditer(text, first, start)), default=first)
            closes = next((match.start() for match in _CLAUSE_TURN.finditer(text, end, last)), last)
            supposed = bool(IF.search(text, opens, closes) or _SUPPOSED.search(text, opens, closes))
            # "delivered yesterday (1 December)" is the facts' to say; "Your refund will be issued on
            # Friday 4 December" promises the day of an action
            promised = claim.text in eventful or bool(_ACTED.search(sentence) or topics(sentence) & _ACTED_ON)
            happened = claim.text in eventful
            ahead = day >= today and (by_distance or not promised or (supposed and not happened))
            if ahead or (by_distance and (supposed or not happened)):
                named.add(claim.text)
        return frozenset(named)

    def counted_in_reply(self, reply: str, *, before: str = "") -> frozenset[str]:
        """The dates of `reply` stated as deadlines that a duration the reply states ends on, counted
        from a date it states before them: "返品商品が倉庫に到着してから三営業日以内に返金いたします。
        昨日（12月1日）の到着でしたら、今週金曜日（12月4日）までに返金されます". The duration is read
        against the sources with the rest of the reply; business days are the weekdays. `before`: the
        reply's text already released, where the duration and the first date may be."""
        today = _today_of(self._dates)
        if today is None:
            return frozenset()
        released = prepare(before).rstrip()
        released = f"{released}\n" if released else ""
        text = released + prepare(reply)
        days = []
        lengths: list[frozenset[str]] = []
        for start, end, claim in located_claims(text):
            if claim.needs and all(reading_kind(need) in _DURATIONS for need in claim.needs):
                lengths.append(claim.needs)
            day = self._named_day(text, start, end, claim, today)
            if day is None:
                day = next(
                    (found for reading in claim.needs if (found := _calendar_day(reading, today))), None
                )
            if day is not None:
                days.append((start, end, claim, day))
        stated = {length for needs in lengths for length in needs}
        counted = set()
        for start, end, claim, day in days:
            if start < len(released):
                continue
            if not said_as_a_deadline(text, start, end):
                continue
            begun = [earlier for begins, _, _, earlier in days if begins < start]
            if any(
                _counted(first, length) == day and self._counted_from(first, length)
                for first in begun
                for length in stated
            ):
                counted.add(claim.text)
        return frozenset(counted)

    def _counted_from(self, first: datetime.date, length: str) -> bool:
        """A duration may be counted from a day the facts give an event of the order only where the
        sources count it from that event: not the returns' 7 days from the day of the order."""
        happened = {event for offers, event in self._dates if f"date:{first.isoformat()}" in offers} - {
            Event.TODAY
        }
        return not happened or any(
            length in offers and events & happened for _, offers, events, _ in self._clauses
        )

    def arrivals(self, reply: str) -> frozenset[str]:
        """The dates of `reply`'s sentences saying when the order leaves (today or tomorrow, from the
        facts' `Today:`) that are the days delivery takes after it by the sources ("本日14時までにお支払い
        いただければ本日発送となり、通常1〜2日後の木曜日（12月3日）か金曜日（12月4日）にお届け"): a range
        of days after its month ("12월 3~4일") too."""
        today = _today_of(self._dates)
        if today is None or not self._delivery:
            return frozenset()
        text = prepare(reply)
        found = set()
        for first, last in _sentences_at(text):
            sentence = text[first:last]
            leaves = {today} if _SHIPS_TODAY.search(sentence) else set()
            if _SHIPS_TOMORROW.search(sentence):
                leaves.add(today + datetime.timedelta(days=1))
            arriving = {day + datetime.timedelta(days=after) for day in leaves for after in self._delivery}
            if not arriving:
                continue
            month = None
            for _, _, claim in located_claims(sentence):
                days = [day for reading in claim.needs if (day := _calendar_day(reading, today))]
                months = [
                    int(need[4:]) for need in claim.needs if need.startswith("moy:") and need[4:].isdigit()
                ]
                if not days and month is not None:
                    days = _days_of_a_range(claim.needs, month, today)
                month = months[0] if months else None
                if days and all(day in arriving for day in days):
                    found.add(claim.text)
        return frozenset(found)

    def days_left(self, reply: str) -> tuple[frozenset[str], list[str]]:
        """The days `reply` says are left until a deadline (today from the facts' `Today:`): those that
        are the days from today to a deadline the reply states or the sources' durations end on
        ("返品は12月7日（月）まで可能です。本日から数えて残り5日です"), and, where a deadline is known,
        those that are not ("12월 7일(월)까지 가능하고, 오늘 기준으로 7일 남았습니다")."""
        today = _today_of(self._dates)
        if today is None:
            return frozenset(), []
        text = prepare(reply)
        ends = {
            day
            for reading in self.deadlines
            if (day := _calendar_day(reading, today)) is not None and day >= today
        }
        for start, end, claim in located_claims(text):
            if _said_as_an_end(text, start, end):
                ends.update(day for reading in claim.needs if (day := _calendar_day(reading, today)))
        lefts = {(day - today).days for day in ends if day >= today}
        derived, wrong = set(), []
        for start, end, claim in located_claims(text):
            days = {int(need[4:]) for need in claim.needs if need.startswith("day:") and need[4:].isdigit()}
            if not days or not (
                _LEFT_AFTER.match(text, end) or _LEFT_BEFORE.search(text, max(0, start - 12), start)
            ):
                continue
            if days & lefts:
                derived.add(claim.text)
            elif lefts:
                wrong.append(f"{claim.text} (not the days left until {max(ends):%d %B})")
        return frozenset(derived), wrong

    def window_misjudged(self, reply: str) -> list[str]:
        """The customer's return window said to have closed while it is open today (the facts' day),
        or open when it has closed: "11月30日に配達済みですので、返品期限はすでに過ぎております" on 2
        December of a 7-day window."""
        if self._window is None:
            return []
        today, first, last = self._window  # with several orders, every window open or every one closed
        wrong = []
        for sentence in _CLAUSE.split(prepare(reply)):
            if today <= first and _window_said(sentence, _WINDOW_CLOSED):
                wrong.append(f"the return window said to have closed (open until {first:%d %B})")
            elif today > last and _window_said(sentence, _WINDOW_OPEN):
                wrong.append(f"the return window said to be open (it closed on {last:%d %B})")
        return wrong

    def misdated(self, reply: str) -> list[Claim]:
        """The reply's dates given to another event than the one the sources say happened then, and
        events said to happen on the same day as a date or an event named before in the sentence
        ("同日に発送", "결제 당일 바로 발송") that happened on another."""
        wrong: list[Claim] = []
        for sentence in _CLAUSE.split(prepare(reply)):
            day: frozenset[str] = frozenset()  # the readings of the day last named in the sentence
            for clause in _DATE_PART.split(sentence):
                for claim, event in _dated(clause):
                    happened = {named for offers, named in self._dates if claim.needs & offers}
                    if happened and event not in happened:
                        wrong.append(claim)
                for part in _PART.split(clause):  # "2、3日" is a range, "同日に発送、11月30日" two parts
                    if dated := _dated(part):
                        # what the part says happened before its own first date is of the day before
                        # ("28일에 결제되고 같은 날 출고되어 30일에 도착")
                        own = {claim for claim, _ in dated}
                        first = min(at for at, _, claim in located_claims(part) if claim in own)
                        if first and _PAST.search(sentence) and not IF.search(sentence):
                            wrong.extend(self._same_day(part[:first], day))
                        day = dated[-1][0].needs
                    elif _PAST.search(sentence) and not IF.search(sentence):
                        wrong.extend(self._same_day(part, day))
                        if day and _NEXT_DAY.search(part):
                            day = _the_day_after(day)  # "shipped the next day, ... the day after that"
        return wrong

    def _same_day(self, clause: str, day: frozenset[str]) -> list[Claim]:
        """The event `clause` (of a sentence on what happened) says happened on the same day as `day`
        (or as an event it names), when the sources date it on another day."""
        said = _SAME_DAY.search(clause) if day else None
        if said is None and day and (said := _NEXT_DAY.search(clause)):
            day = _the_day_after(day)
        if said is None:
            for event, pattern in _DAY_OF:
                if said := pattern.search(clause):
                    day = frozenset(
                        offer
                        for offers, named in self._dates
                        if named == event
                        for offer in offers
                        if offer.startswith(("date:", "md:"))
                    )
                    break
        if said is None or not day:
            return []
        rest = clause[: said.start()] + " " * len(said.group()) + clause[said.end() :]
        words = sorted((m.start(), event) for event, pattern in _HAPPENED for m in pattern.finditer(rest))
        after = [event for at, event in words if at >= said.end()]
        before = [event for at, event in reversed(words) if at < said.start()]
        sides = (after, before) if CJK.search(said.group()) else (before, after)
        happened = next((side[0] for side in sides if side), None)
        dates = [offers for offers, named in self._dates if named == happened]
        if not dates or any(day & offers for offers in dates):
            return []
        return [Claim(said.group(), f"the day of another event ({happened})", day, frozenset())]
