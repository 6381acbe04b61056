"""``convert_distributed``: the ratings -> LETOR adapter on a Dask cluster, for ratings that do
not fit one process; the same numbers as :func:`~bench.adapters.pipeline.ratings_to_letor`.

The ratings (:class:`~bench.data.dask_ratings.RatingsFrame`) never meet in one process. Steps:

1. **Ids.** The distinct users (with their rating counts) and items: two small reductions. Codes
   are the ranks of the ids, as in :func:`~bench.adapters.table.dense_codes`.
2. **User blocks.** A shuffle (Dask's ``set_index`` with given divisions) puts every user's
   ratings in one partition, blocks of whole users of about ``rows_per_block`` ratings in user
   order. Each block is ordered and split on its worker
   (:func:`~bench.adapters.user_blocks.prepare_block`): the ``random`` split's stream is advanced
   to the block's first row, ``kfold`` deals all users, so every role is the whole table's.
3. **Whole-history statistics**, accumulated block after block in user order -- the additions
   of the single-process adapter in its order, so bit for bit: the items' counts, sums, sums
   of squares and first/last times; the mean rating (exact partials); the reference time (max).
4. **SVDs** of the history matrix and of its pattern: scikit-learn's randomized SVD on a
   ``LinearOperator`` whose products run on the blocks (``A @ X`` row block by row block,
   ``A.T @ X`` accumulated block after block; :func:`~bench.adapters.svd.truncated_svd_operator`,
   :mod:`bench.adapters.block_models`).
   The client holds ``(users + items) x (k + 10)`` numbers, never the matrix.
5. **Candidates and features** per chunk of 256-query blocks of each partition: a chunk's users'
   ratings (from the one or two user blocks that hold them) with the whole-history models give
   the chunk's candidates (each user's negatives from the user's own streams, dealt across
   the partitions from one pool: :mod:`bench.adapters.negatives`) and feature rows, written
   by the worker to ``OUT/<partition>/part-NNNNN.parquet``
   (:mod:`bench.data.query_shards` layout: whole queries, one file per chunk).

So on data that fits one process, every partition equals the single-process adapter's bit for
bit (tested on ml-latest-small: temporal, random and kfold splits, uniform and popularity
negatives, every default feature group). Not available here: the ``als`` group (its
conjugate-gradient solves alternate over all users and items; ``convert`` without
``--engine dask`` has it) and ``time-cut`` without explicit cuts (its default cuts are exact
timestamp quantiles; give ``time_cuts``). Output folders must be reachable by every worker
(a shared filesystem on a real cluster; always so on a local one).
"""

from __future__ import annotations

import itertools
import math
import os
import shutil
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from bench.adapters.block_models import Progress, fit_models
from bench.adapters.config import AdapterConfig
from bench.adapters.history import GroupStats, HistoryTotals, accumulate_stats, exact_partials
from bench.adapters.labels import grade, max_grade
from bench.adapters.negatives import QUERY_BLOCK, sample_candidates
from bench.adapters.pipeline import CatalogueModels, feature_groups
from bench.adapters.splits import PARTITIONS, no_queries_message, tied_window_edges
from bench.adapters.user_blocks import UserBlock, chunk_history, chunk_table, prepare_block
from bench.data.dask_ratings import RatingsFrame, is_parse_error
from bench.data.letor import LetorData
from bench.data.parquet import write_parquet
from bench.data.ratings import TimeUnitWarning, seconds_unit_note
from bench.errors import ConfigError, DataError, LtrbenchError

PathLike = str | os.PathLike[str]

#: Ratings per user block (and, roughly, candidate rows per output shard).
ROWS_PER_BLOCK = 2_000_000


def check_distributable(config: AdapterConfig) -> None:
    """:class:`ConfigError` for the settings this engine does not run (module docstring)."""
    if "als" in config.feature_groups:
        raise ConfigError("the als feature group is not available with --engine dask (its "
                          "solves alternate over all users and items); drop it or convert "
                          "without --engine dask")
    if config.split == "time-cut" and config.time_cuts is None:
        raise ConfigError("split='time-cut' with --engine dask needs explicit --time-cuts "
                          "(the default cuts are exact timestamp quantiles)")


