"""Every project's cases, in one list (:data:`ALL_CASES`)."""

from __future__ import annotations

from importlib import import_module

from peer_harvest import Case

#: The ten projects of the harvest (module names).
PROJECTS = ("ranx", "torchmetrics", "tf_ranking", "ir_measures", "cornac", "catalyst",
            "ignite", "allrank", "pytorchltr", "recbole")
#: Projects of the first harvest re-read here (their test files' fixed numbers).
FIRST_HARVEST = ("pytrec_eval",)


def _load() -> list[Case]:
    out: list[Case] = []
    for name in (*PROJECTS, *FIRST_HARVEST):
        out.extend(import_module(f"peer_harvest.{name}").CASES)
    return out


ALL_CASES: list[Case] = _load()
