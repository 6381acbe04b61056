"""Query ids of Parquet shards that one Dask table type would wrap.

Dask reads a folder of shards as one table whose columns take one type. Integer query ids of
every width are one family (:func:`bench.data.query_shards.shard_columns`), and mixing them is
harmless -- except an unsigned 64-bit id above int64's maximum beside a shard of signed ids:
read as one type, ``2^63 + 5`` (uint64) and ``-2^63 + 5`` (int64) are one bit pattern, so two
queries became one (a false "query in two partitions", or two queries scored as one).
:func:`refuse_wrapped_ids` refuses that pair of shards, naming both, from the footers' row-group
statistics (no data read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.errors import DataError

INT64_MAX = 2**63 - 1


def beyond_int64(path: Path, column: str) -> bool:
    """Whether ``column`` of the Parquet file ``path`` may hold a value above int64's maximum
    (a row group without statistics counts as one that does)."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    j = meta.schema.to_arrow_schema().get_field_index(column)
    for g in range(meta.num_row_groups):
        st = meta.row_group(g).column(j).statistics
        if st is None or not st.has_min_max or int(st.max) > INT64_MAX:
            return True
    return False


def refuse_wrapped_ids(kinds: list[tuple[Path, Any]], column: str) -> None:
    """A :class:`~bench.errors.DataError` when ``kinds`` (each shard and the Arrow type of its
    ``column``) hold a signed integer shard and a ``uint64`` shard with an id above int64's
    maximum; names both shards."""
    import pyarrow as pa

    def value(kind: Any) -> Any:
        return kind.value_type if pa.types.is_dictionary(kind) else kind

    signed = next(((f, k) for f, k in kinds if pa.types.is_signed_integer(value(k))), None)
    if signed is None:
        return
    big = next(((f, k) for f, k in kinds
                if pa.types.is_uint64(value(k)) and beyond_int64(f, column)), None)
    if big is not None:
        raise DataError(f"column of type {big[1]} holds ids above 2^63-1, and {signed[0].name} "
                        f"holds them as {signed[1]}: Dask reads the shards as one type, in which "
                        "such ids wrap onto negative ones (two queries become one); write every "
                        f"shard's {column} with one type", path=big[0], column=column)


__all__ = ["INT64_MAX", "beyond_int64", "refuse_wrapped_ids"]
