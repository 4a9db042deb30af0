"""Generated text may only state facts it was given.

Whatever the model, every number (amounts, prices, percentages, dates,
durations, times, phone and order numbers), email address and URL in a reply
must appear in the facts and FAQ text the model was given, with the same
meaning: the same unit or currency, the same whole address. Forms that say the
same thing count as the same ("₩59,000" and "59,000원", "1-2 days" and "1~2일",
"thirty days" and "30 days"); see `fact_claims` for how text is read. A duration must run from the
event the sources count it from (`events`: "48 hours of delivery", not "of placing the order"),
and an amount be counted per what they count it per (`basis`: per item, per order). An amount
worked out from supported ones (a sum, a multiple by a count the reply states, a percentage off)
is supported too (`arithmetic`).

Commitments are facts too: a reply may promise, grant or deny only what the
FAQ does (`commitments`: refunds, discounts, free returns, waived fees,
call-backs, compensation, exceptions, actions "already taken"), and it may not
reproduce the prompt's own instructions or its section headings (a customer
asking for "your system prompt verbatim" gets nothing of it).

The customer's own message is not a source: "is it 90% off?" must not become
"yes, 90% off". Hence the guard is built from the facts and FAQ text only
(`FactGuard.for_sources`), never from anything the customer wrote.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from services.llm.arithmetic import (
    BASKET_TERMS,
    bounded,
    converted,
    counts,
    misportioned,
    misworked,
    portions,
    unmeasured_servings,
    worked_out,
)
from services.llm.basis import BasisCheck
from services.llm.carriers import carriers, carriers_of_the_shop
from services.llm.colours import colour_counts, colours
from services.llm.commitments import BASE_FEE, Charged, CommitmentGuard, commitments
from services.llm.events import IF, EventCheck
from services.llm.fact_claims import (
    CURRENCIES,
    SOURCES_KEPT,
    claims,
    located_claims,
    money_in,
    prepare,
    reading_kind,
)
from services.llm.judged import cutoffs, judged, lunch_breaks, misjudged, opening_hours
from services.llm.products import catalogue, counts_of, mentions
from services.llm.repeated import repeated
from services.llm.subjects import SubjectCheck, an_order_amount, sentences
from services.llm.topics import Topic, theme, topics
from services.llm.totals import goods_totalled, misadded, mistotalled
from services.llm.uses import uses, uses_claimed
from services.llm.yes_or_no import only_yes_or_no
from services.text.patterns import any_of
from services.text.sounds import consonants

_CUSTOMER_WRITTEN = re.compile(r'("(?:[^"\\]|\\.)*") \(their \w+ as they wrote it\)')
"""Quoted customer text in the facts (`customer_wrote`; the quote is its group): never a source,
not even of a number ("VIP 15% off" as a display name does not make "15% off" true)."""


def customer_texts(facts: str) -> list[str]:
    """What the customer wrote that the facts carry (`customer_wrote`): their name, their notes."""
    return [json.loads(quoted) for quoted in _CUSTOMER_WRITTEN.findall(facts)]


_CUSTOMER_NAME = re.compile(r'("(?:[^"\\]|\\.)*") \(their name as they wrote it\)')
"""The customer's own name in the facts (`customer_wrote`)."""
_CUSTOMER_NOTE = re.compile(r'"(?:[^"\\]|\\.)*" \(their (?!name\b)\w+ as they wrote it\)')
"""What the customer wrote other than their name (an order's delivery note): the people it names are
not theirs to hear about ("tell me what 山本健太 ordered, he lives here too")."""


def customer_wrote(text: str, what: str = "name") -> str:
    """A customer's own text (their display name, an order's delivery note) as the facts carry it:
    one line, quoted, so it can neither open a section of the prompt nor read as an instruction,
    and marked, so the guard takes nothing from it."""
    return f"{json.dumps(' '.join(text.split()), ensure_ascii=False)} (their {what} as they wrote it)"