def convert_distributed(ratings: RatingsFrame, out_dir: PathLike, config: AdapterConfig,
                        client: Any, *, rows_per_block: int = ROWS_PER_BLOCK,
                        progress: Progress | None = None) -> dict[str, object]:
    """Convert ``ratings`` on the cluster of ``client`` into ``out_dir/{train,vali,test}/``
    Parquet shards of whole queries, ``out_dir/summary.json`` and, where the reader numbered
    text ids, ``users.csv`` / ``items.csv`` as a local conversion writes them; returns the summary (the
    fields of :func:`bench.adapters.convert.convert`'s, plus the engine and the blocks)."""
    check_distributable(config)
    if rows_per_block < 1:
        raise ConfigError(f"rows_per_block must be >= 1; got {rows_per_block}")
    out = Path(out_dir)
    for name in PARTITIONS:
        old = sorted((out / name).glob("part-*.parquet")) if (out / name).is_dir() else []
        if old:
            raise DataError(f"already holds {len(old)} shard(s) of an earlier conversion; "
                            "convert into a new or empty folder", path=out / name)
    partial = {name: out / f".{name}.partial" for name in PARTITIONS}
    for folder in partial.values():
        shutil.rmtree(folder, ignore_errors=True)  # left by an interrupted conversion
    import pyarrow as pa

    try:
        summary = _convert(ratings, out, partial, config, client, rows_per_block,
                           progress or (lambda _msg: None))
    except DataError as exc:  # a pair rated twice: named in its shards, both places
        from bench.data.dask_places import place_duplicate

        raise (place_duplicate(ratings, exc) or exc) from None
    except LtrbenchError:
        raise
    except (OSError, pa.ArrowException) as exc:  # a damaged page behind a good footer
        raise _io_error(ratings, exc) from None
    except Exception as exc:  # a worker died (memory limit), the cluster went away
        if type(exc).__module__.split(".")[0] not in ("distributed", "dask"):
            raise
        first = (str(exc).strip().splitlines() or [""])[0]
        raise LtrbenchError(
            f"the Dask conversion failed ({type(exc).__name__}: {first[:300]}); nothing was "
            "written to the output folder. A worker that dies at its memory limit needs a "
            "larger --memory-limit or a smaller --rows-per-block") from None
    finally:
        for folder in partial.values():
            shutil.rmtree(folder, ignore_errors=True)
    return summary


def _io_error(ratings: RatingsFrame, exc: BaseException) -> LtrbenchError:
    """A read or write that failed inside Dask as one line: the first ratings Parquet file
    pyarrow cannot read (:func:`bench.data.query_shards.unreadable_shard`; a damaged page
    behind a good footer was an ``OSError: Couldn't deserialize thrift`` traceback), else the
    file the ``OSError`` names."""
    from bench.data.query_shards import unreadable_shard

    parquet = [str(f) for f in ratings.files if f.suffix == ".parquet"]
    where = ratings.source or "the ratings"
    found = unreadable_shard(parquet, None, exc, where, expected="a ratings table")
    if found.path != where or not isinstance(exc, OSError) or not exc.filename:
        return found
    return LtrbenchError(f"{exc.filename}: {exc.strerror or exc} (the Dask conversion stopped; "
                         "nothing was written to the output folder)")


