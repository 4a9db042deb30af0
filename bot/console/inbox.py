"""The console's inbox: the queue of hand-offs and working one, live.

The queue and a hand-off's thread update themselves: `/inbox/live` is a server-sent event
stream that says "changed" whenever the hand-off tables do (any process, any front: it reads
the database), and the page fetches its own fragment again. Replies, claims and resolving go
through handlers/flows/handoff.py, as they do from Telegram's support chat, so each front
shows what was done in the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from urllib.parse import urlencode

from aiohttp import web
from aiohttp.web_request import FileField
from multidict import MultiDictProxy

from bot.console.pages import LANGUAGES, ROOT, ConsoleDeps, bad, int_value, render, see_other
from bot.console.security import admin_of
from db.models import HandoffStatus, HandoffVia
from db.types import utcnow
from handlers.flows.handoff import claim_handoff, reply_to_customer, resolve_handoff
from services.console.auth import audit
from services.handoff import inbox
from services.handoff.saved_replies import SavedReplyError, delete_reply, list_replies, save_reply
from services.handoff.sessions import format_age
from services.text.split import split_text

logger = logging.getLogger(__name__)

TABS = ("waiting", "mine", "pending", "resolved", "all")
ACTIONS = ("claim", "reply", "note", "tags", "status")
LIVE_SECONDS = 300.0
"""How long one event stream stays open; the browser opens the next itself (EventSource)."""
MAX_REPLY_CHARS = 3 * 4000
STOPPING = web.AppKey("console_stopping", asyncio.Event)


def _in_tab(item: inbox.QueueItem, tab: str, me: int) -> bool:
    status = item.handoff.status
    if tab == "waiting":
        return status == HandoffStatus.OPEN
    if tab == "mine":
        return status != HandoffStatus.RESOLVED and item.handoff.assignee_id == me
    if tab == "pending":
        return status == HandoffStatus.PENDING
    if tab == "resolved":
        return status == HandoffStatus.RESOLVED
    return True


def _form_text(form: MultiDictProxy[str | bytes | bytearray | FileField], name: str) -> str:
    value = form.get(name, "")
    return value if isinstance(value, str) else ""


def add_inbox_routes(app: web.Application, deps: ConsoleDeps) -> None:
    routes = web.RouteTableDef()
    app[STOPPING] = asyncio.Event()

    async def stopping(app: web.Application) -> None:
        app[STOPPING].set()  # open event streams end, so the server stops without waiting on them

    app.on_shutdown.append(stopping)

    @routes.get("/inbox")
    async def queue(request: web.Request) -> web.StreamResponse:
        tab = request.query.get("tab", "waiting")
        if tab not in TABS:
            tab = "waiting"
        me = admin_of(request).admin_id
        async with deps.sessions() as session:
            items = await inbox.queue(session)
        now = utcnow()
        counts = {name: sum(1 for item in items if _in_tab(item, name, me)) for name in TABS}
        shown = [item for item in items if _in_tab(item, tab, me)]
        if tab == "resolved":
            shown.reverse()  # the newest resolved first
        template = "inbox_queue.html" if request.query.get("fragment") else "inbox.html"
        return render(
            request, template, items=shown, tab=tab, tabs=TABS, counts=counts, now=now, age=format_age
        )

    @routes.get("/inbox/live")
    async def live(request: web.Request) -> web.StreamResponse:
        """`changed` events while the inbox changes; a comment now and then keeps proxies from
        closing a quiet stream."""
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
            }
        )
        await response.prepare(request)
        stop = request.app[STOPPING]
        loop = asyncio.get_running_loop()
        ends = loop.time() + LIVE_SECONDS
        quiet = 0.0
        last: str | None = None
        with contextlib.suppress(ConnectionResetError):  # the browser went away
            await response.write(b"retry: 1000\n\n")
            while not stop.is_set() and loop.time() < ends:
                async with deps.sessions() as session:
                    mark = await inbox.change_mark(session)
                if mark != last:
                    await response.write(f"event: changed\ndata: {mark}\n\n".encode())
                    last, quiet = mark, 0.0
                elif quiet >= 15:
                    await response.write(b": still here\n\n")
                    quiet = 0.0
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), deps.live_interval)
                quiet += deps.live_interval
        return response

    def _handoff_id(request: web.Request) -> int | None:
        try:
            return int_value(request.match_info["handoff_id"])
        except ValueError:
            return None

    @routes.get("/inbox/{handoff_id}")
    async def conversation(request: web.Request) -> web.StreamResponse:
        handoff_id = _handoff_id(request)
        if handoff_id is None:
            return bad(request, "No such hand-off.")
        async with deps.sessions() as session:
            found = await inbox.thread(session, handoff_id)
            if found is None:
                return bad(request, "No such hand-off.")
            replies = await list_replies(session, found.handoff.language)
        template = "inbox_thread.html" if request.query.get("fragment") else "handoff.html"
        return render(
            request,
            template,
            thread=found,
            replies=replies,
            name_of=inbox.name_of,
            statuses=[status.value for status in HandoffStatus],
            notice=request.query.get("notice", ""),
            can_send=deps.bot is not None,
        )

    async def _act(request: web.Request, action: str) -> web.StreamResponse:
        handoff_id = _handoff_id(request)
        if handoff_id is None:
            return bad(request, "No such hand-off.")
        form = await request.post()
        me = admin_of(request).admin_id
        back = f"{ROOT}/inbox/{handoff_id}"
        async with deps.sessions() as session:
            opened = await inbox.get(session, handoff_id)
            if opened is None:
                return bad(request, "No such hand-off.")
            notice = ""
            if action in ("claim", "reply", "resolve") and deps.bot is None:
                return bad(
                    request, "Writing to customers needs the bot's token (CSBOT_BOT_TOKEN) in this process."
                )
            if action == "claim":
                assert deps.bot is not None
                claimed = await claim_handoff(
                    deps.bot, session, deps.settings, opened, staff_id=me, via=HandoffVia.CONSOLE
                )
                notice = "It is yours." if claimed else "It was yours already."
            elif action == "reply":
                assert deps.bot is not None
                text = _form_text(form, "text").strip()
                if not text:
                    return see_other(
                        f"{back}?{urlencode({'notice': 'Nothing to send: the reply is empty.'})}"
                    )
                if len(text) > MAX_REPLY_CHARS:
                    too_long = f"Not sent: a reply holds at most {MAX_REPLY_CHARS} characters."
                    return see_other(f"{back}?{urlencode({'notice': too_long})}")
                refused = await reply_to_customer(
                    deps.bot, session, deps.settings, opened, staff_id=me, text=text, via=HandoffVia.CONSOLE
                )
                notice = (
                    f"Not delivered: {refused}" if refused else f"Sent ({len(split_text(text))} message(s))."
                )
            elif action == "note":
                added = await inbox.add_note(
                    session, opened, me, _form_text(form, "text"), HandoffVia.CONSOLE
                )
                notice = "Note added." if added else "Nothing to add: the note is empty."
            elif action == "tags":
                tags = inbox.parse_tags(_form_text(form, "tags"))
                changed = await inbox.set_tags(session, opened, me, tags, HandoffVia.CONSOLE)
                notice = "Tags saved." if changed else "Tags unchanged."
            elif action == "status":
                status = _form_text(form, "status")
                if status == HandoffStatus.RESOLVED:
                    if deps.bot is None:
                        return bad(request, "Resolving tells the customer; it needs the bot's token here.")
                    done = await resolve_handoff(
                        deps.bot, session, deps.settings, opened, staff_id=me, via=HandoffVia.CONSOLE
                    )
                    notice = (
                        "Resolved; the customer was asked to rate it." if done else "It was resolved already."
                    )
                elif status in (HandoffStatus.OPEN, HandoffStatus.PENDING):
                    changed = await inbox.set_status(
                        session, opened, me, HandoffStatus(status), HandoffVia.CONSOLE
                    )
                    notice = f"Now {status}." if changed else f"It was {status} already."
                else:
                    return bad(request, "A hand-off is open, pending or resolved.")
                action = f"status:{status}"
            await audit(session, me, f"handoff_{action}", f"handoff:{handoff_id}", {"result": notice})
            await session.commit()
        return see_other(f"{back}?{urlencode({'notice': notice})}")

    @routes.post("/inbox/{handoff_id}/{action}")
    async def act(request: web.Request) -> web.StreamResponse:
        action = request.match_info["action"]
        if action not in ACTIONS:
            return bad(request, "The console does not know that action.")
        return await _act(request, action)

    @routes.get("/replies")
    async def replies(request: web.Request) -> web.StreamResponse:
        async with deps.sessions() as session:
            rows = await list_replies(session)
        return render(
            request,
            "replies.html",
            rows=rows,
            languages=LANGUAGES,
            notice=request.query.get("notice", ""),
            error=None,
        )

    @routes.post("/replies")
    async def reply_saved(request: web.Request) -> web.StreamResponse:
        form = await request.post()
        me = admin_of(request).admin_id
        async with deps.sessions() as session:
            try:
                saved = await save_reply(
                    session,
                    title=_form_text(form, "title"),
                    language=_form_text(form, "language"),
                    text=_form_text(form, "text"),
                    staff_id=me,
                )
            except SavedReplyError as error:
                await session.rollback()
                rows = await list_replies(session)
                return render(
                    request,
                    "replies.html",
                    status=400,
                    rows=rows,
                    languages=LANGUAGES,
                    notice="",
                    error=str(error),
                )
        return see_other(
            f"{ROOT}/replies?{urlencode({'notice': f'Saved {saved.title!r} ({saved.language}).'})}"
        )

    @routes.post("/replies/{reply_id}/delete")
    async def reply_deleted(request: web.Request) -> web.StreamResponse:
        try:
            reply_id = int_value(request.match_info["reply_id"])
        except ValueError:
            reply_id = None
        async with deps.sessions() as session:
            gone = (
                await delete_reply(session, reply_id, staff_id=admin_of(request).admin_id)
                if reply_id
                else None
            )
        if gone is None:
            return bad(request, "No such saved reply.")
        return see_other(
            f"{ROOT}/replies?{urlencode({'notice': f'Deleted {gone.title!r} ({gone.language}).'})}"
        )

    app.router.add_routes(routes)
