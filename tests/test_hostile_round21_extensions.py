"""Hostile cases of round 21: an extension author who adds their own pieces the way
ARCHITECTURE.md says a new metric, profile, engine, GBDT library, user model or dataset is
added ("by declaring a record, not by editing a chain of ifs"), from their own module
(``FAMILIES[...] = Family(...)``, ``PROFILES[...] = Profile(...)``, ``ENGINES[...] = Engine(...)``,
``LIBRARIES[...] = Library(...)``) and by writing a record or a card file.

Earlier rounds attacked custom rankers' fit/predict and factory strings; these cases attack the
declaration and registration surfaces: a record whose fields contradict each other or have the
wrong type, a name that collides with a built-in, an alias or a header, a record whose table key
is not its name, a formula that returns a scalar, a wrong length, NaN or values outside its
declared bound, an entry point that does not import, a card whose split paths leave its folder.

Each test names its class: traceback / silently wrong number / silent accept / unclear error.
Golden values are hand arithmetic, written beside each case.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_kit import api_refused, call, ok, own_error

from bench.errors import ConfigError, LtrbenchError
from bench.metrics import evaluate
from bench.metrics import families as fam_mod
from bench.metrics.family_record import Family, Inputs, Param

# Four queries (rows of a query together), hand-counted at k = 2:
#   q1 labels 1 0 0 1, scores descending: hits@2 = 1, R = 2, n = 4
#   q2 labels 0 0 0: blank (no relevant document), n = 3
#   q3 labels 0 1 0: hits@2 = 1, R = 1, n = 3
#   q4 labels 0 0 1: hits@2 = 0, R = 1, n = 3
LABELS = np.array([1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1], dtype=np.float64)
SCORES = np.array([.9, .8, .7, .1, .3, .2, .1, .9, .8, .7, .9, .8, .7])
QID = np.array([1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4])


def _eval(metrics: Any, profile: Any = "ltrbench") -> Any:
    return evaluate(LABELS, SCORES, qid=QID, metrics=metrics, profile=profile)


def _f1(q: Inputs) -> Any:
    """F1 of the top k = 2 hits / (k + R) (ltrbench's P@k divides by k)."""
    return q.ratio(2.0 * q.comp["hits"], float(q.k or 0) + q.r)


def _family(**kw: Any) -> Family:
    base: dict[str, Any] = dict(name="f_measure", header="F", meaning="F1 of the top k",
                                components=("hits",), finish=_f1, normalised=True,
                                aliases=("f",), unit_interval=True)
    base.update(kw)
    return Family(**base)


@pytest.fixture
def declare(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Declare a family the way an outside module does: a record put in ``FAMILIES``."""
    def put(record: Family, key: str | None = None) -> Family:
        monkeypatch.setitem(fam_mod.FAMILIES, key or record.name, record)
        return record
    return put


# =============================================== A. a Family record's own fields (silent accept)
@pytest.mark.parametrize("name", ["F_Measure", "f@5", "pr\u00e9cision", "", "f measure"],
                         ids=["upper", "at", "accent", "empty", "space"])
def test_a_family_name_the_grammar_cannot_read_is_refused_at_declaration(name: str) -> None:
    # silent accept: the record is stored, but no metric name ever reaches it
    ok(own_error(lambda: _family(name=name), "name", repr(name)))


def test_a_family_blank_rule_with_a_typo_is_refused() -> None:
    # silent accept: "no_gains" fell through to the no_relevant rule
    ok(own_error(lambda: _family(blank_when="no_gains"), "blank_when", "no_gains"))


def test_a_family_mean_that_is_not_a_known_averaging_is_refused() -> None:
    # silent accept: "median" fell through to the weighted mean
    ok(own_error(lambda: _family(mean="median"), "mean", "median"))


def test_a_family_components_given_as_one_string_is_refused() -> None:
    # unclear error: "hits" was read as the components 'h', 'i', 't', 's' ("needs component 'h'")
    ok(own_error(lambda: _family(components="hits"), "components", "tuple"))


def test_a_family_aliases_given_as_one_string_is_refused() -> None:
    # silent accept: aliases="fm" declared the two aliases 'f' and 'm'
    ok(own_error(lambda: _family(aliases="fm"), "aliases", "tuple"))


def test_a_family_alias_the_grammar_cannot_read_is_refused() -> None:
    # silent accept: names are read in lower case, so the alias 'F1x' was never found
    ok(own_error(lambda: _family(aliases=("F1x",)), "alias", "'F1x'"))


@pytest.mark.parametrize(("fields", "word"), [({"bare_whole": True, "cutoff": False}, "bare_whole"),
                                              ({"root": True}, "root")],
                         ids=["bare-whole-without-cutoff", "root-without-error"])
def test_a_family_whose_flags_contradict_is_refused(fields: dict[str, Any], word: str) -> None:
    # silent accept: a flag that the rest of the record makes meaningless, read by no one
    ok(own_error(lambda: _family(**fields), word))


def test_a_family_flag_given_as_text_is_refused() -> None:
    # silent accept: normalised="no" is a true value: blank queries took the profile's empty
    ok(own_error(lambda: _family(normalised="no"), "normalised", "'no'"))


def test_a_family_header_left_empty_is_refused() -> None:
    # silent accept: a table column without a name
    ok(own_error(lambda: _family(header=""), "header"))


def test_a_param_default_outside_its_own_range_is_refused() -> None:
    # silently wrong number: a bare name is computed at the default, never range-checked
    ok(own_error(lambda: Param("p", 1.5, 0.0, 1.0), "default", "1.5"))


def test_a_param_range_upside_down_is_refused() -> None:
    # silent accept: low 1 > high 0 refuses every value with "must be in [1, 0]"
    ok(own_error(lambda: Param("p", None, 1.0, 0.0), "low", "high"))


def test_a_family_without_a_formula_or_an_error_is_refused() -> None:
    # silent accept: a ranking family with no finish is refused only when first evaluated
    ok(own_error(lambda: _family(finish=None), "finish"))


# ======================================= B. a record added to FAMILIES from the author's module
def test_a_family_declared_from_outside_is_a_metric_name(declare: Any) -> None:
    # unclear error: "unknown metric 'f_measure@2'" for the family just declared (the names
    # grammar read a copy of the table taken at import)
    declare(_family())
    got = _eval("f_measure@2").metrics["f_measure@2"]
    # f1@2 = 2 hits / (2 + R): q1 2/4, q3 2/3, q4 0; q2 blank, left out (ltrbench)
    assert got == pytest.approx((0.5 + 2 / 3 + 0.0) / 3, abs=1e-12)


def test_an_alias_of_a_family_declared_from_outside_is_read(declare: Any) -> None:
    # unclear error: the alias 'f' was unknown (ALIASES copied at import)
    declare(_family())
    got = _eval("f@2").metrics["f@2"]
    assert got == pytest.approx(7 / 18, abs=1e-12)


def test_the_header_of_a_family_declared_from_outside_parses_back(declare: Any) -> None:
    from bench.metrics.families import metric_header
    from bench.metrics.names import parse_metrics

    declare(_family())
    assert metric_header("f_measure@2") == "F@2"
    spec = parse_metrics("F@2")[0]  # the leaderboard's column, read back
    assert (spec.family, spec.k) == ("f_measure", 2)


def test_a_normalised_family_declared_from_outside_takes_the_profile_blank_value(
        declare: Any) -> None:
    # silently wrong number: the blank rule read a copy of the normalised families taken at
    # import, so lightgbm's "a blank query scores 1" did not apply to the new family
    declare(_family(name="my_recall", header="My_recall", aliases=(),
                    finish=lambda q: q.ratio(q.comp["hits"], q.r)))
    got = _eval("my_recall@2", profile="lightgbm").metrics["my_recall@2"]
    # hits@2 / R: q1 1/2, q2 blank -> 1 (lightgbm), q3 1, q4 0: mean 2.5 / 4
    assert got == pytest.approx(0.625, abs=1e-12)


@pytest.mark.parametrize("name", ["hit", "recip_rank", "precision"])
def test_a_family_named_as_an_existing_alias_is_refused(declare: Any, name: str) -> None:
    # silently wrong number: 'hit@2' kept meaning the hit rate (the alias won) and the user's
    # family was never computed
    declare(_family(name=name, header=name.capitalize(), aliases=()))
    ok(own_error(lambda: _eval(f"{name}@2"), repr(name)))


def test_a_family_alias_taken_by_another_family_is_refused(declare: Any) -> None:
    # silently wrong number: 'ap' stayed MAP's (or became the new family's, by table order)
    declare(_family(aliases=("f", "ap")))
    ok(own_error(lambda: _eval("ap@2"), "'ap'"))


def test_a_family_header_taken_by_another_family_is_refused(declare: Any) -> None:
    # silently wrong number: two columns "P@2", and "P@2" read back as precision
    declare(_family(header="P"))
    ok(own_error(lambda: _eval("f_measure@2"), "'P'"))


def test_a_family_header_that_does_not_parse_back_is_refused(declare: Any) -> None:
    # silent accept: a column "F-Measure@2" that no metric name reads back
    declare(_family(header="F-Measure"))
    ok(own_error(lambda: _eval("f_measure@2"), "'F-Measure'"))


def test_a_family_stored_under_another_key_is_refused(declare: Any) -> None:
    # silent accept: FAMILIES['fx'] holds a record named 'f_measure'
    declare(_family(), key="fx")
    ok(own_error(lambda: _eval("fx@2"), "'fx'", "'f_measure'"))


def test_a_lower_is_better_family_declared_from_outside_ranks_runs_lowest_first(
        declare: Any) -> None:
    # unclear error before ("unknown metric"); the comparison must pick the run with fewer misses
    from bench.report.compare_runs import compare_runs

    declare(_family(name="misses", header="Misses", aliases=(), normalised=False,
                    lower_is_better=True,
                    finish=lambda q: 1.0 - q.comp["hits"] / float(q.k or 1)))
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 0, "d4": 1}}
    good = {"q1": {"d1": 0.9, "d2": 0.1}, "q2": {"d3": 0.1, "d4": 0.9}}  # misses@1: 0, 0
    bad = {"q1": {"d1": 0.1, "d2": 0.9}, "q2": {"d3": 0.9, "d4": 0.1}}  # misses@1: 1, 1
    table = compare_runs(qrels, {"bad": bad, "good": good}, metrics="misses@1")
    assert table.best == "good"


def test_a_run_config_names_a_family_declared_from_outside(declare: Any) -> None:
    from bench.benchmark.config import RunConfig

    declare(_family())
    cfg = RunConfig.from_dict({"metrics": ["f_measure@5", "ndcg@10"]})
    assert tuple(cfg.metrics) == ("f_measure@5", "ndcg@10")


# ======================================== C. what a declared formula returns is checked
def _mine(declare: Any, finish: Any, **kw: Any) -> None:
    declare(_family(name="mine", header="Mine", aliases=(), finish=finish, **kw))


def test_a_formula_returning_a_scalar_is_a_clear_error(declare: Any) -> None:
    # traceback: TypeError 'float' object does not support item assignment
    _mine(declare, lambda q: 0.5, unit_interval=False)
    ok(own_error(lambda: _eval("mine@2"), "'mine'", "Family.finish", "one value per query"))


def test_a_formula_returning_a_wrong_length_is_a_clear_error(declare: Any) -> None:
    # traceback: IndexError boolean index did not match
    _mine(declare, lambda q: q.value("hits")[:1])
    ok(own_error(lambda: _eval("mine@2"), "'mine'", "Family.finish", "one value per query"))


def test_a_formula_returning_a_column_is_a_clear_error(declare: Any) -> None:
    # silent accept: an (n, 1) array was averaged as it came
    _mine(declare, lambda q: q.value("hits")[:, None])
    ok(own_error(lambda: _eval("mine@2"), "'mine'", "Family.finish", "one value per query"))


def test_a_formula_returning_a_list_is_read_as_its_values(declare: Any) -> None:
    # traceback: a list cannot take the blank queries' NaN by a boolean index
    _mine(declare, lambda q: q.n.tolist(), normalised=False, unit_interval=False)
    # n per query 4, 3 (blank, left out under ltrbench), 3, 3: mean 10 / 3
    assert _eval("mine@2").metrics["mine@2"] == pytest.approx(10 / 3, abs=1e-12)


def test_a_formula_returning_integers_is_read_as_floats(declare: Any) -> None:
    # traceback: ValueError cannot convert float NaN to integer (the blank query's NaN)
    _mine(declare, lambda q: (q.comp["hits"] > 0).astype(np.int64), normalised=False)
    # hit in the top 2: q1 1, q3 1, q4 0 (q2 blank, left out): 2 / 3
    assert _eval("mine@2").metrics["mine@2"] == pytest.approx(2 / 3, abs=1e-12)


def test_a_formula_returning_a_shared_component_leaves_other_metrics_alone(declare: Any) -> None:
    # silently wrong number: the blank fill wrote lightgbm's 1.0 into the hits@2 that P@2 reads
    _mine(declare, lambda q: q.comp["hits"])
    res = _eval(["mine@2", "p@2"], profile="lightgbm")
    # P@2 = hits@2 / 2: q1 1/2, q2 0, q3 1/2, q4 0: mean 1/4
    assert res.metrics["p@2"] == pytest.approx(0.25, abs=1e-12)
    # mine = hits@2 with the blank query at 1 (lightgbm): 1, 1, 1, 0
    assert res.metrics["mine@2"] == pytest.approx(0.75, abs=1e-12)


def test_a_formula_giving_nan_on_a_query_that_is_not_blank_is_refused(declare: Any) -> None:
    # silently wrong number: F1 written as 2PR/(P+R) is 0/0 on q4 (R = 1, no hit in the top 2),
    # and the NaN left q4 out of the mean: 0.5833 printed where F1 is (1/2 + 2/3 + 0) / 3
    def hand_f1(q: Inputs) -> Any:
        with np.errstate(all="ignore"):
            p = q.comp["hits"] / 2.0
            r = q.comp["hits"] / q.r
            return 2 * p * r / (p + r)
    _mine(declare, hand_f1)
    ok(own_error(lambda: _eval("mine@2"), "'mine'", "NaN", "1 quer"))


def test_a_formula_dividing_by_zero_is_blamed_not_the_labels(declare: Any) -> None:
    # unclear error: "the labels' gains overflow a float64 (labels near 1e308)" for the odds
    # hits / (R - hits) of q3, 1 / 0
    def odds(q: Inputs) -> Any:
        with np.errstate(all="ignore"):
            return q.comp["hits"] / (q.r - q.comp["hits"])
    _mine(declare, odds, unit_interval=False)
    ok(own_error(lambda: _eval("mine@2"), "'mine'", "Family.finish", "infinite"))


@pytest.mark.parametrize(("shift", "shown"), [(0.5, "1.5"), (-0.5, "-0.5")])
def test_a_unit_interval_family_outside_zero_one_is_refused(declare: Any, shift: float,
                                                            shown: str) -> None:
    # silently wrong number: unit_interval=True promised [0, 1]; the run's reader later called
    # such a run "damaged or edited"
    _mine(declare, lambda q: q.value("hits") + shift, normalised=False)
    ok(own_error(lambda: _eval("mine@2"), "'mine'", "unit_interval", shown))


# ======================================================= D. profiles declared by the author
def test_a_profile_object_named_as_a_registered_one_in_another_case_is_not_labelled_so() -> None:
    # silently wrong number: the result said 'LightGBM', which reads back as lightgbm's exp2 gain
    from bench.metrics.profiles import get_profile

    mine = dataclasses.replace(get_profile("lightgbm"), name="LightGBM", gain="linear")
    res = _eval("ndcg@3", profile=mine)
    label = res.profile_of("ndcg@3")
    try:
        back = get_profile(label)
    except LtrbenchError:
        return  # a label that is refused as a profile name is honest
    assert dataclasses.replace(back, name="", description="") == \
        dataclasses.replace(mine, name="", description=""), label


def test_a_profile_object_with_a_spaced_registered_name_is_the_profile_it_equals() -> None:
    # silently wrong label: ' trec_eval' with missing="zero" is trec_eval -c, printed ' trec_eval'
    from bench.metrics.profiles import get_profile

    mine = dataclasses.replace(get_profile("trec_eval"), name=" trec_eval", missing="zero")
    res = evaluate(LABELS, SCORES, qid=QID, metrics="map", profile=mine)
    assert res.profile_of("map") == "trec_eval-c"


def test_a_profile_registered_under_another_name_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # silent accept: profile="mine" computed and printed a profile named 'other'
    from bench.metrics.profiles import PROFILES, Profile, get_profile

    monkeypatch.setitem(PROFILES, "mine", Profile("other", gain="linear"))
    ok(own_error(lambda: get_profile("mine"), "'mine'", "'other'"))


def test_a_profile_registered_under_a_mixed_case_key_is_said(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # unclear error: "unknown profile 'MyTool'; ... valid profiles: ..., MyTool"
    from bench.metrics.profiles import PROFILES, Profile, get_profile

    monkeypatch.setitem(PROFILES, "MyTool", Profile("MyTool", gain="linear"))
    ok(own_error(lambda: get_profile("MyTool"), "'MyTool'", "lower case"))


def test_a_profile_registered_under_a_name_the_qualifier_cannot_read_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # silent accept: profile "my tool" worked, but "my tool:ndcg@10" could never name it
    from bench.metrics.profiles import PROFILES, Profile, get_profile

    monkeypatch.setitem(PROFILES, "my tool", Profile("my tool", gain="linear"))
    ok(own_error(lambda: get_profile("my tool"), "'my tool'", "PROFILE:NAME"))


def test_a_run_config_with_an_unregistered_profile_object_is_refused_or_reproduces() -> None:
    import tomllib

    from bench.benchmark.config import RunConfig
    from bench.metrics.profiles import Profile

    mine = Profile("mine", gain="linear")
    cfg, exc = call(lambda: RunConfig(profile=mine))  # type: ignore[arg-type]
    if exc is not None:  # refused at the door: the config could not name it
        ok(api_refused(exc, "profile"))
        return
    again = RunConfig.from_dict(tomllib.loads(cfg.to_toml()))
    assert again.profile_value() == mine


# ========================================================= E. an engine row's entry points
def _engine(**kw: Any) -> Any:
    from bench.engines import Engine

    return Engine(**{"name": "ray", "title": "Ray", "description": "a test row", **kw})


def _run_evaluator(row: Any) -> Any:
    from bench.engines import ClusterOptions

    return row.evaluate("x", score_column="score", metrics=["ndcg@10"], profile="ltrbench",
                        per_query=False, options=ClusterOptions())


def test_an_engine_entry_point_whose_module_does_not_exist_is_a_clear_error() -> None:
    # traceback: ModuleNotFoundError
    row = _engine(evaluator="ltrbench_r21c_no_such_module:evaluate")
    ok(own_error(lambda: _run_evaluator(row), "ray", "evaluator",
                 "ltrbench_r21c_no_such_module"))


def test_an_engine_entry_point_whose_attribute_does_not_exist_is_a_clear_error() -> None:
    # traceback: AttributeError
    row = _engine(evaluator="bench.engines.table:no_such_evaluator")
    ok(own_error(lambda: _run_evaluator(row), "ray", "evaluator", "no_such_evaluator"))


def test_an_engine_entry_point_whose_module_raises_at_import_is_a_clear_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # traceback: the module's RuntimeError
    (tmp_path / "r21c_engine_boom.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    row = _engine(evaluator="r21c_engine_boom:evaluate")
    ok(own_error(lambda: _run_evaluator(row), "ray", "evaluator", "boom at import"))


@pytest.mark.parametrize("path", ["bench.engines.table", "bench/engines/ray.py:evaluate",
                                  "..engines:evaluate", "bench.engines.table:"],
                         ids=["no-colon", "file-path", "relative", "no-attribute"])
def test_an_engine_entry_point_that_is_not_module_attribute_is_refused_at_declaration(
        path: str) -> None:
    # silent accept: the row was stored and failed (with a traceback) only when used
    ok(own_error(lambda: _engine(evaluator=path), "evaluator", repr(path), "module:attribute"))


def test_an_engine_stored_under_another_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # silent accept: ENGINES['ray'] held a row named 'Ray'
    from bench.engines import ENGINES, get_engine

    monkeypatch.setitem(ENGINES, "ray", _engine(name="Ray"))
    ok(own_error(lambda: get_engine("ray"), "'ray'", "'Ray'"))


# ================================================ F. a GBDT library record's names (registry)
def _library(monkeypatch: pytest.MonkeyPatch, **kw: Any) -> None:
    from bench.runners.libraries import LIBRARIES

    record = dataclasses.replace(LIBRARIES["lightgbm"], title="FakeGBM", **kw)
    monkeypatch.setitem(LIBRARIES, record.name, record)


def test_a_library_named_as_a_baseline_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # silently wrong model: --models random trained the library's random-lambdarank
    from bench.runners.registry import expand_models

    _library(monkeypatch, name="random")
    ok(own_error(lambda: expand_models("random"), "'random'", "baseline"))


def test_a_library_named_as_a_group_alias_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # silent accept: the library's alias 'all' was overwritten by the group "all"
    from bench.runners.registry import expand_models

    _library(monkeypatch, name="all")
    ok(own_error(lambda: expand_models("all"), "'all'"))


def test_a_library_name_with_a_dash_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # silently wrong library: a folder without records reads 'light-gbm-lambdarank' as library
    # 'light' (the prefix before the first '-')
    from bench.runners.registry import expand_models

    _library(monkeypatch, name="light-gbm")
    ok(own_error(lambda: expand_models("light-gbm"), "'light-gbm'", "'-'"))


def test_a_library_alias_that_names_no_objective_is_said_as_the_record(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # unclear error: "unknown model 'fastgbm-nope'", nothing about the record's alias
    from bench.runners.registry import expand_models

    _library(monkeypatch, name="fastgbm", alias="nope")
    ok(own_error(lambda: expand_models("fastgbm"), "fastgbm", "alias", "'nope'"))


# ========================================= G. a custom model's declaration and its side effects
def test_a_refused_config_does_not_import_the_custom_factory_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # silent side effect: the factory's module ran (here: wrote a file) for a config that was
    # then refused for a key that needs no import (workers on the local engine)
    from bench.benchmark.config import RunConfig

    marker = tmp_path / "imported.txt"
    (tmp_path / "r21c_side_effect.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\n"
        "class R:\n"
        "    def fit(self, X, y, group):\n        return self\n"
        "    def predict(self, X):\n        return X[:, 0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    doc = {"models": ["mine"], "workers": 4,
           "custom_models": {"mine": {"factory": "r21c_side_effect:R"}}}
    with pytest.raises(ConfigError, match="workers"):
        RunConfig.from_dict(doc)
    assert not marker.exists()


# ========================================================== H. a dataset card written by hand
CARD = """name = "{name}"
title = "a hand-written card"
kind = "{kind}"
loader = "{loader}"
homepage = "https://example.org"
size = "3 queries"
licence = "CC0"
citation = "none"
{extra}
[splits]
train = "{train}"
vali = "vali.txt"
test = "test.txt"
"""


def _card(tmp: Path, *, name: str = "mycard", kind: str = "letor", loader: str = "letor",
          extra: str = "", train: str = "train.txt") -> Path:
    path = tmp / "mycard.toml"
    path.write_text(CARD.format(name=name, kind=kind, loader=loader, extra=extra, train=train))
    return path


def _load(path: Path) -> Any:
    from bench.datasets.catalogue import load_card

    return load_card(path)


def test_a_valid_hand_written_card_loads(tmp_path: Path) -> None:
    card = _load(_card(tmp_path))
    assert card.splits["train"] == "train.txt"


@pytest.mark.parametrize("key", ["n_features", "max_label", "archive_size"])
def test_a_card_count_below_zero_is_refused(tmp_path: Path, key: str) -> None:
    # silent accept: n_features = -5 was stored (0 means "not stated")
    ok(own_error(lambda: _load(_card(tmp_path, extra=f"{key} = -5")), key, "-5"))


@pytest.mark.parametrize("train", ["../other/train.txt", "/tmp/elsewhere/train.txt",
                                   "Fold1/../../train.txt"],
                         ids=["dotdot", "absolute", "inner-dotdot"])
def test_a_card_split_path_outside_its_folder_is_refused(tmp_path: Path, train: str) -> None:
    # silent accept: the dataset read a file of another folder
    ok(own_error(lambda: _load(_card(tmp_path, train=train)), "train", repr(train)))


@pytest.mark.parametrize(("extra", "word"), [('dir = "../outside"', "'../outside'"),
                                             ('aliases = ["a/b"]', "'a/b'"),
                                             ('archive_root = "../.."', "'../..'"),
                                             ('[files]\n"../x.txt" = "unknown"', "'../x.txt'")],
                         ids=["dir", "alias", "archive-root", "files"])
def test_a_card_folder_or_file_outside_the_data_directory_is_refused(tmp_path: Path, extra: str,
                                                                    word: str) -> None:
    # silent accept: fetch wrote into <data dir>/../outside, verify hashed ../x.txt
    ok(own_error(lambda: _load(_card(tmp_path, extra=extra)), "mycard.toml", word))


def test_a_card_split_path_with_an_unknown_placeholder_is_refused(tmp_path: Path) -> None:
    # traceback later: KeyError 'split' when a fold's files are listed
    ok(own_error(lambda: _load(_card(tmp_path, train="{split}/train.txt")), "train", "{split}"))


def test_a_card_with_folds_whose_split_paths_name_no_fold_is_refused(tmp_path: Path) -> None:
    # silently wrong number: every fold read the same three files
    extra = 'folds = ["Fold1", "Fold2"]'
    ok(own_error(lambda: _load(_card(tmp_path, extra=extra)), "{fold}", "folds"))


def test_a_card_split_path_naming_a_fold_without_folds_is_refused(tmp_path: Path) -> None:
    # silent accept: the path '{fold}/train.txt' was read with the braces as written
    ok(own_error(lambda: _load(_card(tmp_path, train="{fold}/train.txt")), "{fold}", "folds"))


def test_a_card_with_a_fold_listed_twice_is_refused(tmp_path: Path) -> None:
    extra = 'folds = ["Fold1", "Fold1"]'
    ok(own_error(lambda: _load(_card(tmp_path, extra=extra, train="{fold}/train.txt")),
                 "folds", "Fold1"))


@pytest.mark.parametrize("name", ["my:card", "My Card", ""], ids=["colon", "space", "empty"])
def test_a_card_name_a_dataset_spec_cannot_name_is_refused(tmp_path: Path, name: str) -> None:
    # silent accept: 'my:card' is read as the card 'my' with the option 'card'
    ok(own_error(lambda: _load(_card(tmp_path, name=name)), "name", repr(name)))


def test_a_card_kind_and_loader_that_contradict_are_refused(tmp_path: Path) -> None:
    # silent accept: kind "ratings" read by the LETOR loader
    ok(own_error(lambda: _load(_card(tmp_path, kind="ratings", loader="letor")),
                 "kind", "loader"))


def test_a_card_variant_that_renames_the_card_is_refused(tmp_path: Path) -> None:
    # silent accept: the variant's spec named another dataset
    extra = 'default_variant = "x"\n[variants.x]\nname = "other"'
    ok(own_error(lambda: _load(_card(tmp_path, extra=extra)), "variants.x", "name"))


def test_two_cards_claiming_one_folder_are_refused(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # silent accept: two catalogue names read the same MQ2008 folder
    from bench.datasets import catalogue

    src = catalogue.cards_dir()
    (tmp_path / "mq2008.toml").write_bytes((src / "mq2008.toml").read_bytes())
    copy = CARD.format(name="mq2008-mine", kind="letor", loader="letor", extra='dir = "MQ2008"',
                       train="train.txt")
    (tmp_path / "mq2008-mine.toml").write_text(copy)
    catalogue.load_catalogue.cache_clear()
    monkeypatch.setattr(catalogue, "cards_dir", lambda: tmp_path)
    try:
        ok(own_error(catalogue.load_catalogue, "mq2008", "mq2008-mine", "MQ2008"))
    finally:
        monkeypatch.undo()
        catalogue.load_catalogue.cache_clear()
