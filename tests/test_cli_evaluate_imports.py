"""``python -m bench evaluate --qrels Q --run R`` on a small pair imports no heavy library.

The plain TREC-files path reads both files, joins them and evaluates in NumPy (the compiled
kernel's arithmetic interpreted below :data:`bench.metrics.kernels.small.SMALL_INPUT_ROWS`
rows): numba, pandas (and pyarrow through it), SciPy, scikit-learn, Dask, the GBDT libraries
and rich's progress bars are imported only where they are used. Each case runs the real entry
point (``python -m bench``) in a fresh interpreter and reads ``sys.modules`` at exit. Timing is
``ltrbench perf startup``'s job, never a test's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NEVER = ("numba", "pandas", "pyarrow", "scipy", "sklearn", "dask", "distributed", "lightgbm",
         "xgboost", "catboost", "rich.progress")
QRELS = "1 0 a 1\n1 0 b 0\n1 0 z 2\n2 0 c 2\n2 0 d -1\n3 0 e 0\n"
RUN = ("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 y 3 1.0 t\n2 Q0 c 1 1.0 t\n2 Q0 d 2 0.5 t\n"
       "3 Q0 e 1 0.25 t\n")


def _loaded_by(argv: list[str]) -> tuple[list[str], str]:
    """The modules of :data:`NEVER` loaded by ``python -m bench ARGV`` (read at exit), and its
    output."""
    probe = (
        "import atexit, json, runpy, sys\n"
        f"NEVER = {NEVER!r}\n"
        "atexit.register(lambda: sys.__stderr__.write('LOADED ' + json.dumps("
        "[m for m in NEVER if m in sys.modules]) + '\\n'))\n"
        f"sys.argv = ['bench', *{argv!r}]\n"
        "runpy.run_module('bench', run_name='__main__', alter_sys=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                          text=True, check=False, env={"PYTHONPATH": str(REPO),
                                                       "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("LOADED "))
    loaded: list[str] = json.loads(line.removeprefix("LOADED "))
    return loaded, done.stdout


@pytest.mark.parametrize("extra", [[], ["--format", "json"], ["--format", "csv"],
                                   ["--metrics", "ndcg@3,P@2,bpref"], ["--profile", "ltrbench"]])
def test_evaluate_of_a_small_trec_pair_imports_no_heavy_library(tmp_path: Path,
                                                                extra: list[str]) -> None:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    loaded, out = _loaded_by(["evaluate", "--qrels", str(tmp_path / "q.txt"), "--run",
                              str(tmp_path / "r.txt"), *extra])
    assert loaded == []
    assert "ndcg" in out.lower()


def test_a_per_query_table_imports_pandas_and_nothing_else_heavy(tmp_path: Path) -> None:
    """The per-query table is a DataFrame: pandas (and pyarrow, which pandas loads) come in,
    the SVMlight reader (scikit-learn, numba, rich's progress) does not (no ``--data``). The
    probe is not blind: it does see pandas."""
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    loaded, _ = _loaded_by(["evaluate", "--qrels", str(tmp_path / "q.txt"), "--run",
                            str(tmp_path / "r.txt"), "--per-query", str(tmp_path / "pq.csv")])
    assert "pandas" in loaded
    assert set(loaded) <= {"pandas", "pyarrow"}
