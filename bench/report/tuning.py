"""A tune folder read back for the report: its trials, its summary, its studies; the trials table.

``ltrbench tune`` (on Optuna) writes ``DIR/tune/<name>/``:

* ``study.db``: SQLite, one Optuna study per model, named ``"<dataset>:<model>"``;
* ``trials.csv`` (and ``trials.parquet``): one row per trial, the columns of
  :data:`TRIAL_COLUMNS` (``value``: the validation score by the reference evaluator, NaN for a
  pruned or failed trial; ``best_so_far``: the running maximum over the model's COMPLETE trials);
* ``best/<model>.toml`` and ``best.toml``: run configs with the best parameters;
* ``summary.json``: per model the budget, the sampler, the seed and the best trial.

:func:`read_tune_dir` checks all of it before anything is drawn (a missing column, a state
Optuna does not write, a ``best_so_far`` that is not the running maximum of the values, a
``study.db`` that is not SQLite, a row whose state or value is not the study's in ``study.db``,
a finished tune's table that leaves out a trial of the study are each a
:class:`~bench.errors.DataError` naming the file, row or trial and column). :func:`param_importances` asks Optuna's fANOVA evaluator
(:class:`optuna.importance.FanovaImportanceEvaluator`; Hutter, Hoos & Leyton-Brown, ICML 2014)
for each study, on a copy of the database (Optuna's storage may write its schema version into
the file it opens). :func:`render_trials_markdown` / :func:`render_trials_latex` are the trials
table of a paper: per model, the trials run, complete and pruned, the best validation score with
its metric and profile, the trial that reached it, and the CPU seconds spent.
"""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.data.delimited import check_written_csv, refuse_cut_table
from bench.data.inputs import check_input_file
from bench.data.jsonio import read_json_object
from bench.errors import DataError
from bench.report.latex import tex_escape
from bench.report.render import md_text
from bench.runs.tune_layout import (
    BEST,
    COMPLETE,
    PLAN,
    STATES,
    STUDY_DB,
    SUMMARY,
    TRIAL_COLUMNS,
    TRIALS_CSV,
)

#: fANOVA's random forest needs a spread of complete trials; below this count a study's
#: importances would be noise and the figure says so instead of drawing bars.
MIN_IMPORTANCE_TRIALS = 5
#: The first bytes of every SQLite 3 database (https://www.sqlite.org/fileformat.html, 1.3.1).
SQLITE_HEADER = b"SQLite format 3\x00"


@dataclass(frozen=True)
class TuneFolder:
    """A checked tune folder: ``trials`` (one row per trial, :data:`TRIAL_COLUMNS`, sorted by
    model then trial), ``summary`` (``summary.json`` as written) and the models in the order
    they first appear in ``trials.csv``."""

    path: Path
    trials: pd.DataFrame
    summary: dict[str, Any]
    models: list[str]

    @property
    def study_db(self) -> Path:
        """The Optuna storage of the studies."""
        return self.path / STUDY_DB

    @property
    def finished(self) -> bool:
        """Whether tune wrote ``complete`` (its last file): else a killed or running study."""
        return (self.path / COMPLETE).exists()

    def best_config(self, model: str | None = None) -> Path:
        """``best/<model>.toml``, or ``best.toml`` (every model) when ``model`` is None."""
        return self.path / BEST if model is None else self.path / "best" / f"{model}.toml"

    def model_summary(self, model: str) -> dict[str, Any]:
        """The entry of ``model`` in ``summary.json`` (``{}`` when it has none)."""
        models = self.summary.get("models", self.summary)
        entry = models.get(model) if isinstance(models, dict) else None
        return entry if isinstance(entry, dict) else {}

    def library(self, model: str) -> str:
        """The library of ``model``, as ``trials.csv`` records it."""
        return str(self.trials.loc[self.trials["model"] == model, "library"].iloc[0])

    def of(self, model: str) -> pd.DataFrame:
        """The trials of ``model`` in trial order."""
        return self.trials[self.trials["model"] == model]


