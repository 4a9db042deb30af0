"""`csbot replay` and `csbot stats --by-arm`: the terminal side of changing models."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TextIO

from pydantic import ValidationError
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.cli_output import emit_line
from db.types import utcnow
from services.llm.config import LLMRoles
from services.settings import ConfigError, Settings

BAR_WIDTH = 30


class ProgressBar:
    """A one-line bar on an interactive terminal; silent when stderr is a file or a pipe."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self._stream = stream
        self._on = stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self._on:
            return
        filled = BAR_WIDTH * done // total if total else BAR_WIDTH
        self._stream.write(f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} questions")
        if done >= total:
            self._stream.write("\n")
        self._stream.flush()


def load_candidate(path: str) -> LLMRoles:
    """The candidate file, or one line saying what is wrong with it."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise ConfigError(f"--config {path}: cannot read the file ({error.strerror})") from error
    try:
        roles = LLMRoles.model_validate_json(text)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise ConfigError(f"--config {path}: {where}: {first['msg']}") from error
    if not roles.target:
        raise ConfigError(f"--config {path}: names no target model: nothing to compare")
    return roles


async def run_replay(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli_database import open_recorded
    from db.engine import create_session_factory
    from services.answerers import load_answerers
    from services.rollout.replay import Replayer
    from services.shop.sources.factory import shop_data

    candidate = load_candidate(args.config)
    engine = await open_recorded(settings)
    session_factory = create_session_factory(engine)
    _, lookup = await load_answerers(session_factory, settings)
    replayer = Replayer(
        session_factory,
        candidate,
        lookup,
        lambda session: shop_data(session, settings),
        zone=settings.shop_policy().timezone,
        temperature=settings.llm_temperature,
        concurrency=args.concurrency,
        exclude_users=settings.team_ids,
    )
    try:
        run, done = await replayer.open_run(args.since, args.limit, restart=args.restart)
        if done:
            print(
                f"csbot: resuming replay #{run.id} ({len(done)} of {len(run.question_ids)} done); "
                "--restart starts over",
                file=sys.stderr,
            )
        if not run.question_ids:
            print("csbot: no answered customer questions in that period", file=sys.stderr)
        try:
            report = await replayer.run(run, done, ProgressBar())
        except asyncio.CancelledError:
            print(f"\ncsbot: replay #{run.id} interrupted; run the same command to resume", file=sys.stderr)
            raise
    finally:
        await replayer.close()
        await engine.dispose()
    emit_line(json.dumps(report.as_dict(), ensure_ascii=False) if args.json else report.render())
    return 0


async def print_by_arm(session: AsyncSession, args: argparse.Namespace, settings: Settings) -> int:
    """Per-arm figures with each configured arm's current weight (as the database has it)."""
    from db.repositories import canary as canary_store
    from services.rollout.arm_stats import collect_by_arm, render_by_arm

    roles = settings.llm
    saved = await canary_store.states(session) if roles.arms else {}
    weights = {arm.name: saved[arm.name].weight if arm.name in saved else arm.weight for arm in roles.arms}
    if roles.arms:
        weights = {roles.baseline: max(0.0, 100 - sum(weights.values())), **weights}
    stats = await collect_by_arm(
        session, since=utcnow() - args.period, exclude_users=settings.team_ids, order=list(weights)
    )
    for arm in stats:
        arm.weight = weights.get(arm.arm)
    if args.json:
        emit_line(json.dumps([arm.as_dict() for arm in stats]))
    else:
        emit_line(render_by_arm(stats, baseline=roles.baseline if roles.arms else None))
    return 0
