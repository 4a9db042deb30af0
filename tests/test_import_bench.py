"""The import benchmark runs end to end, small and ends with its numbers (no timings asserted)."""

from __future__ import annotations

import re

import pytest

from bench import import_speed


async def test_import_bench_prints_rows_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    await import_speed.main(rows=60)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "import speed, 60 products / 6 customers / 60 orders"
    assert any(
        re.search(r"sqlite +orders +unchanged +60 rows .* \(0 new, 0 changed, 60 unchanged\)", ln)
        for ln in lines
    )
    assert re.fullmatch(r"(sqlite_\w+=\d+ ?){4}", lines[-1])
