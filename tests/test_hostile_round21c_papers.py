"""Round 21c, persona "papers": a researcher reproducing published learning-to-rank numbers.

The shipped experiment configs against the settings their comments claim (read from the
parameter dicts ltrbench hands the libraries, and from LightGBM's own parameter report), the
``published`` rows beside a run, and tiny stand-ins shaped like MSLR-WEB / Yahoo / LETOR files
against the dataset cards. Golden values: the configs' comments, the papers' counts (LETOR 3.0
OHSUMED parts counted by hand with awk), LightGBM's ``model_to_string`` parameter section.
Class of each case in its comment.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import lightgbm as lgb
import numpy as np
import pytest

from bench.benchmark.config import RunConfig
from bench.datasets.resolve import load_dataset
from bench.errors import LtrbenchError
from bench.report.published import PUBLISHED, published_beside_ours, published_key
from bench.runners.params import lightgbm_params, xgboost_params

CONFIGS = Path(__file__).resolve().parents[1] / "bench" / "benchmark" / "configs"
EXPERIMENTS = ["experiments_mslr30k.toml", "experiments_yahoo.toml"]


def _lgb(name: str, model: str = "lightgbm-lambdarank") -> tuple[RunConfig, dict[str, Any]]:
    cfg = RunConfig.load(CONFIGS / name)
    p = cfg.params_for(model, 0)
    return cfg, lightgbm_params(p, "lambdarank", eval_at=tuple(cfg.eval_at))


def _xgb(name: str, model: str = "xgboost-ndcg") -> tuple[RunConfig, dict[str, Any]]:
    cfg = RunConfig.load(CONFIGS / name)
    p = cfg.params_for(model, 0)
    return cfg, xgboost_params(p, "ndcg", eval_at=tuple(cfg.eval_at))


# -- the experiments configs give the libraries the page's settings (silently wrong number) ------

PAGE_LGB = {"learning_rate": 0.1, "num_leaves": 255, "min_data_in_leaf": 0,
            "min_sum_hessian_in_leaf": 100.0, "max_bin": 255, "eval_at": [1, 3, 5, 10],
            "objective": "lambdarank"}


@pytest.mark.parametrize("name", EXPERIMENTS)
@pytest.mark.parametrize("key", sorted(PAGE_LGB))
def test_experiments_config_gives_lightgbm_the_pages_setting(name: str, key: str) -> None:
    # silently wrong number: the comment's "Settings from the page" reach LightGBM as written
    _, lib = _lgb(name)
    assert lib[key] == PAGE_LGB[key]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiments_config_trains_the_pages_500_trees(name: str) -> None:
    # silently wrong number: num_trees=500 and every tree kept for selection (patience 500)
    cfg = RunConfig.load(CONFIGS / name)
    p = cfg.params_for("lightgbm-lambdarank", 0)
    assert (p.n_trees, p.early_stopping_rounds) == (500, 500)


def _lgb_report(params: dict[str, Any]) -> dict[str, str]:
    """LightGBM's own parameter report (the ``parameters:`` section of model_to_string)."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = rng.integers(0, 3, 40)
    ds = lgb.Dataset(X, y, group=[10, 10, 10, 10], params={"verbosity": -1})
    b = lgb.train({**params, "verbosity": -1, "num_threads": 1}, ds, num_boost_round=1)
    text = b.model_to_string().split("parameters:\n", 1)[1].split("end of parameters", 1)[0]
    out = {}
    for line in text.splitlines():
        if line.startswith("["):
            k, _, v = line[1:-1].partition(": ")
            out[k] = v
    return out


#: what ltrbench sets for its own bookkeeping, not the model (threads, seeds, logging, metric)
BOOKKEEPING = {"num_threads", "seed", "deterministic", "force_row_wise", "verbosity", "metric",
               "eval_at", "bagging_seed", "feature_fraction_seed", "drop_seed",
               "data_random_seed", "objective_seed", "extra_seed", "force_col_wise"}


def test_experiments_lightgbm_other_parameters_are_lightgbms_defaults() -> None:
    # silently wrong number: "other parameters default", read from LightGBM's own report
    _, lib = _lgb("experiments_mslr30k.toml")
    page = {"objective": "lambdarank", "learning_rate": 0.1, "num_leaves": 255,
            "min_data_in_leaf": 0, "min_sum_hessian_in_leaf": 100.0, "max_bin": 255}
    ours = _lgb_report(lib)
    theirs = _lgb_report(page)
    diff = {k: (ours.get(k), theirs.get(k)) for k in set(ours) | set(theirs)
            if k not in BOOKKEEPING | {"label_gain"} and ours.get(k) != theirs.get(k)}
    assert diff == {}
    # LightGBM reports its default label_gain as blank; the documented default is 2^i - 1,
    # i = 0..30 (Parameters.rst), which ltrbench's exp2 must spell out exactly
    assert theirs["label_gain"] == ""
    assert ours["label_gain"] == ",".join(str(2 ** i - 1) for i in range(31))


