"""What a shop's policy number is about, by the words that name it, in Korean, English and Japanese.

The subject check (`subjects.py`) reads a number's subject by meaning with the sentence encoder,
which ties "교환은 ... 48시간" to nothing in an English FAQ (cosine 0.25 against every policy) and
lets the damage report's 48 hours pass as the exchanges' deadline. The policies a shop's numbers
belong to (its shipping fee, return shipping, the remote-area surcharge, returns, exchanges, refunds,
damage reports, gift wrapping, the members' discount...) are few and named in few words in every
language, so they are read here by word: `topics(text)` is every topic `text` names. The most
specific names come first and are taken out of the text ("return shipping" is not also "shipping"
and "returns"), and a return named as the event a time runs from ("after the returned item reaches
our warehouse") names no topic.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import TypeVar

from services.text.patterns import CJK, any_of

_T = TypeVar("_T")


class Topic(StrEnum):
    RETURN_SHIPPING = "return shipping"
    EXCHANGE_SHIPPING = "exchange shipping"
    REMOTE = "remote-area surcharge"
    SHIPPING = "shipping fee"
    WRAPPING = "gift wrapping"
    DAMAGE = "damage on arrival"
    RETURN = "returns"
    EXCHANGE = "exchanges"
    REFUND = "refunds"
    CANCELLATION = "cancellation"
    MEMBERSHIP = "membership"


PARCEL_FEE_KO = "배송비|택배비|배송료"
PARCEL_FEE_JA = "送料|配送料"
"""A parcel's fee named in Korean and in Japanese, as patterns to put in a group: one list for every
rule that reads a fee ("반품 배송비", "追加送料", "배송비는 3,000원")."""

_RETURN_ARRIVES = (
    r"(?![^.,。、]{0,12}(?:창고|물류|센터|저희|당사)(?:에|로|에서|가)?\s*(?:도착|입고|들어|받))"
    r"(?![^.,。、]{0,12}(?:当社|弊社|当店|倉庫|センター)(?:の倉庫)?(?:に|へ)(?:到着|届))"
)
"""Not a return arriving: "반품 상품이 창고에 도착한 후", "返品が当社に到着後" are when, not what."""

_TOPICS: list[tuple[Topic, re.Pattern[str]]] = [
    (
        Topic.RETURN_SHIPPING,
        any_of(
            r"return (?:shipping|postage|delivery|courier|fee)",
            r"round[- ]trip(?: shipping| postage| delivery)?",
            rf"왕복\s*(?:{PARCEL_FEE_KO}|운송비|비용)?",
            rf"往復(?:の)?(?:{PARCEL_FEE_JA})?",
            rf"(?:반품|반송)\s*(?:{PARCEL_FEE_KO}|비용|운송비|수수료)",
            r"반품비|반송비|반송료",
            rf"返品(?:の)?(?:{PARCEL_FEE_JA}|費用|手数料)",
            r"返送料",
        ),
    ),
    (
        Topic.EXCHANGE_SHIPPING,
        any_of(
            r"exchange (?:shipping|postage|delivery|courier|fee)",
            rf"(?:교환|교체)\s*(?:{PARCEL_FEE_KO}|비용|수수료)",
            rf"交換(?:の)?(?:{PARCEL_FEE_JA}|費用|手数料)",
        ),
    ),
    (
        Topic.REMOTE,
        any_of(
            r"\bjeju\b",
            r"\bremote\b",
            r"\bislands?\b",
            r"\bsurcharge\b",
            r"\b(?:extra|additional) (?:shipping|postage|delivery)",
            r"제주",
            r"도서\s*(?:산간|지역|지방)|산간\s*(?:지역|지방)|섬\s*지역",
            rf"추가\s*(?:{PARCEL_FEE_KO})",
            r"済州",
            r"離島",
            rf"追加(?:の)?(?:{PARCEL_FEE_JA})",
        ),
    ),
    (
        Topic.SHIPPING,
        any_of(
            r"\bshipping\b",
            r"\bpostage\b",
            r"delivery (?:fee|charge|cost)|\bfree delivery\b",
            rf"{PARCEL_FEE_KO}|운송비|무료\s*배송|배송\s*무료",
            PARCEL_FEE_JA,
        ),
    ),
    (
        Topic.WRAPPING,
        any_of(
            r"\bwrap",
            r"선물\s*포장|포장비|포장\s*(?:비용|요금|서비스)|기프트|래핑|랩핑",
            # wrapping done for the customer, not the item's own packaging ("원래 포장")
            r"(?:각각|따로|개별|하나씩|한\s*개씩)\s*포장|포장(?:하시면|하면|하시려면|하려면|해\s*드|하실|을\s*원하시)",
            r"ラッピング|ギフト|包装(?:料|代|サービス)|包装(?:して|いたし|をご希望)",
        ),
    ),
    (
        Topic.DAMAGE,
        any_of(
            # the photo it is reported with: "just get a photo to us within 48 hours"
            r"damag|\bbroken\b|\bcrack|shatter|\bphotos?\b|\bpictures?\b",
            r"파손|깨(?:진|져|졌|지)|부서(?:진|져|졌)|사진",
            r"破損|壊れ|割れ|写真|画像",
        ),
    ),
    (
        Topic.RETURN,
        any_of(
            r"\breturns?\b(?!\s+(?:reach(?:es|ing)|arriv(?:es|ing)|lands|landing|is received|being received"
            r"|gets|getting|comes|coming|is back))",
            r"반품" + _RETURN_ARRIVES,
            r"返品" + _RETURN_ARRIVES,
        ),
    ),
    (Topic.EXCHANGE, any_of(r"exchang", r"\bswap", r"교환|교체", r"交換|取り?替")),
    (Topic.REFUND, any_of(r"refund", r"환불|환급", r"返金|払い?戻")),
    (Topic.CANCELLATION, any_of(r"cancel", r"취소", r"キャンセル|取り?消")),
    (
        Topic.MEMBERSHIP,
        any_of(r"\bgold\b|\bmembers?\b|membership", r"골드|회원|멤버", r"ゴールド|会員|メンバー"),
    ),
]


_JOINED = {Topic.RETURN_SHIPPING: Topic.RETURN, Topic.EXCHANGE_SHIPPING: Topic.EXCHANGE}
"""A fee of a policy, and the policy it is part of: "반품 시 배송비" is the return shipping, and
"returns cost 6,000원" is true of it."""
WEAK = frozenset({Topic.SHIPPING})
"""Named for any fee of a parcel ("단순 변심이면 배송비 6,000원" after a sentence on exchanges,
"오가는 택배비"): it confirms a number the shipping fee has, and condemns none."""
AFTER_REACH = 12
"""Characters after a number where English may name its subject ("6,000 won wrapping")."""
_PHOTO = re.compile(r"photos?|pictures?|사진|写真|画像", re.IGNORECASE)
_CLOSING = re.compile(r"[)）]")
_OPENING = re.compile(r"[(（]")
_CONDITION = re.compile(r"(?:으)?면(?:\s|$)|경우|ば|たら|なら|場合")
_WITHIN = re.compile(
    r"\s?(?:以内に|までに|以内で|(?:ほど|程度|くらい|ぐらい)で|이내에|이내로|안에|내로|내에|(?:以内|이내)$)[、,]?\s?"
)
"""A time limit of what follows: "3営業日以内に、元のお支払い方法へ返金いたします", or its clause's end
("3営業日以内、つまり…")."""
_ARRIVES_WITHIN = re.compile(
    r"\s?(?:이내에|이내로|안에|내로|내에|(?:이)?면|정도면|만에|以内に|までに|ほどで|程度で|くらいで|ぐらいで|で)[、,]?\s?"
    r"(?:도착|배송|받아|받으|お届け|届|到着)"
)
"""A length of time a parcel arrives in: "1~2일 안에 도착해요", "1〜2日ほどでお届け"."""
_RESTATED = re.compile(r"[、,\s]*(?:つまり|すなわち|즉|다시 말해)[^、,。.]*?(?:までに|까지)[、,]?\s?")
"""The limit said again as a date before what is done within it: "3営業日以内、つまり12月7日（月曜日）
までに元のお支払い方法へご返金いたします"."""
DONE_WITHIN_REACH = 12
"""Characters after a Korean or Japanese time limit where what is done within it is named."""


