"""Complaints: an item that arrived damaged or wrong, and a customer who is unhappy with the shop.

Without this, "my sweater arrived torn" got the sweater's stock line (the product's
name was the strongest evidence), and "your service is awful" got "I'm not sure what
this is about, pick one below": the bot answered an upset customer with a menu. The
sentence encoder places such messages near whatever topic they mention, not near
"complaint", so the cues are kept as patterns; `tests/data/complaints.tsv` (tuning) and
`complaints_holdout.tsv` (held out) measure them (`python -m bench.eval_sets`).
"""

from __future__ import annotations

import re
from enum import StrEnum

from services.text.normalize import normalize


class Complaint(StrEnum):
    DAMAGED = "damaged"
    """The item arrived damaged, defective, wrong or incomplete: an apology, and the shop's own entry
    for it or else a return to start."""
    UNHAPPY = "unhappy"
    """Frustration with the shop: an apology first, and a person when nothing else is asked."""


_DAMAGE_WORDS = (
    r"torn|ripped|broken|damaged|defective|faulty|stain(ed|s)?|dirty|scratched|cracked|snapped"
    r"|coming apart|falling apart|a hole|holes|missing"
)
_REPORTED = r"arrived|came|got|received|recieved|recived|showed up|turned up|was|were|had|delivered|broke"
"""Verbs of something that happened to the parcel: with one, a question is still a report ("what do
I do, my plant showed up with a snapped stem")."""
_WRONG_THING = r"wrong (item|size|colou?r|product|one|thing)"
DAMAGED = re.compile(
    r"\b(" + _REPORTED + r"|come|is|are|has|have|with|it's|its|there'?s|there is|there are)\b[^.?!]{0,40}"
    r"\b(" + _DAMAGE_WORDS + r")\b"
    r"|\b(shrank|shrunk|tore|fell apart|came apart|came undone)\b"
    r"|^\s*(wrong|missing) (item|size|colou?r|product|order|piece|part)s?\b"
    r"|\bmissing (item|piece|part)s?\b|\b(item|piece|part)s? (is |are )?missing\b"
    r"|\b(" + _DAMAGE_WORDS + r")\b[^.?!]{0,30}"
    r"\b(arrived|when (it )?(came|arrived)|in the (box|package|parcel))"
    r"|\b(" + _WRONG_THING + r"|different (item|size|colou?r|product|one|thing))\b[^.?!]{0,20}"
    r"\b(sent|arrived|came|received|delivered)"
    r"|\b(sent|received|recieved|got|delivered)\b[^.?!]{0,20}\b(the )?"
    + _WRONG_THING
    + r"|\b(zipper|zip|button|seam|seams|buckle|sole|strap|handle)\b[^.?!]{0,20}"
    r"\b(broke|broken|snapped|came off|fell off|ripped|tore|split)"
    r"|\b(got|received|recieved|was sent)\b[^.?!]{0,40}\bbut\b[^.?!]{0,10}\bordered\b"
    r"|\bordered\b[^.?!]{0,40}\bbut\b[^.?!]{0,20}\b(got|received|recieved|was sent)\b"
    r"|\bdefective\b|\bfaulty\b|\bchipped\b"
    r"|찢어|찢겨|고장|파손|불량|깨져|깨졌|하자|터져|뜯어져|뜯겨"
    r"|구멍\s?(이|도)?\s?(나|났|뚫|있)|(얼룩|오염)\s?(이|가|도)?\s?(묻|있|져|졌|생겼|됐|돼)"
    r"|(사이즈|색상|색깔|상품|물건|제품|옷)\s?(이|가)?\s?(잘못|다르게|다른\s?(게|것|걸))\s?(왔|배송|도착)"
    r"|(잘못|다른\s?(상품|물건|제품|게|것|사이즈|색))\s?(이|가)?\s?(왔|배송|도착|보내)"
    r"|(빠져|누락|없어)(서)?\s?(있|됐|되|왔)|(단추|지퍼|버클|밑창|끈|고리)\S*\s?(떨어|빠져|고장|망가|뜯)"
    r"|(단추|지퍼|버클|밑창|끈|고리)\S*\s[^?]{0,12}(떨어졌|빠졌|망가졌|뜯어졌)"
    r"|(시켰|주문했|샀)는데[^?]{0,24}왔"
    r"|이가\s?(나가|나갔|빠져|빠졌)|금이\s?(가|갔)|깨진\s?채|(흠집|스크래치)\s?(이|가)?\s?(있|났|생겼)"
    r"|破れ|破け|壊れ|破損|不良|ほつれ|欠品|入っていな|入っていません|しか(入って|届)|違う(商品|サイズ|色|もの)"
    r"|(ボタン|ファスナー|チャック|ひも|紐|金具)が?(取れ|外れ|壊れ)|(サイズ|色|商品|もの)(が|も)?間違"
    r"|穴が(空|開|あ)|(シミ|汚れ|傷)(が|も)?(つい|付い|あり|あっ)"
    r"|縮んだ|縮んで(しまい|しまっ)|縮みました|欠けて(い|まし)|ひびが?(入|はい)"
    r"|(届いた|来た)(けど|が|んですが)[^?？]{0,30}注文したのは|注文したのは[^?？]{0,30}(届いた|来た)"
)
"""A report of what arrived, not a question about it: "do you take back broken items?" asks
the policy (`ASKS_POLICY` below)."""
_DAMAGE_HINT = re.compile(
    r"torn|rip|brok|damag|defect|fault|stain|dirty|scratch|crack|snap|apart|hole|missing|wrong|differ|chip"
    r"|shr[au]nk|tore|undone|split|ordered"
    r"|찢|구멍|고장|파손|불량|깨|하자|터져|뜯|얼룩|오염|잘못|다른|빠져|누락|없어|떨어|망가|는데|이가|금이|흠집"
    r"|破|壊|不良|ほつれ|欠品|入って|しか|違う|穴|シミ|汚れ|傷|取れ|外れ|間違|縮ん|縮み|注文したのは|欠け|ひび"
)
"""A word every report above contains: one quick scan spares most messages the patterns. Without it
`complaint_in` took 20-44 us a message (timeit on three ordinary questions, a one-off), about 1% of
the samples py-spy took over `bench.bot_overhead`'s csbot feed; with it 3-16 us."""
ASKS_POLICY = re.compile(
    r"^\s*(do|does|can|could|will|would|should|what|how|which|is|are)\b(?!.*\b(" + _REPORTED + r")\b)"
    r"|\bif\b|\bwhat happens\b|(이면|하면|라면|경우)\s|場合|たら(?!.*(んだ|ました|った)[。!！]?\s*$)"
    r"|(나요|가요|까요|는지|습니까)\s?\??\s*$|(누가|어떻게|얼마)\s?.*(내나요|하나요|되나요)"
    r"|(ますか|ですか|でしょうか)\s?[？?]?\s*$"
)
"""A question about what the shop does or sells ("do you take back broken items?", "do the pots
have drainage holes", "불량이면 배송비는 누가 내나요?"): the FAQ answers it, it is not a report. A
Japanese "たら" ending in the past is what happened ("洗ったら縮んだ"), not a condition."""
NOT_ARRIVED = re.compile(r"안\s?(왔|와|옴)|아직|못\s?받")
"""'I ordered it but it has not come' is about delivery, not what arrived ("주문했는데 아직 안 왔어요")."""
UNHAPPY = re.compile(
    r"\b(terrible|awful|horrible|worst|ridiculous|unacceptable|unbelievable|disappointed|disappointing"
    r"|angry|furious|annoyed|frustrated|frustrating|useless|pathetic|disgrace(ful)?|scam|scams|scammers?|rip-?off"
    r"|fed up|sick of|waste of (time|money)|never (again|buying|shopping|order(ing)?))\b"
    r"|\b(nobody|no one|noone)\b[^.?!]{0,20}\b(answers?|replies|reply|responds?|helps?|gets back)\b"
    r"|\b(kidding me|are you serious|wtf)\b"
    r"|최악|실망|짜증|화나|화가\s?나|열받|어이(가)?\s?없|답답|황당|엉망|형편없|말이\s?돼|장난\s?해|사기"
    r"|아무도\s?(답|대답|연락|응답)|장난\s?(하|치)|빡치|빡쳐|왜\s?이래|왜\s?이러|다시는\s?안\s?(삼|사|살|시켜|주문|이용)"
    r"|最悪|がっかり|ひどい|酷い|ひどすぎ|腹が立|腹立|ふざけ|ありえない|あり得ない|失望|不愉快|怒"
    r"|誰も(返事|返信|対応|答え)|二度と(買わ|注文し|利用し)"
)
"""Frustration, in words a customer uses for the shop or its service."""


