"""Round 8: what ``bench.metrics.evaluate`` says when its first argument is not rows of
documents, and errors whose path holds a line end.

Before: a ranx ``Qrels``/``Run`` pair reached numba and ended in its ``TypingError`` (a
traceback); a dict of dicts was "row 1: labels must be plain numbers"; a NumPy structured array,
a pyarrow Table or a dict of columns without scores was "label=/score= name columns of a
DataFrame" although no ``label=``/``score=`` was given; a path with a line end printed the error
on two lines.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from bench.errors import ConfigError, DataError
from bench.metrics import evaluate

QRELS = {"q1": {"d1": 1, "d2": 0}}
RUN = {"q1": {"d1": 0.5, "d2": 0.2}}


@pytest.mark.parametrize("args", [(QRELS,), (QRELS, RUN)], ids=["qrels", "qrels+run"])
def test_dicts_of_qrels_and_runs_are_pointed_to_evaluate_trec(args: tuple[object, ...]) -> None:
    with pytest.raises(ConfigError, match=r"evaluate_trec\(qrels, run"):
        evaluate(*args, metrics="ndcg@2")


@pytest.mark.parametrize("with_run", [False, True], ids=["Qrels", "Qrels+Run"])
def test_ranx_objects_are_pointed_to_evaluate_trec_not_a_numba_traceback(with_run: bool) -> None:
    ranx = pytest.importorskip("ranx")
    args = (ranx.Qrels(QRELS), ranx.Run(RUN)) if with_run else (ranx.Qrels(QRELS),)
    with pytest.raises(ConfigError, match=r"ranx Qrels/Run.*evaluate_trec"):
        evaluate(*args, metrics="ndcg@2")


def _tables() -> list[tuple[str, object, str]]:
    columns = {"qid": [1, 1], "label": [1, 0], "score": [0.5, 0.2]}
    rows = np.zeros(2, dtype=[("qid", "i4"), ("label", "f8"), ("score", "f8")]).reshape(1, 2)
    return [("2-D structured", rows, r"shape \(1, 2\).*array\.ravel\(\)"),
            ("dict of columns", columns, r"pandas\.DataFrame\(columns\)")]


def test_a_table_that_is_not_a_dataframe_says_how_to_wrap_it() -> None:
    for name, table, how in _tables():
        with pytest.raises(ConfigError) as caught:
            evaluate(table, metrics="ndcg@2")
        text = str(caught.value)
        assert "label=/score=" not in text, name  # none was given
        assert re.search(how, text), (name, text)


def test_a_pyarrow_table_and_a_structured_array_are_read_as_their_dataframe() -> None:
    # Round 17: read as the frame they hold (were refused with "table.to_pandas()" /
    # "pandas.DataFrame(array)"), as ratings, qrels and runs read them.
    pa = pytest.importorskip("pyarrow")
    columns = {"qid": [1, 1], "label": [1, 0], "score": [0.2, 0.5]}
    rows = np.array([(1, 1.0, 0.2), (1, 0.0, 0.5)],
                    dtype=[("qid", "i4"), ("label", "f8"), ("score", "f8")])
    want = 1 / np.log2(3)  # the relevant one at rank 2
    for table in (pa.table(columns), rows):
        assert evaluate(table, metrics="ndcg@2")["ndcg@2"] == pytest.approx(want, abs=1e-15)


def test_a_dict_of_columns_beside_scores_is_refused_naming_the_dict() -> None:
    with pytest.raises(ConfigError, match=r"was given a dict: .*DataFrame"):
        evaluate({"qid": [1, 1], "label": [1, 0]}, [0.5, 0.2], metrics="ndcg@2")


def test_label_and_score_names_beside_arrays_name_what_labels_is() -> None:
    with pytest.raises(ConfigError, match="labels is a list"):
        evaluate([1, 0], [0.5, 0.2], group=[2], label="rel", metrics="ndcg@2")


def test_arrays_still_evaluate() -> None:  # the guard leaves the array path as it was
    got = evaluate([1, 0], [0.2, 0.5], group=[2], metrics="ndcg@2").metrics["ndcg@2"]
    assert got == pytest.approx(1 / np.log2(3), abs=1e-15)  # the relevant one at rank 2


@pytest.mark.parametrize("path", ["a\nb.txt", "a\rb.txt", "tab\there\x1b[2J.txt"])
def test_an_error_whose_path_holds_a_control_character_is_one_line(path: str) -> None:
    text = str(DataError("bad value", path=path, line=3))
    assert text.isprintable(), text
    assert text.endswith(":3: bad value")
    assert repr(path)[1:-1] in text  # shown escaped, so the user still sees which file


@pytest.mark.parametrize(("key", "shown"), [("", "key '';"), (" seeds", "key ' seeds';"),
                                            ("a\tb", r"key 'a\tb';")])
def test_an_unknown_config_key_that_would_not_show_is_quoted(key: str, shown: str) -> None:
    from bench.benchmark import run

    with pytest.raises(ConfigError) as caught:
        run(**{key: 1})
    assert f"unknown config {shown}" in str(caught.value)  # was "unknown config key ; valid"
