"""Property tests: the Python entry points on random values (issue 19 item 9).

``evaluate`` on random arrays and DataFrames of mixed dtypes, ``evaluate_trec`` on random dicts,
``parse_metrics`` on random text and on every accepted spelling with random cutoffs and
parameters, the run configuration (``RunConfig.from_dict`` / ``RunConfig.load``) on random TOML
documents and bytes. The property: a value, or ltrbench's own error
(:class:`bench.errors.LtrbenchError`, exit 2 on the command line), never another exception;
on clean inputs the value equals a slow oracle (``tests/metrics_oracles.py``) or pytrec_eval.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from fuzz_helpers import clear_error, fuzz_settings, outcome, pytrec_means, qrels_dicts, run_dicts
from hypothesis import assume, given
from hypothesis import strategies as st
from metrics_oracles import evaluate_oracle

from bench.benchmark.config import RunConfig
from bench.data import toml as tomlio
from bench.errors import ConfigError
from bench.metrics import evaluate, evaluate_trec, parse_metrics
from bench.metrics.names import describe_names

FAST = fuzz_settings(60)
FEW = fuzz_settings(30)

#: Values an attacker puts in a column: every Python scalar kind, missing values, extremes.
HOSTILE_VALUES = st.one_of(
    st.integers(-3, 5), st.integers(-(2**70), 2**70), st.floats(), st.booleans(), st.none(),
    st.sampled_from(["1", "x", "", "nan", "inf", " 2", "1e3", "\x00", "\u0661"]),
    st.sampled_from([np.nan, np.inf, -np.inf, 2**53 + 1, -0.0, 1e308, 5e-324, np.int64(3),
                     np.float32(0.5), pd.NA, pd.NaT]),
)


# ------------------------------------------------------------------------------ evaluate(arrays)
@st.composite
def clean_arrays(draw: st.DrawFn) -> tuple[list[int], list[float], list[int]]:
    sizes = draw(st.lists(st.integers(1, 6), min_size=1, max_size=5))
    n = sum(sizes)
    labels = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0]) | st.floats(-1e3, 1e3),
                           min_size=n, max_size=n))
    return labels, scores, sizes


@FAST
@given(arr=clean_arrays(), metric=st.sampled_from(["ndcg@3", "ndcg@10", "map@5", "mrr", "p@2",
                                                   "recall@3", "err@4", "dcg@5"]),
       profile=st.sampled_from(["ltrbench", "lightgbm", "xgboost", "trec_eval", "sklearn"]))
def test_clean_arrays_equal_the_slow_oracle(arr: tuple[list[int], list[float], list[int]],
                                            metric: str, profile: str) -> None:
    labels, scores, sizes = arr
    qid = np.repeat(np.arange(len(sizes)), sizes)
    r = outcome(lambda: evaluate(labels, scores, qid=qid, metrics=metric, profile=profile))
    if not r.ok:  # a profile may refuse a label (e.g. above its maximum): a clear error
        clear_error(r.error)  # type: ignore[arg-type]
        return
    want, _ = evaluate_oracle(labels, scores, sizes, metric, profile)
    got = next(iter(r.value.metrics.values()))
    w = next(iter(want.values()))
    assert (math.isnan(got) and math.isnan(w)) or got == pytest.approx(w, abs=1e-9), (got, w)


@FAST
@given(n=st.integers(0, 8), data=st.data())
def test_hostile_arrays_give_a_value_or_a_clear_error(n: int, data: st.DataObject) -> None:
    labels = data.draw(st.lists(HOSTILE_VALUES, min_size=n, max_size=n))
    scores = data.draw(st.lists(HOSTILE_VALUES, min_size=n, max_size=n))
    qid = data.draw(st.one_of(st.lists(st.sampled_from([1, 2, "1", "a", 1.0, None, np.nan]),
                                       min_size=n, max_size=n),
                              st.just([1] * n)))
    kw = data.draw(st.sampled_from([{}, {"sort_by_qid": True}, {"profile": "trec_eval"},
                                    {"backend": "numpy"}, {"metrics": "map"}]))
    r = outcome(lambda: evaluate(labels, scores, qid=qid, metrics=kw.pop("metrics", "ndcg@10"),
                                 **kw))
    if r.ok:
        v = next(iter(r.value.metrics.values()))
        assert math.isnan(v) or 0.0 <= v <= 1.0 + 1e-12, v


@FAST
@given(n=st.integers(1, 6), data=st.data())
def test_hostile_group_sizes_and_weights(n: int, data: st.DataObject) -> None:
    labels = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    scores = data.draw(st.lists(st.floats(-5, 5), min_size=n, max_size=n))
    group = data.draw(st.lists(HOSTILE_VALUES, max_size=4))
    weights = data.draw(st.one_of(st.none(), st.lists(HOSTILE_VALUES, min_size=1, max_size=n)))
    r = outcome(lambda: evaluate(labels, scores, group=group, weights=weights, metrics="ndcg@5"))
    if r.ok:
        v = r.value.metrics["ndcg@5"]
        assert math.isnan(v) or 0.0 <= v <= 1.0 + 1e-12, v


# ------------------------------------------------------------------------------ evaluate(frame)
COLUMN_NAMES = st.sampled_from(["label", "rel", "score", "qid", "query", "docno", "Label",
                                "QID", "weights", "x", 0, None])


@FAST
@given(n=st.integers(0, 6), data=st.data())
def test_hostile_frames_give_a_value_or_a_clear_error(n: int, data: st.DataObject) -> None:
    names = data.draw(st.lists(COLUMN_NAMES, min_size=1, max_size=5, unique=True))
    cols = {c: data.draw(st.lists(HOSTILE_VALUES, min_size=n, max_size=n)) for c in names}
    frame = pd.DataFrame({c: pd.Series(v, dtype=object) for c, v in cols.items()})
    if data.draw(st.booleans()):
        frame = frame.infer_objects()
    r = outcome(lambda: evaluate(frame, metrics="ndcg@10"))
    if r.ok:
        v = r.value.metrics["ndcg@10"]
        assert math.isnan(v) or 0.0 <= v <= 1.0 + 1e-12, v


@FAST
@given(arr=clean_arrays(), shuffle=st.randoms(use_true_random=False))
def test_a_frame_in_any_row_order_equals_its_arrays(arr: tuple[list[int], list[float], list[int]],
                                                   shuffle: Any) -> None:
    labels, scores, sizes = arr
    qid = np.repeat(np.arange(len(sizes)), sizes)
    docno = [f"d{i}" for i in range(len(labels))]  # ties: trec_eval breaks them by docno
    frame = pd.DataFrame({"qid": qid, "docno": docno, "label": labels, "score": scores})
    order = list(range(len(labels)))
    shuffle.shuffle(order)
    got = evaluate(frame.iloc[order], metrics="ndcg@5,map", profile="trec_eval")
    want, _ = evaluate_oracle(labels, scores, sizes, "ndcg@5 map", "trec_eval", docno=docno)
    for k, w in zip(got.metrics, want, strict=True):
        assert got.metrics[k] == pytest.approx(want[w], abs=1e-9, nan_ok=True)


@FEW
@given(arr=clean_arrays(), mix=st.lists(st.booleans(), min_size=30, max_size=30))
def test_mixed_int_and_str_qids_are_one_rule(arr: tuple[list[int], list[float], list[int]],
                                             mix: list[bool]) -> None:
    """A qid column mixing ``1`` and ``"1"``: the value of the all-string column, or an error."""
    labels, scores, sizes = arr
    qid = np.repeat(np.arange(len(sizes)), sizes)
    mixed = [str(q) if m else int(q) for q, m in zip(qid, mix, strict=False)]
    assume(len({type(x) for x in mixed}) == 2)
    frame = pd.DataFrame({"qid": pd.Series(mixed, dtype=object), "label": labels, "score": scores})
    r = outcome(lambda: evaluate(frame, metrics="ndcg@10"))
    if not r.ok:
        clear_error(r.error, "qid")  # type: ignore[arg-type]
        return
    want = evaluate(pd.DataFrame({"qid": [str(q) for q in qid], "label": labels,
                                  "score": scores}), metrics="ndcg@10")
    assert r.value.metrics["ndcg@10"] == pytest.approx(want.metrics["ndcg@10"], abs=1e-12)


# ------------------------------------------------------------------------------ evaluate_trec(dicts)
KEYS = st.one_of(st.sampled_from(["1", "2", "d1", "d2", ""]), st.integers(0, 3), st.floats(),
                 st.booleans(), st.none(), st.tuples(st.integers(0, 1)))


@FAST
@given(qrels=st.dictionaries(KEYS, st.one_of(st.dictionaries(KEYS, HOSTILE_VALUES, max_size=4),
                                             HOSTILE_VALUES), max_size=3),
       run=st.dictionaries(KEYS, st.one_of(st.dictionaries(KEYS, HOSTILE_VALUES, max_size=4),
                                           HOSTILE_VALUES), max_size=3))
def test_hostile_dicts_give_a_value_or_a_clear_error(qrels: dict[Any, Any],
                                                     run: dict[Any, Any]) -> None:
    r = outcome(lambda: evaluate_trec(qrels, run, metrics="ndcg_cut_10 map"))
    if not r.ok:
        clear_error(r.error, "qrels", "run")  # type: ignore[arg-type]


@FAST
@given(qrels=qrels_dicts, run=run_dicts, as_frame=st.booleans())
def test_clean_dicts_and_frames_equal_pytrec_eval(qrels: dict[str, dict[str, int]],
                                                  run: dict[str, dict[str, float]],
                                                  as_frame: bool) -> None:
    assume(set(qrels) & set(run))
    q_in: Any = qrels
    r_in: Any = run
    if as_frame:
        q_in = pd.DataFrame([(q, d, v) for q, ds in qrels.items() for d, v in ds.items()],
                            columns=["query_id", "doc_id", "relevance"])
        r_in = pd.DataFrame([(q, d, v) for q, ds in run.items() for d, v in ds.items()],
                            columns=["qid", "docno", "score"])
    got = evaluate_trec(q_in, r_in, metrics="ndcg_cut_10 map P_5 recip_rank",
                        profile="trec_eval").metrics
    want = pytrec_means(qrels, run)
    assert want is not None
    for g, w in zip(got.values(), want.values(), strict=True):
        assert g == pytest.approx(w, abs=1e-9), (got, want)


@FEW
@given(bad=st.sampled_from([float("nan"), float("inf"), "x", None, 1.5, [1]]),
       role=st.sampled_from(["qrels", "run"]))
def test_a_bad_dict_value_names_its_keys(bad: Any, role: str) -> None:
    qrels: dict[str, dict[str, Any]] = {"q1": {"dA": 1, "dB": 0}}
    run: dict[str, dict[str, Any]] = {"q1": {"dA": 0.5, "dB": 0.25}}
    assume(not (role == "run" and bad == 1.5))  # a fractional score is a score
    (qrels if role == "qrels" else run)["q1"]["dB"] = bad
    r = outcome(lambda: evaluate_trec(qrels, run, metrics="map"))
    assert not r.ok
    clear_error(r.error, "q1")  # type: ignore[arg-type]
    assert "dB" in str(r.error), str(r.error)


@FEW
@given(bad=st.sampled_from([1.5, None, True, (1,), float("nan"), b"q"]),
       where=st.sampled_from(["qid", "docno"]), role=st.sampled_from(["qrels", "run"]))
def test_a_bad_dict_key_is_named(bad: Any, where: str, role: str) -> None:
    good: dict[Any, Any] = {"q1": {"dA": 1}}
    hostile: dict[Any, Any] = {bad: {"dA": 1}} if where == "qid" else {"q1": {bad: 1}}
    qrels, run = (hostile, good) if role == "qrels" else (good, hostile)
    r = outcome(lambda: evaluate_trec(qrels, run, metrics="map"))
    assert not r.ok
    clear_error(r.error, role)  # type: ignore[arg-type]
    assert "column 'None'" not in str(r.error), str(r.error)
    assert repr(bad) in str(r.error) or str(bad) in str(r.error), str(r.error)


# ------------------------------------------------------------------------------ metric names
EXAMPLES = sorted({row["example"] for row in describe_names()})
NAME_TEXT = st.lists(st.sampled_from([*"ndcgmapPRrecall_@.,:;()= {}'0123456789-+x",
                                      "\u00b2", "\u0661", "\x00", "\t", "@@", "rel=", "ndcg",
                                        "trec_eval:", "lightgbm:", "cut_"]),
                     max_size=20).map("".join)


@FAST
@given(text=st.one_of(NAME_TEXT, st.text(max_size=20)))
def test_random_metric_text_parses_or_is_refused(text: str) -> None:
    r = outcome(lambda: parse_metrics(text))
    if not r.ok:
        assert isinstance(r.error, ConfigError), r.error
        return
    assert r.value, text


@FAST
@given(example=st.sampled_from(EXAMPLES),
       tail=st.sampled_from(["", "@0", "@1", "@-1", "@2147483648", "_0", ".1,2", "@1.5", "@ 3",
                             "(rel=0)", "(rel=-1)", "(rel=1e9)", "(rel=x)", "(judged_only=True)",
                             "(gains={0:-1})", "(gains={1:nan})", "@10@10", ",5", ":x"]),
       profile=st.sampled_from(["ltrbench", "trec_eval", "trec_eval-c", "ranx", "lightgbm",
                                "recbole", "recommenders", "gdeval"]))
def test_every_spelling_with_hostile_tails_evaluates_or_is_refused(example: str, tail: str,
                                                                   profile: str) -> None:
    """A name the parser accepts must evaluate on arrays and on TREC dicts without a traceback."""
    name = example + tail
    parsed = outcome(lambda: parse_metrics(name))
    if not parsed.ok:
        assert isinstance(parsed.error, ConfigError)
        return
    a = outcome(lambda: evaluate([2, 0, 1, 0], [0.3, 0.2, 0.9, 0.1], group=[3, 1], metrics=name,
                                 profile=profile))
    t = outcome(lambda: evaluate_trec({"1": {"a": 2, "b": 0, "z": 1}, "2": {"c": 1}},
                                      {"1": {"a": 0.3, "b": 0.2}, "3": {"c": 0.1}},
                                      metrics=name, profile=profile))
    for o in (a, t):
        if o.ok:
            assert all(isinstance(v, float) for v in o.value.metrics.values())


# ------------------------------------------------------------------------------ config
CONFIG_KEYS = st.sampled_from(["dataset", "models", "seeds", "metrics", "profile", "quick",
                               "select_metric", "eval_at", "params", "model_params", "name",
                               "data_dir", "crosscheck", "strict", "timing", "timing_repeats",
                               "engine", "workers", "device", "als", "custom_models", "cache",
                               "n_trees", "early_stopping_split", "nosuch"])
TOML_SCALARS = st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(), st.booleans(),
                         st.text(max_size=8), st.sampled_from(["0-4", "1,2", "false", "cpu"]))
TOML_VALUES = st.recursive(TOML_SCALARS, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.sampled_from(["n_trees", "learning_rate",
                                                              "num_leaves", "subsample",
                                                              "lightgbm", "x"]), inner,
                                             max_size=3), max_leaves=6)


@FAST
@given(doc=st.dictionaries(CONFIG_KEYS, TOML_VALUES, max_size=4))
def test_random_config_documents_load_or_are_refused(doc: dict[str, Any]) -> None:
    r = outcome(lambda: RunConfig.from_dict(doc))
    if not r.ok:
        assert isinstance(r.error, ConfigError), r.error


@FAST
@given(key=st.sampled_from(["quick", "crosscheck", "strict", "cache", "log_train", "seeds",
                            "eval_at", "workers", "timing_repeats"]),
       value=st.sampled_from(["false", "no", 1.5, True, 0, [1.5], [True], ["1"], 1e300, -1]))
def test_a_config_value_of_the_wrong_type_is_refused(key: str, value: Any) -> None:
    bools = ("quick", "crosscheck", "strict", "cache", "log_train")
    fits = (isinstance(value, bool) if key in bools else
            isinstance(value, int) and not isinstance(value, bool) and value >= 1
            if key in ("workers", "timing_repeats") else
            (isinstance(value, list) and all(type(v) is int for v in value))
            or (type(value) is int and value >= 0))  # seeds = 0: one seed (Python's shorthand)
    r = outcome(lambda: RunConfig.from_dict({key: value}))
    if fits:
        return
    assert not r.ok, f"{key} = {value!r} accepted as {getattr(r.value, key)!r}"
    assert key in str(r.error), str(r.error)


@FAST
@given(blob=st.one_of(st.binary(max_size=200),
                      st.sampled_from(['seeds = [1]\n', 'quick = true\n']).map(
                          lambda s: s.encode("utf-16")),
                      st.text(max_size=100).map(lambda s: s.encode("utf-8"))))
def test_random_config_bytes_load_or_are_refused(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "run.toml"
    p.write_bytes(blob)
    r = outcome(lambda: RunConfig.load(p))
    if not r.ok:
        clear_error(r.error, "run.toml")  # type: ignore[arg-type]


@FAST
@given(blob=st.binary(max_size=200))
def test_read_toml_on_random_bytes(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "x.toml"
    p.write_bytes(blob)
    r = outcome(lambda: tomlio.read_toml(p))
    if not r.ok:
        clear_error(r.error, "x.toml")  # type: ignore[arg-type]