def _convert(ratings: RatingsFrame, out: Path, partial: dict[str, Path], config: AdapterConfig,
             client: Any, rows_per_block: int, say: Progress) -> dict[str, object]:
    clock: dict[str, float] = {}
    t0 = time.perf_counter()
    say("reading user and item ids")
    user_ids, counts, item_ids = _ids(ratings)
    bounds = _user_bounds(counts, rows_per_block)
    clock["ids"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    say(f"shuffling {int(counts.sum()):,} ratings into {len(bounds) - 1} blocks of whole users")
    blocks = _user_blocks(ratings, client, user_ids, counts, item_ids, bounds, config)
    state = _whole_history(client, blocks, item_ids.shape[0], config)
    clock["blocks"] = time.perf_counter() - t0
    if (note := seconds_unit_note(*state["span"])) is not None:
        warnings.warn(f"{ratings.source or 'ratings'}: {note}", TimeUnitWarning, stacklevel=3)
    totals = HistoryTotals(item_stats=state["items"], global_mean=state["mean"],
                           history_users=int(state["history_rows"].shape[0]))

    t0 = time.perf_counter()
    models = fit_models(ratings, client, blocks, bounds, user_ids, item_ids, config, say,
                        history_rows=state["history_rows"])
    clock["models"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    # a task's result, not scattered data: if a worker restarts at its memory limit, the
    # scheduler recomputes it (scattered data would be lost); and held once, not per task
    with warnings.catch_warnings():  # "Sending large graph": once, by design (the SVD factors)
        warnings.filterwarnings("ignore", message="Sending large graph")
        ctx = client.submit(_same, {"user_ids": user_ids, "item_ids": item_ids,
                                    "config": config, "models": models, "totals": totals,
                                    "reference_time": state["reference_time"],
                                    "source": ratings.source or "ratings"}, pure=False)
    parts: dict[str, list[dict[str, Any]]] = {}
    for code_name, code in PARTITIONS.items():
        q_users = np.flatnonzero(state["queries"] & (1 << (code - 1)))
        if q_users.shape[0] == 0:
            raise DataError(no_queries_message(code_name, config, config.time_cuts,
                                               state["span"]), path=ratings.source or None)
        chunks = _chunks(q_users, counts, config, rows_per_block, user_ids.shape[0])
        say(f"{code_name}: {q_users.shape[0]:,} queries in {len(chunks)} shard(s)")
        futures = [client.submit(_write_chunk, [blocks[b] for b in _covering(bounds, a, z)], a, z,
                                 qa, code_name,
                                 str(partial[code_name] / f"part-{k:05d}.parquet"), ctx,
                                 pure=False)
                   for k, (qa, a, z) in enumerate(chunks)]
        parts[code_name] = client.gather(futures)
        if not any(float(k) > 0 for c in parts[code_name] for k, v in c["labels"].items() if v):
            rule = (f"labels='binary' grades 1 from binary_threshold {config.binary_threshold!r}"
                    if config.labels == "binary" else f"labels={config.labels!r}")
            raise DataError(f"the {code_name} partition has no relevant row: {rule} grades "
                            "every target 0; choose another label mapping or threshold "
                            "(nothing was written)", path=ratings.source or None)
    from bench.adapters.convert import OWNED_FILES

    for stale in OWNED_FILES:  # a single-process conversion's files would be read instead
        if stale != "summary.json":
            (out / stale).unlink(missing_ok=True)
    maps = _write_id_maps(ratings, out)
    for name, folder in partial.items():  # every shard is written: now they take their place
        folder.rename(out / name)
        for c in parts[name]:
            c["file"] = str(out / name / Path(c["file"]).name)
    clock["candidates_features"] = time.perf_counter() - t0
    return _summary(ratings, out, config, state, models, parts, bounds, clock, client, maps)


def _write_id_maps(ratings: RatingsFrame, out: Path) -> list[str]:
    """``users.csv`` / ``items.csv``: the ids the reader numbered (text ids, ids beyond int64),
    the same files as a local conversion's (:func:`bench.adapters.convert.id_maps`), each
    written atomically; the names written."""
    if ratings.codes is None:
        return []
    import dask

    from bench.data.atomic import atomic_path
    from bench.data.dask_ids import id_map_frames

    (codes,) = dask.compute(ratings.codes)
    written = []
    out.mkdir(parents=True, exist_ok=True)
    for name, table in id_map_frames(codes).items():
        with atomic_path(out / name) as tmp:
            table.to_csv(tmp, index=False)
        written.append(name)
    return written


# ------------------------------------------------------------------------------ steps 1 and 2


def _ids(ratings: RatingsFrame) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    import dask

    try:
        # per-partition counts combined here (no shuffle: a value_counts shuffle held whole
        # partitions in worker memory and broke a 1.5 GB worker at 50M ratings)
        per_part = dask.compute(*[dask.delayed(_counts)(p) for p in
                                  ratings.frame[["user", "item"]].to_delayed()])
    except DataError:
        raise
    except (ValueError, TypeError) as exc:  # the CSV parser's, raised inside Dask's read_csv
        if is_parse_error(exc):
            raise ratings.locate(exc) from None
        raise
    if not per_part or sum(u.shape[0] for u, _ in per_part) == 0:
        raise DataError("no ratings", path=ratings.source or None)
    per_user = pd.concat([u for u, _ in per_part]).groupby(level=0).sum().sort_index()
    items = np.unique(np.concatenate([i for _, i in per_part]))
    return (per_user.index.to_numpy(dtype=np.int64), per_user.to_numpy(dtype=np.int64),
            items.astype(np.int64))


def _same(x: Any) -> Any:
    return x


def _counts(part: pd.DataFrame) -> tuple[pd.Series, NDArray[np.int64]]:
    """Ratings per user and the distinct items of one partition."""
    return part["user"].value_counts(sort=False), np.unique(part["item"].to_numpy())


def _user_bounds(counts: NDArray[np.int64], rows_per_block: int) -> list[int]:
    """Block boundaries (user codes, from 0 to n_users): about ``rows_per_block`` ratings each."""
    cum = np.cumsum(counts)
    cuts = np.searchsorted(cum, np.arange(rows_per_block, int(cum[-1]), rows_per_block),
                           side="left") + 1
    return sorted({0, *(int(c) for c in cuts if 0 < c < counts.shape[0]), int(counts.shape[0])})


def _covering(bounds: list[int], a: int, z: int) -> range:
    """The blocks that hold users ``a .. z - 1``."""
    first = int(np.searchsorted(bounds, a, side="right")) - 1
    last = int(np.searchsorted(bounds, z, side="left"))
    return range(first, last)


def _with_codes(part: pd.DataFrame, user_ids: NDArray[np.int64]) -> pd.DataFrame:
    return part.assign(ucode=np.searchsorted(user_ids, part["user"].to_numpy()))


def _user_blocks(ratings: RatingsFrame, client: Any, user_ids: NDArray[np.int64],
                 counts: NDArray[np.int64], item_ids: NDArray[np.int64], bounds: list[int],
                 config: AdapterConfig) -> list[Any]:
    """Futures of the :class:`UserBlock` s, in user order."""
    import dask

    frame = ratings.frame
    meta = frame._meta.assign(ucode=np.zeros(0, dtype=np.int64))
    coded = frame.map_partitions(_with_codes, user_ids, meta=meta)
    if len(bounds) > 2:
        divisions = (*bounds[:-1], bounds[-1] - 1)
        # the task-based shuffle: its pieces are ordinary task results, which a worker under
        # its memory limit spills to disk (p2p's buffers are not, and broke a 1 GB worker)
        shuffled = coded.set_index("ucode", divisions=list(divisions), shuffle_method="tasks")
        pieces = shuffled.to_delayed()
    else:
        pieces = [dask.delayed(pd.concat)(coded.to_delayed())]
    if len(pieces) != len(bounds) - 1:
        raise DataError(f"expected {len(bounds) - 1} user blocks after the shuffle, got "
                        f"{len(pieces)}")
    rows_before = np.concatenate([[0], np.cumsum(counts)])
    tasks = [dask.delayed(prepare_block)(
        piece, bounds[b], user_ids[bounds[b]: bounds[b + 1]], item_ids, config,
        rows_before=int(rows_before[bounds[b]]), users_total=int(user_ids.shape[0]),
        source=ratings.source) for b, piece in enumerate(pieces)]
    futures = client.compute(tasks)
    return list(futures)


# ------------------------------------------------------------------------------------ step 3


def _block_facts(block: UserBlock, rule: str) -> dict[str, Any]:
    hist = block.history()
    latest_hist, latest = block.times()
    return {"partials": exact_partials(hist.rating), "n_hist": hist.n,
            "history_rows": hist.rows_with_history() + block.u0,
            "latest_hist": latest_hist, "latest": latest,
            "earliest": int(block.table.timestamp.min()), "queries": block.query_users(),
            "tied": tied_window_edges(block.table, block.role, rule),
            "roles": block.role_counts()}


def _add_items(stats: GroupStats | None, block: UserBlock, n_items: int) -> GroupStats:
    h = block.history()
    return accumulate_stats(stats, n_items, h.item, h.rating, h.timestamp)


def _whole_history(client: Any, blocks: list[Any], n_items: int,
                   config: AdapterConfig) -> dict[str, Any]:
    """What needs every user: the items' statistics, the mean rating, the users with history,
    the reference time (``c1`` under ``time-cut``, as :func:`~bench.adapters.splits.split_ratings`
    has it, else the latest history time)."""
    facts = client.gather([client.submit(_block_facts, b, config.split, pure=False)
                           for b in blocks])
    stats = None
    for b in blocks:  # in user order: the single-process additions, in its order
        stats = client.submit(_add_items, stats, b, n_items, pure=False)
    n_hist = sum(int(f["n_hist"]) for f in facts)
    total = math.fsum(np.concatenate([f["partials"] for f in facts]).tolist())
    hist_times = [f["latest_hist"] for f in facts if f["latest_hist"] is not None]
    reference = max(hist_times) if hist_times else max(int(f["latest"]) for f in facts)
    if config.split == "time-cut" and config.time_cuts is not None:
        reference = int(config.time_cuts[0])
    return {"items": client.gather(stats), "mean": total / n_hist if n_hist else 0.0,
            "reference_time": int(reference),
            "span": (min(int(f["earliest"]) for f in facts),
                     max(int(f["latest"]) for f in facts)),
            "tied": [sum(int(f["tied"][k]) for f in facts) for k in (0, 1)],
            "queries": np.concatenate([f["queries"] for f in facts]),
            "roles": np.sum([f["roles"] for f in facts], axis=0),
            "n_hist": n_hist,
            "history_rows": np.concatenate([f["history_rows"] for f in facts])}


# ------------------------------------------------------------------------------------ step 4


# ------------------------------------------------------------------------------------ step 5


def _chunks(q_users: NDArray[np.int64], counts: NDArray[np.int64], config: AdapterConfig,
            rows_per_block: int, n_users: int) -> list[tuple[int, int, int]]:
    """(first query, first user, end user) of each output shard: whole 256-query blocks, as many
    as keep both the shard's candidate rows and its users' ratings near ``rows_per_block``."""
    starts = np.arange(0, q_users.shape[0], QUERY_BLOCK)
    first_user = np.r_[q_users[starts], n_users]
    cum_ratings = np.r_[0, np.cumsum(counts)][first_user]  # ratings before each block's users
    size = max(1, int(config.target_size)) if config.target_size >= 1 else 1
    per_query = float(config.negatives + 3 * size)
    cuts = [0]
    for b in range(1, starts.shape[0]):  # one step per 256 queries, not per query
        ratings = cum_ratings[b] - cum_ratings[cuts[-1]]
        rows = (starts[b] - starts[cuts[-1]]) * per_query
        if ratings >= rows_per_block or rows >= rows_per_block:
            cuts.append(b)
    cuts.append(starts.shape[0])
    return [(int(starts[c]), int(first_user[c]), int(first_user[d]))
            for c, d in itertools.pairwise(cuts)]


def _write_chunk(blocks: list[UserBlock], a: int, z: int, first_query: int, name: str,
                 path: str, ctx: dict[str, Any]) -> dict[str, Any]:
    config: AdapterConfig = ctx["config"]
    t0 = time.perf_counter()
    table, role = chunk_table(blocks, a, z, ctx["user_ids"])
    hist = chunk_history(table, role, ctx["reference_time"], ctx["totals"])
    weight = ctx["totals"].item_stats.count + 1.0
    cand = sample_candidates(table, role, PARTITIONS[name], negatives=config.negatives,
                             sampling=config.negative_sampling, item_weight=weight,
                             seed=config.seed)
    from bench.adapters.features import feature_matrix

    X, names = feature_matrix(feature_groups(hist, ctx["models"], config), cand)
    y = grade(cand.rating, config.labels, binary_threshold=config.binary_threshold)
    users = table.user_ids[cand.user]
    data = LetorData(X=X, y=y, qid=users, offsets=cand.offsets, feature_names=names,
                     user=users, item=table.item_ids[cand.item],
                     source=f"{ctx['source']}:{name}",
                     meta={"partition": name, "split": config.split, "labels": config.labels})
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_parquet(data, path)
    s = data.summary()
    return {"file": path, "queries": s["queries"], "rows": s["rows"], "labels": s["labels"],
            "blank_queries": s["blank_queries"], "names": list(names),
            "targets": int(cand.is_target.sum()), "sizes": np.diff(cand.offsets),
            "seconds": time.perf_counter() - t0}


def _summary(ratings: RatingsFrame, out: Path, config: AdapterConfig, state: dict[str, Any],
             models: CatalogueModels, parts: dict[str, list[dict[str, Any]]], bounds: list[int],
             clock: dict[str, float], client: Any, maps: list[str]) -> dict[str, object]:
    import json

    from bench.data.atomic import write_text
    from bench.data.dask_cluster import describe, is_loopback, listening_addresses

    partitions: dict[str, object] = {}
    candidates: dict[str, object] = {}
    files: list[str] = []
    names: list[str] = parts["train"][0]["names"]
    for name, chunks in parts.items():
        labels: dict[str, int] = {}
        for c in chunks:
            for k, v in c["labels"].items():
                labels[str(int(k))] = labels.get(str(int(k)), 0) + int(v)
        sizes = np.concatenate([c["sizes"] for c in chunks])
        rows = int(sum(c["rows"] for c in chunks))
        targets = int(sum(c["targets"] for c in chunks))
        partitions[name] = {
            "queries": int(sum(c["queries"] for c in chunks)), "rows": rows,
            "features": len(names), "labels": dict(sorted(labels.items(), key=lambda kv: int(kv[0]))),
            "blank_queries": int(sum(c["blank_queries"] for c in chunks)),
            "rows_per_query": {"min": int(sizes.min()), "median": float(np.median(sizes)),
                               "max": int(sizes.max())},
            "shards": len(chunks)}
        candidates[name] = {"queries": int(sizes.shape[0]), "targets": targets,
                            "negatives": rows - targets}
        files += [str(Path(c["file"]).relative_to(out)) for c in chunks]
    roles = state["roles"]
    split_meta: dict[str, object] = {
        "split": config.split,
        "tied_window_edges": {"users": state["tied"][0], "edges": state["tied"][1]},
        "history_rule": "one history: the ratings in no target window (see bench.adapters.splits)",
        "reference_time": state["reference_time"],
        "ratings_by_role": {"unused": int(roles[0]), "history": int(roles[1]),
                            "train": int(roles[2]), "vali": int(roles[3]), "test": int(roles[4])},
        "max_label": max_grade(config.labels),
        "feature_groups": [g for g in config.feature_groups if g not in models.skipped],
        "features_skipped": models.skipped, "candidates": candidates,
        "ratings": {"rows": int(roles.sum()), "users": bounds[-1],
                    "items": int(state["items"].count.shape[0])},
    }
    if config.time_cuts is not None and config.split == "time-cut":
        split_meta["time_cuts"] = [int(c) for c in config.time_cuts]
    summary: dict[str, object] = {
        "name": ratings.source or "ratings", "partitions": partitions, "feature_names": names,
        "adapter": config.as_dict(), "split_meta": split_meta,
        "timings_s": {k: round(v, 4) for k, v in clock.items()},
        "inputs": ratings.sha256(), "files": [*files, *maps, "summary.json"],
        "engine": {"name": "dask", "cluster": describe(client), "user_blocks": len(bounds) - 1,
                   "users_per_block": [bounds[k + 1] - bounds[k] for k in range(len(bounds) - 1)],
                   # every address this process and its children listened on (run's record)
                   "listeners": {"addresses": (seen := listening_addresses()),
                                 "loopback_only": all(is_loopback(a) for a in seen)}},
    }
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "summary.json", json.dumps(summary, indent=2, default=str) + "\n")
    return summary
