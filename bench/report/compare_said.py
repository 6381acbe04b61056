"""A comparison's warnings said again, each naming its run (for :mod:`bench.report.compare_runs`).

Each run of a comparison is evaluated alone, its warnings recorded, and said again once the
comparison knows which queries it compares: a run's missing queries as the comparison treated
them, and every other warning (a query of one document under a profile whose tool refuses it,
a run whose documents are all unjudged) with the run's name in front, so that two runs' equal
warnings are two lines (Python's default filter says an equal warning once) and a warning of
run B alone says it is B's.
"""

from __future__ import annotations

import warnings
from typing import Any

from numpy.typing import NDArray

from bench.metrics.missing import MissingQueriesWarning, warn_dropped

__all__ = ["say_again"]


def say_again(said: list[tuple[warnings.WarningMessage, str, NDArray[Any], str]],
              mode: str) -> None:
    """The warnings of the runs' evaluations issued again, a run's missing queries as the
    comparison treated them: under ``drop`` every such query is out of every run and metric
    (no compared query is one a run lacks), while each run's own warning said what each
    metric's profile does alone (``nDCG@10: scored 0 and counted`` beside a table that
    dropped the query). ``said``: (warning, the run named with its path, the qrels queries the
    run lacks, the path its evaluation named). Other warnings name the run: the path its
    evaluation named replaced by the run's name and path, or the name in front."""
    for w, path, lacking, file in said:
        if issubclass(w.category, MissingQueriesWarning) and mode == "drop":
            warn_dropped(lacking, path, str(w.message), stacklevel=4)
        elif issubclass(w.category, MissingQueriesWarning):  # the run named, the caller's line
            warnings.warn(str(w.message).replace(f" in {file} (", f" in {path} (", 1),
                          MissingQueriesWarning, stacklevel=3)
        else:
            text = str(w.message)
            text = path + text[len(file):] if text.startswith(file) else f"{path}: {text}"
            warnings.warn_explicit(w.category(text), w.category, w.filename, w.lineno)
