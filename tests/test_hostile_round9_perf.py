"""Round 9 of the hostile catalogue (issue 19), ``ltrbench perf``: named inputs (a dataset, a
config, a memory size, feature groups) are read when the command starts, before anything is
generated, loaded or timed.

Before: ``perf scale --dataset nosuch`` (or ``ohsumed``, not a generated shape, or
``synthetic-mslr30k:0``) printed the child process's traceback; ``perf scale --config nosuch``
generated and loaded the dataset (minutes at full size), then the run failed with exit 1;
``perf dask-convert --memory-limit 1XB`` and ``--features user,nosuch`` first generated 50
million ratings.
"""

from __future__ import annotations

import pytest
from test_hostile_perf_options import no_benchmark  # noqa: F401 (the fixture: no benchmark starts)

from bench import cli

#: (argv after ``perf``, words of the one-line error, class before)
CASES = [
    (["scale", "--dataset", "nosuch"], ("unknown dataset 'nosuch'", "synthetic-mslr30k"),
     "traceback"),
    (["scale", "--dataset", "ohsumed"], ("'ohsumed'", "not a generated LETOR shape"),
     "traceback"),
    (["scale", "--dataset", "synthetic-mslr30k:0"], ("synthetic-mslr30k:0", "0 < SCALE"),
     "traceback"),
    (["scale", "--dataset", "synthetic-mslr30k:seed=-1"], ("seed",), "traceback"),
    (["scale", "--config", "nosuch"], ("no config file 'nosuch'", "experiments-mslr30k"),
     "unclear error after minutes"),
    (["scale", "--config", "/etc/passwd"], ("/etc/passwd", "TOML"),
     "unclear error after minutes"),
    (["dask-convert", "--memory-limit", "1XB"], ("--memory-limit '1XB'", "2GB"),
     "unclear error after minutes"),
    (["dask-convert", "--features", "user,nosuch"], ("nosuch", "valid groups"),
     "unclear error after minutes"),
    (["dask-convert", "--features", "user,als"], ("als", "--engine dask"),
     "unclear error after minutes"),
]


@pytest.mark.parametrize(("argv", "words", "klass"), CASES,
                         ids=[" ".join(c[0]) for c in CASES])
@pytest.mark.usefixtures("no_benchmark")
def test_a_bad_named_perf_input_is_one_clear_line_before_any_work(
        capsys: pytest.CaptureFixture[str], argv: list[str],
        words: tuple[str, ...], klass: str) -> None:
    status = cli.main(["perf", *argv])
    err = capsys.readouterr().err
    assert status == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.mark.usefixtures("no_benchmark")
def test_the_default_scale_inputs_pass_the_door() -> None:
    """The defaults (synthetic-mslr30k, experiments-mslr30k) are read and the benchmark starts."""
    with pytest.raises(AssertionError, match="the benchmark started"):
        cli.main(["perf", "scale"])