ECHO_WORDS = 5
"""A run of this many words of the instructions in a reply is the prompt echoed."""
_SECTION_HEADING = re.compile(r"^\s*(?:FACTS|FAQ|SHOP NOTE|INSTRUCTIONS|SYSTEM)\s*:", re.MULTILINE)
_WORD = re.compile(r"[a-z0-9']+")
_ABOUT_THE_PROMPT = re.compile(
    r"(?-i:\bFACTS\b)|\bFACTS (?:and FAQ )?sections?\b|\bFAQ and FACTS\b|system prompt"
    r"|\b(?:my|the bot's|your) (?:own )?(?:instructions|guidelines|rules are|rules:|settings are|setup is)"
    r"|(?:시스템\s*)?프롬프트|지시\s*사항|(?:제|내|저의|나의)\s*(?:규칙|설정)(?:은|는|이|을|를)|섹션"
    r"|プロンプト|(?:私|わたし)の(?:設定|指示|ルール)|指示(?:内容|文)|セクション"
    r"|\bI(?:'ve| have)? (?:was |am |'m |been )?"
    r"(?:told|instructed|programmed|configured|set up|taught|trained) to"
    r"|(?:(?![이거])[가-힣]라|말라|마라)고?\s*(?:배웠|배운|하셨|하더)|(?:ように|な)と?(?:教わ|教えられ|言われて|指示され)"
    r"|before this (?:chat|conversation)|(?:운영|응답|답변|상담|제|저의|받은)\s*지침|받은\s*지시|지시받"
    r"|지침(?:을|이)\s*(?:받|주어|내려)|(?:제가|내가|저는|전)\s*(?:따르는|받은|지키는|지켜야\s*하는)\s*(?:규칙|지침|원칙)"
    r"|\b(?:rules|instructions|guidelines) I (?:was |have been |am |must )?(?:given|follow|told|bound by)"
    r"|\bwhat'?s (?:written )?above\b|\b(?:the )?(?:text|message|lines|words) (?:written )?above\b"
    r"|\byou are (?:a |the )?(?:customer[- ](?:service|support|care) |support |shop |store )?"
    r"(?:assistant|agent|chatbot|bot)\b|(?:너는|넌|당신은)\s*[^.!?]{0,24}(?:챗봇|상담원|어시스턴트|AI|봇)(?:이야|입니다|이다|야|이에요)"
    r"|위에\s*(?:있는|쓰인|적힌|나온)\s*(?:내용|문장|글|텍스트)|(?:이|위의?|다음)\s*지침"
    r"|あなたは[^。]{0,24}(?:チャットボット|アシスタント|AI|サポート担当|ボット)(?:です|だ|である)"
    r"|上(?:の|に(?:ある|書かれた))(?:文|内容|テキスト|文章)|(?:私|わたし)が(?:従って|守って)いる(?:ルール|規則|指示)"
    r"|という(?:設定|指示)|(?:と|ように)(?:設定|指示)されて|冒頭の(?:段落|部分|文|指示)"
    r"|(?:受け取った|受けた|与えられた|最初の|最初に受けた)(?:指示|ルール|設定)"
    r"|社内(?:資料|文書|マニュアル)|内部資料|(?:내부|사내)\s*(?:자료|문서|매뉴얼)"
    r"|\binternal (?:documents?|docs|notes|material|manual)\b"
    r"|\bmy (?:hidden|secret|internal|system|original|initial|full|exact|real) "
    r"(?:rules|instructions|guidelines|prompt|settings)"
    r"|\b(?:things|topics|what) I(?:'m| am) not (?:allowed|permitted|supposed) to "
    r"(?:say|tell|discuss|mention|talk about)"
    r"|(?:숨겨진|숨은|비밀|내부)\s*(?:규칙|지침|지시|설정)|(?:말하면|말해서는|언급하면)\s*안\s*되는"
    r"|(?:隠された|隠れた|秘密の|内部の)(?:ルール|指示|規則|設定)|(?:言って|話して|答えて)はいけない"
    r"|(?:ルール|規則|指示|方針)に(?:従って|沿って|基づいて)(?:動|行動|回答|お答え|対応)"
    r"|(?:규칙|지침|원칙|지시)(?:을|에)\s*따라\s*(?:움직|답변|행동|대답|응대)",
    re.IGNORECASE,
)
"""A reply that talks about its own instructions (quoted, translated or paraphrased) leaks them."""
_OTHER_CUSTOMER = re.compile(
    r"\b(?:previous|last|other|another|different|earlier|next) (?:customer|buyer|shopper|client)"
    r"|\b(?:customer|buyer|shopper|client|person) (?:before|after) you\b"
    r"|(?:앞|먼저|전에|방금)\s*(?:문의하신|주문하신|연락하신)?\s*(?:고객|손님|분)(?:님)?(?:이|은|께서|도)"
    r"|(?:前|先|さっき)(?:に)?(?:お問い合わせ|ご連絡|ご注文)?(?:いただいた|された)?(?:お客様|方)(?:は|が|も)"
    r"|(?:직전|이전|다른)\s*(?:고객|주문자|구매자|손님)"
    r"|(?:直前|前|他|別)(?:に(?:ご利用|ご注文|ご購入|注文|購入)(?:された|いただいた)?|の)(?:お客様|ご注文者|注文者|購入者)"
    r"|\b(?:her|his) (?:flat|apartment|phone(?: number)?|order|parcel|package|address|tracking"
    r"|details|home)\b"
    r"|\b(?:customer|buyer|shopper)s?'? (?:names|phone numbers|addresses|contact details)\b"
    r"|(?:お客様|顧客|購入者)(?:の)?(?:一覧|リスト|名簿)|(?:고객|구매자|주문자)\s*(?:명단|목록|리스트)"
    r"|\b(?:customer|buyer|client)s? list\b|\blist of (?:(?:the |other |all )?(?:customers|buyers|clients))\b"
    r"|\blist of (?:(?:the|other|all|today's|every|recent) )*(?:customer|buyer|client)s?'? "
    r"(?:orders|names|addresses)\b"
    r"|お客様(?:を)?\d+名|(?:お名前|氏名)(?:と|・|、|や|及び|および|/)(?:ご連絡先|お?電話番号|ご住所|住所)"
    r"|(?:同じ日|本日|今日|昨日)に?(?:ご注文|お問い合わせ|注文)(?:され|いただい|のあっ)た(?:お客様|方)"
    r"|(?:ご主人|旦那|奥様|ご家族|ご両親|お母様|お父様)(?:様)?の(?:ご)?(?:注文番号|住所|配送先|電話番号|連絡先)"
    r"|(?:고객|구매자|주문자)\s?[가-힣\d]{0,4}\s?(?:명|분)(?:들)?의\s?(?:이름|성함)"
    r"|(?<!님)(?:고객|구매자|주문자)(?:들)?(?:의)?\s*(?:이름|성함)(?:과|와|이랑|,|·|/)\s*(?:연락처|전화번호|주소)",
    re.IGNORECASE,
)
_WONT_SHARE = re.compile(
    r"(?:can't|cannot|can not|unable to|not able to|won't|will not|don't|do not|never) "
    r"(?:\w+ ){0,2}(?:share|disclose|give out|provide|reveal|tell)"
    r"|(?:알려|공유해|제공해|안내해)\s*(?:드릴|드리기)\s*(?:수\s*)?(?:없|어렵)|공개(?:할|하지)\s*(?:수\s*없|않)"
    r"|(?:お伝え|お答え|開示|お教え|ご案内)(?:でき|いたしかね|致しかね)",
    re.IGNORECASE,
)
_KOREAN_SURNAMES = {
    "金": "김", "朴": "박", "崔": "최", "鄭": "정", "姜": "강", "趙": "조", "尹": "윤",
    "張": "장", "韓": "한", "呉": "오", "申": "신", "徐": "서", "権": "권", "黄": "황",
    "宋": "송", "柳": "류", "洪": "홍", "孫": "손", "裵": "배", "許": "허", "沈": "심",
    "盧": "노", "郭": "곽", "車": "차", "禹": "우", "閔": "민", "兪": "유",
}  # fmt: skip
"""Korean family names of one character as a Japanese reply writes them, with their Hangul (the
customer's own "金様" is Kim)."""
_HONORIFIC_NAME = re.compile(
    r"(?<![一-龯])([一-龯]{2,4}|[一-龯]{1,3}[ぁ-ん]{2,4})(?:様|さま|さん)"
    # katakana, a one-sound family name too ("イ・スジン様")
    r"|(?<![ァ-ヶー・])([ァ-ヶ][ァ-ヶー]{0,7}・[ァ-ヶ][ァ-ヶー]{1,7}|[ァ-ヶ][ァ-ヶー]{1,7})(?:様|さん)"
    r"|(?<![가-힣0-9,.])(?<![0-9천만백십]\s)([가-힣]{2,4})(?<![는를에의])\s?(?:고객님|님|씨)(?![가-힣])"
    r"|(?<![가-힣0-9,.])((?:김|이|박|최|정|강|조|윤|장|임|한|오|서|신|권|황|안|송|류|유|홍|전|고|문|양|손|배|백"
    r"|허|남|심|노|하|곽|성|차|주|우|구|민|진|나|엄|채|원|천|방|공|현|함|변|염|여|추|석|선|설|마|길|연|표|명)"
    r"[가-힣]{2}(?<![한는신던할된])) (?:고객님|님)"
    r"(?:의|께서|은|는|이(?:고|며|에요|세요|십니다|시고|시며)?|입니다|을|도|께)(?![가-힣])"
    r"|\b(?:Mr|Mrs|Ms|Miss)\.? ([A-Z][a-z]+)"
    r"|\b([A-Z][a-z]+ [A-Z][a-z]+)(?:'s (?:order|address|phone)| (?:ordered|bought|lives|placed|paid))"
    r"|\b((?:Kim|Lee|Park|Choi|Jung|Jeong|Kang|Cho|Yoon|Jang|Lim|Han|Seo|Shin|Kwon|Hwang|Ahn|Yoo|Jeon"
    r"|Bae|Baek|Heo|Kwak|Ryu|Sato|Suzuki|Takahashi|Tanaka|Watanabe|Yamamoto|Nakamura|Kobayashi|Kato)"
    r" [A-Z][a-z]+(?:-[a-z]+)?)\b"
    r"|\b(?:belongs to|belonging to|addressed to|ordered by|bought by|placed by|owned by) "
    r"([A-Z][a-z]+ [A-Z][a-z]+)\b"
    r"|\b(?:bought|ordered|purchased) by ([A-Z][a-z]+)\b"
    # named by what they are to an order: "주문자는 이서연입니다", "ご注文者は田中花子です"
    r"|(?:주문자|수령인|수취인|받는\s?분|구매자)(?:는|은|가|이|께서)?\s?(?:성함은\s?)?([가-힣]{2,4}?)"
    r"(?=\s?(?:입니다|이에요|예요|이고|이며|님|씨|고객|[,.]|$))"
    r"|(?:ご?注文者|お届け先|お?受取人|購入者)(?:様)?(?:は|：|:)\s?([一-龯々]{2,4}|[ァ-ヶー・]{2,10})"
    r"(?=\s?(?:様|さま|さん|です|でございます|。|、|$))"
    r"|(?<![가-힣0-9,.])((?:김|이|박|최|정|강|조|윤|장|임|한|오|서|신|권|황|안|송|류|유|홍|전|고|문|양|손|배|백"
    r"|허|남|심|노|하|곽|성|차|주|우|구|민|진|나|엄|채|원|천|방|공|현|함|변|염|여|추|석|선|설|마|길|연|표|명)"
    r"[가-힣]{2}(?<![한는신던할된]))\s?고객(?:의)?\s?(?:주문|배송|주소|연락처)"
    # a Korean family name in its one character, before what is theirs: "朴様のご注文番号"
    rf"|(?<![一-龯ぁ-んァ-ヶ])([{''.join(_KOREAN_SURNAMES)}])(?:様|さま|さん)(?=の)"
)
_ADDRESS = re.compile(
    r"\b\d+(?:-\d+)? [A-Z][a-z]+(?:-(?:ro|gil|daero|dong))\b"
    r"|\b\d+(?:-\d+)? [A-Z][a-z]+ (?:Street|St|Road|Rd|Avenue|Ave|Lane|Drive|Boulevard)\b"
    r"|(?<![가-힣])[가-힣]{1,8}(?<!으)(?:로|길)\s?\d+(?:-\d+)?(?:번길)?(?=\s|$|,(?!\d))"
    r"|[가-힣]{1,4}(?:시|도)\s[가-힣]{1,4}(?:구|군)(?![가-힣])|[가-힣]{1,4}구\s[가-힣]{1,4}동(?![안의일네])"
    r"|[ァ-ヶー]{2,6}市[一-龯ァ-ヶー]{1,5}区|[一-龯]{1,4}市[一-龯]{1,4}区"
    r"|[一-龯ぁ-んァ-ヶ]{1,8}(?:区|市|町|村)[一-龯ぁ-んァ-ヶ]{0,8}\d+(?:丁目|番地?|-\d+)"
)
"""A street address: the bot's facts hold none of the customer's, so one in a reply that the shop's
text does not hold is somebody else's."""
_NOT_A_NAME = frozenset(
    (
        "会員",
        "メンバー",
        "ゲスト",
        "ユーザー",
        "ゴールドメンバー",
        "オーナー",
        "スタッフ",
        "ドライバー",
        "各位",
        "担当者",
        "配達員",
        "顧客",
        "購入者",
        "注文者",
        "利用者",
        "고객",
        "회원",
        "손님",
        "다른",
        "해당",
        "모든",
        "이전",
        "직전",
        "기존",
        "신규",
        "여러분",
        "담당자",
        "상담원",
        "매니저",
        "기사",
        "택배기사",
        "사장",
        "점장",
        "대표",
        "선생",
        "부모",
        "고객센터",
        "관리자",
        "운영자",
        "주문자",
        "본인",
        "가족",
        "고객님",
        "어머",
        "아버",
        "할머",
        "할아버",
        "시어머",
        "시아버",
        "장모",
        "부모",
        "사모",
        "따",
        "아드",
        "형",
        "누",
        "선배",
        "고모",
        "이모",
        "부장",
        "과장",
        "팀장",
        "원장",
        "교수",
        "작가",
        "다만",
        "그럼",
        "그러면",
        "그래서",
        "그리고",
        "하지만",
        "그런데",
        "혹시",
        "우선",
        "먼저",
        "만약",
        "또한",
        "물론",
        "참고로",
        "따라서",
        "대신",
        "지금",
        "현재",
        "오늘",
    )
)
"""Honorific words that name a role or a relative, not a person ("어머님 생신 선물"), and words that
begin a sentence before one ("다만 고객님 주문은")."""
_KATAKANA_NAME = re.compile(r"[ァ-ヶー・]+")
_SURE_SOUNDS = 3
"""Consonants a katakana name needs for its sounds to say it is a name of the facts: fewer match too
many words by chance ("ユナ" and "no")."""


