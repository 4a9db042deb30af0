"""The console's routes: thin adapters from HTTP to services/console_* and the templates.

Mounted at /admin on the bot's HTTP server (`HttpFront`), or served alone by
`csbot admin` when the bot polls. Every page but the login link's needs a session of someone
on the team, some an admin's (bot/console/security.py); every action is audited by the service
it calls. The inbox's routes are in bot/console/inbox.py.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from urllib.parse import urlencode

from aiohttp import web

from bot.console.inbox import add_inbox_routes
from bot.console.pages import (
    DEPS_KEY,
    HERE,
    LANGUAGES,
    PERIODS,
    ROOT,
    TEMPLATES_KEY,
    ConsoleDeps,
    bad,
    denied,
    environment,
    int_value,
    render,
    see_other,
)
from bot.console.security import COOKIE, admin_of, gate, is_https
from db.types import utcnow
from services.admin.stats import parse_period
from services.console.auth import audit, redeem_login_link, sign_out
from services.console.canary import audit_trail, canary_view
from services.console.conversations import ConversationFilters, filter_choices, list_messages, load_transcript
from services.console.dashboard import build_dashboard
from services.console.faq import (
    FaqForm,
    LanguageMismatch,
    delete_entry,
    find_entry,
    list_entries,
    save_entry,
)
from services.console.resend import resend, undelivered
from services.faq.files import FaqFileError
from services.rollout.canary import CanaryError, admin_actor, percent_of

logger = logging.getLogger(__name__)


def _entry_id(request: web.Request) -> int | None:
    """The FAQ entry id in the path; None for one that cannot be an id."""
    try:
        return int_value(request.match_info["entry_id"])
    except ValueError:
        return None


async def admins_only(request: web.Request) -> web.StreamResponse:
    return render(request, "error.html", status=403, message="This page is for admins (CSBOT_ADMIN_IDS).")


def create_console(deps: ConsoleDeps) -> web.Application:
    app = web.Application(
        middlewares=[
            gate(
                root=ROOT,
                admin_ids=lambda: deps.settings.admin_ids,
                staff_ids=lambda: deps.settings.staff_ids,
                sessions=deps.sessions,
                deny=denied,
                admins_only=admins_only,
            )
        ]
    )
    app[DEPS_KEY] = deps
    app[TEMPLATES_KEY] = environment(deps.settings.shop_policy().timezone)
    routes = web.RouteTableDef()

    @routes.get("/login/{token}")
    async def login_page(request: web.Request) -> web.StreamResponse:
        """A button, not a sign-in: link previews and scanners fetch links, and must not spend them."""
        return render(request, "login.html", token=request.match_info["token"])

    @routes.post("/login/{token}")
    async def login(request: web.Request) -> web.StreamResponse:
        key = deps.settings.console_signing_key()
        if key is None:
            return await denied(request)
        async with deps.sessions() as session:
            opened = await redeem_login_link(
                session,
                request.match_info["token"],
                key=key,
                admin_ids=deps.settings.team_ids,
                lifetime=timedelta(hours=deps.settings.console_session_hours),
                client=request.headers.get("User-Agent", ""),
            )
        if opened is None:
            logger.warning("console sign-in refused", extra={"peer": request.remote})
            return await denied(request)
        response = see_other(f"{ROOT}/")
        response.set_cookie(
            COOKIE,
            opened.cookie_value,
            path=ROOT,
            max_age=int(deps.settings.console_session_hours * 3600),
            httponly=True,
            samesite="Lax",
            secure=is_https(request, deps.settings.console_base_url()),
        )
        return response

    @routes.post("/logout")
    async def logout(request: web.Request) -> web.StreamResponse:
        async with deps.sessions() as session:
            await sign_out(session, request.cookies.get(COOKIE, ""), admin_of(request).admin_id)
        response = see_other(f"{ROOT}/signed-out")
        response.del_cookie(COOKIE, path=ROOT)
        return response

    @routes.get("/signed-out")
    async def signed_out(request: web.Request) -> web.StreamResponse:
        return render(request, "signed_out.html")

    @routes.get("/")
    async def home(request: web.Request) -> web.StreamResponse:
        return see_other(f"{ROOT}/inbox")

    @routes.get("/conversations")
    async def conversations(request: web.Request) -> web.StreamResponse:
        query = request.query
        period = query.get("period", "")
        try:
            before = int_value(query.get("before"))
            since = utcnow() - parse_period(period) if period else None
        except ValueError:
            return bad(request, "The page address has a value the console does not understand.")
        filters = ConversationFilters(
            query=query.get("q", ""),
            intent=query.get("intent") or None,
            route=query.get("route") or None,
            source=query.get("source") or None,
            language=query.get("language") or None,
            since=since,
            handoff=query.get("handoff") == "1",
            failed=query.get("failed") == "1",
        )
        async with deps.sessions() as session:
            page = await list_messages(
                session,
                filters,
                before=before,
                exclude_users=sorted(deps.settings.team_ids),
                country_code=deps.settings.phone_country_code,
            )
            choices = await filter_choices(session)
        kept = {k: v for k, v in query.items() if k != "before" and v}
        next_url = (
            f"{ROOT}/conversations?{urlencode({**kept, 'before': page.next_before})}"
            if page.next_before is not None
            else None
        )
        return render(
            request,
            "conversations.html",
            page=page,
            filters=query,
            choices=choices,
            periods=PERIODS,
            languages=LANGUAGES,
            next_url=next_url,
        )

    async def _conversation(request: web.Request, reveal: bool) -> web.StreamResponse:
        try:
            user_id = int_value(request.match_info["user_id"])
            before = int_value(request.query.get("before"))
        except ValueError:
            return bad(request, "A conversation is named by the customer's Telegram user id.")
        assert user_id is not None
        async with deps.sessions() as session:
            if reveal:
                await audit(session, admin_of(request).admin_id, "phone_revealed", f"user:{user_id}")
                await session.commit()
            transcript = await load_transcript(session, user_id, before=before, reveal=reveal)
        return render(request, "conversation.html", t=transcript, resend_available=deps.send is not None)

    @routes.get("/conversations/{user_id}")
    async def conversation(request: web.Request) -> web.StreamResponse:
        return await _conversation(request, reveal=False)

    @routes.post("/conversations/{user_id}/reveal")
    async def conversation_revealed(request: web.Request) -> web.StreamResponse:
        return await _conversation(request, reveal=True)

    @routes.get("/failed")
    async def failed(request: web.Request) -> web.StreamResponse:
        try:
            before = int_value(request.query.get("before"))
        except ValueError:
            return bad(request, "The page address has a value the console does not understand.")
        async with deps.sessions() as session:
            rows, next_before = await undelivered(session, before=before)
        return render(
            request,
            "failed.html",
            rows=rows,
            next_url=f"{ROOT}/failed?before={next_before}" if next_before is not None else None,
            result=request.query.get("result"),
            result_id=request.query.get("id", ""),
            resend_available=deps.send is not None,
        )

    @routes.post("/failed/{outbound_id}/resend")
    async def resend_one(request: web.Request) -> web.StreamResponse:
        try:
            outbound_id = int_value(request.match_info["outbound_id"])
        except ValueError:
            return bad(request, "No such undelivered message.")
        if deps.send is None:
            return bad(request, "Resending needs the bot's token (CSBOT_BOT_TOKEN) in this process.")
        assert outbound_id is not None
        async with deps.sessions() as session:
            result, _ = await resend(
                session, outbound_id, admin_id=admin_of(request).admin_id, send=deps.send
            )
        back = request.query.get("back") == "conversation"
        form = await request.post()
        target = form.get("return_to")
        if back and isinstance(target, str) and target.startswith(f"{ROOT}/conversations/"):
            return see_other(target)
        return see_other(f"{ROOT}/failed?{urlencode({'result': result.value, 'id': outbound_id})}")

    @routes.get("/faq")
    async def faq_list(request: web.Request) -> web.StreamResponse:
        async with deps.sessions() as session:
            entries = await list_entries(session, request.query.get("q", ""))
        return render(
            request,
            "faq_list.html",
            entries=entries,
            q=request.query.get("q", ""),
            saved=request.query.get("saved"),
            deleted=request.query.get("deleted"),
        )

    @routes.get("/faq/new")
    async def faq_new(request: web.Request) -> web.StreamResponse:
        question = request.query.get("question", "")
        form = FaqForm.for_question(question) if question else FaqForm()
        return render(request, "faq_form.html", form=form, entry_id=None, error=None)

    async def _save(request: web.Request, entry_id: int | None) -> web.StreamResponse:
        data = await request.post()

        def field(name: str) -> str:
            value = data.get(name, "")
            return value if isinstance(value, str) else ""

        form = FaqForm(
            *(field(name) for name in ("slug", "language", "question", "answer", "tags", "examples"))
        )
        async with deps.sessions() as session:
            try:
                saved = await save_entry(
                    session,
                    form,
                    admin_id=admin_of(request).admin_id,
                    entry_id=entry_id,
                    keep_language=field("keep_language") == "1",
                )
            except FaqFileError as error:
                await session.rollback()
                return render(
                    request,
                    "faq_form.html",
                    status=400,
                    form=form,
                    entry_id=entry_id,
                    error=str(error),
                    language_mismatch=isinstance(error, LanguageMismatch),
                )
            if deps.refresh_faq is not None:
                await deps.refresh_faq(session)
        return see_other(f"{ROOT}/faq?{urlencode({'saved': f'{saved.slug}/{saved.language}'})}")

    @routes.post("/faq/new")
    async def faq_add(request: web.Request) -> web.StreamResponse:
        return await _save(request, None)

    @routes.get("/faq/{entry_id}")
    async def faq_edit(request: web.Request) -> web.StreamResponse:
        entry_id = _entry_id(request)
        if entry_id is None:
            return bad(request, "No such FAQ entry.")
        async with deps.sessions() as session:
            entry = await find_entry(session, entry_id)
        if entry is None:
            return bad(request, "No such FAQ entry.")
        return render(request, "faq_form.html", form=FaqForm.of(entry), entry_id=entry_id, error=None)

    @routes.post("/faq/{entry_id}/delete")
    async def faq_delete(request: web.Request) -> web.StreamResponse:
        entry_id = _entry_id(request)
        if entry_id is None:
            return bad(request, "No such FAQ entry.")
        async with deps.sessions() as session:
            deleted = await delete_entry(session, entry_id, admin_id=admin_of(request).admin_id)
            if deleted is None:
                return bad(request, "No such FAQ entry.")
            if deps.refresh_faq is not None:
                await deps.refresh_faq(session)
        return see_other(f"{ROOT}/faq?{urlencode({'deleted': f'{deleted.slug}/{deleted.language}'})}")

    @routes.post("/faq/{entry_id}")
    async def faq_save(request: web.Request) -> web.StreamResponse:
        entry_id = _entry_id(request)
        if entry_id is None:
            return bad(request, "No such FAQ entry.")
        return await _save(request, entry_id)

    @routes.get("/dashboard")
    async def dashboard(request: web.Request) -> web.StreamResponse:
        period = request.query.get("period", "24h")
        try:
            span = parse_period(period)
        except ValueError as error:
            return bad(request, str(error))
        span = min(span, timedelta(days=90))
        async with deps.sessions() as session:
            board = await build_dashboard(
                session,
                period=span,
                zone=deps.settings.shop_policy().timezone,
                exclude_users=deps.settings.team_ids,
            )
        return render(request, "dashboard.html", board=board, period=period, periods=PERIODS)

    @routes.get("/audit")
    async def audit_page(request: web.Request) -> web.StreamResponse:
        async with deps.sessions() as session:
            rows = await audit_trail(session)
        return render(request, "audit.html", rows=rows)

    @routes.get("/canary")
    async def canary_page(request: web.Request) -> web.StreamResponse:
        period = request.query.get("period", "7d")
        try:
            span = min(parse_period(period), timedelta(days=90))
        except ValueError as error:
            return bad(request, str(error))
        canary = deps.canary
        roles = canary.roles if canary is not None else deps.settings.llm  # the bundled model's too
        if canary is not None:
            await canary.refresh(force=True)
        async with deps.sessions() as session:
            view = await canary_view(
                session,
                since=utcnow() - span,
                baseline=roles.baseline if roles.target else None,
                arms=[arm.name for arm in roles.arms],
                weights=canary.weights() if canary is not None and canary.active else None,
                exclude_users=deps.settings.team_ids,
            )
        return render(
            request,
            "canary.html",
            view=view,
            period=period,
            periods=PERIODS,
            can_set=canary is not None and canary.active,
            result=request.query.get("result"),
        )

    @routes.post("/canary/{arm}")
    async def canary_weight(request: web.Request) -> web.StreamResponse:
        if deps.canary is None or not deps.canary.active:
            return bad(request, "Canary weights are changed in the running bot (csbot run), or with /canary.")
        share = (await request.post()).get("percent")
        percent = percent_of(share) if isinstance(share, str) else None
        if percent is None:
            return bad(request, "The weight is a percentage between 0 and 100, e.g. 5.")
        try:
            done = await deps.canary.set_weight(
                request.match_info["arm"], percent, actor=admin_actor(admin_of(request).admin_id)
            )
        except CanaryError as error:
            return bad(request, str(error))
        return see_other(f"{ROOT}/canary?{urlencode({'result': done})}")

    app.router.add_routes(routes)
    add_inbox_routes(app, deps)
    app.router.add_static("/static", HERE / "static", name="static")
    return app


def standalone_application(deps: ConsoleDeps) -> web.Application:
    """`csbot admin`: the console at /admin of a server of its own, `/` leading there."""
    app = web.Application()

    async def to_console(_request: web.Request) -> web.StreamResponse:
        return see_other(f"{ROOT}/")

    app.router.add_get("/", to_console)
    app.add_subapp(ROOT, create_console(deps))
    return app
