"""Every sentence the bot says, in Korean, English and Japanese.

Kept in one table so a shop can reword the bot without touching logic, and so
tests can assert on the same strings the customer sees.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

_TEXTS: dict[str, dict[str, str]] = {
    "welcome": {
        # Only what every shop has: a shop's FAQ may have nothing on payments or membership.
        "ko": "안녕하세요! 주문·배송, 재고, 반품·교환, 그리고 저희 가게에 대해 무엇이든 물어보세요. "
        "사람 상담이 필요하면 '상담원 연결'이라고 보내 주세요.",
        "en": "Hello! Ask me about your orders and delivery, stock, returns and exchanges, or "
        "anything about our shop. Type 'talk to a person' any time to reach our team.",
        "ja": "こんにちは！ご注文・配送、在庫、返品・交換など、当店について何でもお聞きください。"
        "担当者と話したいときは「担当者につないで」と送ってください。",
    },
    "small_talk_thanks": {
        "ko": "별말씀을요! 더 궁금하신 점이 있으면 언제든 말씀해 주세요.",
        "en": "You're welcome! If there's anything else, just ask.",
        "ja": "こちらこそ、ありがとうございます！ほかにもご不明な点があれば、いつでもお聞きください。",
    },
    "carrier_picked_up": {"ko": "집화 완료", "en": "picked up", "ja": "集荷済み"},
    "carrier_in_transit": {"ko": "배송 중", "en": "in transit", "ja": "輸送中"},
    "carrier_out_for_delivery": {"ko": "배송 출발", "en": "out for delivery", "ja": "配達中"},
    "carrier_delivered": {"ko": "배송 완료", "en": "delivered", "ja": "配達済み"},
    "carrier_failed_attempt": {
        "ko": "배달 시도(미배달)",
        "en": "delivery attempted",
        "ja": "配達できませんでした",
    },
    "carrier_exception": {
        "ko": "배송 중 문제 발생",
        "en": "delivery problem",
        "ja": "配送に問題が発生しました",
    },
    "carrier_returned": {"ko": "반송", "en": "returned to sender", "ja": "差出人へ返送"},
    "small_talk_identity": {
        "ko": "저는 쇼핑몰의 자동 상담 챗봇이에요. 주문·배송 조회, 재고 확인, 반품·교환, 쇼핑몰 이용 "
        "안내를 도와드려요. 사람과 이야기하고 싶으시면 아래 버튼을 눌러 주세요.",
        "en": "I'm the shop's automated assistant: I can check your orders and stock, help with returns "
        "and exchanges, and answer questions about the shop. If you'd rather talk to a person, tap "
        "the button below.",
        "ja": "私はショップの自動応答アシスタントです。ご注文・配送の確認、在庫、返品・交換、"
        "ショップのご利用案内をお手伝いします。担当者と話したい場合は下のボタンを押してください。",
    },
    "small_talk_goodbye": {
        "ko": "문의해 주셔서 감사합니다. 좋은 하루 보내세요!",
        "en": "Thank you for getting in touch. Have a great day!",
        "ja": "お問い合わせありがとうございました。良い一日をお過ごしください！",
    },
    "help": {
        "ko": "예시: {examples}'반품하고 싶어요', '결제 방법 알려주세요', '상담원 연결'.\n"
        "/return 반품·교환 신청, /human 상담원 연결, /bot 상담 종료 후 챗봇으로 돌아가기",
        "en": "Try: {examples}'I want to return an item', 'What payment methods do you accept?', "
        "'talk to a person'.\n/return start a return, /human reach our team, "
        "/bot go back to the bot after talking to a person",
        "ja": "例: {examples}「返品したい」「支払い方法を教えて」「担当者につないで」。\n/return "
        "返品・交換の申請、/human 担当者につなぐ、/bot 担当者との会話を終えてボットに戻る",
    },
    "help_stock_example": {
        "ko": "'{product} 재고 있나요?', ",
        "en": "'Is {product} in stock?', ",
        "ja": "「{product}の在庫はありますか」",
    },
    "help_order_example": {
        "ko": "'주문 {order} 배송 어디쯤이에요?', ",
        "en": "'Where is order {order}?', ",
        "ja": "「注文 {order} はどこですか」",
    },
    "order_example": {"ko": "(예: {order})", "en": " (it looks like {order})", "ja": "(例: {order})"},
    "unknown_command": {
        "ko": "알 수 없는 명령어예요. /help 를 보내 보세요.",
        "en": "I don't know that command. Send /help to see what I can do.",
        "ja": "そのコマンドはわかりません。/help を送ってみてください。",
    },
    "empty_text": {
        "ko": "메시지가 비어 있어요. 궁금한 점을 글로 적어 주세요.",
        "en": "Your message looks empty. Please type your question.",
        "ja": "メッセージが空のようです。ご質問を文字で入力してください。",
    },
    "unsupported_content": {
        "ko": "죄송해요, 사진·스티커·파일은 아직 읽지 못해요. 궁금한 점을 글로 적어 주세요. "
        "사진이 필요한 경우(파손 등) '상담원 연결'이라고 보내 주시면 담당자가 확인합니다.",
        "en": "Sorry, I can't read photos, stickers or files yet. Please type your question. "
        "If you need to show us something (damage, for example), type 'talk to a person'.",
        "ja": "申し訳ありません、写真・スタンプ・ファイルはまだ読めません。ご質問を文字で入力してくださ"
        "い。破損などお見せいただく必要がある場合は「担当者につないで」と送ってください。",
    },
    "too_long": {
        "ko": "메시지가 너무 길어서 앞부분({limit}자)만 읽었어요.",
        "en": "Your message was very long, so I read only the first {limit} characters.",
        "ja": "メッセージが長すぎるため、最初の{limit}文字だけ読みました。",
    },
    "internal_error": {
        "ko": "죄송해요, 처리 중 문제가 생겼어요. 메시지는 저장되었고 담당자가 확인할게요. "
        "잠시 후 다시 시도하시거나 '상담원 연결'이라고 보내 주세요.",
        "en": "Sorry, something went wrong on our side. Your message is saved and our team "
        "will look at it. Please try again in a moment, or type 'talk to a person'.",
        "ja": "申し訳ありません、処理中に問題が発生しました。メッセージは保存され、担当者が確認します。"
        "しばらくしてからもう一度お試しいただくか、「担当者につないで」と送ってください。",
    },
    "received_later": {
        "ko": "메시지 잘 받았어요. 지금 시스템이 잠시 바빠서 곧 이어서 답변드릴게요. "
        "다시 보내지 않으셔도 돼요.",
        "en": "We got your message. Our system is busy for a moment; we'll answer you here "
        "shortly. There's no need to send it again.",
        "ja": "メッセージを受け取りました。ただいまシステムが混み合っているため、まもなくこちらで"
        "お返事します。もう一度送っていただく必要はありません。",
    },
    "own_orders_only": {
        "ko": "다른 분의 주문은 확인해 드릴 수 없어요. 고객님 계정의 주문만 안내해 드려요.",
        "en": "I can't look up anyone else's orders: I can only tell you about orders on your own account.",
        "ja": "他の方のご注文はお調べできません。お客様ご自身のアカウントのご注文のみご案内します。",
    },
    "need_contact": {
        "ko": "주문 정보는 주문하신 분께만 알려 드릴 수 있어요. 아래 '전화번호 공유' 버튼을 "
        "눌러 계정을 확인해 주세요.",
        "en": "I can only share order details with the person who placed the order. Please "
        "tap 'Share my phone number' below so I can find your account.",
        "ja": "ご注文の情報はご注文者様にのみお伝えできます。下の「電話番号を共有」ボタンでアカウントを"
        "確認してください。",
    },
    "share_contact_button": {
        "ko": "📱 전화번호 공유",
        "en": "📱 Share my phone number",
        "ja": "📱 電話番号を共有",
    },
    "contact_linked": {
        "ko": "{name}님, 계정이 확인되었어요. 이제 주문·배송·반품을 물어보실 수 있어요.",
        "en": "Thanks, {name}, your account is linked. You can now ask about your orders, "
        "deliveries and returns.",
        "ja": "{name}様、アカウントを確認しました。ご注文・配送・返品についてお尋ねいただけます。",
    },
    "contact_not_found": {
        "ko": "이 전화번호로 등록된 고객 정보를 찾지 못했어요. 주문 시 입력한 번호인지 확인해 "
        "주시거나 '상담원 연결'이라고 보내 주세요.",
        "en": "I couldn't find a customer with this phone number. Please check it is the "
        "number you ordered with, or type 'talk to a person'.",
        "ja": "この電話番号のお客様情報が見つかりませんでした。ご注文時の番号かご確認いただくか、"
        "「担当者につないで」と送ってください。",
    },
    "contact_not_own": {
        "ko": "본인의 연락처만 공유할 수 있어요. 아래 버튼으로 본인 번호를 공유해 주세요.",
        "en": "Please share your own contact with the button below, not someone else's.",
        "ja": "ご本人の連絡先のみ共有できます。下のボタンでご自身の番号を共有してください。",
    },
    "contact_taken": {
        "ko": "이 고객 정보는 이미 다른 텔레그램 계정과 연결되어 있어요. 상담원이 도와드릴게요: "
        "'상담원 연결'이라고 보내 주세요.",
        "en": "This customer record is already linked to another Telegram account. Type "
        "'talk to a person' and our team will help.",
        "ja": "このお客様情報はすでに別のTelegramアカウントと連携されています。「担当者につないで」と送"
        "っていただければ担当者がお手伝いします。",
    },
    "order_not_found": {
        "ko": "고객님 계정에서 주문번호 {reference}을(를) 찾지 못했어요. 주문번호를 확인해 주세요{like}.",
        "en": "I couldn't find order {reference} on your account. Please check the number{like}.",
        "ja": "お客様のアカウントで注文番号 {reference} が見つかりませんでした。番号をご確認ください{like}。",
    },
    "ask_order_number": {
        "ko": "어느 주문인지 알려 주세요. 주문번호{like}를 보내 주시면 바로 확인해 드릴게요.",
        "en": "Which order do you mean? Send me the order number{like} and I'll check it.",
        "ja": "どのご注文でしょうか。注文番号{like}を送っていただければすぐに確認します。",
    },
    "no_orders": {
        "ko": "고객님 계정에 주문 내역이 없어요.",
        "en": "There are no orders on your account.",
        "ja": "お客様のアカウントにご注文履歴がありません。",
    },
    "recent_orders": {
        "ko": "최근 주문이에요. 자세히 보려면 주문번호를 보내 주세요:\n{lines}",
        "en": "Your recent orders. Send an order number for details:\n{lines}",
        "ja": "最近のご注文です。詳細は注文番号を送ってください:\n{lines}",
    },
    "order_line": {"ko": "• {number}: {status}", "en": "• {number}: {status}", "ja": "• {number}: {status}"},
    "order_status": {
        "ko": "주문 {number}: {status}.",
        "en": "Order {number}: {status}.",
        "ja": "注文 {number}: {status}。",
    },
    "shipment": {
        "ko": "택배사 {carrier}, 운송장 번호 {tracking}. 현재 상태: {status}.",
        "en": "Carrier {carrier}, tracking number {tracking}. Current status: {status}.",
        "ja": "配送業者 {carrier}、追跡番号 {tracking}。現在の状況: {status}。",
    },
    "tracking_link": {
        "ko": "배송 조회: {url}",
        "en": "Track it here: {url}",
        "ja": "配送状況の確認: {url}",
    },
    "shipment_eta": {
        "ko": "도착 예정일: {eta}.",
        "en": "Estimated delivery: {eta}.",
        "ja": "お届け予定日: {eta}。",
    },
    "shipment_last_event": {
        "ko": "최근 기록: {at} {status} ({location}).",
        "en": "Latest update: {at} {status} ({location}).",
        "ja": "最新の記録: {at} {status} ({location})。",
    },
    "not_shipped_yet": {
        "ko": "아직 출고 전이에요. 출고되면 운송장 번호를 알려 드릴게요.",
        "en": "It hasn't shipped yet; you'll get a tracking number once it does.",
        "ja": "まだ発送前です。発送され次第、追跡番号をお知らせします。",
    },
    "sku_unknown": {
        "ko": "상품 코드 {skus}을(를) 찾지 못했어요. 상품 페이지에 있는 코드를 확인하시거나 상품명으로 "
        "물어봐 주세요.",
        "en": "I couldn't find product code {skus}. Please check the code on the product page, or ask "
        "by the product's name.",
        "ja": "商品コード {skus} が見つかりませんでした。商品ページのコードをご確認いただくか、"
        "商品名でお尋ねください。",
    },
    "no_stock_data": {
        "ko": "죄송해요, 여기서는 재고를 확인할 수 없어요. 담당자가 확인해 드릴 수 있어요.",
        "en": "Sorry, I can't check stock here. Someone from our team can check it for you.",
        "ja": "申し訳ありません。こちらでは在庫を確認できません。担当者が確認いたします。",
    },
    "which_product": {
        "ko": "어떤 상품인지 알려 주세요. 상품 페이지의 상품 코드나 상품명을 보내 주시면 재고를 "
        "확인해 드릴게요.",
        "en": "Which product do you mean? Send the product code from the product page, or its name, "
        "and I'll check the stock.",
        "ja": "どの商品でしょうか。商品ページの商品コードか商品名を送っていただければ在庫を確認します。",
    },
    "stock_in": {
        "ko": "{name} ({sku}): 재고 있어요 ({stock}개). 가격 {price}.",
        "en": "{name} ({sku}): in stock ({stock} available). Price {price}.",
        "ja": "{name} ({sku}): 在庫あり({stock}点)。価格 {price}。",
    },
    "stock_low": {
        "ko": "{name} ({sku}): {stock}개 남았어요 - 품절 임박이에요. 가격 {price}.",
        "en": "{name} ({sku}): only {stock} left. Price {price}.",
        "ja": "{name} ({sku}): 残り{stock}点です。価格 {price}。",
    },
    "stock_out_restock": {
        "ko": "{name} ({sku}): 현재 품절이에요. 재입고 예정일은 {restock}입니다. 가격 {price}.",
        "en": "{name} ({sku}): sold out. Restock expected on {restock}. Price {price}.",
        "ja": "{name} ({sku}): 現在品切れです。再入荷予定日は{restock}です。価格 {price}。",
    },
    "stock_out": {
        "ko": "{name} ({sku}): 현재 품절이며 재입고 일정은 아직 없어요. 가격 {price}.",
        "en": "{name} ({sku}): sold out, and no restock date is set yet. Price {price}.",
        "ja": "{name} ({sku}): 品切れで、再入荷の予定はまだありません。価格 {price}。",
    },
    "stock_options": {"ko": "옵션: {options}.", "en": "Options: {options}.", "ja": "オプション: {options}。"},
    "stock_by_option": {
        "ko": "옵션별 재고: {options}.",
        "en": "Stock by option: {options}.",
        "ja": "オプション別の在庫: {options}。",
    },
    "option_count": {"ko": "{option} {stock}개", "en": "{option}: {stock}", "ja": "{option} {stock}点"},
    "option_sold_out": {"ko": "{option} 품절", "en": "{option}: sold out", "ja": "{option} 品切れ"},
    "option_stock_in": {
        "ko": "{name} ({sku}) {option}: 재고 있어요 ({stock}개).",
        "en": "{name} ({sku}) in {option}: in stock ({stock} available).",
        "ja": "{name} ({sku}) {option}: 在庫あり({stock}点)。",
    },
    "option_stock_out": {
        "ko": "{name} ({sku}) {option}: 현재 품절이에요.",
        "en": "{name} ({sku}) in {option}: sold out.",
        "ja": "{name} ({sku}) {option}: 品切れです。",
    },
    "option_others": {
        "ko": "다른 옵션: {options}.",
        "en": "Other options: {options}.",
        "ja": "ほかのオプション: {options}。",
    },
    "option_size_not_offered": {
        "ko": "{name} ({sku})은(는) {asked} 사이즈가 없어요. 있는 사이즈: {offered}.",
        "en": "{name} ({sku}) doesn't come in size {asked}. Sizes: {offered}.",
        "ja": "{name} ({sku})に{asked}サイズはありません。サイズ: {offered}。",
    },
    "option_colour_not_offered": {
        "ko": "{name} ({sku})은(는) {asked} 색상이 없어요. 있는 색상: {offered}.",
        "en": "{name} ({sku}) doesn't come in {asked}. Colours: {offered}.",
        "ja": "{name} ({sku})に{asked}はありません。カラー: {offered}。",
    },
    "not_carried_near": {
        "ko": "죄송해요, 찾으시는 상품은 저희가 취급하지 않는 것 같아요. 혹시 {names}을(를) 찾으시나요? "
        "상품명으로 물어봐 주시면 재고를 확인해 드릴게요.",
        "en": "Sorry, we don't seem to carry that. Did you mean the {names}? Ask me about it by name "
        "and I'll check the stock.",
        "ja": "申し訳ありません、お探しの商品は取り扱いがないようです。{names}のことでしょうか。"
        "商品名でお尋ねいただければ在庫を確認します。",
    },
    "or": {"ko": "또는", "en": "or", "ja": "または"},
    "faq_no_match": {
        "ko": "죄송해요, 그 질문에는 정확히 답을 드리기 어려워요. '상담원 연결'이라고 보내 주시면 "
        "담당자가 도와드릴게요.",
        "en": "Sorry, I don't have a reliable answer to that. Type 'talk to a person' and "
        "our team will help.",
        "ja": "申し訳ありません、そのご質問には確かなお答えができません。「担当者につないで」と送ってい"
        "ただければ担当者がお手伝いします。",
    },
    "faq_no_match_choices": {
        "ko": "죄송해요, 그 질문에 정확한 답인지 확신이 없어요. 아래 중 궁금하신 내용이 있으면 눌러 주세요. "
        "없으면 상담원을 연결해 드릴게요.",
        "en": "Sorry, I'm not sure I have the answer to that. Is it one of these? If not, a person "
        "from our team can help.",
        "ja": "申し訳ありません、そのご質問への確かな答えか分かりません。下の中にお探しの内容があれば"
        "押してください。なければ担当者におつなぎします。",
    },
    "order_number_or_entries": {
        "ko": "주문 조회라면 주문번호{like}를 보내 주세요. 아니면 아래 질문 중에 찾으시는 내용이 있나요?",
        "en": "If it's about an order, send me its number{like} and I'll check it. Or is your question "
        "one of these?",
        "ja": "ご注文の確認でしたら、注文番号{like}を送ってください。それとも、下のご質問の"
        "いずれかでしょうか？",
    },
    "or_one_of_these": {
        "ko": "아니면 아래 질문 중에 찾으시는 내용이 있나요?",
        "en": "Or is your question one of these?",
        "ja": "それとも、下のご質問のいずれかでしょうか？",
    },
    "while_you_wait": {
        "ko": "기다리시는 동안, 혹시 아래 질문 중에 찾으시는 내용이 있나요?",
        "en": "While you wait: is your question one of these?",
        "ja": "お待ちいただく間に、下のご質問の中にお探しの内容はございますか？",
    },
    "faq_choice_gone": {
        "ko": "죄송해요, 그 안내는 더 이상 제공되지 않아요. 질문을 다시 보내 주시거나 "
        "상담원을 연결해 주세요.",
        "en": "Sorry, that answer is no longer available. Please ask again, or talk to a person.",
        "ja": "申し訳ありません、その案内は現在ご利用いただけません。もう一度ご質問いただくか、"
        "担当者におつなぎください。",
    },
    "handoff_started": {
        "ko": "상담원에게 연결해 드릴게요. 지금부터 보내시는 메시지는 담당자에게 전달돼요. "
        "챗봇으로 돌아가려면 /bot 을 보내 주세요.",
        "en": "I'm connecting you with our team. Everything you send now goes to a person. "
        "Send /bot to come back to me.",
        "ja": "担当者におつなぎします。これから送るメッセージは担当者に届きます。ボットに戻るには "
        "/bot を送ってください。",
    },
    "handoff_unavailable": {
        "ko": "상담 요청을 접수했어요. 담당자가 확인 후 연락드릴게요.",
        "en": "I've logged your request for a person; our team will get back to you.",
        "ja": "担当者へのご依頼を受け付けました。担当者から折り返しご連絡します。",
    },
    "handoff_forward_failed": {
        "ko": "상담원에게 메시지를 전달하지 못했어요. 요청은 저장되었고 담당자가 확인할게요.",
        "en": "I couldn't pass your message to our team just now. It is saved and our team will see it.",
        "ja": "担当者にメッセージを転送できませんでした。ご依頼は保存され、担当者が確認します。",
    },
    "handoff_ended": {
        "ko": "상담이 종료되었어요. 다시 챗봇이 도와드릴게요.",
        "en": "You're back with the bot. How can I help?",
        "ja": "ボットに戻りました。何をお手伝いしましょうか。",
    },
    "staff_reply": {"ko": "💬 상담원: {text}", "en": "💬 Our team: {text}", "ja": "💬 担当者: {text}"},
    "rating_question": {
        "ko": "상담은 어떠셨나요? 1(아쉬움)부터 5(아주 만족)까지 골라 주세요. 건너뛰셔도 괜찮아요.",
        "en": "How did our team do? Pick 1 (poor) to 5 (great), or skip.",
        "ja": "担当者の対応はいかがでしたか。1（不満）から5（大変満足）までお選びください。"
        "スキップも可能です。",
    },
    "rating_skip_button": {"ko": "건너뛰기", "en": "Skip", "ja": "スキップ"},
    "rating_thanks": {
        "ko": "평가해 주셔서 감사합니다!",
        "en": "Thank you for rating us!",
        "ja": "ご評価いただきありがとうございます。",
    },
    "rating_skipped": {
        "ko": "알겠어요. 더 궁금한 점이 있으면 언제든 말씀해 주세요.",
        "en": "No problem. Ask me anything, any time.",
        "ja": "承知しました。ご不明な点があればいつでもどうぞ。",
    },
    "rating_already": {
        "ko": "이미 평가해 주셨어요. 감사합니다!",
        "en": "You've rated this conversation already. Thank you!",
        "ja": "すでにご評価いただいています。ありがとうございます。",
    },
    "return_start_button": {
        "ko": "반품·교환 신청하기",
        "en": "Start a return or exchange",
        "ja": "返品・交換を申請する",
    },
    "sorry_complaint": {
        "ko": "불편을 드려 정말 죄송합니다.",
        "en": "I'm really sorry about this.",
        "ja": "ご不便をおかけして大変申し訳ありません。",
    },
    "damaged_item": {
        "ko": "아래에서 반품·교환을 신청하고 맞는 사유를 골라 주세요. 상담원과 이야기하셔도 됩니다.",
        "en": "Start a return or exchange below and pick the reason that fits, or talk to a person "
        "from our team.",
        "ja": "下のボタンから返品・交換をお申し込みいただき、該当する理由をお選びください。担当者と"
        "お話しいただくこともできます。",
    },
    "return_choose_order": {
        "ko": "반품·교환할 주문을 선택해 주세요.",
        "en": "Which order is it about?",
        "ja": "返品・交換するご注文を選んでください。",
    },
    "return_no_eligible": {
        "ko": "지금 반품·교환을 신청할 수 있는 주문이 없어요. 도움이 필요하시면 '상담원 연결'이라고 "
        "보내 주세요.",
        "en": "None of your orders can be returned right now. If you need help, type 'talk to a person'.",
        "ja": "現在、返品・交換をお申し込みいただけるご注文がありません。お手伝いが必要でしたら"
        "「担当者につないで」とお送りください。",
    },
    "return_none_yet": {
        "ko": "아직 접수된 반품·교환 신청이 없어요. 신청하시려면 /return 을 보내거나 '반품하고 싶어요'라고 "
        "적어 주세요.",
        "en": "You don't have any return requests yet. To start one, send /return or type 'I want to "
        "return' with your order number.",
        "ja": "まだ返品・交換のお申し込みはありません。お申し込みは /return を送るか、「返品したい」と"
        "ご注文番号を添えてお送りください。",
    },
    "return_choose_item": {
        "ko": "주문 {number}에서 어떤 상품인가요?",
        "en": "Which item from order {number}?",
        "ja": "注文 {number} のどの商品ですか。",
    },
    "return_choose_reason": {
        "ko": "사유를 선택하거나 직접 적어 주세요.",
        "en": "Why are you returning it? Pick a reason or type your own.",
        "ja": "理由を選ぶか、直接入力してください。",
    },
    "return_choose_kind": {
        "ko": "교환과 환불 중 어떤 걸 원하세요?",
        "en": "Exchange or refund?",
        "ja": "交換と返金のどちらをご希望ですか。",
    },
    "return_confirm": {
        "ko": "확인해 주세요:\n주문 {number}\n상품 {item}\n사유 {reason}\n처리 {kind}",
        "en": "Please confirm:\nOrder {number}\nItem {item}\nReason {reason}\nResolution {kind}",
        "ja": "ご確認ください:\n注文 {number}\n商品 {item}\n理由 {reason}\n対応 {kind}",
    },
    "return_created": {
        "ko": "반품·교환 신청이 접수되었어요. 접수 번호는 {rma}입니다. 회수 안내를 곧 보내 드릴게요.",
        "en": "Your request is registered. Your RMA number is {rma}. We'll send pickup instructions shortly.",
        "ja": "返品・交換のお申し込みを受け付けました。受付番号は{rma}です。回収のご案内をまもなくお送り"
        "します。",
    },
    "return_already": {
        "ko": "이미 접수된 신청이에요. 접수 번호는 {rma}입니다.",
        "en": "This request is already registered. Your RMA number is {rma}.",
        "ja": "すでに受け付けたお申し込みです。受付番号は{rma}です。",
    },
    "return_item_open": {
        "ko": "{item} 상품은 이미 반품·교환 신청이 진행 중이에요. 접수 번호는 {rma}이고, 다시 신청하지 "
        "않으셔도 돼요.",
        "en": "A return for {item} is already open: its RMA number is {rma}, so there's no need to file "
        "another.",
        "ja": "{item} はすでに返品・交換のお申し込みを受け付けています。受付番号は{rma}で、改めてお申し込み"
        "いただく必要はありません。",
    },
    "return_paused": {
        "ko": "작성 중인 반품 신청은 그대로 두었어요. 이어서 하시려면 아래 버튼을 눌러 주세요.",
        "en": "Your return form is kept as it is: tap below to pick it up again.",
        "ja": "作成中の返品のお申し込みはそのまま残しています。続ける場合は下のボタンを押してください。",
    },
    "return_resumed": {
        "ko": "반품 신청을 이어서 할게요.",
        "en": "Let's carry on with your return.",
        "ja": "返品のお申し込みを続けます。",
    },
    "return_in_progress": {
        "ko": "반품 신청을 이미 작성하고 계세요. 아래에서 골라 주시거나, 그만두시려면 '취소'라고 "
        "보내 주세요.",
        "en": "You're already filling in a return: pick below, or type 'cancel' to stop it.",
        "ja": "返品のお申し込みはすでに作成中です。下から選ぶか、やめる場合は「キャンセル」と"
        "送ってください。",
    },
    "return_reprompt_choice": {
        "ko": "어떤 걸 고르셨는지 알아듣지 못했어요. 아래 버튼을 누르시거나 이름이나 번호를 적어 주세요. "
        "신청을 그만두시려면 '취소'라고 보내 주세요.",
        "en": "Sorry, I didn't catch which one you mean. Tap a button below or type its name or number; "
        "to stop this return, type 'cancel'.",
        "ja": "どれを選ばれたか分かりませんでした。下のボタンを押すか、名前か番号を入力してください。"
        "お申し込みをやめる場合は「キャンセル」と送ってください。",
    },
    "return_reprompt_confirm": {
        "ko": "이대로 신청할까요? 신청하시려면 '네', 그만두시려면 '아니요'라고 보내 주시거나 아래 버튼을 "
        "눌러 주세요.",
        "en": "Shall I file this request? Reply 'yes' to file it or 'no' to cancel, or tap a button below.",
        "ja": "この内容で申請しますか。申請する場合は「はい」、やめる場合は「いいえ」と送るか、下のボタンを"
        "押してください。",
    },
    "return_cancelled": {
        "ko": "반품·교환 신청을 취소했어요.",
        "en": "Return request cancelled; nothing was filed.",
        "ja": "返品・交換のお申し込みを取り消しました。",
    },
    "shop_unavailable": {
        "ko": "죄송해요, 지금은 쇼핑몰 시스템에 연결되지 않아 그 정보를 확인할 수 없어요. 잠시 후 다시 "
        "물어봐 주시거나, 상담원에게 연결해 드릴게요.",
        "en": "Sorry, I can't look that up right now: the shop's system isn't answering. Please ask "
        "again in a few minutes, or I can put you through to a person.",
        "ja": "申し訳ありません、ただいまショップのシステムに接続できず、その情報を確認できません。"
        "少し時間をおいてもう一度お尋ねいただくか、担当者におつなぎします。",
    },
    "cancel_possible": {
        "ko": "주문 {number}은(는) 아직 출고 전({status})이라 취소할 수 있어요. 마이페이지 > 주문 내역에서 "
        "직접 취소하시거나, 상담원에게 요청해 주세요.",
        "en": "Order {number} hasn't shipped yet ({status}), so it can still be cancelled: under My Page > "
        "Orders, or a person from our team can do it for you.",
        "ja": "ご注文{number}はまだ発送前（{status}）のため、キャンセルできます。マイページ > 注文履歴から"
        "ご自身でキャンセルいただくか、担当者にお申し付けください。",
    },
    "cancel_not_possible": {
        "ko": "주문 {number}은(는) 이미 {status} 상태라 취소할 수 없어요. 받으신 뒤 반품·교환을 신청해 "
        "주세요.",
        "en": "Order {number} is already {status}, so it can't be cancelled any more. Once it's with you, "
        "you can ask for a return or exchange instead.",
        "ja": "ご注文{number}はすでに{status}のため、キャンセルできません。お受け取り後に返品・交換を"
        "お申し込みください。",
    },
    "cancel_already": {
        "ko": "주문 {number}은(는) 이미 취소되었어요.",
        "en": "Order {number} has already been cancelled.",
        "ja": "ご注文{number}はすでにキャンセルされています。",
    },
    "return_window_closed": {
        "ko": "죄송해요, 주문 {number}은(는) {delivered}에 배송 완료되어 반품·교환 기간(배송 완료 후 "
        "{days}일, {last_day}까지)이 지났어요. 그래서 여기서는 신청을 접수할 수 없어요. 특별한 사정이 "
        "있으시면 상담원이 직접 확인해 드릴게요.",
        "en": "I'm sorry: order {number} was delivered on {delivered}, and returns and exchanges are "
        "accepted within {days} days of delivery (until {last_day}), so I can't file one for it here. "
        "If there's a special circumstance, a person from our team can look at it with you.",
        "ja": "申し訳ありません。ご注文{number}は{delivered}に配達済みで、返品・交換の受付期間（配達後"
        "{days}日、{last_day}まで）を過ぎているため、ここではお申し込みを受け付けられません。特別なご事情が"
        "ある場合は、担当者が直接確認いたします。",
    },
    "return_cancel_instead": {
        "ko": "주문 {number}은(는) 아직 출고 전({status})이라 반품 대신 주문 취소가 가능해요. 취소는 "
        "마이페이지 > 주문 내역에서 하시거나, 상담원에게 요청해 주세요.",
        "en": "Order {number} hasn't shipped yet ({status}), so it can be cancelled rather than "
        "returned: under My Page > Orders, or ask a person from our team.",
        "ja": "ご注文{number}はまだ発送前（{status}）のため、返品ではなくキャンセルが可能です。マイページ > "
        "注文履歴から、または担当者にお申し付けください。",
    },
    "return_status_refused": {
        "ko": "주문 {number}은(는) 현재 상태({status})에서는 반품·교환을 신청할 수 없어요. 상담원이 "
        "도와드릴 수 있어요.",
        "en": "Order {number} can't be returned in its current state ({status}). A person from our "
        "team can help.",
        "ja": "ご注文{number}は現在の状態（{status}）では返品・交換をお申し込みいただけません。担当者が"
        "お手伝いできます。",
    },
    "return_expired": {
        "ko": "이 신청 화면은 만료되었어요. /return 으로 다시 시작해 주세요.",
        "en": "This form has expired. Send /return to start again.",
        "ja": "この申請画面は期限切れです。/return でもう一度始めてください。",
    },
    "return_reason_too_long": {
        "ko": "사유는 500자 이내로 적어 주세요.",
        "en": "Please keep the reason under 500 characters.",
        "ja": "理由は500文字以内で入力してください。",
    },
    "return_status_line": {
        "ko": "• {rma}: {status} ({kind}, {date})",
        "en": "• {rma}: {status} ({kind}, {date})",
        "ja": "• {rma}: {status} ({kind}, {date})",
    },
    "return_status": {
        "ko": "고객님의 반품·교환 신청 현황이에요:\n{lines}",
        "en": "Your return requests:\n{lines}",
        "ja": "お客様の返品・交換のお申し込み状況です:\n{lines}",
    },
    "rma_not_found": {
        "ko": "고객님 계정에서 {rma} 신청을 찾지 못했어요. 접수 번호를 확인해 주세요.",
        "en": "I couldn't find {rma} on your account. Please check the RMA number.",
        "ja": "お客様のアカウントで {rma} が見つかりませんでした。受付番号をご確認ください。",
    },
    "human_button": {"ko": "상담원 연결", "en": "Talk to a person", "ja": "担当者につなぐ"},
    "button_confirm": {"ko": "✅ 신청", "en": "✅ Confirm", "ja": "✅ 申請する"},
    "button_cancel": {"ko": "취소", "en": "Cancel", "ja": "キャンセル"},
    "button_resume_return": {
        "ko": "반품 신청 이어서 하기",
        "en": "Continue my return",
        "ja": "返品の申し込みを続ける",
    },
    "kind_refund": {"ko": "환불", "en": "Refund", "ja": "返金"},
    "kind_exchange": {"ko": "교환", "en": "Exchange", "ja": "交換"},
    "reason_damaged": {"ko": "파손·불량", "en": "Damaged or defective", "ja": "破損・不良"},
    "reason_wrong_item": {"ko": "오배송", "en": "Wrong item", "ja": "誤配送"},
    "reason_size": {"ko": "사이즈·핏", "en": "Size or fit", "ja": "サイズ・フィット"},
    "reason_changed_mind": {"ko": "단순 변심", "en": "Changed my mind", "ja": "お客様都合"},
    "status_pending": {"ko": "결제 대기", "en": "awaiting payment", "ja": "お支払い待ち"},
    "status_paid": {
        "ko": "결제 완료, 출고 준비 중",
        "en": "paid, preparing to ship",
        "ja": "お支払い済み、発送準備中",
    },
    "status_preparing": {"ko": "상품 준비 중", "en": "being prepared", "ja": "商品準備中"},
    "status_shipped": {"ko": "배송 중", "en": "shipped", "ja": "配送中"},
    "status_delivered": {"ko": "배송 완료", "en": "delivered", "ja": "配達済み"},
    "status_cancelled": {"ko": "주문 취소", "en": "cancelled", "ja": "キャンセル済み"},
    "return_status_requested": {"ko": "접수됨", "en": "requested", "ja": "受付済み"},
    "return_status_approved": {"ko": "승인됨", "en": "approved", "ja": "承認済み"},
    "return_status_received": {"ko": "회수 완료", "en": "item received", "ja": "回収済み"},
    "return_status_refunded": {"ko": "환불 완료", "en": "refunded", "ja": "返金済み"},
    "return_status_rejected": {"ko": "반려됨", "en": "rejected", "ja": "却下"},
    "clarify": {
        "ko": "어떤 내용인지 정확히 모르겠어요. 아래에서 골라 주시거나 조금 더 자세히 적어 주세요.",
        "en": "I'm not sure what this is about. Pick one below, or tell me a bit more.",
        "ja": "どのようなご用件か分かりませんでした。下から選ぶか、もう少し詳しく教えてください。",
    },
    "clarify_button_order": {
        "ko": "📦 주문·배송 조회",
        "en": "📦 Order status",
        "ja": "📦 注文・配送状況",
    },
    "clarify_button_stock": {
        "ko": "🏷️ 재고 확인",
        "en": "🏷️ Stock",
        "ja": "🏷️ 在庫",
    },
    "clarify_button_return": {
        "ko": "↩️ 반품·교환",
        "en": "↩️ Return or exchange",
        "ja": "↩️ 返品・交換",
    },
    "clarify_button_other": {
        "ko": "💬 다른 문의",
        "en": "💬 Something else",
        "ja": "💬 その他",
    },
    "clarify_other": {
        "ko": "궁금한 점을 한 문장으로 적어 주시면 다시 찾아볼게요. 사람과 이야기하고 싶으시면 "
        "아래 버튼을 눌러 주세요.",
        "en": "Tell me your question in a sentence and I'll look again, or tap below to talk to a person.",
        "ja": "ご質問を一文で書いていただければもう一度探します。担当者と話したい場合は下のボタンを押し"
        "てください。",
    },
}


class Language(StrEnum):
    """A language the bot answers in (the stored and logged value is the code)."""

    KO = "ko"
    EN = "en"
    JA = "ja"

    @classmethod
    def known(cls, code: str | None) -> Language | None:
        """The language a code names exactly ("ko"), None for any other (or none)."""
        return cls(code) if code is not None and code in cls._value2member_map_ else None

    @classmethod
    def of(cls, code: str | None, default: Language | None = None) -> Language:
        """The language a code begins with ("ko", "ja-JP", "EN"); `default` (English) for any other."""
        return cls.known((code or "").strip().lower()[:2]) or default or cls.EN


LANGUAGES: tuple[Language, ...] = tuple(Language)


def carrier_status(status: str, language: Language) -> str:
    """A carrier's status (`in_transit`, "In Transit") in the customer's language when it is a common
    one (the `carrier_*` texts); any other as the carrier wrote it: better in English than guessed."""
    key = "carrier_" + "_".join(status.lower().replace("-", " ").split())
    return t(key, language) if key in _TEXTS else status.replace("_", " ")


def order_like(example: str | None, language: Language) -> str:
    """ " (like MC12345678-9012)" after "the order number", from the shop's own numbering; nothing
    when the shop has no orders to learn it from (never the demo's numbers)."""
    return t("order_example", language, order=example) if example else ""


def help_text(language: Language, *, product: str | None, order: str | None) -> str:
    """/help's examples from the shop's own catalogue and order numbering."""
    examples = (t("help_stock_example", language, product=product) if product else "") + (
        t("help_order_example", language, order=order) if order else ""
    )
    return t("help", language, examples=examples)


def t(key: str, language: Language, **values: Any) -> str:
    """The sentence `key` in `language` (English when we lack that language)."""
    variants = _TEXTS[key]
    template = variants.get(language) or variants["en"]
    return template.format(**values) if values else template


def untranslated(languages: tuple[Language, ...] = LANGUAGES) -> dict[Language, tuple[str, ...]]:
    """The sentences that have no text in each of `languages` (they would be sent in English), for
    the go-live check and the test that keeps every sentence in every language."""
    return {
        language: missing
        for language in languages
        if (missing := tuple(key for key, variants in _TEXTS.items() if language not in variants))
    }