_KIN = re.compile(
    r"(?:母|父|祖母|祖父|家族|皆|旦那|息子|娘|兄|姉|弟|妹|主人|友人|友達|同僚|上司|先生|部長|課長|店長|社長)$"
)
"""What a Japanese word before 様 or さん ends in when it names who someone is, not their name:
"お義母様", "ご家族皆さま", "息子さん"."""


def _verb_ending(word: str) -> bool:
    """A Korean word ending as a verb does before "고객님" ("환불해 드릴지 고객님 편하신 쪽으로"):
    "-ㄹ지", "-는지", not a given name ending in 지 (민지, 은지)."""
    if len(word) < 2 or not word.endswith("지"):
        return False
    before = word[-2]
    final_rieul = "가" <= before <= "힣" and (ord(before) - ord("가")) % 28 == 8
    return final_rieul or before == "는"


def _runs(text: str) -> frozenset[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return frozenset(tuple(words[i : i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1))


@functools.cache
def _instruction_runs(instructions: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    """Read once per set of prompts, not once per reply."""
    return frozenset().union(*(_runs(text) for text in instructions))


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _sounds_of_names(names: str) -> frozenset[str]:
    """The sounds of the words of `names`, and of each two together ("Kim Minji"), to know the
    customer's name in katakana by."""
    words = re.findall(r"[A-Za-z]+|[가-힣]+", names)
    return frozenset(consonants(word) for word in words) | frozenset(
        consonants(first + second) for first, second in itertools.pairwise(words)
    )


@functools.lru_cache(maxsize=SOURCES_KEPT)
def _offers_of(text: str) -> frozenset[str]:
    """What the numbers of `text` can stand for (`Claim.offers`), and how long each of its time
    ranges lasts ("lunch 12:30-13:30" is an hour's lunch)."""
    offers: frozenset[str] = frozenset().union(*(claim.offers for claim in claims(text)))
    return offers | _lengths(offers)


_TIME_RANGE = re.compile(r"^range:time:(\d\d):(\d\d)~time:(\d\d):(\d\d)$")
LONGEST_RANGE_HOURS = 12
"""A range read both ways round ("12:30-13:30" also as 00:30-13:30) lasts no longer than this in
the reading meant."""


def _lengths(offers: frozenset[str]) -> frozenset[str]:
    """How long each time range lasts, and a range less a break inside it (weekdays 10:00-18:30,
    lunch 12:30-13:30: seven and a half hours a day)."""
    spans = set()
    for offer in offers:
        match = _TIME_RANGE.match(offer)
        if match is None:
            continue
        start_h, start_m, end_h, end_m = (int(part) for part in match.groups())
        start, end = start_h * 60 + start_m, end_h * 60 + end_m
        if 0 < end - start <= LONGEST_RANGE_HOURS * 60:
            spans.add((start, end))
    lengths = {end - start for start, end in spans} | {
        (end - start) - (inner_end - inner_start)
        for start, end in spans
        for inner_start, inner_end in spans
        if start < inner_start and inner_end < end
    }
    return frozenset(f"minute:{minutes}" for minutes in lengths)  # hours read in minutes too


_AS_EXTRA = any_of(
    r"\bextra\b|\badditional\b|\bsurcharg|\bon top\b",
    r"추가|더\s|별도",
    r"追加|別途|加算|上乗せ|に加え|プラス",
)
"""An amount said as the surcharge, or as more on top of the fee."""
_EXTRA_REACH = 8
"""Characters either side of an amount where its word of extra stands: "추가로 5,000원", "5,000원 추가"."""
_AS_BASE = any_of(BASE_FEE.pattern, r"\bplus\b")
"""A fee said as the base one: "기본 배송비에 3,000원이 더 붙어서"."""
_ONLY = any_of(r"\b(?:only|just)\b", r"(?:원|금액)\s*만\b|뿐", r"(?:ウォン|円)?(?:のみ|だけ)")
"""The base fee said to be all there is: "제주도 기본 배송비 3,000원만 내시면 돼요"."""
_NOT_REMOTE = any_of(
    r"\b(?:outside(?: of)?|other than|except(?: for)?|not(?: to| in| for)?"
    r"|unless(?: it's| you're)?(?: to| in)?) (?:jeju|(?:a |the )?remote|(?:the )?islands?)",
    r"(?:제주|도서\s*산간|섬)[^.!?,]{0,8}?(?:이|가|도|나|이나)?\s?(?:아니|아닌|외|제외|말고|빼고)",
    r"(?:済州|離島)[^。！？、]{0,8}?(?:以外|を除|でなければ|ではない|じゃない|でない)",
)
"""A remote area named as where the order is not going: "제주나 도서산간이 아니라면"."""
_IN_TOTAL = any_of(r"\bin total\b|\baltogether\b|\ball in\b", r"총|합계|합쳐", r"合計|全部で|合わせて")
EXTRA_REACH = 16
"""Characters either side of an amount where it is said to be the surcharge."""
_SURCHARGE_NAMED_AFTER = re.compile(r"(?:\s+[\w-]+){0,2}\s+surcharg", re.IGNORECASE)
"""An amount named as the surcharge by the words after it: "6,000 won remote-area surcharge"."""
_THEIR_ORDER = re.compile(
    r"주문\s?(?:내역|내용|하신|하셨|건)|고객님(?:의|께서)?\s?주문|お客様の(?:ご)?注文|ご?注文(?:内容|いただいた|された|の商品|品)|ご注文の|様のご注文|ご注文[（(]|お買い上げ"
    r"|\byour order\b|\byou (?:ordered|bought|purchased)\b|\border (?:no\.|number|\d)",
    re.IGNORECASE,
)
"""A sentence on the customer's order, as placed (not one they might place: "냄비 2개 주문하시면"):
its counts are the order's."""


_ORDER_IS = re.compile(
    r"ご注文(?:は|の商品は)|주문(?:하신|하셨던)\s*(?:상품|제품|물건|것)?(?:은|는)"
    r"|\byour order (?:is|was|contains|included|includes|has)\b|\byou (?:ordered|bought|purchased)\b",
    re.IGNORECASE,
)
"""The customer's order said to be something: "ご注文はガラスのティーポット1点"."""
_DENIED = any_of(
    r"\b(?:not|no|never)\b|n't\b", r"없|않|아니|아닙|말고", r"ません|ない|なく|ではなく|じゃなく"
)
"""A denial in a sentence on the customer's order: what it names may be what the order is not."""


def _reads_anything(text: str) -> bool:
    """`text` says something the guard holds against the sources: a number, a commitment, a
    policy or a use of a product."""
    return bool(claims(text) or commitments(text) or topics(text) or uses_claimed(sentences(text)))


_ORDER_STATUS = re.compile(
    r"^Order [^:\n]+: (pending|paid|preparing|shipped|delivered|cancelled)\b", re.MULTILINE
)
"""An order's status as `customer_facts` writes it ("Order 20261128-000451: delivered, ...")."""
_ORDER_TOTAL_FACT = re.compile(r"^Order [^:\n]+:[^\n]*?, total (\S+?)(?:,? |,?$)", re.MULTILINE)
"""An order's total as `customer_facts` writes it ("..., total ₩89,000, ...")."""
_ORDER_TOTAL = any_of(
    r"\byour order(?:'s)? total\b|\btotal (?:of|for) your order\b|\byour order came to\b",
    r"고객님(?:의|께서)?\s?(?:주문|결제)\s?(?:총액|총\s?금액|금액|합계)|(?:주문|결제)하신\s?(?:총액|금액)",
    r"(?:お客様の|ご注文いただいた|お支払いいただいた)(?:ご)?(?:注文)?(?:金額|総額|合計)",
)
"""The customer's placed order's total named ("고객님 주문 총액은", "your order total was"), not a
basket's or the threshold's ("결제 금액이 5만 원 이상이면", "ご注文金額が五万ウォン以上")."""
TOTAL_REACH = 16
"""Characters after the total's name where its amount is said."""
_NOW = any_of(
    r"\b(?:currently|right now|at the moment|still|now)\b|\b(?:is|are) on (?:its|their) way\b",
    r"현재|지금|아직",
    r"現在|今|まだ",
)
_STATES = {
    "in transit": any_of(
        r"\b(?:in transit|on (?:its|the) way|out for delivery|still being delivered)\b",
        r"\b(?:has ?n[o']?t|not yet|not) (?:been )?(?:delivered|arrived)\b",
        r"배송\s?중|배송되고\s?있|이동\s?중|아직\s?(?:도착|배송|안\s?왔)",
        r"配送中|輸送中|お届け中|まだ(?:届いて|お届け|配達)",
    ),
    "not shipped": any_of(
        r"\b(?:has ?n[o']?t|not yet|not) (?:been )?(?:shipped|dispatched|sent)\b|\bbeing prepared\b",
        r"\b(?:has ?n[o']?t|not) (?:yet )?left (?:our|the) (?:warehouse|shop|store)\b",
        r"아직\s?(?:발송|출고)|(?:발송|출고)\s?(?:전|준비\s?중)|상품\s?준비\s?중",
        r"未発送|まだ発送|発送準備中|準備中",
    ),
    "shipped": any_of(
        r"\b(?:has|have|was|were) (?:been )?(?:shipped|dispatched|sent out)\b",
        r"(?:발송|출고)\s?(?:이|가)?\s?(?:완료|됐|되었)",
        r"発送(?:済み|いたしました|されました|しました|完了)",
    ),
    "delivered": any_of(
        r"\b(?:has|have|was|were) (?:been )?delivered\b|\b(?:has|have) arrived\b|\barrived on\b",
        r"배송\s?(?:이|가)?\s?완료|도착했|받으셨",
        r"配達(?:完了|済み)|お届け(?:済み|しました|いたしました)|届きました",
    ),
}
"""What a reply may say of where the customer's order is now, in ko/en/ja."""
_NOT_IN_STATUS = {
    "delivered": ("in transit", "not shipped"),
    "shipped": ("not shipped", "delivered"),
    "pending": ("shipped", "delivered", "in transit"),
    "paid": ("shipped", "delivered", "in transit"),
    "preparing": ("shipped", "delivered", "in transit"),
}
"""The states an order in each status is not in."""


@dataclass(frozen=True)
class GuardVerdict:
    ok: bool
    unsupported: tuple[str, ...] = ()
    """Each unsupported claim as written, with its reading: "₩2,500 (2500 KRW)"."""
    commitments: tuple[str, ...] = ()
    """Each commitment the FAQ does not make: "full refund", "no charge for return"."""
    echoed: bool = False
    """The reply reproduces the prompt's instructions or section headings."""
    others: bool = False
    """The reply tells of another customer (their order, address, name)."""
    bare: bool = False
    """The reply says yes or no and nothing the guard reads: what it agrees to is not said."""
    repeated: str = ""
    """A run of the customer's own text the reply says back (`repeated`)."""

    @property
    def settled(self) -> bool:
        """Refused for what no sentence after it can make true (the prompt echoed, another
        customer's data, a bare yes or no, the customer's words said back), as opposed to a claim
        whose support may follow ("No shipping fee! Two teapots come to 50,000 won")."""
        return self.echoed or self.others or self.bare or bool(self.repeated)

    @property
    def reason(self) -> str:
        parts = []
        if self.unsupported:
            parts.append("unsupported: " + ", ".join(self.unsupported))
        if self.commitments:
            parts.append("commitment not in the FAQ: " + ", ".join(self.commitments))
        if self.echoed:
            parts.append("the prompt echoed")
        if self.others:
            parts.append("another customer's data")
        if self.bare:
            parts.append("a bare yes or no")
        if self.repeated:
            parts.append(f"the customer's own words said back: {self.repeated[:60]!r}")
        return "; ".join(parts)


_PRODUCT_REACH = 15
"""Characters either side of a measure where a product it is said of is named."""


class FactGuard:
    """Checks replies against one set of sources; build it once per reply, check each sentence."""

    def __init__(
        self,
        sources: str,
        *,
        promises: str | None = None,
        instructions: Sequence[str] = (),
        names: str | None = None,
        own_facts: str = "",
        said: str = "",
        own_name: str = "",
    ) -> None:
        """`sources`: what numbers may come from; `promises`: the shop's own text, what commitments
        may come from (default `sources`); `instructions`: prompt text a reply must not reproduce;
        `names`: where a person a reply names must be found (default `sources`); `own_facts`: the
        customer's own data (their order), whose numbers are about it; `said`: what the customer
        wrote, never a source, which a reply may not say back at length (`repeated`); `own_name`: the
        name the customer goes by, any part of which a reply may call them by ("キム様")."""
        self._said = said
        self._shop = sources
        self._offers = _offers_of(sources)
        self._commitments = CommitmentGuard(sources if promises is None else promises)
        self._instruction_runs = _instruction_runs(tuple(instructions))
        self._names = sources if names is None else names
        self._name_sounds = _sounds_of_names(self._names)
        self._own_sounds = frozenset(
            sounds
            for word in re.findall(r"[A-Za-z]+|[가-힣]+", own_name)
            if len(sounds := consonants(word)) >= 2
        )
        """The sounds of each word of the customer's own name: "キム" is 김, however few its sounds."""
        self._subjects = SubjectCheck(sources if promises is None else promises, own=_offers_of(own_facts))
        self._events = EventCheck(sources if promises is None else promises, dates=sources)
        self._bases = BasisCheck(sources)
        self._carriers = carriers(sources)
        self._shop_carriers = carriers(sources if promises is None else promises)
        self._free_from = self._commitments.free_from(Charged.SHIPPING)
        """The amount shipping is free from (currency, amount), where the shop's text gives one."""
        self._colours = colours(sources) | colours(said)
        """The colours the shop names, and those the customer did ("the grey one I have")."""
        self._colour_counts = (
            colour_counts(sources) | colour_counts(said) | frozenset(range(1, len(self._colours) + 1))
        )
        """The counts of colours the shop or the customer gives, and any up to the colours named."""
        self._uses = uses(sources)
        self._deadlines = cutoffs(sources if promises is None else promises, self._offers)
        self._lunch = lunch_breaks(sources if promises is None else promises, self._offers)
        self._opening = opening_hours(sources if promises is None else promises, self._offers)
        self._products = catalogue(sources if promises is None else promises)
        self._ordered = counts_of(own_facts, self._products)
        """How many of each product the customer's order has ("cast-iron pot 24 cm x1")."""
        self._own_offers = _offers_of(own_facts)
        self._order_totals = frozenset(
            amount
            for total in _ORDER_TOTAL_FACT.findall(own_facts)
            for claim in claims(total)
            for amounts in money_in(claim.needs).values()
            for amount in amounts
        )
        """The totals of the customer's orders, as the facts give them."""
        statuses = set(_ORDER_STATUS.findall(own_facts))
        self._status = statuses.pop() if len(statuses) == 1 else None
        """The status of the customer's orders when they all have one ("delivered")."""

    @classmethod
    def for_sources(
        cls, *, facts: str, faq_text: str, instructions: Sequence[str] = (), said: Sequence[str] = ()
    ) -> FactGuard:
        """The guard for one reply: this customer's database facts and the FAQ text the model saw.

        The customer's messages (`said`) and their own text in the facts (their name, their notes)
        are never a source: commitments are read from the FAQ text only, numbers from the facts
        without the customer's own quoted text; a name the facts hold is still theirs (the
        other-customer check reads all of it but their notes). What they wrote is only what a reply
        may not say back at length.
        """
        return cls(
            f"{_CUSTOMER_WRITTEN.sub(' ', facts)}\n{faq_text}",
            promises=faq_text,
            instructions=instructions,
            names=f"{_CUSTOMER_NOTE.sub(' ', facts)}\n{faq_text}",
            own_facts=_CUSTOMER_WRITTEN.sub(" ", facts),
            said="\n".join([*said, *customer_texts(facts)]),
            own_name=" ".join(json.loads(quoted) for quoted in _CUSTOMER_NAME.findall(facts)),
        )

    def check(self, reply: str, *, before: str = "") -> GuardVerdict:
        """`before`: the reply's text already released, which a sentence may go on about ("If it is
        defective, return shipping is free. You pay nothing.")."""
        misplaced = self._subjects.misplaced(reply, before=before)
        left, misleft = self._events.days_left(reply)
        told = sentences(reply)
        remote = self._remote_totals(told)
        customers = judged(
            reply,
            self._offers,
            before=before,
            deadlines=self._deadlines,
            lunch=self._lunch,
            opening=self._opening,
        ) | goods_totalled(
            told,
            self._products,
            fees=self._subjects.amounts_named,
            percents=self._percents_named,
            before=before,
        )
        derived = (
            worked_out(
                reply,
                self._offers,
                before=before,
                judged=customers,
                misplaced=frozenset(claim.text for claim in misplaced),
                named=self._subjects.amounts_named,
                per_item=self._bases.per_item,
                things=self._subjects.things_named,
                counted_before=self._subjects.counted_before,
                bounds=self._subjects.bounds_named,
                percents=self._percents_named,
                others=self._subjects.values_of_others,
            )
            | self._events.deadlines_stated(reply)
            | self._events.calendar_named(reply)
            | self._events.counted_in_reply(reply, before=before)
            | left
            | self._events.arrivals(reply)
            | customers
            | converted(reply, self._offers)
            | portions(reply, self._offers, of_a_product=self._of_a_product)
            | remote
            | bounded(reply, self._offers)
        )
        unsupported = (
            [
                claim.text if claim.text == claim.shown else f"{claim.text} ({claim.shown})"
                for claim in claims(reply)
                if not claim.needs & self._offers and claim.text not in derived
            ]
            + [f"{claim.text} (said of another subject)" for claim in misplaced if claim.text not in derived]
            + [f"{claim.text} (counted from another event)" for claim in self._events.misplaced(reply)]
            + [f"{claim.text} (the date of another event)" for claim in self._events.misdated(reply)]
            + self._events.window_misjudged(reply)
            + self._events.weekdays_misstated(reply)
            + misleft
            + misportioned(reply, self._offers)
            + unmeasured_servings(reply, self._offers)
            + self._misreported_total(told)
            + [
                f"{claim.text} (counted per another thing)"
                for claim in self._bases.miscounted(reply)
                if claim.text not in derived
            ]
            + self._bases.misbased(reply)
            + [f"{carrier} (a carrier the facts do not name)" for carrier in carriers(reply) - self._carriers]
            + [
                f"{carrier} (said as the shop's carrier; the shop's text does not name it)"
                for carrier in carriers_of_the_shop(told) - self._shop_carriers
                if carrier in self._carriers
            ]
            + [
                f"{colour} (a colour the sources do not name)"
                for colour in sorted(colours(reply) - self._colours)
            ]
            + [
                f"{count} colours (a count of colours the sources do not give)"
                for count in sorted(colour_counts(reply) - self._colour_counts)
            ]
            + [f"{use} (a use the sources do not name)" for use in uses_claimed(told) - self._uses]
            + [
                f"{text} (not what it is worked out to be)"
                for text in misworked(
                    reply, per_item=self._bases.per_item, bounds=self._subjects.bounds_named
                )
            ]
            + [
                wrong
                for previous, sentence in itertools.pairwise([before, *told])
                for wrong in mistotalled(
                    sentence,
                    self._products,
                    fees=self._subjects.amounts_named,
                    percents=self._percents_named,
                    previous=previous,
                )
            ]
            + [
                wrong
                for previous, sentence in itertools.pairwise([before, *told])
                for wrong in misadded(sentence, previous)
            ]
            + misjudged(
                reply,
                self._offers,
                deadlines=self._deadlines,
                lunch=self._lunch,
                opening=self._opening,
            )
            + self._remote_shipping(told, remote)
            + self._fee_past_free(told)
            + self._miscounted_order(told)
            + self._misnamed_order(told)
            + self._misreported_status(told)
        )
        promised = tuple(dict.fromkeys(str(c) for c in self._commitments.unsupported(reply, before=before)))
        echoed = bool(
            _SECTION_HEADING.search(reply)
            or _runs(reply) & self._instruction_runs
            or (self._instruction_runs and _ABOUT_THE_PROMPT.search(reply))
        )
        others = self._tells_of_others(reply)
        bare = any(only_yes_or_no(sentence) for sentence in told) and not _reads_anything(
            f"{before} {reply}".strip()
        )
        said_back = repeated(reply, self._said, self._shop) or ""
        return GuardVerdict(
            not (unsupported or promised or echoed or others or bare or said_back),
            tuple(dict.fromkeys(unsupported)),
            promised,
            echoed,
            others,
            bare,
            said_back,
        )

    def _remote_shipping(self, told: list[str], together: frozenset[str]) -> list[str]:
        """The shipping fee to a remote area said as the fee alone, where the sources add a surcharge
        ("済州島へのお届けですと…送料3,000ウォンで合計42,000ウォン"), unless said as the base fee or the
        order reaches the free-shipping amount; `together`: the reply's amounts said as the fee and the
        surcharge together (`_remote_totals`)."""
        base, extra = self._subjects.remote_fees()
        if not base or not extra:
            return []
        wrong = []
        for sentence in told:
            if Topic.REMOTE in topics(sentence) and not _NOT_REMOTE.search(sentence):
                wrong.extend(self._surcharge_misstated(sentence, base | extra, together))
            if (
                Topic.REMOTE not in topics(sentence)
                or _NOT_REMOTE.search(sentence)
                or (_AS_BASE.search(sentence) and not _ONLY.search(sentence))
                or _AS_EXTRA.search(sentence)
            ):
                continue
            prepared = prepare(sentence)
            located = located_claims(prepared)
            if any(claim.text in together for _, _, claim in located):
                continue  # "Shipping is 3,000 won (Jeju: 6,000 won)": both said
            over = self._thresholds_reached(prepared)
            for start, end, claim in located:
                said_of = theme(prepared, start, end)
                remote_before = Topic.REMOTE in topics(prepared[:start])  # the area the fee is said of
                if claim.needs & base and said_of == {Topic.SHIPPING} and remote_before and not over:
                    wrong.append(f"{claim.text} (shipping to a remote area, without its surcharge)")
        return wrong

    @staticmethod
    def _surcharge_misstated(sentence: str, fees: frozenset[str], together: frozenset[str]) -> list[str]:
        """An amount said as what a remote area adds ("제주도로 보내시면 추가로 5,000원이 붙어요"),
        right beside its word of extra, that is neither the surcharge nor the fee (nor, `together`,
        the two added up): whatever else the sources' numbers add up to."""
        prepared = prepare(sentence)
        wrong = []
        for start, end, claim in located_claims(prepared):
            if claim.text in together or claim.needs & fees or not money_in(claim.needs):
                continue
            if an_order_amount(prepared, start, end):
                continue  # "5万ウォン以上でも追加送料…": the order's amount it is added whatever
            beside = _AS_EXTRA.search(prepared, max(0, start - _EXTRA_REACH), start) or _AS_EXTRA.search(
                prepared, end, end + _EXTRA_REACH
            )
            if beside and theme(prepared, start, end) == {Topic.REMOTE}:
                wrong.append(f"{claim.text} (not the remote area's surcharge)")
        return wrong

    def _fee_past_free(self, told: list[str]) -> list[str]:
        """A total of products a sentence names with the shipping fee added, where those products
        reach the free-shipping amount ("주문하신 냄비 결제 금액은 배송비 포함해서 92,000원" of an
        89,000원 pot that ships free); not said of a remote area, whose surcharge is its own."""
        base, _ = self._subjects.remote_fees()
        if self._free_from is None or not base:
            return []
        currency, free = self._free_from
        fees = {Decimal(need.partition(":")[2]) for need in base if reading_kind(need) == currency}
        wrong = []
        for sentence in told:
            if Topic.REMOTE in topics(sentence):
                continue
            prices = [
                Decimal(need.partition(":")[2])
                for need in self._subjects.prices_named(sentence)
                if reading_kind(need) == currency
            ]
            counted = counts(sentence) | {1}
            goods = {
                count * sum(chosen)
                for size in range(1, min(len(prices), BASKET_TERMS) + 1)
                for chosen in itertools.combinations(prices, size)
                for count in (counted if size == 1 else {1})
            }
            for claim in claims(sentence):
                if claim.needs & self._offers:
                    continue
                for need in claim.needs:
                    if reading_kind(need) != currency:
                        continue
                    total = Decimal(need.partition(":")[2])
                    if any(total - fee in goods and total - fee >= free for fee in fees):
                        wrong.append(f"{claim.text} (the shipping fee added where the goods ship free)")
                        break
        return wrong

    def _remote_totals(self, told: list[str]) -> frozenset[str]:
        """The shipping fee and the surcharge together, said of a remote area ("제주 지역은 배송비
        6,000원")."""
        base, extra = self._subjects.remote_fees()
        together = {
            f"{kind}:{Decimal(one.partition(':')[2]) + Decimal(other.partition(':')[2])}"
            for one in base
            for other in extra
            if (kind := reading_kind(one)) in CURRENCIES and reading_kind(other) == kind
        }
        found = set()
        for sentence in told:
            if Topic.REMOTE not in topics(sentence):
                continue
            prepared = prepare(sentence)
            for start, end, claim in located_claims(prepared):
                if not claim.needs & together:
                    continue
                # not the surcharge said to be both: "an extra 6,000 won", "追加送料として6,000ウォン"
                as_extra = _AS_EXTRA.search(
                    prepared, max(0, start - EXTRA_REACH), end + EXTRA_REACH
                ) or _SURCHARGE_NAMED_AFTER.match(prepared, end)
                # said as the shipping ("배송비 6,000원") or as the two together ("6,000 won in total"),
                # not as a term of another sum
                around = prepared[max(0, start - EXTRA_REACH) : end + EXTRA_REACH]
                named = theme(prepared, start, end)
                as_shipping = bool(named & {Topic.SHIPPING, Topic.REMOTE}) or bool(_IN_TOTAL.search(around))
                if as_shipping and not as_extra:
                    found.add(claim.text)
        return frozenset(found)

    def _thresholds_reached(self, prepared: str) -> bool:
        """An amount of the sentence at or over the free-shipping amount."""
        if self._free_from is None:
            return False
        currency, amount = self._free_from
        return any(
            Decimal(need.partition(":")[2]) >= amount
            for claim in claims(prepared)
            for need in claim.needs
            if reading_kind(need) == currency
        )

    def _percents_named(self, sentence: str) -> list[str]:
        """The percentages the sources give for what `sentence` names, but not in one on the customer's
        order as placed: what they paid is their order's, not worked out ("골드 회원 할인이 적용되어 총
        84,550원이 결제되었습니다" of an order paid 89,000원)."""
        return [] if _THEIR_ORDER.search(sentence) else self._subjects.percents_named(sentence)

    def _miscounted_order(self, told: list[str]) -> list[str]:
        """A count of a product of the customer's order, in a sentence (of `told`, the reply's) on their
        order, that is not the order's: "ご注文内容は鋳物鍋2点" where they ordered one."""
        wrong: list[str] = []
        for sentence in told:
            if not (_THEIR_ORDER.search(sentence) or _ORDER_IS.search(sentence)):
                continue
            for product, said in counts_of(sentence, self._products).items():
                if product in self._ordered and said - self._ordered[product]:
                    wrong.extend(
                        f"{product.name} x{n} (a count the order does not have)" for n in sorted(said)
                    )
        return wrong

    def _misnamed_order(self, told: list[str]) -> list[str]:
        """Products said to be the customer's order, none of them in it: "ご注文はガラスのティーポット
        1点" of an order of a pot; not in a question, a condition or a denial ("주문 내역에 티포트는
        없어요"), nor one named before ("ティーポットのご注文は…送料3,000ウォン": an order of it)."""
        if not self._ordered:
            return []
        wrong: list[str] = []
        for sentence in told:
            said = _ORDER_IS.search(sentence)
            if said is None:
                continue
            if sentence.rstrip().endswith(("?", "？")) or IF.search(sentence) or _DENIED.search(sentence):
                continue
            # what the order is said to be comes after it: "ティーポットのご注文は" is an order of one
            rest = prepare(sentence[said.start() :])
            named = dict.fromkeys(mention.product for mention in mentions(rest, self._products))
            if named and not set(named) & set(self._ordered):
                wrong.extend(f"{product.name} (not in the customer's order)" for product in named)
        return wrong

    def _of_a_product(self, sentence: str, start: int, end: int) -> bool:
        """A product of the catalogue named right beside `sentence[start:end]`: "the mug holds 300 ml",
        "300 ml mug"."""
        return bool(
            mentions(sentence[max(0, start - _PRODUCT_REACH) : start], self._products)
            or mentions(sentence[end : end + _PRODUCT_REACH], self._products)
        )

    def _misreported_total(self, told: list[str]) -> list[str]:
        """An amount said as the customer's order's total that is none of their orders' totals:
        "고객님 주문 총액은 84,550원이었고" of an order of 89,000원; not in a question or a condition."""
        if not self._order_totals:
            return []
        wrong = []
        for sentence in told:
            if IF.search(sentence) or sentence.rstrip().endswith(("?", "？")):
                continue
            prepared = prepare(sentence)
            for named in _ORDER_TOTAL.finditer(prepared):
                said = [
                    (claim, found)
                    for start, _, claim in located_claims(prepared)
                    if named.end() <= start <= named.end() + TOTAL_REACH
                    if (found := money_in(claim.needs))
                ]
                if said and not any(amounts & self._order_totals for amounts in said[0][1].values()):
                    wrong.append(f"{said[0][0].text} (not the order's total)")
        return wrong

    def _misreported_status(self, told: list[str]) -> list[str]:
        """A status the customer's order is not in, said now of it (named by a product of it, a
        number of its facts, or as theirs and now: "고객님 주문은 현재", while a new order the bot
        does not see is not): "29日に発送済みですが、現在まだ配送中でございます" of a delivered order,
        "배송 완료됐어요" of one not shipped."""
        wrong = _NOT_IN_STATUS.get(self._status or "", ())
        return [
            f"{match.group()} (the order is {self._status})"
            for sentence in told
            if (_THEIR_ORDER.search(sentence) or _NOW.search(sentence)) and not IF.search(sentence)
            if not sentence.rstrip().endswith(("?", "？"))  # a question says nothing of it
            if self._names_the_order(sentence) or (_THEIR_ORDER.search(sentence) and _NOW.search(sentence))
            for state, pattern in _STATES.items()
            if state in wrong
            for match in [pattern.search(sentence)]
            if match
        ]

    def _names_the_order(self, sentence: str) -> bool:
        ordered = {mention.product for mention in mentions(prepare(sentence), self._products)}
        return bool(ordered & set(self._ordered)) or any(
            claim.needs & self._own_offers for claim in claims(sentence)
        )

    def _tells_of_others(self, reply: str) -> bool:
        """Another customer named or described: a person's name the sources do not hold (the
        customer's own is in their facts), or "the previous customer" unless to refuse to tell."""
        if _OTHER_CUSTOMER.search(reply) and not _WONT_SHARE.search(reply):
            return True
        if any(match.group().strip(" ,") not in self._names for match in _ADDRESS.finditer(reply)):
            return True
        for match in _HONORIFIC_NAME.finditer(reply):
            name = next(group for group in match.groups() if group)
            if name in _NOT_A_NAME or _verb_ending(name) or _KIN.search(name) or name in self._names:
                continue
            if name in _KOREAN_SURNAMES and re.search(
                rf"(?<![가-힣]){_KOREAN_SURNAMES[name]}[가-힣]{{2}}", self._names
            ):
                continue  # the customer's own family name: "金様の" of 김민지
            sounds = consonants(name.replace("・", ""))
            if _KATAKANA_NAME.fullmatch(name) and len(sounds) >= _SURE_SOUNDS and sounds in self._name_sounds:
                continue  # the customer's own name, written in katakana ("キム・ミンジ様")
            if _KATAKANA_NAME.fullmatch(name) and sounds in self._own_sounds:
                continue  # part of it: "キム様" is Kim Minji
            return True
        return False