def read_tune_dir(path: str | Path) -> TuneFolder:
    """Read and check a tune folder (module docstring); :class:`DataError` names what is wrong."""
    folder = Path(path)
    if not folder.is_dir():
        raise DataError("not a folder: expected a tune folder (DIR/tune/<name>/, written by "
                        "'ltrbench tune')", path=folder)
    if not (folder / TRIALS_CSV).is_file() and (folder / PLAN).is_file() \
            and not (folder / COMPLETE).exists():  # a tune killed before its first trial ended
        raise DataError(f"no {TRIALS_CSV} yet: the tune did not finish (killed or still running: "
                        "no 'complete' file) and no trial of it has ended; finish it with "
                        f"'ltrbench tune --resume {folder}' (its other options as before)",
                        path=folder)
    trials = _read_trials(folder / TRIALS_CSV)
    summary = _read_summary(folder)
    models = [str(m) for m in pd.unique(trials["model"])]
    tune = TuneFolder(folder, trials, summary, models)
    lacking = [m for m in models if tune.finished and not tune.model_summary(m)]
    if lacking:
        raise DataError(f"no entry for model(s) {', '.join(lacking)} of {TRIALS_CSV}: the "
                        "tune finished ('complete' is there) and wrote every model's budget, "
                        "sampler and best trial here; the folder was changed outside ltrbench: "
                        "tune again", path=folder / SUMMARY)
    _check_against_study(tune)
    return tune


def _study_trials(db: Path) -> dict[tuple[str, int], tuple[str, float | None, bool]] | None:
    """(model, trial) -> (state, value, interrupted) of every trial of the Optuna storage
    ``db``, read with :mod:`sqlite3` opened read-only; None when ``db`` is not a readable
    SQLite file (said by :func:`study_names`, where the report needs the studies)."""
    if not db.is_file():
        return None
    with db.open("rb") as fh:
        if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            return None
    query = ("SELECT s.study_name, t.number, t.state, v.value, EXISTS (SELECT 1 FROM "
             "trial_user_attributes a WHERE a.trial_id = t.trial_id AND a.key = 'interrupted') "
             "FROM trials t JOIN studies s ON s.study_id = t.study_id LEFT JOIN trial_values v "
             "ON v.trial_id = t.trial_id AND v.objective = 0")
    try:
        with sqlite3.connect(f"file:{db.resolve().as_posix()}?mode=ro", uri=True) as conn:
            rows = conn.execute(query).fetchall()
    except sqlite3.DatabaseError:
        return None
    return {(str(name).rsplit(":", 1)[-1], int(number)): (str(state), value, bool(stopped))
            for name, number, state, value, stopped in rows}


def _check_against_study(tune: TuneFolder) -> None:
    """``trials.csv`` row by row against ``study.db``, the record of what the studies ran: each
    row's state and value are the trial's, and a finished tune lists every counted trial (one
    a kill interrupted is not counted). Before, a value edited in the table (or a trial left
    out of it) was drawn and tabled as the study's without a word."""
    recorded = _study_trials(tune.study_db)
    if recorded is None:
        return
    path = tune.path / TRIALS_CSV
    studied = {m for m, _ in recorded}
    listed = set()
    for row in tune.trials.itertuples():
        key = (str(row.model), int(row.trial))
        listed.add(key)
        if key[0] not in studied:
            continue  # a model without its study: a note of the report (param_importances)
        where = f"{key[0]} trial {key[1]}"
        if key not in recorded:
            raise DataError(f"{where} is not in {STUDY_DB}, the record of the study; the files "
                            "of one tune disagree: put back what tune wrote, or tune again",
                            path=path, column="trial")
        state, value, _ = recorded[key]
        here = float(row.value)
        # a trial that did not complete has no score in the table; Optuna stores a pruned
        # trial's last intermediate value as its value (optuna/study/_tell.py), not compared
        same = math.isnan(here) if state != "COMPLETE" else (
            value is not None and math.isclose(here, value, rel_tol=1e-12, abs_tol=0.0))
        if row.state != state or not same:
            raise DataError(f"{where}: {row.state} {here!r} here, {state} {value!r} in "
                            f"{STUDY_DB}, the record of the study; the files of one tune "
                            "disagree: put back what tune wrote, or tune again", path=path,
                            column="value" if row.state == state else "state")
    if tune.finished:
        models = {m for m, _ in listed}  # a study of a model the table lacks: not its trials
        left = sorted(k for k, (state, _, stopped) in recorded.items()
                      if k[0] in models and k not in listed and state in STATES and not stopped)
        if left:
            raise DataError(f"{left[0][0]} trial {left[0][1]} ({recorded[left[0]][0]}) of "
                            f"{STUDY_DB} is not in the table: a finished tune lists every "
                            "trial its budget counted; the files of one tune disagree: put back "
                            "what tune wrote, or tune again", path=path)


