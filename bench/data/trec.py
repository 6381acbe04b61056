"""TREC files: qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``).

Both are white-space separated, one judgment or retrieved document per line; blank lines are
skipped. Every malformed line is a :class:`DataError` naming ``file:line``. A document retrieved
twice for the same query in a run, or judged twice in qrels, is an error too (trec_eval would
silently evaluate a list with a duplicate). The run's rank column is checked to be an integer
and then ignored, as trec_eval does (``form_res_rels.c``: ranks come from sorting by score).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from bench.data.atomic import write_text
from bench.errors import DataError

PathLike = str | os.PathLike[str]


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments: one row per (query, document)."""

    qid: NDArray[np.str_]
    docno: NDArray[np.str_]
    rel: NDArray[np.int64]
    path: str

    def __len__(self) -> int:
        return int(self.rel.shape[0])


@dataclass(frozen=True, eq=False)
class Run:
    """A ranked run: one row per retrieved (query, document), in file order."""

    qid: NDArray[np.str_]
    docno: NDArray[np.str_]
    rank: NDArray[np.int64]
    score: NDArray[np.float64]
    tag: NDArray[np.str_]
    path: str

    def __len__(self) -> int:
        return int(self.score.shape[0])


def read_qrels(path: PathLike) -> Qrels:
    """Read a qrels file: ``qid iter docno rel`` with an integer ``rel`` (negative = unjudged)."""
    p = _existing(path)
    qids: list[str] = []
    docs: list[str] = []
    rels: list[int] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, parts in _lines(p):
        if len(parts) != 4:
            raise DataError(
                f"expected 4 fields 'qid iter docno rel', got {len(parts)}", path=p, line=lineno
            )
        q, _, d, r = parts
        try:
            rel = int(r)
        except ValueError:
            raise DataError(f"relevance {r!r} is not an integer", path=p, line=lineno) from None
        first = seen.setdefault((q, d), lineno)
        if first != lineno:
            raise DataError(
                f"document {d!r} is judged twice for query {q!r} (first on line {first})",
                path=p,
                line=lineno,
            )
        qids.append(q)
        docs.append(d)
        rels.append(rel)
    if not rels:
        raise DataError("empty qrels file: expected lines 'qid iter docno rel'", path=p)
    return Qrels(np.asarray(qids), np.asarray(docs), np.asarray(rels, dtype=np.int64), str(p))


def read_run(path: PathLike) -> Run:
    """Read a run file: ``qid Q0 docno rank score tag`` with a finite ``score``."""
    p = _existing(path)
    qids: list[str] = []
    docs: list[str] = []
    ranks: list[int] = []
    scores: list[float] = []
    tags: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, parts in _lines(p):
        if len(parts) != 6:
            raise DataError(
                f"expected 6 fields 'qid Q0 docno rank score tag', got {len(parts)}",
                path=p,
                line=lineno,
            )
        q, _, d, rk, sc, tag = parts
        try:
            rank = int(rk)
        except ValueError:
            raise DataError(f"rank {rk!r} is not an integer", path=p, line=lineno) from None
        try:
            score = float(sc)
        except ValueError:
            raise DataError(f"score {sc!r} is not a number", path=p, line=lineno) from None
        if not math.isfinite(score):
            raise DataError(f"score {sc!r} is not a finite number", path=p, line=lineno)
        first = seen.setdefault((q, d), lineno)
        if first != lineno:
            raise DataError(
                f"duplicate document {d!r} for query {q!r} (first on line {first}): a run must "
                "retrieve each document at most once per query",
                path=p,
                line=lineno,
            )
        qids.append(q)
        docs.append(d)
        ranks.append(rank)
        scores.append(score)
        tags.append(tag)
    if not scores:
        raise DataError("empty run file: expected lines 'qid Q0 docno rank score tag'", path=p)
    return Run(
        np.asarray(qids),
        np.asarray(docs),
        np.asarray(ranks, dtype=np.int64),
        np.asarray(scores, dtype=np.float64),
        np.asarray(tags),
        str(p),
    )


def write_run(
    path: PathLike,
    qid: list[str] | NDArray[np.str_],
    docno: list[str] | NDArray[np.str_],
    score: NDArray[np.float64] | list[float],
    *,
    tag: str = "ltrbench",
) -> Path:
    """Write a run file (ranks 1.. by score within each query, in the given row order)."""
    q = np.asarray(qid).astype(str)
    d = np.asarray(docno).astype(str)
    s = np.asarray(score, dtype=np.float64)
    order = np.lexsort((-s, q))
    lines = []
    rank = 0
    prev = None
    for i in order:
        rank = rank + 1 if q[i] == prev else 1
        prev = q[i]
        lines.append(f"{q[i]} Q0 {d[i]} {rank} {float(s[i])!r} {tag}\n")
    return write_text(path, "".join(lines))


def _existing(path: PathLike) -> Path:
    p = Path(path)
    if not p.is_file():
        raise DataError("no such file", path=p)
    return p


def _lines(p: Path):  # type: ignore[no-untyped-def]
    with open(p, encoding="utf-8", errors="strict") as fh:
        try:
            for lineno, raw in enumerate(fh, start=1):
                parts = raw.split()
                if parts:
                    yield lineno, parts
        except UnicodeDecodeError as exc:
            raise DataError(f"not UTF-8 text: {exc}", path=p) from exc
