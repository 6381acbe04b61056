"""The layout of one ``ltrbench tune`` folder (``<out>/tune/<name>/``): its file names, the
columns of its trials table and the states a trial ends in. The tune writes it
(:mod:`bench.benchmark.tune_out`) and the report reads it (:mod:`bench.report.tuning`); both
take the names from here."""

from __future__ import annotations

#: The columns of ``trials.csv`` / ``trials.parquet``, in order.
TRIAL_COLUMNS = ("model", "library", "trial", "state", "value", "metric", "profile", "cpu_s",
                 "wall_s", "cum_cpu_s", "best_so_far", "best_iteration", "params")
#: The states a counted trial ends in (Optuna's names).
STATES = ("COMPLETE", "PRUNED", "FAIL")
#: The file whose presence says the tune finished (written last).
COMPLETE = "complete"
#: What the tune asked (``--resume`` compares it).
PLAN = "plan.json"
#: The study's SQLite file in the tune folder (the default storage).
STUDY_DB = "study.db"
#: The trials table, as CSV and as Parquet.
TRIALS_CSV = "trials.csv"
TRIALS_PARQUET = "trials.parquet"
#: The run config of every model's best parameters; ``best/<model>.toml`` holds one model's.
BEST = "best.toml"
#: Per model: trials, best value and parameters, budget, sampler.
SUMMARY = "summary.json"
#: The best validation score so far against trials and CPU seconds, every model on one figure.
BEST_SO_FAR = "best_so_far.png"

__all__ = ["BEST", "BEST_SO_FAR", "COMPLETE", "PLAN", "STATES", "STUDY_DB", "SUMMARY", "TRIALS_CSV",
           "TRIALS_PARQUET", "TRIAL_COLUMNS"]