PAGE_XGB = {"eta": 0.1, "min_child_weight": 100.0, "tree_method": "hist",
            "grow_policy": "lossguide", "max_depth": 0, "max_leaves": 255,
            "objective": "rank:ndcg", "gamma": 1.0, "lambda": 1.0}


@pytest.mark.parametrize("name", EXPERIMENTS)
@pytest.mark.parametrize("key", sorted(PAGE_XGB))
def test_experiments_config_gives_xgboost_hist_the_pages_setting(name: str, key: str) -> None:
    # silently wrong number: xgboost_hist's settings (gamma from test_accuracy.sh, lambda default)
    _, lib = _xgb(name)
    assert lib[key] == PAGE_XGB[key]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiments_xgboost_keeps_xgboosts_default_max_bin(name: str) -> None:
    # silently wrong number: the comment credits max_bin=255 to the repo's *lightgbm*.conf; the
    # page's xgboost_hist sets no max_bin, so XGBoost's default (256) is what was published
    import json

    import xgboost as xgb

    d = xgb.DMatrix(np.arange(20.0).reshape(10, 2), label=np.arange(10) % 2)
    b = xgb.train({"tree_method": "hist", "nthread": 1}, d, 1)  # XGBoost's own report:
    default = json.loads(b.save_config())["learner"]["gradient_booster"]["tree_train_param"]
    _, lib = _xgb(name)
    assert lib["max_bin"] == int(default["max_bin"]) == 256


def test_lambdarank_example_config_matches_train_conf() -> None:
    # silently wrong number: examples/lambdarank/train.conf as its comment quotes it
    _, lib = _lgb("lightgbm_lambdarank.toml")
    want = {"num_leaves": 31, "learning_rate": 0.1, "bagging_fraction": 0.9, "bagging_freq": 1,
            "min_data_in_leaf": 50, "min_sum_hessian_in_leaf": 5.0, "max_bin": 255}
    assert {k: lib[k] for k in want} == want


# -- published rows beside a run (silently wrong number) ---------------------------------------

ROWS = [{"model": "lightgbm-lambdarank", "metrics": {"ndcg@10": {"mean": 0.5}}}]


def test_a_yahoo_set2_run_is_not_set_beside_set1s_published_rows() -> None:
    # silently wrong number: the page's Yahoo numbers are set1's; a set2 run is other data
    manifest = {"dataset": {"spec": "yahoo-ltr:set2",
                            "meta": {"card": "yahoo-ltr", "variant": "set2", "fold": None}}}
    assert published_beside_ours("lightgbm-experiments", published_key(manifest), ROWS) == []


def test_a_yahoo_set1_run_keeps_the_published_rows() -> None:
    # the counterpart: set1 (the card's default) is the page's data
    manifest = {"dataset": {"spec": "yahoo-ltr",
                            "meta": {"card": "yahoo-ltr", "variant": "set1", "fold": None}}}
    out = published_beside_ours("lightgbm-experiments", published_key(manifest), ROWS)
    assert [r["row"] for r in out][:1] == ["LightGBM"]
    assert out[0]["metrics"]["ndcg@10"] == {"published": 0.793498, "ours": 0.5}