def _read_summary(folder: Path) -> dict[str, Any]:
    """``summary.json`` of a tune folder; ``{}`` for a tune that did not finish (it is written
    just before ``complete``, :func:`bench.benchmark.tune_out.write_results`). A finished tune
    without it is a :class:`DataError`: its trials table would be shown with an empty budget
    and sampler without a word."""
    path = folder / SUMMARY
    if path.is_file() or _there(path, "tune's summary.json"):
        return read_json_object(path, "tune's summary (per model: trials, best value)")
    if (folder / COMPLETE).exists():
        raise DataError(f"not found: the tune in {folder} finished ('complete' is there) but "
                        "its summary (per model: budget, sampler, best trial) is missing; the "
                        "folder was changed outside ltrbench: tune again, or put the file back",
                        path=path)
    return {}


def _there(path: Path, what: str) -> bool:
    """Whether anything is at ``path``; what is there and is no readable file (a folder, a
    FIFO, a link leading nowhere) is a :class:`DataError` saying so, as every reader says it
    (:func:`bench.data.inputs.check_input_file`), never "not found" for a name ``ls`` lists."""
    if not path.exists() and not path.is_symlink():
        return False
    check_input_file(path, expected=what)
    return True


def _read_trials(path: Path) -> pd.DataFrame:
    if not _there(path, "a tune folder's trials.csv"):
        raise DataError("not found: a tune folder holds trials.csv (one row per trial)", path=path)
    check_written_csv(path)  # gzip, UTF-16, a NUL: named as every reader names them
    refuse_cut_table(path, "put back the file tune wrote, or tune again")
    try:
        frame = pd.read_csv(path, dtype={"model": str, "library": str, "state": str,
                                         "metric": str, "profile": str, "params": str},
                            keep_default_na=False, na_values={"value": ["", "nan", "NaN"]})
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"not a trials table ({exc})", path=path) from None
    missing = [c for c in TRIAL_COLUMNS if c not in frame.columns]
    if missing:
        raise DataError(f"missing column(s) {', '.join(missing)}; a trials table has "
                        f"{', '.join(TRIAL_COLUMNS)}", path=path, column=missing[0])
    if frame.empty:
        raise DataError("no trials: the study ran none", path=path)
    for col in ("trial", "value", "cpu_s", "wall_s", "cum_cpu_s", "best_so_far"):
        _numbers(frame, col, path)
    bad = ~frame["state"].isin(STATES)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(f"state {frame['state'].iloc[i]!r}: expected one of {', '.join(STATES)}",
                        path=path, row=i + 1, column="state")
    frame = frame.assign(trial=frame["trial"].astype(np.int64))
    first = {m: i for i, m in enumerate(pd.unique(frame["model"]))}  # the order tune wrote
    frame = frame.sort_values(["model", "trial"], kind="stable",
                              key=lambda c: c.map(first) if c.name == "model" else c)
    _check_values(frame, path)
    return frame.reset_index(drop=True)


def _numbers(frame: pd.DataFrame, col: str, path: Path) -> None:
    """``frame[col]`` as floats in place; a cell that is not a number names its row."""
    values = pd.to_numeric(frame[col].replace("", np.nan), errors="coerce")
    bad = values.isna() & frame[col].astype(str).str.strip().ne("") & frame[col].notna()
    bad &= ~frame[col].astype(str).str.lower().isin(["nan"])
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(f"{frame[col].iloc[i]!r} is not a number", path=path, row=i + 1,
                        column=col)
    frame[col] = values.astype(np.float64)


