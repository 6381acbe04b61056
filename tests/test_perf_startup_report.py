"""``ltrbench perf startup``: the busy-machine note and the heavy-import line of its report.

The arithmetic on given times is checked here (the timing itself is never tested); the import
probe runs the real ``python -m bench evaluate`` once, untimed.
"""

from __future__ import annotations

from pathlib import Path

from bench.perf.startup import HEAVY, heavy_imports, report

TIMES = {"ltrbench --help": [0.1, 0.1, 0.1], "ltrbench evaluate (TREC pair)": [0.3, 0.3, 0.3],
         "bare pytrec_eval script": [0.1, 0.1, 0.1]}


def test_a_loaded_machine_is_named_and_the_ratio_is_the_figure_to_compare() -> None:
    text = report(dict.fromkeys(TIMES, 1.0), TIMES,
                  ("9.72 10.03 9.38 12/204", "0.50 1.00 1.00 1/100"), heavy=[])
    assert "the machine was busy (1-minute load average up to 9.72 on" in text
    assert "compare the ratios, not the seconds" in text
    assert f"heavy libraries imported by evaluate: none (of {len(HEAVY)} checked)" in text


def test_a_quiet_machine_gets_no_note_and_imported_libraries_are_listed() -> None:
    text = report(dict.fromkeys(TIMES, 1.0), TIMES, ("0.00 0.00 0.00 1/90", "unknown"),
                  heavy=["numba", "pandas"])
    assert "busy" not in text
    assert "heavy libraries imported by evaluate: numba, pandas" in text
    assert "3.00x the bare script (target <= 4x: met)" in text


def test_the_import_probe_of_a_small_trec_pair_finds_no_heavy_library(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 t\n")
    assert heavy_imports(["evaluate", "--qrels", str(tmp_path / "q"), "--run",
                          str(tmp_path / "r")]) == []
    assert "pandas" in heavy_imports(["evaluate", "--qrels", str(tmp_path / "q"), "--run",
                                      str(tmp_path / "r"), "--per-query",
                                      str(tmp_path / "pq.csv")])