_AMOUNT = re.compile(r"[\d.,]+\s*(?:만|천)?\s*(?:원|円|ウォン)")
"""An amount with its Korean or Japanese currency, which an English sentence may write too."""


_AGAINST = re.compile(r"\w*\s*")
"""What may stand between a word and the bracket written against it: the rest of the word, blanks."""


def _mentions(text: str) -> list[tuple[int, int, Topic]]:
    """Where `text` names each topic, the most specific names read first and blanked out."""
    found: list[tuple[int, int, Topic]] = []
    for topic, pattern in _TOPICS:
        for match in pattern.finditer(text):
            found.append((match.start(), match.end(), topic))
        text = pattern.sub(lambda match: " " * len(match.group()), text)
    return sorted(found)


def _joined(found: set[Topic]) -> set[Topic]:
    for fee, policy in _JOINED.items():
        if {policy, Topic.SHIPPING} <= found:
            found = (found - {policy, Topic.SHIPPING}) | {fee}
    return found


def topics(text: str) -> frozenset[Topic]:
    """Every topic `text` names; a policy named with the shipping fee is that policy's shipping
    ("반품 시 배송비")."""
    return frozenset(_joined({topic for _, _, topic in _mentions(text)}))


def theme(clause: str, start: int, end: int, *, earlier: str = "", later: str = "") -> frozenset[Topic]:
    """What the number at `clause[start:end]` is said of: the topic named last before it (Korean and
    Japanese name it first: "교환은 ... 48시간"), or in English the nearer of that and one named just
    after it ("6,000 won wrapping and 3,000 won shipping"), else in Korean and Japanese the one named
    last in `earlier` (its sentence's clauses before it: "破損のご連絡は、お届けから7日以内"), unless
    the number is a time limit of what its sentence names right after it (`later`: the clauses after
    its own): "返品でも、商品が倉庫に到着してから3営業日以内に、元のお支払い方法へ返金いたします" is the
    refund's; the shipping fee after a policy named before it, in the clause or in `earlier` ("お客様
    都合の交換の場合、送料は..."), is that policy's shipping."""
    mentions = _mentions(clause)
    before = [m for m in mentions if m[1] <= start]
    after = [m for m in mentions if m[0] >= end and m[0] - end <= AFTER_REACH]
    opened = max(clause.rfind("(", 0, start), clause.rfind("（", 0, start))
    if opened != -1 and not _CLOSING.search(clause, opened, start):
        # a number in brackets is said of what the brackets name ("send a photo within 48 hours
        # (the 7-day window is for normal returns)"), or of the word they are written against
        # ("Exchanges (within 48 hours)"): only its own ending and blanks between it and the bracket
        closing = _CLOSING.search(clause, end)
        closed = closing.start() if closing else len(clause)
        before = [m for m in before if _AGAINST.fullmatch(clause[m[1] : opened])]
        after = [m for m in mentions if m[0] >= end and m[1] <= closed]
    else:  # nor is a number before brackets said of what they name: "within 7 days (refunds take...)"
        after = [m for m in after if not _OPENING.search(clause, end, m[0])]
    nearest = before[-1] if before else None
    english = not CJK.search(_AMOUNT.sub(" ", clause))
    if after and english and (nearest is None or after[0][0] - end < start - nearest[1]):
        nearest = after[0]
    photo = nearest is not None and _PHOTO.fullmatch(clause, nearest[0], nearest[1])
    if nearest is not None and photo:
        # a photo is the damage report's only where nothing else is named before it: "반품 시 사진과
        # 함께 7일 이내" is the return's 7 days
        others = [m for m in before if m[2] not in (Topic.DAMAGE, Topic.SHIPPING) and m[1] <= nearest[0]]
        nearest = others[-1] if others else nearest
    if (
        nearest is not None
        and not english
        and _COUNTED_FROM.search(clause, nearest[1], start)
        and not _TOPIC_MARKED.match(clause, nearest[1])  # "반품은 수령 후 7일": the return's 7 days
    ):
        # the topic names the event the limit is counted from, not what is done within it: "반품
        # 상품이 도착한 후 3영업일 이내에 환불됩니다" is the refund's
        done = _done_within(clause, end, later)
        if done:
            return done
        if _ARRIVES_WITHIN.match(clause, end):
            # "교환 상품은 발송 후 1~2일 안에 도착해요": the parcel's delivery, no policy's
            return frozenset()
    if nearest is None:
        # a Korean or Japanese clause naming nothing goes on about its sentence's topic ("破損のご
        # 連絡は、お届けから7日以内"); an English one names its own, often after the number ("within
        # 48 hours (the 7-day window is for normal returns)")
        if english:
            return frozenset()
        return _done_within(clause, end, later) or (
            theme(earlier, len(earlier), len(earlier)) if earlier else frozenset()
        )
    if nearest[2] is Topic.SHIPPING:
        named = {topic for _, stop, topic in before if stop <= nearest[0]} | topics(earlier)
        policies = {topic for topic in named if topic in _JOINED.values()}
        return frozenset(_joined({Topic.SHIPPING, *policies}))
    return frozenset({nearest[2]})


