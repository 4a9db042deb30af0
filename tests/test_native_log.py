"""llama.cpp's own log lines go to the `llama.cpp` logger, never to the console: loading the bundled
model's vocabulary warns about its context size, which used to be printed on every start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from services.llm.local.availability import local_generation_available

available, why = local_generation_available()
pytestmark = pytest.mark.skipif(not available, reason=f"local model not installed: {why}")

LOADS = """
import logging, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="LOGGED %(name)s: %(message)s")
from services.llm.local.availability import bundled_model_path
from services.llm.local.vocabulary import load_vocabulary
load_vocabulary(str(bundled_model_path()))
"""


def test_loading_a_vocabulary_logs_llama_cpps_lines_and_prints_none() -> None:
    # a fresh interpreter: the log is routed once per process, by whatever loads llama.cpp first
    done = subprocess.run(
        [sys.executable, "-c", LOADS],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        check=True,
        timeout=300,
    )
    assert "n_ctx" not in done.stderr and "llama_context" not in done.stderr, done.stderr
    assert "LOGGED llama.cpp: llama_context: n_ctx" in done.stdout, done.stdout