NOT_A_COMPLAINT = re.compile(
    r"(\b(not|never|no)|n't)\s+(\w+\s+){0,2}(disappointed|angry|upset|annoyed|frustrated|mad)\b"
    r"|\bworst[- ]case\b|\bat (the )?worst\b"
    r"|(불량|파손|하자|문제)\s?(이|가|도)?\s?(없이|없고|없어|없네|없습니다|없었)|최악의\s?경우"
    r"|(がっかり|怒っ|不満)\S{0,5}(ません|ない)|最悪の場合|最悪でも"
)
"""Words of a complaint that say the opposite ("I'm not disappointed at all", "불량 없이 잘 받았어요")
or ask a question ("what's the worst-case delivery time?", "최악의 경우"): left out before matching."""


def complaint_in(text: str) -> Complaint | None:
    """DAMAGED when the message reports a damaged or wrong item, else UNHAPPY when it voices
    frustration, else None."""
    clean = NOT_A_COMPLAINT.sub(" ", normalize(text))
    if (
        _DAMAGE_HINT.search(clean)
        and DAMAGED.search(clean)
        and not ASKS_POLICY.search(clean)
        and not NOT_ARRIVED.search(clean)
    ):
        return Complaint.DAMAGED
    if UNHAPPY.search(clean):
        return Complaint.UNHAPPY
    return None
