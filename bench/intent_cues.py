"""Hand-written cue tables for the intents, kept to measure what they would add.

`python -m bench.intent_cues FILE.tsv` prints the classifier's precision and recall on a
labelled set without and with these tables' scores added; `bench.understanding` times them
beside `understand`. They are not on the bot's path.
"""

from __future__ import annotations

import re
from pathlib import Path

from services.text.normalize import normalize
from services.understanding.classifier import ExtraScores

# Phrases (regular expressions over normalised text) and their weight per intent.
# Korean and Japanese cues are stems matched anywhere, because particles attach
# directly to them ("배송은", "배송이").
_PHRASES: dict[str, tuple[tuple[str, float], ...]] = {
    "stock": (
        (r"\bin stock\b", 3),
        (r"\bout of stock\b", 3),
        (r"\bsold ?out\b", 3),
        (r"\bback in\b", 1.5),
        (r"\bhow many\b.*\bleft\b", 2.5),
        (r"\bany left\b", 2.5),
        (r"\bdo (you|u) (still )?(have|carry|sell)\b", 1.5),
        (r"\bin (size )?(xxs|xs|s|m|l|xl|xxl|\d{2})\b", 1.5),
        (r"\b(come|coming) back\b", 2),
        (r"\bavailable in\b", 2),
        (r"\bwhen will .* (be )?(available|back)\b", 2.5),
        (r"\bin (size|colou?r)\b", 1.5),
        (r"재고", 3),
        (r"품절", 3),
        (r"재입고", 3),
        (r"입고", 2.5),
        (r"남아\s?있", 2.5),
        (r"남았", 2.5),
        (r"몇\s?개", 1.5),
        (r"수량", 1.5),
        (r"사이즈", 1.2),
        (r"색상", 1.2),
        (r"컬러", 1.2),
        (r"구매\s?가능", 2),
        (r"살 수 있", 1.5),
        (r"있나요", 0.4),
        (r"在庫", 3),
        (r"品切れ", 3),
        (r"売り切れ", 3),
        (r"入荷", 2.5),
        (r"サイズ", 1.2),
        (r"残って", 2),
        (r"買えますか", 1.5),
    ),
    "shipping": (
        (r"\bwhere('s| is| are)\b.*\b(order|package|parcel|stuff|delivery|items?)\b", 3.5),
        (r"\btrack", 2.5),
        (r"\bwhen (will|does|do|would) .*\b(arrive|get here|come(?! back)|be delivered)\b", 2.5),
        (r"\bgets? here\b", 2),
        (r"\bsame[- ]?day\b", 2),
        (r"\bshipping (fee|cost|price)", 2),
        (r"\bdelivery (fee|cost|time|option)", 2),
        (r"\bhow long\b.*\b(ship|deliver|take)", 2),
        (r"\bexpress\b", 1.2),
        (r"\bstill (hasn't|has not|not|didn't|haven't)\b.*\b(arrived|come|shipped)\b", 2.5),
        (r"\bnot (arrived|received|delivered)\b", 2),
        (r"배송", 2.5),
        (r"배달", 2),
        (r"택배", 2.5),
        (r"송장", 2.5),
        (r"도착", 2),
        (r"언제\s?(와|오|받|도착)", 2.5),
        (r"출고", 2),
        (r"발송", 2),
        (r"어디\s?쯤", 2.5),
        (r"조회", 1),
        (r"배송비", 1),
        (r"당일", 1.2),
        (r"안\s?왔", 2),
        (r"안\s?와", 2),
        (r"배숑|배송중|배솧", 2),
        (r"配送", 2.5),
        (r"発送", 2),
        (r"届", 2),
        (r"追跡", 2.5),
        (r"配達", 2),
        (r"到着", 2),
        (r"送料", 2.5),
        (r"状況", 1),
    ),
    "returns": (
        (r"\bsend (it|this|them)? ?back\b", 3),
        (r"\bmoney back\b", 3),
        (r"\bwrong (item|size|colou?r|product)\b", 1.5),
        (r"\brma\b", 3),
        (r"\breturns? (shipping|postage|delivery)|\bshipping (on|for) returns?", 3),
        (r"\bchange (it )?(for|to) (a|another|the) (different|bigger|smaller|other)", 2.5),
        (r"반품", 3),
        (r"(반품|교환)\s?배송비", 3),
        (r"환불", 3),
        (r"교환", 3),
        (r"반송", 2.5),
        (r"불량", 1.5),
        (r"파손", 1.5),
        (r"하자", 1.5),
        (r"잘못\s?(왔|온|배송)", 1.5),
        (r"돌려\s?보내", 3),
        (r"반퓸|환뷸|교횐", 2.5),
        (r"返品", 3),
        (r"返金", 3),
        (r"交換", 3),
        (r"不良", 1.5),
    ),
    "human": (
        (r"\b(real|live|actual) (person|human|agent)\b", 4),
        (
            r"\b(talk|speak|chat) (to|with) (a |an |the |your )?(human|person|agent|someone|"
            r"representative|operator|manager|staff|people|somebody)\b",
            4,
        ),
        (r"\b(connect|transfer|put) me (to|through)\b", 3),
        (r"\bhuman\b", 2),
        (r"\brepresentative\b", 2.5),
        (r"\boperator\b", 2),
        (r"\bagent\b", 1.5),
        (r"\bcall me\b", 2.5),
        (r"\bnot a (bot|robot)\b", 2.5),
        (r"\bstop the bot\b", 3),
        (r"\bmanager\b", 1.5),
        (r"\bcustomer (service|support)\b", 1),
        (r"상담원", 2.5),
        (r"상담사", 2.5),
        (r"사람\s?(이랑|하고|과|와|한테|을|좀)", 3),
        (r"직원", 1.5),
        (r"매니저", 1.5),
        (r"연결", 1.5),
        (r"통화", 1.5),
        (r"전화\s?(주세요|해\s?주|부탁)", 2.5),
        (r"봇\s?말고", 3),
        (r"챗봇\s?말고", 3),
        (r"상담\s?(원|사)?\s?(연결|바꿔)", 3),
        (r"担当者", 2.5),
        (r"オペレーター", 2.5),
        (r"人と話", 3),
        (r"スタッフ", 1.5),
    ),
    "faq": (
        (r"\bcredit cards?\b", 1),
        (r"\b(opening|business|office) hours\b", 3),
        (r"\bopen (on|at|until)\b", 2),
        (r"\bchange (my |the )?(delivery |shipping )?(order|address)\b", 3.5),
        (r"\bgift (wrap|card)", 2.5),
        (r"\btax\b|\bvat\b", 2),
        (r"\bsign ?up\b", 2),
        (r"\blog ?in\b", 2),
        (r"\bbank transfer\b", 2.5),
        (r"결제", 2.5),
        (r"카드", 1.2),
        (r"무통장", 2.5),
        (r"계좌\s?이체", 2.5),
        (r"쿠폰", 2.5),
        (r"할인", 2),
        (r"적립금", 2.5),
        (r"포인트", 2),
        (r"회원", 2),
        (r"등급", 2),
        (r"멤버십", 2.5),
        (r"비밀\s?번호", 2.5),
        (r"로그인", 2),
        (r"계정", 2),
        (r"영수증", 2.5),
        (r"세금\s?계산서", 3),
        (r"(영업|운영|상담)\s?시간", 3),
        (r"취소", 2.5),
        (r"변경", 1.8),
        (r"주소", 1.5),
        (r"선물\s?포장", 2.5),
        (r"할부", 2.5),
        (r"가입", 2),
        (r"支払", 2.5),
        (r"決済", 2.5),
        (r"クーポン", 2.5),
        (r"割引", 2),
        (r"会員", 2),
        (r"ポイント", 2),
        (r"領収書", 2.5),
        (r"営業時間", 3),
        (r"キャンセル", 2.5),
        (r"変更", 1.8),
        (r"パスワード", 2.5),
    ),
}

