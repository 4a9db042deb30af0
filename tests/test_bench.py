"""The benchmark runs end to end and ends with the line CI and people read (no timing asserted)."""

from __future__ import annotations

import re

import pytest

from bench import draft_verify


async def test_draft_verify_bench_prints_its_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    await draft_verify.main(scale=0.005)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("Simulated latencies")
    assert re.fullmatch(r"latency_ratio=\d+\.\d{3} cost_ratio=\d+\.\d{3}", lines[-1])
    assert any(line.startswith("faq   draft-verify ") for line in lines)
    assert any(line.startswith("[dv faq-as-draft token] latency_ratio=") for line in lines)
