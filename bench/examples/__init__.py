"""A small bundled example for ``ltrbench evaluate`` (regenerate with ``python -m bench.examples``).

``example.svmlight``: 50 queries of 8-30 documents in LETOR format (``label qid:Q 1:v ... 5:v
# docid = ...``), labels 0-4, six queries without any relevant document and two with a single
document. ``example.scores``: one score per line in the same row order, from a fixed linear
model of the features plus noise, rounded to 3 decimals (so some scores tie).

    ltrbench evaluate --data bench/examples/example.svmlight --scores bench/examples/example.scores
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.data.atomic import write_text

HERE = Path(__file__).resolve().parent
DATA = HERE / "example.svmlight"
SCORES = HERE / "example.scores"
_SEED = 20240611


def build() -> tuple[str, str]:
    """The text of the two example files (deterministic)."""
    rng = np.random.default_rng(_SEED)
    n_q = 50
    sizes = rng.integers(8, 31, size=n_q)
    sizes[[7, 31]] = 1
    blank = set(rng.choice(n_q, size=6, replace=False).tolist()) - {7, 31}
    weights = np.array([0.9, -0.4, 0.6, 0.3, -0.2])
    data_lines: list[str] = []
    score_lines: list[str] = []
    for q in range(n_q):
        feats = np.round(rng.random((sizes[q], 5)), 4)
        signal = feats @ weights
        cut = np.quantile(signal, [0.5, 0.75, 0.9, 0.97]) if sizes[q] > 1 else np.array([0.0] * 4)
        labels = np.searchsorted(cut, signal + rng.normal(0, 0.15, sizes[q]))
        if q in blank:
            labels[:] = 0
        scores = np.round(signal + rng.normal(0, 0.25, sizes[q]), 3)
        for d in range(sizes[q]):
            fv = " ".join(f"{j + 1}:{feats[d, j]:.4f}" for j in range(5))
            data_lines.append(f"{int(labels[d])} qid:{1001 + q} {fv} # docid = Q{1001 + q}-D{d:02d}\n")
            score_lines.append(f"{scores[d]:.3f}\n")
    return "".join(data_lines), "".join(score_lines)


def generate(out_dir: str | Path = HERE) -> tuple[Path, Path]:
    """Write ``example.svmlight`` and ``example.scores`` into ``out_dir`` (atomically)."""
    data, scores = build()
    out = Path(out_dir)
    return write_text(out / DATA.name, data), write_text(out / SCORES.name, scores)
