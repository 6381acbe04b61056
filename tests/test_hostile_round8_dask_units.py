"""Round 8: seconds beside milliseconds in one timestamp column, read by the Dask ratings reader.

The local readers refuse such a column (``bench.data.ratings.refuse_mixed_units``): a temporal
split would put every millisecond rating after every other one. Before, the Dask reader's
partitions (``convert --engine dask``) took it, although its docstring promised the local rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.errors import DataError


def _ratings(folder: Path, stamps: list[int]) -> None:
    folder.mkdir()
    (folder / "r1.csv").write_text("user,item,rating,timestamp\n" + "".join(
        f"{1 + k % 3},{k},{1 + k % 5},{t}\n" for k, t in enumerate(stamps)), encoding="utf-8")


def test_a_shard_with_seconds_and_milliseconds_is_refused_naming_the_file_and_values(
        tmp_path: Path) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    folder = tmp_path / "ratings"
    _ratings(folder, [978300760, 978300761, 978300760000, 978300762])
    frame = read_ratings_frame(folder)
    with pytest.raises(DataError) as caught:
        frame.frame.compute(scheduler="synchronous")
    text = str(caught.value)
    assert "r1.csv" in text
    assert "978300760000" in text
    assert "milliseconds beside seconds" in text
    assert "978300760 (in the same file)" in text  # a CSV partition's rows are not numbered


def test_a_shard_in_one_unit_reads_as_written(tmp_path: Path) -> None:
    from bench.data.dask_ratings import read_ratings_frame

    folder = tmp_path / "ratings"
    _ratings(folder, [978300760000, 978300761000, 978300762000])
    got = read_ratings_frame(folder).frame.compute(scheduler="synchronous")
    assert sorted(got["timestamp"].tolist()) == [978300760000, 978300761000, 978300762000]
