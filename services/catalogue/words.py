"""The words of a stock question that name a thing, once its frame ("do you have ... in stock?"),
its pronouns, sizes and colours are set aside.

Why: "is the linen overshirt in stock?" then "do you have sneakers?" got the overshirt's stock line.
The second message names no catalogue product, so the chat's last product stood in for it, as it
should for "is it available in M?"; what tells the two apart is that "sneakers" names a thing and
"it", "available" and "M" do not. Likewise "wool coat" found the Wool Beanie by "wool": "coat" is a
thing the beanie is not.

The lists are of the question's frame, not of products (no list of products could be complete): a
word not in them counts as a thing, so an unusual follow-up ("is it ok for a wedding?") is asked
which product is meant rather than answered with the wrong one. Words were chosen on
`tests/data/stock_eval/followups.tsv` and the stock examples; `followups_holdout.tsv` measures them
(`python -m bench.stock_lookup`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from services.catalogue.options import is_option_word


def _words(text: str) -> tuple[str, ...]:
    """The words of a list written as text, longest first (a longer word wins a prefix match)."""
    return tuple(sorted(set(text.split()), key=len, reverse=True))


LATIN_FRAME = frozenset(
    _words(
        """
    a an the this that these those it its it's they them their there here i me my mine we us our you
    your u ur yours he she his her him one ones someone something anything everything nothing
    is are am was were be been being do does did don doesn didn isn aren wasn can could would will
    should shall may might must have has had having haven hasn get gets got getting gonna wanna
    any some all another other others more most much many few lot lots same different else either
    how what when where which who whom why whether if then than and or but nor so also too as at by
    for from in into of off on onto out over to up down with within without about again still yet
    already just only even ever now today tomorrow tonight soon later currently right anymore
    back left remaining remain remains available availability avail availble stock stocked stocks
    stok instock inventory restock restocked restocking restocks sold sell sells selling sale buy
    buying bought purchase order ordering ordered carry carries carrying offer offers offering
    price prices priced cost costs cheap cheaper expensive pricey discount deal enough
    size sizes sizing sized colour colours color colors shade shades variant variants version
    versions option options kind type style model pattern
    item items product products thing things piece pieces pair pairs unit units quantity qty number
    please pls plz thanks thank thx hi hello hey ok okay yes yeah yep no nope not hmm um uh well oh
    ah wondering wonder want wanted need needed needs looking look find search check tell know let
    see like love interested hope hoping think thinking come comes coming came go going mean meant
    exist exists guys chance maybe possible possibly able ask asking question way time date
    week weeks day days month months next last first new also again one two three four five
    ship shipping delivery deliver free return exchange sku code name page link site website online
    app shop store warehouse notify notified notification alert email waiting wait waitlist preorder
    reserve discontinued before after during winter summer spring autumn fall season says said
    checking bigger smaller larger longer fit fits
    """
    )
)
"""English words that frame a stock question about a product already named."""
LATIN_FRAME_PREFIXES = ("restock", "avail", "inventor")

_HANGUL_NOUNS = _words(
    """
    재고 재입고 입고 품절 가격 얼마 얼마나 사이즈 치수 색상 색깔 색 컬러 옵션 그거 그것 이거 이것 저거
    저것 그건 이건 저건 그게 이게 저게 그럼 그러면 그리고 그래서 그런데 근데 혹시 지금 아직 언제 언제쯤
    몇 몇개 개 다시 또 더 좀 많이 조금 다른 어떤 무슨 뭐 뭐가 네 예 아 음 그냥 제품 상품 물건 같은
    같은거 같은걸 걸로 거 것 건 수량 남은거 남은 정도 이번 다음 오늘 내일 주 확인 부탁 문의 구매 주문
    배송 할인 쿠폰 알림 예정 예정일 혹은 아니면 그 이 저 제가 저는 나 내가 우리 요즘 전부 모두 다 종류
    재고량 수 살 할 해
    """
)
"""Korean nouns and adverbs that frame a stock question ("그거 재고", "혹시 지금")."""
_HANGUL_VERB_STEMS = _words(
    """
    있 잇 없 싶 줘 찾 되 돼 될 받을 받아 받고 받는 받으 충분 남아 남았 팔아 팔고 팔지 파나 파시 파세 판매
    나와 나오 나왔 가능 구매 구입 주문 사고 사려 구할 알려 궁금 확인 들어오 들어와 들어왔 어떻 어때
    하나요 해요 해주 해도 해야 해서 인가요 인데 인지 취급 보여 원해 필요 부탁 주세요 입고 재입고 품절
    """
)
"""Verbs and endings: a word beginning with one of these is the question's, not a product."""
_PARTICLES = _words(
    """
    은 는 이 가 을 를 도 만 요 의 에 로 으로 와 과 랑 이랑 하고 나 이나 에서 까지 부터 처럼 보다 이요 예요
    이에요 에요 야 이야 께 한테 에게 은요 는요 도요 로요 으로요 이죠 죠 인가 인가요 이랑은
    """
)
"""Korean particles and copulas that follow a noun ("M은요", "그거는", "네이비도")."""
_JAPANESE_FRAME = _words(
    """
    在庫 在庫数 値段 価格 入荷 再入荷 予定 予定日 品切 売切 売 買 購入 注文 取扱 取 扱 何 何色 色 今 今日
    明日 次 次回 来週 今週 来月 残 個 点 円 他 別 同 違 商品 製品 数 個数 確認 教 知 問 可能 販売 欲 探
    有 無 在 入 出 大 小 中 全 切 願 予 最近 頃 時期 送料 配送 発送 届 割引 予約 物 方 サイズ カラー ストック
    アイテム セール クーポン
    """
)
"""Japanese frame words (kanji and katakana runs, and their compounds: 再入荷予定)."""

