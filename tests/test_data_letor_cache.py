"""The content-addressed cache of parsed SVMlight files: hits, misses, stale sources, damaged
entries (reported, rebuilt, never used), atomic and concurrent writes, and the readers that
thread ``cache_dir`` through."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_svmlight_file

from bench.data import letor_cache
from bench.data.folders import read_letor_folder, read_lightgbm_dir
from bench.data.letor_cache import CacheWarning, cache_root, entry_path, sha256_files
from bench.data.svmlight import query_sidecar, read_svmlight, read_svmlight_files

TEXT = "".join(f"{i % 5} qid:{i // 7} 1:{i * 0.25} 3:{-i} 4:1e-{i % 9} #docid {i}\n"
               for i in range(300))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _source(tmp_path: Path, text: str = TEXT, name: str = "train.txt") -> Path:
    f = tmp_path / "data" / name
    f.parent.mkdir(exist_ok=True)
    f.write_text(text)
    return f


def _oracle(path: Path) -> tuple[np.ndarray, np.ndarray]:
    X, y, _ = load_svmlight_file(str(path), query_id=True, dtype=np.float32, zero_based=False)
    return X.toarray().astype(np.float32), y


def _parse_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = letor_cache.parse_svmlight_files

    def counting(paths, **kw):  # type: ignore[no-untyped-def]
        calls.append(len(paths))
        return real(paths, **kw)

    monkeypatch.setattr(letor_cache, "parse_svmlight_files", counting)
    return calls


def test_second_read_is_a_hit_with_identical_arrays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = _source(tmp_path)
    cache = tmp_path / "cache"
    calls = _parse_calls(monkeypatch)
    first = read_svmlight(f, cache_dir=cache)
    assert calls == [1]
    assert (entry_path(cache, _sha(f)) / "manifest.json").is_file()
    second = read_svmlight(f, cache_dir=cache)
    assert calls == [1]  # no parse: served from the cache
    X, y = _oracle(f)
    for d in (first, second):
        assert d.X.tobytes() == X.tobytes()
        assert d.y.tobytes() == y.tobytes()
        assert d.offsets.tolist() == first.offsets.tolist()
    second.X[0, 0] = 42.0  # the cached arrays are writable copies-on-write ...
    assert read_svmlight(f, cache_dir=cache).X[0, 0] == X[0, 0]  # ... that leave the entry intact


def test_no_cache_dir_writes_nothing_and_always_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = _source(tmp_path)
    calls = _parse_calls(monkeypatch)
    read_svmlight(f)
    read_svmlight(f, cache_dir=None)
    assert calls == [1, 1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_changed_source_is_a_miss_and_gets_its_own_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = _source(tmp_path)
    cache = tmp_path / "cache"
    read_svmlight(f, cache_dir=cache)
    old = _sha(f)
    # same size, one digit changed: a (size, mtime) check could miss this, the hash does not
    f.write_text(TEXT.replace("1:0.25 ", "1:0.75 ", 1))
    calls = _parse_calls(monkeypatch)
    d = read_svmlight(f, cache_dir=cache)
    assert calls == [1]
    assert d.X[1, 0] == np.float32(0.75)
    assert entry_path(cache, old).is_dir()
    assert entry_path(cache, _sha(f)).is_dir()


def _damage_and_reread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage) -> None:  # type: ignore[no-untyped-def]
    f = _source(tmp_path)
    cache = tmp_path / "cache"
    read_svmlight(f, cache_dir=cache)
    entry = entry_path(cache, _sha(f))
    damage(entry)
    calls = _parse_calls(monkeypatch)
    with pytest.warns(CacheWarning, match=rf"cache entry {entry} is unusable \(.+\); rebuilding"):
        d = read_svmlight(f, cache_dir=cache)
    assert calls == [1]  # rebuilt from the source, not read from the damaged entry
    X, _ = _oracle(f)
    assert d.X.tobytes() == X.tobytes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rebuilt entry is good
        again = read_svmlight(f, cache_dir=cache)
    assert calls == [1]
    assert again.X.tobytes() == X.tobytes()


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def test_flipped_byte_in_the_data_is_detected_reported_and_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _damage_and_reread(tmp_path, monkeypatch, lambda e: _flip(e / "X.npy", 200))


def test_flipped_byte_in_the_labels_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _damage_and_reread(tmp_path, monkeypatch, lambda e: _flip(e / "y.npy", 300))


def test_flipped_byte_in_a_npy_header_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _damage_and_reread(tmp_path, monkeypatch, lambda e: _flip(e / "qid.npy", 60))


def test_truncated_array_file_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def truncate(e: Path) -> None:
        data = (e / "X.npy").read_bytes()
        (e / "X.npy").write_bytes(data[: len(data) // 2])

    _damage_and_reread(tmp_path, monkeypatch, truncate)


def test_missing_or_garbled_manifest_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _damage_and_reread(tmp_path, monkeypatch, lambda e: (e / "manifest.json").write_text("{"))


def test_manifest_of_another_source_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def other(e: Path) -> None:
        man = json.loads((e / "manifest.json").read_text())
        man["source_sha256"] = "0" * 64
        (e / "manifest.json").write_text(json.dumps(man))

    _damage_and_reread(tmp_path, monkeypatch, other)


def test_multi_block_entries_check_every_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(letor_cache, "BLOCK_BYTES", 1024)
    f = _source(tmp_path)
    cache = tmp_path / "cache"
    read_svmlight(f, cache_dir=cache)
    entry = entry_path(cache, _sha(f))
    man = json.loads((entry / "manifest.json").read_text())
    assert len(man["arrays"]["X"]["crc32"]) > 3
    _flip(entry / "X.npy", (entry / "X.npy").stat().st_size - 3)  # in the last block
    with pytest.warns(CacheWarning, match=r"X\.npy block \d+ fails its CRC-32 check"):
        read_svmlight(f, cache_dir=cache)


def test_interrupted_write_leaves_no_entry_that_looks_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = _source(tmp_path)
    cache = tmp_path / "cache"
    real = letor_cache._write_npy
    written: list[str] = []

    def dying(path: Path, arr: np.ndarray):  # type: ignore[no-untyped-def]
        written.append(path.name)
        if path.name == "y.npy":
            raise KeyboardInterrupt  # after X.npy was written in full
        return real(path, arr)

    monkeypatch.setattr(letor_cache, "_write_npy", dying)
    with pytest.raises(KeyboardInterrupt):
        read_svmlight(f, cache_dir=cache)
    assert written == ["X.npy", "y.npy"]
    assert not entry_path(cache, _sha(f)).exists()
    assert [p.name for p in cache_root(cache).iterdir()] == []  # the temporary folder is gone
    monkeypatch.setattr(letor_cache, "_write_npy", real)
    calls = _parse_calls(monkeypatch)
    read_svmlight(f, cache_dir=cache)
    assert calls == [1]


def test_a_second_writer_of_the_same_entry_keeps_the_first_and_drops_its_copy(tmp_path: Path) -> None:
    f = _source(tmp_path)
    cache = tmp_path / "cache"
    (parsed,), sums = letor_cache.cached_parse([f], cache_dir=None, digests=True)
    assert sums is not None
    first = letor_cache.store_entry(cache, sums[0], parsed, f)
    manifest = (first / "manifest.json").read_bytes()
    second = letor_cache.store_entry(cache, sums[0], parsed, f)
    assert second == first
    assert (first / "manifest.json").read_bytes() == manifest
    assert sorted(p.name for p in cache_root(cache).iterdir()) == [sums[0]]


def _read_in_process(args: tuple[str, str]) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = read_svmlight(args[0], cache_dir=args[1])
    return d.X.tobytes() + d.y.tobytes()


def test_concurrent_processes_building_the_same_entry_all_get_good_data(tmp_path: Path) -> None:
    f = _source(tmp_path, "".join(f"{i % 5} qid:{i // 9} 1:{i / 7} 2:{i}\n" for i in range(20_000)))
    cache = tmp_path / "cache"
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        results = pool.map(_read_in_process, [(str(f), str(cache))] * 8)
    X, y = _oracle(f)
    assert all(r == X.tobytes() + y.tobytes() for r in results)
    assert sorted(p.name for p in cache_root(cache).iterdir()) == [_sha(f)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _read_in_process((str(f), str(cache))) == X.tobytes() + y.tobytes()


def test_cached_files_share_the_widest_feature_count(tmp_path: Path) -> None:
    train = _source(tmp_path, "1 qid:1 1:1 7:2\n0 qid:1 2:1\n", "train.txt")
    test = _source(tmp_path, "1 qid:2 1:1\n", "test.txt")
    cache = tmp_path / "cache"
    read_svmlight_files([test], cache_dir=cache)  # test cached alone, 1 column wide
    a, b = read_svmlight_files([train, test], cache_dir=cache)
    assert a.n_features == b.n_features == 7
    assert b.X.tolist() == [[1, 0, 0, 0, 0, 0, 0]]
    a2, b2 = read_svmlight_files([train, test], cache_dir=cache)  # both from the cache now
    assert a2.X.tobytes() == a.X.tobytes()
    assert b2.X.tobytes() == b.X.tobytes()


def test_cached_entry_still_honours_n_features(tmp_path: Path) -> None:
    f = _source(tmp_path, "1 qid:1 1:1\n0 qid:1 6:2\n")
    cache = tmp_path / "cache"
    assert read_svmlight(f, cache_dir=cache, n_features=10).n_features == 10
    with pytest.raises(ValueError, match=r"train\.txt:2: feature index 6 is beyond n_features=4"):
        read_svmlight(f, cache_dir=cache, n_features=4)


def test_sha256_files_matches_hashlib(tmp_path: Path) -> None:
    files = [_source(tmp_path, TEXT * k, f"f{k}.txt") for k in (1, 2, 3)]
    assert sha256_files(files, threads=2) == [_sha(f) for f in files]


def test_letor_folder_reader_uses_the_cache_and_records_the_same_digests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fold = tmp_path / "Fold1"
    fold.mkdir()
    for k, split in enumerate(("train", "vali", "test")):
        (fold / f"{split}.txt").write_text(
            "".join(f"{i % 3} qid:{100 * k + i // 4} 1:{i} 2:0.5\n" for i in range(40)))
    cache = tmp_path / "cache"
    plain = read_letor_folder(tmp_path)
    calls = _parse_calls(monkeypatch)
    cold = read_letor_folder(tmp_path, cache_dir=cache)
    warm = read_letor_folder(tmp_path, cache_dir=cache)
    assert calls == [3]
    for s in (plain, cold, warm):
        assert s.inputs == {str(fold / f"{x}.txt"): _sha(fold / f"{x}.txt")
                            for x in ("train", "vali", "test")}
        for name in ("train", "vali", "test"):
            assert s.splits()[name].X.tobytes() == plain.splits()[name].X.tobytes()


def test_lightgbm_reader_uses_the_cache_and_reads_the_sidecars_each_time(tmp_path: Path) -> None:
    for name, sizes in (("rank.train", [2, 3, 1, 2]), ("rank.test", [2, 1])):
        n = sum(sizes)
        (tmp_path / name).write_text("".join(f"{i % 2} 1:{i} 3:1\n" for i in range(n)))
        query_sidecar(tmp_path / name).write_text("".join(f"{s}\n" for s in sizes))
    cache = tmp_path / "cache"
    cold = read_lightgbm_dir(tmp_path, cache_dir=cache)
    query_sidecar(tmp_path / "rank.test").write_text("1\n2\n")
    warm = read_lightgbm_dir(tmp_path, cache_dir=cache)
    assert cold.test.group_sizes.tolist() == [2, 1]
    assert warm.test.group_sizes.tolist() == [1, 2]
    assert warm.inputs[str(tmp_path / "rank.test.query")] == _sha(tmp_path / "rank.test.query")
    assert warm.train.X.tobytes() == cold.train.X.tobytes()


def test_unwritable_cache_folder_warns_and_still_returns_the_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = _source(tmp_path)

    def full_disk(*args: object, **kwargs: object) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(letor_cache, "store_entry", full_disk)
    with pytest.warns(CacheWarning, match=r"could not write the cache entry of .*train\.txt .*No space"):
        d = read_svmlight(f, cache_dir=tmp_path / "cache")
    X, _ = _oracle(f)
    assert d.X.tobytes() == X.tobytes()