_TOPIC_MARKED = re.compile(r"\s?(?:은|는|は)(?![가-힣ぁ-ん])")
"""A topic marked as what its clause is about ("반품은", "返品は"), not the event a limit runs from."""
_COUNTED_FROM = re.compile(r"(?:후|뒤|나서|하고|[하되시]면|부터|[었았했]으니(?:까)?|から|以降|後)\s*$")
"""The end of the event a time limit is counted from: "반품 상품이 도착한 후 3영업일", "창고에
도착했으니 3영업일"."""


def _done_within(clause: str, end: int, later: str) -> frozenset[Topic]:
    """What a Korean or Japanese time limit ending at `end` says is done within it, named right
    after it ("3営業日以内に、元のお支払い方法へ返金いたします"); empty if none is."""
    limit = _WITHIN.match(clause, end)
    if not limit:
        return frozenset()
    rest = f"{clause[limit.end() :]}、{later}"
    restated = _RESTATED.match(rest)
    rest = rest[restated.end() :] if restated else rest
    condition = _CONDITION.search(rest)  # "48시간 안에 알려 주시면 환불": telling, not the refund
    rest = rest[: condition.start()] if condition else rest
    done = [m for m in _mentions(rest) if m[0] <= DONE_WITHIN_REACH and m[2] is not Topic.SHIPPING]
    return frozenset({done[0][2]}) if done else frozenset()


