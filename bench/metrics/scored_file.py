"""Metrics of an SVMlight/LETOR data file scored by a scores file (``ltrbench evaluate --data
FILE --scores FILE``), with every error pointing at the file, line and row of the user's data.

Moved here from ``bench/commands/evaluate.py`` (the command parses and prints). The data file is
read for its labels and queries only (:func:`bench.data.svmlight.read_svmlight` with
``features=False``: the features are checked, never held; a file with index 2e9 once made this
build a 1.5 TiB matrix); the scores are :func:`bench.data.scores.read_scores`, one per data row
in file order. A LETOR Parquet split (``*.parquet`` or the Parquet signature: what ``convert``
writes beside each text split) is read with :func:`bench.data.parquet.read_parquet`, its
``qid`` and ``label`` columns; errors name its row.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np

from bench.data.compressed import HEAD, parquet_signature
from bench.data.scores import read_scores
from bench.errors import DataError
from bench.metrics.evaluate import evaluate
from bench.metrics.profiles import Profile
from bench.metrics.result import EvaluationResult


def evaluate_scored_file(data_path: str | Path, scores_path: str | Path, *,
                         metrics: list[str], profile: Profile | None = None,
                         query_path: str | Path | None = None, sort_by_qid: bool = False,
                         per_query: bool = False) -> EvaluationResult:
    """:func:`bench.metrics.evaluate` of the labels and queries of ``data_path`` (group sizes
    from ``query_path`` or the ``.query`` sidecar when the file has no ``qid:``) against the
    scores of ``scores_path``. With ``sort_by_qid`` the rows of a query need not be contiguous
    (they are grouped, keeping their order; the scores stay in file order). An error about a
    row names the data file, its line and the row in file order."""
    from bench.data.svmlight import line_of_data_row, read_svmlight

    if is_parquet_path(data_path):  # a LETOR Parquet split (convert writes one beside each .txt)
        return _scored_parquet(data_path, scores_path, metrics=metrics, profile=profile,
                               query_path=query_path, sort_by_qid=sort_by_qid,
                               per_query=per_query)
    data = read_svmlight(data_path, query_path=query_path, sort_by_qid=sort_by_qid,
                         features=False)
    order = data.meta.get("file_order")  # set only when sort_by_qid moved rows
    qid_of_line = np.asarray(data.qid)
    if order is not None:  # scores are in file order; data.qid in sorted order
        qid_of_line = np.empty_like(qid_of_line)
        qid_of_line[np.asarray(order)] = np.asarray(data.qid)
    scores = read_scores(scores_path, data.n_rows, qid_of_line)
    if order is not None:
        scores = scores[np.asarray(order)]
    try:
        return evaluate(data.y, scores, qid=data.qid, metrics=metrics, profile=profile,
                        per_query=per_query)
    except DataError as exc:
        if exc.row is None:
            raise
        # The evaluator numbers rows from 1 in the order it was given (sorted, with
        # sort_by_qid); name the data row and line of the file instead.
        row = exc.row if order is None else int(np.asarray(order)[exc.row - 1]) + 1
        raise DataError(exc.reason, path=data_path, line=line_of_data_row(data_path, row),
                        row=row) from exc


def is_parquet_path(path: str | Path) -> bool:
    """Whether ``path`` names a Parquet file: by its name, or by the ``PAR1`` signature."""
    if str(path).lower().endswith(".parquet"):
        return True
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the open: the text
            return False  # reader refuses it, naming it
        with open(path, "rb") as fh:
            head = fh.read(HEAD)
    except (OSError, ValueError):  # the text reader names what is wrong with the path
        return False
    return parquet_signature(head)


def _scored_parquet(data_path: str | Path, scores_path: str | Path, *, metrics: list[str],
                    profile: Profile | None, query_path: str | Path | None, sort_by_qid: bool,
                    per_query: bool) -> EvaluationResult:
    """:func:`evaluate_scored_file` of a LETOR Parquet split: the scores one per table row."""
    from bench.data.parquet import read_parquet

    if query_path is not None:
        raise DataError(f"--query {query_path}: a Parquet split holds its queries in its 'qid' "
                        "column; give --query only with an SVMlight file without 'qid:'",
                        path=data_path)
    if sort_by_qid:
        raise DataError("--sort-by-qid: a Parquet split's rows of a query are together (the "
                        "reader refuses any other order, naming the row); leave it out",
                        path=data_path)
    data = read_parquet(data_path)
    scores = read_scores(scores_path, data.n_rows, np.asarray(data.qid))
    try:
        return evaluate(data.y, scores, qid=data.qid, metrics=metrics, profile=profile,
                        per_query=per_query)
    except DataError as exc:
        if exc.row is None:
            raise
        raise DataError(exc.reason, path=data_path, row=exc.row) from exc