_LATIN_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_HANGUL_RUN = re.compile(r"[\uac00-\ud7a3]+")
_KATAKANA_RUN = re.compile(r"[\u30a0-\u30ff]+")
_KANJI_RUN = re.compile(r"[\u4e00-\u9fff]+")
_MEASURE = re.compile(r"^\d+(?:cm|mm|ml|l|kg|g|oz|in|inch|ea|pcs?|개|점)?$|^\d?x{0,3}l$")


FRAME_WORD_AT_MOST = 24
"""A Korean or Japanese run longer than this is no frame word (and is not taken apart: a message of
10,000 "가" costs what a short one does)."""


def thing_words(clean: str) -> list[str]:
    """The words of normalised text that may name a thing (in order): what is left when the frame,
    sizes, colours and numbers are set aside."""
    found = [w for w in _LATIN_WORD.findall(clean) if _latin_thing(w)]
    found += [run for run in _HANGUL_RUN.findall(clean) if not _hangul_frame(run)]
    found += [
        run for run in _KATAKANA_RUN.findall(clean) + _KANJI_RUN.findall(clean) if not _japanese_frame(run)
    ]
    return found


def _latin_thing(word: str) -> bool:
    """A word of three letters or more that is no frame, option or measure; letters with digits
    ("iphone15", "a1001") are a model or a code: a thing."""
    word = word.replace("’", "'")
    if _MEASURE.match(word) or is_option_word(word) or word.isdigit():
        return False
    if any(ch.isdigit() for ch in word):
        return True
    if len(word) < 3 or word in LATIN_FRAME or word.split("'")[0] in LATIN_FRAME:
        return False
    return not word.startswith(LATIN_FRAME_PREFIXES)


@lru_cache(maxsize=4096)
def _hangul_frame(run: str) -> bool:
    """A Korean word that is all frame: frame nouns and colours, each with its particles, then
    possibly a verb ("그거는", "재고있어요", "네이비도", "얼마예요"). A one-syllable frame word counts
    only on its own (with particles or a verb): "수" and "건" do not make 수건 (a towel) a frame.
    Cached: the ways to split a word share their tails."""
    if len(run) > FRAME_WORD_AT_MOST:
        return False
    if not run or run.startswith(_HANGUL_VERB_STEMS) or _all_particles(run):
        return True
    for noun in (w for w in (*_HANGUL_NOUNS, *_option_prefixes(run)) if run.startswith(w)):
        after = run[len(noun) :]
        if len(noun) == 1 and after and not (_all_particles(after) or after.startswith(_HANGUL_VERB_STEMS)):
            continue
        if any(_hangul_frame(rest) for rest in _after_particles(after)):
            return True
    return False


def _option_prefixes(run: str) -> list[str]:
    return [run[:end] for end in range(len(run), 0, -1) if is_option_word(run[:end])]


def _all_particles(text: str) -> bool:
    """`text` is one or more particles ("은요"); `ends[i]`: its first i characters are."""
    if not text or len(text) > FRAME_WORD_AT_MOST:
        return False
    ends = [True] + [False] * len(text)
    for i in range(len(text)):
        if ends[i]:
            for particle in _PARTICLES:
                if text.startswith(particle, i):
                    ends[i + len(particle)] = True
    return ends[-1]


def _after_particles(text: str) -> list[str]:
    """`text` as it is, and without each particle it may begin with ("는있어요" -> "있어요")."""
    return [text, *(text[len(p) :] for p in _PARTICLES if text.startswith(p) and len(text) > len(p))]


def korean_stem(word: str) -> str:
    """A Korean word without the particles it ends with ("셔츠는" -> "셔츠"), at least one syllable
    (a word longer than `FRAME_WORD_AT_MOST` is returned as it is)."""
    if len(word) > FRAME_WORD_AT_MOST:
        return word
    stripped = True
    while stripped:
        stripped = False
        for particle in _PARTICLES:
            if word.endswith(particle) and len(word) > len(particle):
                word, stripped = word[: -len(particle)], True
                break
    return word


def _japanese_frame(run: str) -> bool:
    """A katakana or kanji run made only of frame words and options ("再入荷予定", "ネイビー", "紺色")."""
    if len(run) > FRAME_WORD_AT_MOST:
        return False
    rest = run
    while rest:
        word = max(_leading(rest, _JAPANESE_FRAME), next(iter(_option_prefixes(rest)), ""), key=len)
        if not word:
            return False
        rest = rest[len(word) :]
    return True


def _leading(text: str, words: tuple[str, ...]) -> str:
    """The longest of `words` (sorted longest first) that `text` begins with, or ""."""
    return next((word for word in words if text.startswith(word)), "")