def named_before(text: str, before: int) -> int:
    """Where the last topic named in `text[:before]` ends (-1: none is)."""
    return max((stop for _, stop, _ in _mentions(text) if stop <= before), default=-1)


TITLE = re.compile(r"^\s*(?:\d+[.)]\s*)?([^:：\n]{1,40})[:：]")
"""A line's title: "3. Returns:", "Shipping fee:"."""


def clauses_about(text: str, split: re.Pattern[str]) -> Iterator[tuple[str, frozenset[Topic]]]:
    """Each clause of `text` (`split` within each line) with the policies it names, else those its
    line's title names ("3. Returns: within 7 days ... For a change of mind, ..." is all returns)."""
    for line in text.splitlines():
        title = TITLE.match(line)
        about = topics(title.group(1)) if title else frozenset()
        for clause in split.split(line):
            yield clause, topics(clause) or about


def about_the_same(
    stating: list[_T], about: Callable[[_T], frozenset[Topic]], named: frozenset[Topic]
) -> list[_T]:
    """Those of `stating` (source clauses stating a number) about a policy of `named` (the policies a
    reply's clause names), where any is: the returns' 7 days, not the exchanges'; else all of them."""
    same = [item for item in stating if named and covers(about(item), named)]
    return same or stating


def covers(named: frozenset[Topic], about: frozenset[Topic]) -> bool:
    """Whether a source clause naming `named` is about what a reply names (`about`): a topic in
    common, or a policy whose fee the source states."""
    return bool(named & about) or any(fee in named and policy in about for fee, policy in _JOINED.items())