def test_published_rows_sum_to_the_pages_table() -> None:
    # silently wrong number: the page's MSLR LightGBM row, copied digit for digit
    row = PUBLISHED["lightgbm-experiments"]["results"]["mslr-web30k"]["LightGBM"]
    assert [row[f"ndcg@{k}"] for k in (1, 3, 5, 10)] == [0.517767, 0.501063, 0.504648, 0.524252]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One --quick run of the random baseline on a 9-query MSLR-WEB30K stand-in, published rows on."""
    from bench.benchmark import api

    root = tmp_path_factory.mktemp("papers")
    for n, s in (("train", 1), ("vali", 10), ("test", 20)):
        p = root / "MSLR-WEB30K" / "Fold1" / f"{n}.txt"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(
            f"{(q + d) % 5} qid:{s + q} " + " ".join(f"{j}:{(q * d + j * s) % 7 / 7:.3f}"
                                                     for j in range(1, 137)) + "\n"
            for q in range(3) for d in range(4)))
    old = os.environ.get("LTRBENCH_DATA_DIR")
    os.environ["LTRBENCH_DATA_DIR"] = str(root)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the stand-in's repeated rows are warned: not ours
            return api.run("mslr-web30k:Fold1", models=["random"], seeds=[0], quick=True,
                           published="lightgbm-experiments", out_dir=root / "out",
                           crosscheck=False)
    finally:
        if old is None:
            os.environ.pop("LTRBENCH_DATA_DIR", None)
        else:
            os.environ["LTRBENCH_DATA_DIR"] = old


def _table(run: Any, split: str = "test") -> dict[str, Any]:
    from bench.report.build import LeaderboardOptions, build_table
    from bench.runs.reader import RunDir

    return build_table(RunDir(run.run_dir), "mslr-web30k",
                       options=LeaderboardOptions(split=split))


def test_a_quick_run_is_not_set_beside_the_pages_500_tree_numbers(quick_run: Any) -> None:
    # silently wrong number: --quick caps n_trees at 20 and num_leaves at 15; the page trained
    # 500 trees of 255 leaves: rows beside it compare another model, and no word said so
    table = _table(quick_run)
    assert table["published"] == []
    assert any("quick" in n and "published" in n for n in table["notes"])


def test_published_test_numbers_are_not_set_beside_validation_numbers(quick_run: Any) -> None:
    # silently wrong number: the page's numbers are test-split numbers
    assert _table(quick_run, "vali")["published"] == []


# -- stand-ins shaped like the real files against the cards (silent accept / unclear error) ------

def _mslr_lines(nq: int, start: int, nf: int = 136) -> str:
    return "".join(f"{(q + d) % 5} qid:{start + q} "
                   + " ".join(f"{j}:{(q * d + j) % 7 / 7:.3f}" for j in range(1, nf + 1)) + "\n"
                   for q in range(nq) for d in range(4))


def _card_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sub: str,
              files: dict[str, str]) -> None:
    for name, text in files.items():
        p = tmp_path / sub / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(tmp_path))


def _mslr(nf: int = 136, **over: str) -> dict[str, str]:
    files = {f"Fold1/{n}.txt": _mslr_lines(3, s, nf) for n, s in
             (("train", 1), ("vali", 10), ("test", 20))}
    files.update({f"Fold1/{k}.txt": v for k, v in over.items()})
    return files


def test_an_mslr_stand_in_loads_with_the_cards_136_features(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # the counterpart of the refusals below: dense 136-feature lines, labels 0-4
    _card_dir(tmp_path, monkeypatch, "MSLR-WEB30K", _mslr())
    s = load_dataset("mslr-web30k:Fold1")
    assert (s.train.X.shape, s.test.X.shape, s.meta["fold"]) == ((12, 136), (12, 136), "Fold1")


def test_46_feature_files_in_the_mslr_folder_are_refused(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # silent accept: LETOR 4.0 (46 features) files unpacked into MSLR-WEB30K/ loaded as MSLR
    # with 46 columns; every MSLR-WEB line holds all 136 features
    _card_dir(tmp_path, monkeypatch, "MSLR-WEB30K", _mslr(nf=46))
    with pytest.raises(LtrbenchError) as e:
        load_dataset("mslr-web30k:Fold1")
    assert "136" in str(e.value)
    assert "train.txt" in str(e.value)


def test_feature_137_in_an_mslr_file_names_file_line_and_card(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # unclear error: the card's width is said with the file and line
    _card_dir(tmp_path, monkeypatch, "MSLR-WEB30K", _mslr(test=_mslr_lines(2, 20, 137)))
    with pytest.raises(LtrbenchError, match=r"test\.txt:1.*137.*136"):
        load_dataset("mslr-web30k:Fold1")


def test_label_5_in_an_mslr_file_names_the_cards_range(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # silent accept: labels 0-4 per the card
    _card_dir(tmp_path, monkeypatch, "MSLR-WEB30K",
              _mslr(vali="5 qid:10 " + " ".join(f"{j}:0" for j in range(1, 137)) + "\n"))
    with pytest.raises(LtrbenchError, match=r"vali\.txt:1.*label 5.*0\.\.4"):
        load_dataset("mslr-web30k:Fold1")


def test_letor4_docid_comments_do_not_reach_the_features(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # silently wrong number: '#docid = GX008-86-4444840 inc = 1 prob = 0.086622' is a comment
    line = "{} qid:{} " + " ".join(f"{j}:0.5" for j in range(1, 137)) + \
        " #docid = GX008-86-4444840 inc = 1 prob = 0.086622\n"
    text = "".join(line.format(d % 3, 30) for d in range(3))
    _card_dir(tmp_path, monkeypatch, "MSLR-WEB30K", _mslr(test=text))
    s = load_dataset("mslr-web30k:Fold1")
    assert s.test.X.shape == (3, 136)
    assert float(np.asarray(s.test.X).sum()) == pytest.approx(204.0)


def test_yahoo_set2_file_names_resolve_to_set2(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # silently wrong number: yahoo-ltr:set2 reads set2.*.txt (sparse lines up to feature 700)
    files = {f"set2.{n}.txt": f"1 qid:{i * 10 + 1} 3:0.5 700:1\n0 qid:{i * 10 + 1} 10:0.1\n"
             for i, n in enumerate(("train", "valid", "test"))}
    files["set1.train.txt"] = "garbage\n"
    _card_dir(tmp_path, monkeypatch, "yahoo-ltr", files)
    s = load_dataset("yahoo-ltr:set2")
    assert (s.meta["variant"], s.train.X.shape[1], float(np.asarray(s.train.X)[0, 699])) == \
        ("set2", 700, 1.0)


def test_yahoo_feature_701_is_refused_naming_the_card(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # silent accept: the card says up to 700 features
    files = {f"set1.{n}.txt": f"1 qid:{i * 10 + 1} 701:1\n0 qid:{i * 10 + 1} 1:1\n"
             for i, n in enumerate(("train", "valid", "test"))}
    _card_dir(tmp_path, monkeypatch, "yahoo-ltr", files)
    with pytest.raises(LtrbenchError, match=r"set1\.train\.txt:1.*701"):
        load_dataset("yahoo-ltr")


# -- the OHSUMED config's and card's claimed shapes against the real files ---------------------

OHSUMED = Path("/work/shared/data/letor3-OHSUMED-QueryLevelNorm")


@pytest.mark.skipif(not OHSUMED.is_dir(), reason="LETOR 3.0 OHSUMED not in shared data")
def test_ohsumed_fold1_has_the_configs_63_21_22_queries_and_45_features(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # silently wrong number: the config comment's "63 / 21 / 22 queries, 45 features, labels
    # 0-2" and the card's 9,219 / 3,538 / 3,383 rows (counted with awk / wc -l)
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(OHSUMED.parent))
    s = load_dataset("ohsumed:Fold1")
    got = [(len(np.unique(d.qid)), d.X.shape[0], d.X.shape[1], int(np.max(d.y)))
           for d in (s.train, s.vali, s.test)]
    assert got == [(63, 9219, 45, 2), (21, 3538, 45, 2), (22, 3383, 45, 2)]


#: LETOR's rotation: FoldK tests on part S((K+3) mod 5 + 1): Fold1 S5, Fold2 S1 ... Fold5 S4;
#: the parts' qids as counted with awk in the real files (S1 1-21 ... S5 85-106)
ROTATION = {1: (64, 84, 85, 106), 2: (85, 106, 1, 21), 3: (1, 21, 22, 42), 4: (22, 42, 43, 63),
            5: (43, 63, 64, 84)}


@pytest.mark.skipif(not OHSUMED.is_dir(), reason="LETOR 3.0 OHSUMED not in shared data")
@pytest.mark.parametrize("fold", sorted(ROTATION))
def test_ohsumed_folds_follow_the_letor_rotation(fold: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # silently wrong number: FoldK's vali and test are the published parts, not a reshuffle
    monkeypatch.setenv("LTRBENCH_DATA_DIR", str(OHSUMED.parent))
    s = load_dataset(f"ohsumed:Fold{fold}")
    got = (int(np.min(s.vali.qid)), int(np.max(s.vali.qid)), int(np.min(s.test.qid)),
           int(np.max(s.test.qid)))
    assert got == ROTATION[fold]
    assert len(np.unique(s.train.qid)) + len(np.unique(s.vali.qid)) + \
        len(np.unique(s.test.qid)) == 106


# -- a run that shows no published row says why (silent accept) --------------------------------

@pytest.mark.parametrize(("key", "said"), [
    ("mslr-web30k:Fold2", "Fold1"), ("yahoo-ltr:set2", "set1"), ("ohsumed:Fold1", "ohsumed"),
    ("", "no catalogue dataset")])
def test_a_table_without_the_configs_published_rows_says_why(key: str, said: str) -> None:
    # silent accept: `published = "lightgbm-experiments"` in the config, and the report of a
    # Fold2 / set2 / OHSUMED / stand-in run showed nothing and said nothing
    from bench.report.published import published_for_run

    rows, notes = published_for_run("lightgbm-experiments", key, ROWS, quick=False, split="test")
    assert rows == []
    assert len(notes) == 1
    assert "lightgbm-experiments" in notes[0]
    assert said in notes[0]


def test_a_published_metric_the_run_lacks_is_blank_not_zero() -> None:
    # silently wrong number: ltr-baseline publishes ndcg@20; a run without it shows no "ours"
    manifest = {"dataset": {"spec": "mslr-web10k", "meta": {"card": "mslr-web10k",
                                                            "fold": "Fold1-5 pooled"}}}
    key = published_key(manifest)
    out = published_beside_ours("ltr-baseline", "mslr-web10k:Fold1-5 pooled", ROWS)
    assert key.startswith("mslr-web10k")
    assert out[0]["metrics"]["ndcg@20"] == {"published": 0.5225, "ours": None}
    assert out[0]["metrics"]["ndcg@10"] == {"published": 0.4913, "ours": 0.5}
