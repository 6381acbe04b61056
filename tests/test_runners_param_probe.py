"""Raw library parameters (``[params.lightgbm]`` ...) are checked by the library itself on toy
data before any data is loaded: a refusal is one line naming the table, never a traceback after
the data is read (issue 19, config files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cli import main
from bench.errors import ConfigError
from bench.runners.param_probe import probe_library_params

BAD = [
    ("lightgbm", "min_data_in_bin = 0", "Check failed: (min_data_in_bin) > (0)"),
    ("lightgbm", 'data_sample_strategy = "nosuch"', "Unknown sample strategy nosuch"),
    ("xgboost", 'max_delta_step = "deep"', "Invalid Parameter format for max_delta_step"),
    ("xgboost", "nosuch_param = 3", "nosuch_param"),
    ("catboost", "nosuchparam = 3", "Unknown option {nosuchparam}"),
    ("catboost", 'sampling_unit = "Nosuch"', "Nosuch"),  # bootstrap_type: ltrbench's own
]
MODEL = {"lightgbm": "lightgbm-lambdarank", "xgboost": "xgboost-ndcg",
         "catboost": "catboost-yetirank"}


@pytest.mark.parametrize(("library", "line", "said"), BAD)
def test_a_raw_parameter_the_library_refuses_is_one_line_naming_the_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, library: str, line: str, said: str
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'dataset = "synthetic"\nmodels = ["{MODEL[library]}"]\nseeds = [0]\n'
                      f"quick = true\n[params.{library}]\n{line}\n")
    status = main(["run", "--config", str(config), "--no-progress", "--out",
                   str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2
    assert f"[params] {library}: {library} refuses these parameters" in err
    assert said in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()  # before any data or run folder


@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "catboost"])
def test_raw_parameters_the_library_takes_pass_the_probe(library: str) -> None:
    from bench.runners.params import Params, catboost_params, lightgbm_params, xgboost_params

    raw = {"lightgbm": {"max_bin": 63}, "xgboost": {"max_bin": 64},
           "catboost": {"border_count": 32}}[library]
    build = {"lightgbm": lightgbm_params, "xgboost": xgboost_params,
             "catboost": catboost_params}[library]
    objective = {"lightgbm": "lambdarank", "xgboost": "ndcg", "catboost": "yetirank"}[library]
    params = build(Params().with_overrides(**{library: raw}), objective)
    probe_library_params(library, params, where="[params] x")  # no error


def test_the_probe_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError):
        probe_library_params("lightgbm", {"objective": "lambdarank", "num_leaves": -5},
                             where="[params] lightgbm")
    out, err = capfd.readouterr()
    assert out == ""
    assert err == ""  # LightGBM's own '[Fatal]' line from C++ is silenced too
