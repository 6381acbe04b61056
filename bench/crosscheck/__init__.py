"""The cross-check: each library's built-in metric against the reference evaluator under that
library's profile, and the gap to the default profile explained query by query.

* :mod:`~bench.crosscheck.providers`: the peer tools' own metrics on given scores (LightGBM,
  XGBoost, pytrec_eval, ranx), wrapped once;
* :mod:`~bench.crosscheck.agreement`: one ranking, built-in vs reference, with tolerances;
* :mod:`~bench.crosscheck.run`: a whole run directory; :mod:`~bench.crosscheck.result`: its result;
* :mod:`~bench.crosscheck.find`: ``ltrbench crosscheck`` as one call (which models apply, which
  run: the one given, the latest matching one or a new one, the check and its files);
* :mod:`~bench.crosscheck.render`: ``crosscheck.md``.

The decomposition of a gap into reasons is metric logic: :mod:`bench.metrics.reconcile`.
"""

from bench.crosscheck.agreement import (
    CHECK_TOL,
    EXACT_TOL,
    ArrayCrosscheck,
    Check,
    classify_agreement,
    crosscheck_arrays,
)
from bench.crosscheck.render import render_markdown
from bench.crosscheck.result import Case, CrosscheckResult
from bench.crosscheck.run import crosscheck_run, write_crosscheck
from bench.metrics.reconcile import REASONS, STEPS, Reconciliation, reconcile, step_contributions

__all__ = [
    "CHECK_TOL",
    "EXACT_TOL",
    "REASONS",
    "STEPS",
    "ArrayCrosscheck",
    "Case",
    "Check",
    "CrosscheckResult",
    "Reconciliation",
    "classify_agreement",
    "crosscheck_arrays",
    "crosscheck_run",
    "reconcile",
    "render_markdown",
    "step_contributions",
    "write_crosscheck",
]
