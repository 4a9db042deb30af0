"""Configuration fails at start, naming the variable."""

from __future__ import annotations

import pytest

from services.settings import ConfigError, Settings, load_settings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)  # no stray .env
    for name in (
        "CSBOT_BOT_TOKEN",
        "CSBOT_ADMIN_IDS",
        "CSBOT_DATABASE_URL",
        "DATABASE_URL",
        "CSBOT_SUPPORT_CHAT_ID",
    ):
        monkeypatch.delenv(name, raising=False)


def test_defaults_need_nothing() -> None:
    settings = load_settings()
    assert settings.database_url == "sqlite+aiosqlite:///./csbot.db"
    assert settings.admin_ids == frozenset()


def test_admin_ids_are_read_as_people_type_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CSBOT_ADMIN_IDS", "12, 34,56")
    assert load_settings().admin_ids == {12, 34, 56}


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CSBOT_ADMIN_IDS", "12,abc"),
        ("CSBOT_SUPPORT_CHAT_ID", "support-group"),
        ("CSBOT_DATABASE_URL", "mysql://nope"),
        ("CSBOT_LOG_LEVEL", "LOUD"),
        ("CSBOT_FAQ_MIN_CONFIDENCE", "0.2"),
    ],
)
def test_bad_values_name_the_variable(monkeypatch: pytest.MonkeyPatch, variable: str, value: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=variable):
        load_settings()


def test_plain_database_urls_get_async_drivers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://shop@db/shop")
    assert load_settings().database_url == "postgresql+asyncpg://shop@db/shop"


def test_run_without_token_says_what_is_missing() -> None:
    with pytest.raises(ConfigError, match="CSBOT_BOT_TOKEN is not set"):
        load_settings().require_bot_token()


def test_token_is_never_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CSBOT_BOT_TOKEN", "123:SECRET-TOKEN")
    settings = load_settings()
    assert "SECRET-TOKEN" not in repr(settings) and "SECRET-TOKEN" not in str(settings.model_dump())
    assert settings.require_bot_token() == "123:SECRET-TOKEN"


def test_llm_endpoints_come_from_json_and_bad_ones_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "CSBOT_LLM",
        '{"target": [{"base_url": "http://127.0.0.1:8000/v1", "model": "m", "api_keys": ["sk-1", "sk-2"]}]}',
    )
    settings = load_settings()
    assert [key.get_secret_value() for key in settings.llm.target[0].api_keys] == ["sk-1", "sk-2"]
    assert "sk-1" not in repr(settings)
    assert settings.llm.retrieval_check == "relevance"
    monkeypatch.setenv("CSBOT_LLM", '{"target": [{"model": "m"}]}')
    with pytest.raises(ConfigError, match="CSBOT_LLM"):
        load_settings()
    monkeypatch.setenv("CSBOT_LLM", '{"retrieval_check": "sometimes"}')
    with pytest.raises(ConfigError, match=r"CSBOT_LLM \(retrieval_check\)"):
        load_settings()


def test_the_documented_example_file_loads_as_is(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """README: `cp .env.example .env` - its empty values mean "not set", not errors."""
    from pathlib import Path

    example = Path(__file__).parent.parent / ".env.example"
    (tmp_path / ".env").write_text(example.read_text(encoding="utf-8"), encoding="utf-8")
    settings = load_settings()
    assert (
        settings.support_chat_id is None and settings.bot_token is None and settings.admin_ids == frozenset()
    )


def test_no_log_line_shows_a_secret(capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever carries it (a library's message with a Bot API path, an exception quoting a
    connection string, a value in `extra=`, the URL-encoded form), a configured secret is masked
    in both log formats."""
    import logging

    from bot.logging_setup import configure_logging

    token, key, password = "123456:AAE-real-looking-token", "sk-live-abcdef123456", "pg-pass-9876"
    settings = Settings.model_validate(
        {
            "bot_token": token,
            "llm": {"target": [{"base_url": "http://127.0.0.1:9/v1", "model": "m", "api_keys": [key]}]},
            "database_url": f"postgresql://shop:{password}@db.example/shop",
        }
    )
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        for fmt in ("console", "json"):
            configure_logging("INFO", fmt, settings.secrets())
            log = logging.getLogger("aiogram.event")
            log.warning("POST https://api.telegram.org/bot%s/getMe failed", token)
            log.warning("retrying", extra={"url": f"/bot{token.replace(':', '%3A')}/sendMessage"})
            try:
                raise ConnectionError(f"could not connect as shop:{password}@db.example with {key}")
            except ConnectionError:
                log.exception("database unreachable")
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])
    err = capsys.readouterr().err
    assert err.count("[redacted]") >= 8 and "getMe failed" in err and "database unreachable" in err
    for secret in (token, key, password, token.replace(":", "%3A")):
        assert secret not in err
