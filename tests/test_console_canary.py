"""The console's canary page over real HTTP: every arm's weight, status and figures beside the
baseline's, its changes (a rollback by the guard rails among them), a weight set from the
browser (in effect at once, audited), the arm of each reply, and no arm made of answers no
model took part in."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bench.openai_double import OpenAIDouble
from bench.reference_models import QUESTIONS
from bot.app import App, build_app
from db.models import CanaryEvent, InboundMessage, LLMReply
from db.types import utcnow
from services.settings import Settings
from tests.console_support import client, console_server, console_settings, csrf_of, login_path, sign_in
from tests.harness import ADMIN_ID, Harness, texts_to
from tests.test_canary import arms_config, double  # noqa: F401  (the reference models' server)


@pytest.fixture
async def app(database_url: str, tmp_path: Path, double: OpenAIDouble) -> AsyncIterator[App]:  # noqa: F811
    roles = arms_config(double, "inventor", 50, baseline="current")
    settings: Settings = console_settings(database_url, tmp_path).model_copy(update={"llm": roles})
    built = await build_app(settings, upgrade=False, seed=True)
    yield built
    await built.close()


async def _page(http: aiohttp.ClientSession, url: str) -> str:
    async with http.get(url) as response:
        assert response.status == 200, await response.text()
        return await response.text()


async def test_the_canary_page_shows_arms_rollbacks_and_sets_a_weight(
    app: App, database_url: str, tmp_path: Path
) -> None:
    harness = Harness(app)
    # Answers from before a model was configured (the FAQ's text, under the default name).
    async with app.session_factory() as session:
        earlier = InboundMessage(telegram_user_id=1, chat_id=1, text="hours?", status="answered", route="faq")
        session.add(earlier)
        await session.flush()
        assert earlier.id is not None
        session.add(LLMReply(inbound_id=earlier.id, mode="retrieval", drafter="retrieval", arm="baseline"))
        await session.commit()
    told: list[str] = []
    customers = range(940_000_000, 940_000_100)
    for index, user in enumerate(customers):
        told += texts_to(
            await harness.feed(harness.updates.text(user, QUESTIONS[index % len(QUESTIONS)])), ADMIN_ID
        )
        if told:
            break
    assert told and told[0].startswith("Canary candidate rolled back")
    met_candidate = next(
        reply.inbound_id for reply in await harness.rows(LLMReply) if reply.arm == "candidate"
    )
    candidate_user = next(
        row.telegram_user_id for row in await harness.rows(InboundMessage) if row.id == met_candidate
    )

    path = await login_path(harness)
    assert path is not None
    settings = console_settings(database_url, tmp_path)
    async with console_server(harness, settings) as base, client() as http:
        assert (await sign_in(http, base, path)).status == 303
        page = await _page(http, f"{base}/admin/canary?period=24h")
        arms = re.findall(r'<tr class="arm" data-arm="([^"]+)">', page)
        assert arms == ["current", "candidate"], "the configured arms, and no arm of the FAQ's own text"
        candidate_row = page[page.index('data-arm="candidate"') :].split("</tr>")[0]
        assert "rolled back" in candidate_row and ">0%" in candidate_row
        assert "baseline</span>" in page[page.index('data-arm="current"') :].split("</tr>")[0]
        changes = page[page.index('id="canary-changes"') :]
        assert re.search(r"<td>rollback</td><td>50% → 0%</td><td>guard-rails</td>", changes)
        # The reply of a customer the candidate answered names its arm.
        conversation = await _page(http, f"{base}/admin/conversations/{candidate_user}")
        assert '<span class="arm"' in conversation and ">candidate</span>" in conversation
        # The admin tries again at 10%: in effect in the running bot at once, and in the audit.
        csrf = await csrf_of(http, base, "/admin/canary")
        async with http.post(
            f"{base}/admin/canary/candidate", data={"csrf": csrf, "percent": "10"}, allow_redirects=False
        ) as response:
            assert response.status == 303
        assert app.canary is not None and app.canary.weights()["candidate"] == 10
        assert "candidate: 0% -&gt; 10%" in await _page(http, base + response.headers["Location"])
        for refused in ("lots", "120"):
            async with http.post(
                f"{base}/admin/canary/candidate",
                data={"csrf": csrf, "percent": refused},
                allow_redirects=False,
            ) as response:
                assert response.status == 400
        assert app.canary.weights()["candidate"] == 10
        audit = await _page(http, f"{base}/admin/audit")
        assert re.search(rf"<td>{ADMIN_ID}</td><td>canary_set</td><td>arm:candidate</td>", audit)
        assert re.search(r"<td>guard-rails</td><td>canary_rollback</td><td>arm:candidate</td>", audit)
    # Served alone (csbot admin): the configuration's arms with their stored weights, changed elsewhere.
    assert app.canary is not None
    alone = console_settings(database_url, tmp_path).model_copy(update={"llm": app.canary.roles})
    path = await login_path(harness)
    assert path is not None
    async with console_server(harness, alone, alone=True) as base, client() as http:
        assert (await sign_in(http, base, path)).status == 303
        page = await _page(http, f"{base}/admin/canary?period=24h")
        assert re.findall(r'<tr class="arm" data-arm="([^"]+)">', page) == ["current", "candidate"]
        weights = re.findall(r'<td class="weight">([\d.]+%)', page)
        assert weights == ["90%", "10%"] and 'class="inline weight-form"' not in page
        assert "/canary &lt;arm&gt; &lt;percent&gt;" in page
    [*_, last] = await harness.rows(CanaryEvent)
    assert (last.action, last.actor, last.new_weight) == ("set", f"admin:{ADMIN_ID}", 10)
    assert last.created_at <= utcnow()
