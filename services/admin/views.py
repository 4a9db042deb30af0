"""How logs read for admins, shared by the Telegram commands and the shell."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from db.models import InboundMessage, InboundStatus, OutboundMessage, OutboundStatus

PREVIEW_CHARS = 160


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def inbound_line(row: InboundMessage) -> str:
    parts = [
        f"#{row.id} {row.created_at:%m-%d %H:%M:%S} user {row.telegram_user_id}",
        f"[{row.kind}]",
        f"{row.intent or '-'}",
    ]
    if row.confidence is not None:
        parts.append(f"({row.confidence:.2f})")
    parts.append(f"route={row.route or '-'} source={row.answer_source or '-'}")
    if row.latency_ms is not None:
        parts.append(f"{row.latency_ms:.1f}ms")
    if row.status != InboundStatus.ANSWERED:
        parts.append(
            f"status={row.status}" + (f" ({_preview(row.status_reason)})" if row.status_reason else "")
        )
    if row.error:
        parts.append(f"ERROR {row.error}")
    return " ".join(parts) + f"\n  > {_preview(row.text)}"


def outbound_line(reply: OutboundMessage) -> str:
    if reply.status == OutboundStatus.FAILED:
        return f"  < NOT DELIVERED #{reply.id} ({_preview(reply.error or '')}): {_preview(reply.text)}"
    return f"  < {_preview(reply.text)}"


def render_logs(rows: Sequence[InboundMessage], replies: Iterable[OutboundMessage]) -> str:
    if not rows:
        return "No messages."
    by_inbound: dict[int, list[OutboundMessage]] = {}
    for reply in replies:
        if reply.inbound_id is not None:
            by_inbound.setdefault(reply.inbound_id, []).append(reply)
    blocks = []
    for row in rows:
        lines = [inbound_line(row)]
        lines.extend(outbound_line(reply) for reply in by_inbound.get(row.id or -1, []))
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def render_conversation(rows: Sequence[InboundMessage | OutboundMessage]) -> str:
    if not rows:
        return "No conversation with this user."
    lines = []
    for row in rows:
        arrow = "<" if isinstance(row, OutboundMessage) else ">"
        if isinstance(row, OutboundMessage) and row.status == OutboundStatus.FAILED:
            arrow = "< NOT DELIVERED"
        suffix = f"  [{row.intent}]" if isinstance(row, InboundMessage) and row.intent else ""
        lines.append(f"{row.created_at:%m-%d %H:%M:%S} {arrow} {_preview(row.text)}{suffix}")
    return "\n".join(lines)


def inbound_as_json(row: InboundMessage, replies: Iterable[OutboundMessage]) -> dict[str, Any]:
    data = row.model_dump(mode="json")
    data.pop("raw_update", None)  # the admin reads the text; the raw update is for re-processing
    own = [reply for reply in replies if reply.inbound_id == row.id]
    data["replies"] = [reply.text for reply in own if reply.status != OutboundStatus.FAILED]
    data["failed_replies"] = [
        {"id": reply.id, "text": reply.text, "error": reply.error}
        for reply in own
        if reply.status == OutboundStatus.FAILED
    ]
    return data
