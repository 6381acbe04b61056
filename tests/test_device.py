"""``--device``: the mapping to each library, the config rules, and the checks that make a
missing GPU or a CPU-only build an error before any data -- never a silent CPU run."""

from __future__ import annotations

import pytest

from bench import cli
from bench.benchmark.config import RunConfig
from bench.errors import ConfigError
from bench.runners import device as dev
from bench.runners.params import Params, lightgbm_params, xgboost_params


def test_cuda_maps_to_each_librarys_own_device_parameter() -> None:
    cpu, gpu = Params(), Params(device="cuda")
    assert "device_type" not in lightgbm_params(cpu, "lambdarank")
    assert lightgbm_params(cpu, "lambdarank")["force_row_wise"] is True
    lg = lightgbm_params(gpu, "lambdarank")
    assert lg["device_type"] == "cuda"
    assert "force_row_wise" not in lg  # a CPU histogram layout
    assert "device" not in xgboost_params(cpu, "ndcg")
    assert xgboost_params(gpu, "ndcg")["device"] == "cuda"
    with pytest.raises(ConfigError, match="device: expected one of 'cpu', 'cuda'; got 'tpu'"):
        Params(device="tpu")


def test_the_default_device_keeps_every_earlier_config_hash() -> None:
    base = RunConfig(dataset="synthetic")
    assert base.config_hash() == RunConfig(dataset="synthetic", device="cpu").config_hash()
    assert "device" not in RunConfig.from_dict({"dataset": "synthetic"}).to_dict()["params"]
    assert RunConfig(dataset="synthetic", device="cuda").config_hash() != base.config_hash()
    assert RunConfig(dataset="synthetic", device="cuda").params_for("lightgbm-lambdarank",
                                                                    0).device == "cuda"


def test_the_device_has_one_place_in_a_config_and_not_on_dask() -> None:
    with pytest.raises(ConfigError, match="set once, at the top"):
        RunConfig.from_dict({"dataset": "synthetic", "params": {"device": "cuda"}})
    with pytest.raises(ConfigError, match="Dask workers"):
        RunConfig(dataset="synthetic", device="cuda", engine="dask")
    with pytest.raises(ConfigError, match="device: expected one of 'cpu', 'cuda'; got 'gpu'"):
        RunConfig(dataset="synthetic", device="gpu")


def test_no_visible_gpu_is_an_error_before_any_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dev, "visible_gpus", lambda: [])
    with pytest.raises(ConfigError, match="no NVIDIA GPU is visible"):
        dev.check_device("cuda", {"xgboost"})
    dev.check_device("cuda", set())  # baselines only: nothing to put on a GPU
    dev.check_device("cpu", {"xgboost", "lightgbm"})


def test_a_cpu_only_build_is_an_error_naming_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a GPU visible (faked), the installed builds are probed for real: the pip LightGBM
    and xgboost-cpu have no CUDA."""
    monkeypatch.setattr(dev, "visible_gpus", lambda: ["NVIDIA Fake"])
    cpu_only = [lib for lib in ("lightgbm", "xgboost") if not dev.cuda_build(lib)]
    if not cpu_only:
        pytest.skip("both installed libraries have CUDA here")
    words = {"lightgbm": r"lightgbm cannot train on 'cuda'.*USE_CUDA=ON",
             "xgboost": r"xgboost cannot train on 'cuda'.*xgboost-cpu"}
    for lib in cpu_only:
        with pytest.raises(ConfigError, match=words[lib]):
            dev.check_device("cuda", {lib})


@pytest.mark.skipif(bool(dev.visible_gpus()), reason="a GPU is visible here")
@pytest.mark.parametrize("argv", [["run", "--device", "cuda", "--quick", "--no-progress"],
                                  ["perf", "gpu", "--rows", "1000"]])
def test_asking_for_cuda_without_a_gpu_exits_2_with_the_reason(
        argv: list[str], tmp_path, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: device 'cuda' asked for, but no NVIDIA GPU is visible")
    assert not (tmp_path / "results").exists()  # stopped before anything was written