# Single English words matched with one typo allowed ("delivry", "refnud").
_WORDS: dict[str, tuple[tuple[str, float], ...]] = {
    "stock": (
        ("stock", 2.5),
        ("restock", 3),
        ("restocked", 3),
        ("available", 1.5),
        ("availability", 2.5),
        ("inventory", 2.5),
        ("size", 1),
        ("sizes", 1),
        ("color", 0.8),
        ("colour", 0.8),
        ("colors", 0.8),
        ("colours", 0.8),
    ),
    "shipping": (
        ("shipping", 2.5),
        ("shipped", 2.5),
        ("ship", 2),
        ("delivery", 2.5),
        ("deliver", 2),
        ("delivered", 2),
        ("arrive", 2),
        ("arrival", 2),
        ("tracking", 3),
        ("courier", 2.5),
        ("carrier", 2.5),
        ("parcel", 2),
        ("package", 1.5),
        ("dispatch", 2),
        ("dispatched", 2),
        ("shipment", 2.5),
    ),
    "returns": (
        ("return", 2.5),
        ("returns", 2.5),
        ("returning", 2.5),
        ("refund", 3),
        ("refunded", 3),
        ("refunds", 3),
        ("exchange", 3),
        ("exchanged", 3),
        ("swap", 2.5),
        ("damaged", 1.5),
        ("defective", 2),
        ("broken", 1.5),
        ("faulty", 2),
    ),
    "human": (("person", 1.5), ("someone", 0.8), ("staff", 1)),
    "faq": (
        ("payment", 2),
        ("payments", 2),
        ("pay", 2),
        ("paying", 2),
        ("paypal", 2),
        ("coupon", 2.5),
        ("coupons", 2.5),
        ("discount", 2),
        ("discounts", 2),
        ("membership", 2.5),
        ("member", 2),
        ("members", 2),
        ("tier", 1.5),
        ("tiers", 1.5),
        ("points", 1.5),
        ("account", 2),
        ("password", 2.5),
        ("invoice", 2.5),
        ("receipt", 2.5),
        ("cancel", 2.5),
        ("cancelled", 2.5),
        ("canceled", 2.5),
        ("cancellation", 2.5),
        ("installment", 2.5),
        ("installments", 2.5),
        ("address", 1.5),
    ),
}

