"""Who gets into the admin console, over real HTTP: one-time links, sessions, CSRF, 403s that say nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.app import App, build_app
from db.models import AdminAudit, ConsoleLoginLink, OutboundMessage
from services.console.auth import issue_login_link
from services.settings import Settings
from services.text.sentences import Language, t
from tests.console_support import (
    CONSOLE_SECRET,
    client,
    console_server,
    console_settings,
    csrf_of,
    login_path,
    sign_in,
)
from tests.harness import ADMIN_ID, OTHER_USER_ID, Harness


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return console_settings(database_url, tmp_path)


@pytest.fixture
async def base(harness: Harness, settings: Settings) -> AsyncIterator[str]:
    async with console_server(harness, settings) as url:
        yield url


async def _status(base: str, path: str, method: str = "GET", **kwargs: object) -> tuple[int, str]:
    async with client() as http, http.request(method, base + path, allow_redirects=False, **kwargs) as r:  # type: ignore[arg-type]
        return r.status, await r.text()


async def test_an_admin_signs_in_once_with_the_link_the_bot_sends(harness: Harness, base: str) -> None:
    path = await login_path(harness)
    assert path is not None and path.startswith("/admin/login/")
    [row] = await harness.rows(ConsoleLoginLink)
    assert path.rsplit("/", 1)[1] not in row.token_hash  # only a hash is stored
    sent = [r for r in await harness.rows(OutboundMessage) if r.chat_id == ADMIN_ID]
    assert sent and all("/admin/login/" not in r.text for r in sent)  # the link is not in the log
    async with client() as http:
        async with http.get(base + path) as page:  # a link preview fetching it does not spend it
            assert page.status == 200 and "Sign in" in await page.text()
            assert "Set-Cookie" not in page.headers
        response = await sign_in(http, base, path)
        assert response.status == 303
        cookie = response.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/admin" in cookie
        assert "Secure" not in cookie  # plain http on loopback
        async with http.get(base + "/admin/conversations") as page:
            assert page.status == 200 and "Conversations" in await page.text()
            assert page.headers["Cache-Control"] == "no-store"
            assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    async with client() as again:  # the same link a second time, from another browser
        assert (await sign_in(again, base, path)).status == 403
    actions = [(a.admin_user_id, a.action) for a in await harness.rows(AdminAudit)]
    assert (ADMIN_ID, "login_link_issued") in actions and (ADMIN_ID, "login") in actions


async def test_refusals_all_look_the_same(harness: Harness, app: App, base: str, settings: Settings) -> None:
    """A forged, an expired, a reused link and no session at all: the same 403, nothing to learn."""
    key = settings.console_signing_key()
    assert key is not None
    async with app.session_factory() as session:
        expired = await issue_login_link(
            session, admin_id=ADMIN_ID, key=key, base_url="/admin", lifetime=timedelta(seconds=-1)
        )
    valid = await login_path(harness)
    assert valid is not None
    async with client() as http:
        assert (await sign_in(http, base, valid)).status == 303
    forged = valid[:-3] + ("AAA" if not valid.endswith("AAA") else "BBB")
    bodies = set()
    for path, method in [
        (expired, "POST"),
        (forged, "POST"),
        (valid, "POST"),  # used already
        ("/admin/login/not-a-token", "POST"),
        ("/admin/conversations", "GET"),
        (f"/admin/conversations/{OTHER_USER_ID}", "GET"),
        ("/admin/failed/1/resend", "POST"),
    ]:
        status, body = await _status(base, path, method)
        assert status == 403, path
        bodies.add(body)
    assert len(bodies) == 1
    refused = [a for a in await harness.rows(AdminAudit) if a.action == "login_refused"]
    assert sorted(a.detail["reason"] for a in refused) == [
        "bad or expired link",  # expired
        "bad or expired link",  # forged
        "bad or expired link",  # not a token
        "link already used or unknown",
    ]
    assert all(valid.rsplit("/", 1)[1] not in str(a.detail) for a in refused), "the link is never kept"


async def test_the_link_is_only_sent_in_a_private_chat(harness: Harness) -> None:
    replies = await harness.say(ADMIN_ID, "/console", chat_id=-100_555_000_9, chat_type="supergroup")
    assert replies == []  # admin commands live in private chats: a link in a group is anyone's
    assert await harness.rows(ConsoleLoginLink) == []


async def test_non_admins_get_no_link(harness: Harness, base: str) -> None:
    assert await login_path(harness, OTHER_USER_ID) is None
    assert await harness.say(OTHER_USER_ID, "/console") == [t("unknown_command", Language.KO)]
    status, _ = await _status(base, "/admin/faq")
    assert status == 403


async def test_a_link_stops_working_when_its_admin_is_removed(harness: Harness, settings: Settings) -> None:
    path = await login_path(harness)
    assert path is not None
    demoted = settings.model_copy(update={"admin_ids": frozenset({OTHER_USER_ID})})
    async with console_server(harness, demoted) as base, client() as http:
        assert (await sign_in(http, base, path)).status == 403


async def test_a_session_ends_when_its_admin_is_removed(harness: Harness, settings: Settings) -> None:
    path = await login_path(harness)
    assert path is not None
    async with client() as http:
        async with console_server(harness, settings) as base:
            assert (await sign_in(http, base, path)).status == 303
        demoted = settings.model_copy(update={"admin_ids": frozenset({OTHER_USER_ID})})
        async with console_server(harness, demoted) as base, http.get(base + "/admin/faq") as page:
            assert page.status == 403


async def test_every_form_needs_the_sessions_csrf_token(harness: Harness, base: str) -> None:
    path = await login_path(harness)
    assert path is not None
    form = {"slug": "gift-wrap", "language": "en", "question": "Do you gift wrap?", "answer": "Yes."}
    async with client() as http:
        await sign_in(http, base, path)
        for token in (None, "wrong"):
            data = {**form, **({"csrf": token} if token else {})}
            async with http.post(base + "/admin/faq/new", data=data, allow_redirects=False) as response:
                assert response.status == 403
        audit_before = len(await harness.rows(AdminAudit))
        data = {**form, "csrf": await csrf_of(http, base)}
        async with http.post(base + "/admin/faq/new", data=data, allow_redirects=False) as response:
            assert response.status == 303
    added = [a for a in await harness.rows(AdminAudit)][audit_before:]
    assert [(a.admin_user_id, a.action, a.target) for a in added] == [
        (ADMIN_ID, "faq_added", "faq:gift-wrap/en")
    ]


async def test_the_cookie_is_secure_behind_tls(harness: Harness, base: str) -> None:
    path = await login_path(harness)
    assert path is not None
    async with (
        client() as http,
        http.post(base + path, allow_redirects=False, headers={"X-Forwarded-Proto": "https"}) as response,
    ):
        assert response.status == 303
        assert "Secure" in response.headers["Set-Cookie"]


async def test_signing_out_ends_the_session(harness: Harness, base: str) -> None:
    path = await login_path(harness)
    assert path is not None
    async with client() as http:
        await sign_in(http, base, path)
        cookie = {c.key: c.value for c in http.cookie_jar}
        csrf = await csrf_of(http, base)
        async with http.post(base + "/admin/logout", data={"csrf": csrf}, allow_redirects=False) as response:
            assert response.status == 303
        async with http.get(base + response.headers["Location"]) as page:
            assert page.status == 200 and "Signed out" in await page.text()
        async with http.get(base + "/admin/faq") as page:
            assert page.status == 403
    async with client() as http, http.get(base + "/admin/faq", cookies=cookie) as page:
        assert page.status == 403  # the old cookie, replayed, is dead too
    actions = [a.action for a in await harness.rows(AdminAudit)]
    assert "logout" in actions


async def test_a_console_without_a_signing_key_lets_nobody_in(tmp_path: Path, database_url: str) -> None:
    plain = console_settings(database_url, tmp_path).model_copy(update={"console_secret": None})
    assert plain.console_signing_key() is None
    built = await build_app(plain, upgrade=False, seed=True)
    try:
        harness = Harness(built)
        assert await harness.say(ADMIN_ID, "/console") == [
            "The web console needs CSBOT_BOT_TOKEN or CSBOT_CONSOLE_SECRET to sign links."
        ]
    finally:
        await built.close()


def test_the_signing_key_comes_from_the_token_when_no_secret_is_set(tmp_path: Path) -> None:
    with_token = Settings(bot_token=SecretStr("123:abc"), _env_file=None)  # type: ignore[call-arg]
    key = with_token.console_signing_key()
    assert key is not None and b"abc" not in key
    configured = Settings(
        bot_token=SecretStr("123:abc"),
        console_secret=SecretStr(CONSOLE_SECRET),
        _env_file=None,  # type: ignore[call-arg]
    )
    assert configured.console_signing_key() == CONSOLE_SECRET.encode()