def _check_values(frame: pd.DataFrame, path: Path) -> None:
    """Every COMPLETE trial has a finite value; ``best_so_far`` is the running maximum of the
    model's COMPLETE values (NaN before the first): a table edited by hand is refused."""
    complete = frame["state"] == "COMPLETE"
    bad = complete & ~np.isfinite(frame["value"])
    if bad.any():
        row = int(frame.index[bad.to_numpy()][0]) + 1
        raise DataError("a COMPLETE trial without a finite value (NaN belongs to pruned and "
                        "failed trials only)", path=path, row=row, column="value")
    for _, sub in frame.groupby("model", sort=False):
        vals = sub["value"].where(sub["state"] == "COMPLETE").to_numpy(dtype=np.float64)
        running = pd.Series(vals).cummax().ffill().to_numpy()
        got = sub["best_so_far"].to_numpy(dtype=np.float64)
        same = np.isclose(running, got, rtol=0, atol=1e-12) | (np.isnan(running) & np.isnan(got))
        if not same.all():
            j = int(np.flatnonzero(~same)[0])
            raise DataError(f"best_so_far {float(got[j])!r} is not the running maximum of the "
                            f"COMPLETE trials' values ({float(running[j])!r})", path=path,
                            row=int(sub.index[j]) + 1, column="best_so_far")


def best_trial(folder: TuneFolder, model: str) -> pd.Series | None:
    """The COMPLETE trial of ``model`` with the highest value (the first of equals); None when
    the study has no complete trial."""
    sub = folder.of(model)
    done = sub[sub["state"] == "COMPLETE"]
    if done.empty:
        return None
    return done.loc[done["value"].idxmax()]


def study_names(db: Path) -> list[str]:
    """The study names in an Optuna SQLite storage, read with :mod:`sqlite3` opened read-only
    (a file that is not SQLite, or not Optuna's, is a :class:`DataError` naming it)."""
    if not _there(db, "a tune folder's study.db (SQLite)"):
        raise DataError("not found: a tune folder holds study.db (the Optuna storage)", path=db)
    with db.open("rb") as fh:
        if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise DataError("not an SQLite database (its first bytes are not 'SQLite format 3'):"
                            " expected the Optuna storage tune writes", path=db)
    try:
        with sqlite3.connect(f"file:{db.resolve().as_posix()}?mode=ro", uri=True) as conn:
            rows = conn.execute("SELECT study_name FROM studies ORDER BY study_id").fetchall()
    except sqlite3.DatabaseError as exc:
        raise DataError(f"not an Optuna storage ({exc})", path=db) from None
    return [str(r[0]) for r in rows]


def param_importances(folder: TuneFolder, seed: int = 0) -> dict[str, dict[str, float] | str]:
    """Per model, fANOVA importances of its parameters (normalised to sum 1, largest first),
    or a note in words when its study cannot give them (fewer than
    :data:`MIN_IMPORTANCE_TRIALS` complete trials, no study of that model in ``study.db``, or
    a search space with one value per parameter)."""
    import optuna
    from optuna.importance import FanovaImportanceEvaluator, get_param_importances

    remote = str(folder.summary.get("storage") or "")
    remote = "" if folder.study_db.exists() or remote.startswith("sqlite:") or remote == STUDY_DB \
        else remote
    names = [] if remote else study_names(folder.study_db)
    out: dict[str, dict[str, float] | str] = {}
    with tempfile.TemporaryDirectory(prefix="ltrbench-study-") as tmp:
        storage = remote  # tune --storage URL: a shared database, read where it lives
        if not remote:
            copy = Path(tmp) / STUDY_DB
            shutil.copyfile(folder.study_db, copy)  # Optuna's storage may write what it opens
            storage = f"sqlite:///{copy.as_posix()}"
        else:
            names = list(optuna.get_all_study_names(storage=storage))
        by_model = {n.rsplit(":", 1)[-1]: n for n in names}
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        for model in folder.models:
            if model not in by_model:
                out[model] = (f"no study named '<dataset>:{model}' in "
                              f"{remote or 'study.db'}")
                continue
            study = optuna.load_study(study_name=by_model[model], storage=storage)
            n = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
            if n < MIN_IMPORTANCE_TRIALS:
                out[model] = (f"{n} complete trial(s): fANOVA needs at least "
                              f"{MIN_IMPORTANCE_TRIALS} to say which parameter matters")
                continue
            try:
                got = get_param_importances(
                    study, evaluator=FanovaImportanceEvaluator(seed=seed))
            except (RuntimeError, ValueError) as exc:
                out[model] = f"no importances: {exc}"
                continue
            out[model] = ({k: float(v) for k, v in got.items()} if got
                          else "no parameter took more than one value")
    return out