# "Could you ask an agent how I can change my order" asks a question of the shop;
# it is not a request to be handed over.
_ASK_AGENT_ABOUT = re.compile(
    r"\bask (a|an|the|your)? ?(agent|person|human|someone|staff|manager)\b.*"
    r"\b(how|whether|if|what|when|why|where|about)\b"
    r"|(상담원|직원|담당자)(에게|한테|께)\s?.*(물어|여쭤)"
)
_WORD = re.compile(r"[a-z]+")
_MIN_SUBSTITUTION_LENGTH = 7


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))} | {word}


class _TypoTolerantLexicon:
    """Words within one edit (deletion-neighbourhood index, SymSpell style)."""

    def __init__(self, words: dict[str, tuple[tuple[str, float], ...]]) -> None:
        self._exact: dict[str, list[tuple[str, float]]] = {}
        self._near: dict[str, list[tuple[str, str, float]]] = {}
        for intent, entries in words.items():
            for word, weight in entries:
                self._exact.setdefault(word, []).append((intent, weight))
                if len(word) >= 5:
                    for variant in _deletions(word):
                        self._near.setdefault(variant, []).append((word, intent, weight))

    def matches(self, token: str) -> list[tuple[str, str, float]]:
        if token in self._exact:
            return [(token, intent, weight) for intent, weight in self._exact[token]]
        if len(token) < 4:
            return []
        found: dict[str, tuple[str, str, float]] = {}
        for variant in _deletions(token):
            for word, intent, weight in self._near.get(variant, ()):
                # A substituted letter in a short word is too often another word ("stuck", "stuff").
                if (
                    len(word) < _MIN_SUBSTITUTION_LENGTH
                    and len(word) == len(token)
                    and sorted(word) != sorted(token)  # a swap of two letters is still a typo
                ):
                    continue
                found[f"{word}/{intent}"] = (word, intent, weight)
        return list(found.values())


class CueScorer:
    """Scores per intent name from the phrase and word tables, and the cues that matched."""

    def __init__(self) -> None:
        self._phrases = [
            (intent, re.compile(pattern), pattern, weight)
            for intent, entries in _PHRASES.items()
            for pattern, weight in entries
        ]
        self._lexicon = _TypoTolerantLexicon(_WORDS)

    def scores(self, text: str) -> tuple[dict[str, float], list[str]]:
        clean = normalize(text)
        scores = dict.fromkeys(_PHRASES, 0.0)
        cues: list[str] = []
        for intent, regex, pattern, weight in self._phrases:
            if regex.search(clean):
                scores[intent] += weight
                cues.append(f"{intent}:{pattern}")
        seen: set[str] = set()
        for token in _WORD.findall(clean):
            for word, intent, weight in self._lexicon.matches(token):
                if f"{intent}:{word}" not in seen:
                    seen.add(f"{intent}:{word}")
                    scores[intent] += weight
                    cues.append(f"{intent}:{word}")
        if scores["human"] and _ASK_AGENT_ABOUT.search(clean):
            scores["human"] = 0.0
        return scores, cues


CUE_WEIGHT = 0.3
"""Log-odds per cue-table point (the best weight in cross-validation)."""


def weighted(scorer: CueScorer, weight: float = CUE_WEIGHT) -> ExtraScores:
    """The cue tables as the classifier's extra scorer."""

    def scores(text: str) -> tuple[dict[str, float], list[str]]:
        table, matched = scorer.scores(text)
        return {name: weight * value for name, value in table.items()}, matched

    return scores


def main() -> None:
    """`python -m bench.intent_cues FILE.tsv`: the classifier's precision and recall on a labelled
    set, without and with the old cue tables, side by side."""
    import sys

    from db.seed import DEMO_PRODUCTS, demo_names
    from services.understanding.classifier import IntentClassifier
    from services.understanding.entities import CatalogueName
    from services.understanding.evaluation import evaluate, load_labelled, render_report

    labelled = load_labelled(Path(sys.argv[1]))
    catalogue = [CatalogueName(p["sku"], demo_names(p)) for p in DEMO_PRODUCTS]
    for name, extra in (("without the cue tables", None), ("with the cue tables", weighted(CueScorer()))):
        print(f"## {name}")
        print(render_report(evaluate(IntentClassifier(catalogue, extra=extra), labelled)))


if __name__ == "__main__":
    main()
