"""Review 11 (r3): hostile cases for surfaces of rounds 11/11b that lacked their own.

* ``bench/jit_cache.py``: the import hook around every command loads nothing heavy itself,
  leaves ``sys.meta_path`` as it found it, and is harmless when numba cannot be imported;
* the input door (``bench/commands/text.py``): a JSON array longer than the 64 KiB the door
  reads is still said to be JSON (the head, cut, does not parse), while a TOML table header
  that is no JSON stays TOML;
* ``bench/runs/layout.py`` ``_check_done_rows``: the blank-query variants' rows are left out of
  the per-pair row counts, and a pair missing rows of a plain profile is still refused;
* ``Reconciliation.default_per_query`` (what the recorded-values cross-check reads): the default
  profile's per-query values, as a separate evaluation gives them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


# --------------------------------------------------------------------------- bench/jit_cache.py

def test_the_cache_hook_imports_no_module_of_importlib_abc_nor_tempfile(tmp_path: Path) -> None:
    """Entered around every command (``bench.cli``): ``importlib.abc`` imported ``tempfile``,
    ``shutil``, ``random`` and ``importlib.resources`` before any command ran."""
    p = _python("import sys\nfrom bench.jit_cache import saves_best_effort\n"
                "with saves_best_effort():\n    pass\n"
                "print([m for m in ('importlib.abc', 'tempfile', 'importlib.resources', 'numba')"
                " if m in sys.modules])\n", tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


def test_the_cache_hook_leaves_the_import_system_as_it_found_it(tmp_path: Path) -> None:
    """Other imports in the block are the other finders' own; after the block the hook is gone,
    even when the block raised, and a block inside a block removes only its own hook."""
    code = (
        "import sys\n"
        "from bench.jit_cache import saves_best_effort\n"
        "before = list(sys.meta_path)\n"
        "try:\n"
        "    with saves_best_effort():\n"
        "        with saves_best_effort():\n"
        "            import json, decimal\n"
        "            inner = len(sys.meta_path)\n"
        "        raise KeyError('boom')\n"
        "except KeyError:\n"
        "    pass\n"
        "print(sys.meta_path == before, inner - len(before), decimal.Decimal('1.5') * 2)\n"
    )
    p = _python(code, tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "2", "3.0"]


def test_without_numba_the_cache_hook_changes_nothing(tmp_path: Path) -> None:
    """numba absent (an import of it fails): the block's ImportError is the import's own, and
    the hook is gone after it."""
    code = (
        "import sys\n"
        "sys.modules['numba'] = None  # as if not installed: 'import numba' raises\n"
        "from bench.jit_cache import saves_best_effort\n"
        "before = list(sys.meta_path)\n"
        "try:\n"
        "    with saves_best_effort():\n"
        "        import numba.core.caching\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, 'numba' in str(exc))\n"
        "print(sys.meta_path == before)\n"
    )
    p = _python(code, tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["ModuleNotFoundError", "True", "True"]


def test_numba_loaded_in_the_block_is_patched_by_the_hook(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    code = (
        "from bench.jit_cache import saves_best_effort\n"
        "with saves_best_effort():\n"
        "    import numba\n"
        "    from numba.core import caching\n"
        "print(getattr(caching.Cache.save_overload, '_best_effort', False))\n"
    )
    p = _python(code, tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "True"


# ------------------------------------------------------------------ the input door: JSON heads

QRELS = "1 0 a 1\n1 0 b 0\n"
RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n"


def test_a_json_array_longer_than_the_doors_read_is_refused_as_json(tmp_path: Path) -> None:
    rows = [{"qid": i, "docno": f"d{i}", "rel": i % 3, "note": "x" * 40} for i in range(2000)]
    big = tmp_path / "qrels.json"
    big.write_text(json.dumps(rows, indent=2))
    assert big.stat().st_size > 65536  # beyond what the door reads: its head does not parse
    (tmp_path / "r.txt").write_text(RUN)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "bench", "evaluate", "--qrels", str(big), "--run",
                        "r.txt"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=300, check=False)
    assert p.returncode == 2, p.stderr
    assert "looks like a JSON document" in p.stderr, p.stderr


@pytest.mark.parametrize(("text", "kind"), [
    ('[custom_models."a/b"]\nmodule = "m.py"\n', "toml"),
    ("[run]\nseeds = [0, 1]\n", "toml"),
    ("[1, 2, 3]\n", "json"),
    ('[\n  {"a": 1}\n]\n', "json"),
])
def test_a_first_line_starting_with_a_bracket_is_json_or_toml_by_what_it_is(
        tmp_path: Path, text: str, kind: str) -> None:
    from bench.commands.text import looks_like

    path = tmp_path / "f"
    path.write_text(text)
    assert looks_like(path) == kind


# ------------------------------------------------------- runs/layout.py: the done-rows check

def _rows(pairs: dict[tuple[str, int], list[str]]) -> pd.DataFrame:
    out = [{"model": m, "seed": s, "profile": prof, "value": 0.5}
           for (m, s), profiles in pairs.items() for prof in profiles]
    return pd.DataFrame(out)


def _done(*pairs: tuple[str, int]) -> dict[str, dict[str, object]]:
    from bench.runs.layout import status_key

    return {status_key(m, s): {"model": m, "seed": s, "status": "done"} for m, s in pairs}


def test_blank_variant_rows_are_not_counted_as_a_pairs_rows(tmp_path: Path) -> None:
    from bench.runs.layout import _check_done_rows

    frame = _rows({("a", 0): ["ltrbench", "ltrbench-blank0", "ltrbench-blank1"],
                   ("b", 0): ["ltrbench"]})
    _check_done_rows(tmp_path / "metrics.csv", frame, _done(("a", 0), ("b", 0)))


def test_a_pair_short_of_plain_profile_rows_is_refused(tmp_path: Path) -> None:
    from bench.errors import DataError
    from bench.runs.layout import _check_done_rows

    frame = _rows({("a", 0): ["ltrbench", "trec_eval", "ltrbench-blank0"],
                   ("b", 0): ["ltrbench", "ltrbench-blank0", "ltrbench-blank1"]})
    with pytest.raises(DataError, match=r"1 row\(s\) for pair b-seed0 where pair a-seed0 has 2"):
        _check_done_rows(tmp_path / "metrics.csv", frame, _done(("a", 0), ("b", 0)))


def test_a_pair_with_only_blank_variant_rows_has_no_rows(tmp_path: Path) -> None:
    from bench.errors import DataError
    from bench.runs.layout import _check_done_rows

    frame = _rows({("a", 0): ["ltrbench"], ("b", 0): ["ltrbench-blank0"]})
    with pytest.raises(DataError, match="no rows of model 'b', seed 0"):
        _check_done_rows(tmp_path / "metrics.csv", frame, _done(("a", 0), ("b", 0)))


# ------------------------------------------------ metrics/reconcile.py: default per-query values

def test_the_reconciliation_carries_the_default_profiles_per_query_values() -> None:
    from bench.metrics.reconcile import mean_defined, per_query_values, reconcile

    rng = np.random.default_rng(3)
    sizes = np.array([4, 1, 6, 3])
    labels = rng.integers(0, 3, sizes.sum())
    labels[4] = 0  # a query without a relevant document: blank under some profiles
    scores = rng.random(sizes.sum()).round(1)  # ties
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    rec = reconcile(labels, scores, offsets, library_profile="lightgbm",
                    default_profile="ltrbench", metric="ndcg@3")
    want, _ = per_query_values(labels, scores, offsets, metric="ndcg@3", profile="ltrbench")
    assert rec.default_per_query is not None
    np.testing.assert_array_equal(rec.default_per_query, want)
    assert rec.default_value == mean_defined(want)