def trials_summary(folder: TuneFolder) -> list[dict[str, Any]]:
    """One JSON-ready row per model: library, trials run / complete / pruned / failed, the
    best validation value and trial, metric, profile, CPU seconds, the budget and sampler that
    ``summary.json`` records, and the best parameters."""
    rows = []
    for model in folder.models:
        sub = folder.of(model)
        best = best_trial(folder, model)
        s = folder.model_summary(model)
        states = sub["state"].value_counts()
        rows.append({
            "model": model, "library": folder.library(model), "trials": len(sub),
            "complete": int(states.get("COMPLETE", 0)), "pruned": int(states.get("PRUNED", 0)),
            "failed": int(states.get("FAIL", 0)),
            "best_value": None if best is None else float(best["value"]),
            "best_trial": None if best is None else int(best["trial"]),
            "metric": str(sub["metric"].iloc[0]), "profile": str(sub["profile"].iloc[0]),
            "cpu_s": float(np.nansum(sub["cpu_s"].to_numpy(dtype=np.float64))),
            "budget": _budget_text(s), "sampler": str(s.get("sampler", "")),
            "best_params": {} if best is None else _params(str(best["params"])),
        })
    return rows


def _budget_text(entry: dict[str, Any]) -> str:
    """``"50 trials"`` / ``"600 cpu_s"`` from a model's ``budget`` (``{"kind", "amount"}``)."""
    budget = entry.get("budget")
    if isinstance(budget, dict):
        return f"{budget.get('amount', '?')} {budget.get('kind', '')}".strip()
    return "" if budget is None else str(budget)


def _params(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _num(v: float | None, digits: int = 4) -> str:
    return "–" if v is None or not math.isfinite(v) else f"{v:.{digits}f}"


def _param_text(params: dict[str, Any]) -> str:
    def one(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else str(v)
    return ", ".join(f"{k}={one(v)}" for k, v in sorted(params.items()))


def render_trials_markdown(rows: list[dict[str, Any]]) -> str:
    """The trials table in Markdown (names escaped with :func:`bench.report.render.md_text`)."""
    head = ("| model | library | trials | complete | pruned | failed | best (validation) | "
            "metric | profile | best trial | CPU s | budget | best parameters |")
    lines = [head, "|" + "---|" * 13]
    for r in rows:
        cells = [md_text(r["model"]), md_text(r["library"]), str(r["trials"]), str(r["complete"]),
                 str(r["pruned"]), str(r["failed"]), _num(r["best_value"]), md_text(r["metric"]),
                 md_text(r["profile"]),
                 "–" if r["best_trial"] is None else str(r["best_trial"]), f"{r['cpu_s']:.1f}",
                 md_text(r["budget"]) or "–", md_text(_param_text(r["best_params"])) or "–"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render_trials_latex(rows: list[dict[str, Any]]) -> str:
    """The trials table as a LaTeX ``tabular`` (booktabs), names escaped with
    :func:`bench.report.latex.tex_escape`; the best parameters are left to the Markdown/CSV."""
    lines = [r"\begin{tabular}{llrrrrlr}", r"\toprule",
             r"Model & Library & Trials & Complete & Pruned & Best (validation) & Metric & "
             r"CPU s \\", r"\midrule"]
    for r in rows:
        lines.append(" & ".join([
            tex_escape(r["model"]), tex_escape(r["library"]), str(r["trials"]),
            str(r["complete"]), str(r["pruned"]), _num(r["best_value"]).replace("–", "--"),
            tex_escape(f"{r['metric']} ({r['profile']})"), f"{r['cpu_s']:.1f}"]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


__all__ = ["MIN_IMPORTANCE_TRIALS", "STATES", "TRIAL_COLUMNS", "TuneFolder", "best_trial",
           "param_importances", "read_tune_dir", "render_trials_latex", "render_trials_markdown",
           "study_names", "trials_summary"]
