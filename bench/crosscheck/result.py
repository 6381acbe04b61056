"""The cross-check of a whole run: one :class:`Case` per (model, seed, split), and the result.

:meth:`CrosscheckResult.as_dict` is the JSON shape of ``crosscheck.json`` and of
``ltrbench crosscheck --format json``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bench.crosscheck.agreement import CHECK_TOL, EXACT_TOL, Check
from bench.data.jsonio import json_number
from bench.metrics.reconcile import REASONS, RESIDUAL_TOL, Reconciliation


@dataclass
class Case:
    """The reconciliation of one (model, seed, split)."""

    model: str
    library: str
    seed: int | str
    split: str
    reconciliation: Reconciliation

    def as_dict(self) -> dict[str, Any]:
        r = self.reconciliation
        return {
            "model": self.model,
            "library": self.library,
            "seed": self.seed,
            "split": self.split,
            "metric": r.metric,
            "library_profile": r.library_profile,
            "default_profile": r.default_profile,
            "library_value": json_number(r.library_value),
            "default_value": json_number(r.default_value),
            "gap": json_number(r.gap),
            "reasons": {k: json_number(v) for k, v in r.reasons.items()},
            "residual": json_number(r.residual),
            "queries_affected": dict(r.affected),
            "n_queries": r.n_queries,
            "n_blank": r.n_blank,
            "explained": r.explained,
        }


@dataclass
class CrosscheckResult:
    """Everything :func:`crosscheck_run` found; :meth:`as_dict` is the documented JSON shape."""

    dataset: str
    run_dir: str
    run_id: str
    metric: str
    default_profile: str
    checks: list[Check] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    blank_queries: dict[str, int | None] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No mismatch beyond 1e-6, no unexplained gap, nothing that could not be checked."""
        return not self.errors

    @property
    def reasons(self) -> dict[str, float | None]:
        """Contribution of each reason to the gap (library - default), mean over the cases."""
        out: dict[str, float | None] = {}
        for reason in REASONS:
            vals = [
                c.reconciliation.reasons[reason]
                for c in self.cases
                if c.reconciliation.defined
            ]
            out[reason] = json_number(math.fsum(vals) / len(vals)) if vals else None
        return out

    def reason_queries(self) -> dict[str, int]:
        """Number of (model, seed, split, query) cells each reason changed."""
        return {
            r: int(sum(c.reconciliation.affected[r] for c in self.cases)) for r in REASONS
        }

    def top_queries(self, n: int = 25) -> pd.DataFrame:
        """The ``n`` per-query contributions largest in absolute value, over all cases."""
        frames = []
        for c in self.cases:
            pq = c.reconciliation.per_query
            if len(pq):
                frames.append(pq.assign(model=c.model, seed=c.seed, split=c.split))
        if not frames:
            return pd.DataFrame(
                columns=["model", "seed", "split", "qid", "reason", "before", "after", "contribution"]
            )
        allq = pd.concat(frames, ignore_index=True)
        allq = allq.iloc[np.argsort(-np.abs(allq["contribution"].to_numpy()), kind="stable")]
        return allq.head(n)[
            ["model", "seed", "split", "qid", "reason", "before", "after", "contribution"]
        ].reset_index(drop=True)

    def as_dict(self) -> dict[str, Any]:
        """JSON shape::

            {"dataset": str, "checks": [{"model", "library", "split", "metric": "ndcg@10",
              "builtin", "reference", "abs_diff", "seed", "source", "agreement", "iteration"}],
             "blank_queries": {"train": n, "vali": n, "test": n},
             "reasons": {"blank_query": x, "ties": x, "gain": x, "truncation": x, "float32": x},
             "reason_queries": {reason: n}, "cases": [Case.as_dict()], "ok": bool,
             "errors": [str], "notes": [str], "run_id": str, "run_dir": str, "metric": str,
             "default_profile": str, "tolerances": {...}}

        ``reasons``: mean over (model, seed, split) cases of each reason's contribution to the gap
        ``library value - default value`` of the metric; ``null`` where no gap is defined.
        """
        return {
            "dataset": self.dataset,
            "checks": [c.as_dict() for c in self.checks],
            "blank_queries": dict(self.blank_queries),
            "reasons": self.reasons,
            "reason_queries": self.reason_queries(),
            "cases": [c.as_dict() for c in self.cases],
            "ok": self.ok,
            "errors": list(self.errors),
            "notes": list(self.notes),
            "run_id": self.run_id,
            "run_dir": self.run_dir,
            "metric": self.metric,
            "default_profile": self.default_profile,
            "tolerances": {"exact": EXACT_TOL, "check": CHECK_TOL, "residual": RESIDUAL_TOL},
        }

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2, allow_nan=False) + "\n"
