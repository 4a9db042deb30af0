"""The OpenAI wire pieces shared by the servers we run (`services.llm.wire`)."""

from __future__ import annotations

from aiohttp import ClientSession, web

from services.llm.wire import envelope, serve_on_loopback, usage


async def test_servers_on_loopback_each_get_a_free_port_of_their_own() -> None:
    """A test starts several servers at once (a target, a drafter, a peer): each is given a port
    the OS picked, and answers on it."""

    async def hello(request: web.Request) -> web.Response:
        return web.json_response({"port": request.url.port})

    started = []
    try:
        for _ in range(3):
            app = web.Application()
            app.router.add_get("/v1/hello", hello)
            started.append(await serve_on_loopback(app))
        urls = [url for _, url in started]
        assert len(set(urls)) == 3 and all(url.startswith("http://127.0.0.1:") for url in urls)
        async with ClientSession() as client:
            for url in urls:
                async with client.get(f"{url}/hello") as response:
                    assert (await response.json())["port"] == int(url.split(":")[2].split("/")[0])
    finally:
        for runner, _ in started:
            await runner.cleanup()


def test_an_envelope_carries_the_model_asked_for_and_its_usage() -> None:
    wrapped = envelope({"model": "m"}, "chat.completion.chunk", [], usage(3, 4))
    assert wrapped["model"] == "m" and wrapped["object"] == "chat.completion.chunk"
    assert wrapped["usage"] == {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
    assert "usage" not in envelope({"model": "m"}, "text_completion", [])
