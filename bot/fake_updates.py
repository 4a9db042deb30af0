"""Builders of Telegram updates as Telegram would send them.

Shared by `csbot chat` and the tests, so that both drive the real dispatcher
with the same kind of input.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from aiogram.types import Update


class UpdateFactory:
    def __init__(self, *, first_update_id: int = 1, first_message_id: int = 1) -> None:
        self._update_ids = itertools.count(first_update_id)
        self._message_ids = itertools.count(first_message_id)

    @staticmethod
    def user(user_id: int, *, first_name: str = "Customer", language_code: str = "ko") -> dict[str, Any]:
        return {"id": user_id, "is_bot": False, "first_name": first_name, "language_code": language_code}

    @staticmethod
    def chat(chat_id: int, *, chat_type: str = "private") -> dict[str, Any]:
        chat: dict[str, Any] = {"id": chat_id, "type": chat_type}
        if chat_type != "private":
            chat["title"] = "Support"
        return chat

    def message(
        self,
        user_id: int,
        *,
        chat_id: int | None = None,
        chat_type: str = "private",
        update_id: int | None = None,
        reply_to: dict[str, Any] | None = None,
        **content: Any,
    ) -> Update:
        """A message update; `content` is the Telegram payload (text=..., sticker=..., contact=...)."""
        message: dict[str, Any] = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": self.chat(chat_id if chat_id is not None else user_id, chat_type=chat_type),
            "from": self.user(user_id),
            **content,
        }
        if reply_to is not None:
            message["reply_to_message"] = reply_to
        return self._update({"message": message}, update_id)

    def text(self, user_id: int, text: str, **kwargs: Any) -> Update:
        entities = []
        if text.startswith("/"):
            command = text.split()[0]
            entities = [{"type": "bot_command", "offset": 0, "length": len(command)}]
        return self.message(user_id, text=text, entities=entities, **kwargs)

    def contact(self, user_id: int, phone_number: str, *, contact_user_id: int | None) -> Update:
        contact: dict[str, Any] = {"phone_number": phone_number, "first_name": "Customer"}
        if contact_user_id is not None:
            contact["user_id"] = contact_user_id
        return self.message(user_id, contact=contact)

    def sticker(self, user_id: int) -> Update:
        return self.message(
            user_id,
            sticker={
                "file_id": "sticker-file",
                "file_unique_id": "sticker-unique",
                "type": "regular",
                "width": 512,
                "height": 512,
                "is_animated": False,
                "is_video": False,
            },
        )

    def photo(self, user_id: int, caption: str | None = None) -> Update:
        size = {"file_id": "photo", "file_unique_id": "photo-u", "width": 90, "height": 90}
        if caption:
            return self.message(user_id, photo=[size], caption=caption)
        return self.message(user_id, photo=[size])

    def callback(
        self,
        user_id: int,
        data: str,
        *,
        message_id: int = 1,
        message_text: str = "",
        update_id: int | None = None,
    ) -> Update:
        return self._update(
            {
                "callback_query": {
                    "id": f"cb-{next(self._message_ids)}",
                    "from": self.user(user_id),
                    "chat_instance": "local",
                    "data": data,
                    "message": {
                        "message_id": message_id,
                        "date": int(time.time()),
                        "chat": self.chat(user_id),
                        "from": {"id": 42, "is_bot": True, "first_name": "csbot"},
                        "text": message_text,
                    },
                }
            },
            update_id,
        )

    def _update(self, payload: dict[str, Any], update_id: int | None) -> Update:
        return Update.model_validate(
            {"update_id": update_id if update_id is not None else next(self._update_ids), **payload}
        )
