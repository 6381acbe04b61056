"""MovieLens in every published layout -> :class:`~bench.data.ratings.Ratings`.

Layouts (GroupLens, https://grouplens.org/datasets/movielens/; each archive's README):

- ``ml-100k``: ``u.data`` (tab-separated ``user item rating timestamp``), ``u.item``
  (``|``-separated, Latin-1: ``id|title|release date|video release date|IMDb URL|`` + 19 genre
  flags, named in ``u.genre``), ``u.user`` (``user|age|gender|occupation|zip``).
- ``ml-1m``: ``::``-separated ``ratings.dat`` (``UserID::MovieID::Rating::Timestamp``),
  ``movies.dat`` (``MovieID::Title::Genres``, genres ``|``-separated), ``users.dat``
  (``UserID::Gender::Age::Occupation::Zip-code``; age and occupation are codes).
- ``ml-10m``: as ``ml-1m`` with half-star ratings, ``tags.dat`` (``UserID::MovieID::Tag::``
  ``Timestamp``) and no ``users.dat`` (the archive unpacks to ``ml-10M100K/``).
- ``movielens-csv`` (``ml-latest-small``, ``ml-latest``, ``ml-20m``, ``ml-25m``, ``ml-32m``):
  ``ratings.csv`` (``userId,movieId,rating,timestamp``), ``movies.csv`` (``movieId,title,genres``;
  titles with commas are quoted; ``(no genres listed)`` means none), ``tags.csv``
  (``userId,movieId,tag,timestamp``).

The layout is detected from the files present. The ratings file is parsed by pyarrow's
multi-threaded CSV reader (``::`` files are read with ``:`` as the delimiter, every other column
being the empty string between the two colons), so ML-25M's 25M rows load in seconds; a bad
file is scanned again to name its first malformed line (seconds beside milliseconds: a row).

Items: ``item``, ``title`` (as in the file), ``year`` (the title's final ``(YYYY)``; missing
when absent), ``genres`` (tuple of strings). ``Ratings.sha256``: file name -> digest of every
file read; ``Ratings.source`` is the folder.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from bench.data.compressed import HEAD
from bench.data.dat_text import dat_text
from bench.data.delimited import check_field_counts
from bench.data.folder_names import missing_note
from bench.data.input_ids import dos_eof_hint, space_hint
from bench.data.inputs import bom_length, check_input_file, parse_float, parse_int, text_lines
from bench.data.movielens_layout import layout_of
from bench.data.ratings import Ratings, refuse_mixed_units, refuse_mixed_units_across
from bench.errors import ConfigError, DataError

PathLike = str | os.PathLike[str]
LAYOUTS = ("ml-100k", "ml-1m", "ml-10m", "movielens-csv")

#: ml-100k genre flags in ``u.item`` column order (as listed in ``u.genre``), used when
#: ``u.genre`` is absent.
ML100K_GENRES = (
    "unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime",
    "Documentary", "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance",
    "Sci-Fi", "Thriller", "War", "Western",
)
NO_GENRES = "(no genres listed)"
_YEAR = re.compile(r"\((\d{4})(?:\s*[-–]\s*\d{0,4})?\)\s*$")
_RATINGS_FILE = {"ml-100k": "u.data", "ml-1m": "ratings.dat", "ml-10m": "ratings.dat",
                 "movielens-csv": "ratings.csv"}
_CSV_HEADER = ("userId", "movieId", "rating", "timestamp")


def detect_layout(path: PathLike) -> str:
    """The MovieLens layout of a folder, or of a ratings file named as such (``u.data``,
    ``ratings.dat``, ``ratings.csv``): :func:`bench.data.movielens_layout.layout_of`."""
    given = _given(path)
    return layout_of(_folder(given), given, path)


def load_movielens(path: PathLike, *, layout: str | None = None) -> Ratings:
    """Load a MovieLens folder into :class:`Ratings` (layout auto-detected; see the module doc).

    ``path`` is the folder (``ml-25m/``), a ratings file inside it, or a folder holding exactly
    one such folder (``ml-10m/ml-10M100K/``). ``layout`` forces one of :data:`LAYOUTS`.
    """
    folder = _folder(_given(path))
    if layout is None:
        layout = detect_layout(path)
    elif layout not in LAYOUTS:
        raise ConfigError(f"unknown MovieLens layout {layout!r}; valid: {', '.join(LAYOUTS)}")
    from bench.data.hashing import sha256_file

    ratings_path = folder / _RATINGS_FILE[layout]
    if not ratings_path.is_file():
        raise DataError(f"{ratings_path.name} is missing for layout {layout!r}", path=folder)
    read: list[Path] = [ratings_path]

    def optional(name: str, reader: Callable[[Path], pd.DataFrame]) -> pd.DataFrame | None:
        """``reader`` of the side file ``name`` when the folder has it (recorded as read)."""
        f = folder / name
        if not os.path.lexists(f):
            return None
        check_input_file(f, expected=f"the MovieLens side file {name}")  # a folder, a FIFO
        with open(f, "rb") as fh:
            bom_length(fh.read(HEAD), f)  # UTF-16/32 or compressed: said so, with line 1
        read.append(f)
        return _unique_ids(reader(f), f)

    items = users = tags = None
    if layout == "ml-100k":
        frame = _read_numeric(ratings_path, sep="\t", header=False)
        genre_file = folder / "u.genre"
        genre_names = _read_u_genre(genre_file) if genre_file.is_file() else ML100K_GENRES
        if genre_file.is_file():
            read.append(genre_file)
        items = optional("u.item", lambda f: _read_u_item(f, genre_names))
        users = optional("u.user", _read_u_user)
    elif layout in ("ml-1m", "ml-10m"):
        frame = _read_numeric(ratings_path, sep="::", header=False)
        items = optional("movies.dat", _read_movies_dat)
        users = optional("users.dat", _read_users_dat)
        tags = optional("tags.dat", _read_tags_dat)
    else:
        frame = _read_numeric(ratings_path, sep=",", header=True)
        items = optional("movies.csv", _read_movies_csv)
        tags = optional("tags.csv", _read_tags_csv)
    _refuse_repeated_pairs(frame, ratings_path, header=layout not in ("ml-100k", "ml-1m", "ml-10m"))
    if tags is not None:  # tags in ms beside ratings in s: every tag history, or none
        refuse_mixed_units_across([(ratings_path, frame["timestamp"].to_numpy()),
                                   (read[-1], tags["timestamp"].to_numpy())])
    return Ratings(
        frame=frame,
        items=items,
        users=users,
        tags=tags,
        source=str(folder),
        sha256={f.name: sha256_file(f) for f in read},
        implicit=False,
    )


def read_side_tables(folder: PathLike) -> tuple[pd.DataFrame | None, pd.DataFrame | None,
                                                 list[Path]]:
    """The items (``movies.csv``) and tags (``tags.csv``) of a MovieLens CSV folder, without its
    ratings (for readers that stream the ratings themselves), and the files read."""
    f = Path(folder)
    read = [p for p in (f / "movies.csv", f / "tags.csv") if p.is_file()]
    items = _unique_ids(_read_movies_csv(f / "movies.csv"), f / "movies.csv") \
        if (f / "movies.csv").is_file() else None
    tags = _read_tags_csv(f / "tags.csv") if (f / "tags.csv").is_file() else None
    return items, tags, read


# --------------------------------------------------------------------------- ratings files


def _refuse_repeated_pairs(frame: pd.DataFrame, path: Path, *, header: bool) -> None:
    """A pair rated twice: an error naming the ratings file and both lines (not a folder, row)."""
    from bench.data.checks import duplicate_pair_rows
    from bench.data.inputs import line_of_data_row

    user, item = frame["user"].to_numpy(), frame["item"].to_numpy()
    dup = duplicate_pair_rows(user, item)
    if dup.size:
        r = int(dup[0])
        first = int(np.flatnonzero((user == user[r]) & (item == item[r]))[0])
        lines = [line_of_data_row(path, k + 1 + header) for k in (first, r)]
        raise DataError(f"user {user[r]} rates item {item[r]} again (first on line {lines[0]}; "
                        f"{dup.size} repeated pairs in all): expected one rating per (user, item) "
                        "pair; keep one row per pair, e.g. the latest rating", path=path, line=lines[1])


def _read_numeric(path: Path, *, sep: str, header: bool) -> pd.DataFrame:
    """user, item, rating, timestamp from a headerless (or ``userId,...`` header) numeric file."""
    check_input_file(path, expected="a ratings file")
    if path.stat().st_size == 0:
        raise DataError("empty file: expected ratings 'user item rating timestamp'", path=path)
    with open(path, "rb") as fh:
        bom_length(fh.read(HEAD), path)  # UTF-16/32, compressed refused; pyarrow skips a UTF-8 mark
    if sep == "::":
        names = ["user", "_1", "item", "_2", "rating", "_3", "timestamp"]
        delimiter = ":"
    else:
        names = ["user", "item", "rating", "timestamp"]
        delimiter = sep
    if header:
        _check_csv_header(path)
    types = {"user": pa.int64(), "item": pa.int64(), "rating": pa.float64(),
             "timestamp": pa.int64()}
    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=names, skip_rows=1 if header else 0,
                                           block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types=types, include_columns=list(types), strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise _locate_bad_ratings_line(path, sep, header, exc) from exc
    if table.num_rows == 0:  # before the checks below: pc.all of nothing is null, not true
        raise DataError("no ratings (only a header)", path=path)
    if sep == "::" and _double_colons(path) != 3 * table.num_rows:  # '1:7:2:8:3:9:101'
        raise _locate_bad_ratings_line(path, sep, header, None)
    if any(table.column(c).null_count for c in types) or not pc.all(
            pc.is_finite(table.column("rating"))).as_py():  # pyarrow reads 'nan' and 'inf'
        raise _locate_bad_ratings_line(path, sep, header, None)
    # split_blocks + self_destruct: no consolidation copy, Arrow buffers freed as they convert
    frame = table.select(list(types)).to_pandas(split_blocks=True, self_destruct=True)
    del table
    refuse_mixed_units(frame["timestamp"].to_numpy(), path=path, column="timestamp",
                       where=lambda i: {"row": i + 1})
    return frame


def _double_colons(path: Path) -> int:
    """How many ``::`` a ``::``-separated file holds (3 a line when every line is 4 fields).

    Read with ``:`` as the delimiter, a line of 7 fields whose gaps are not empty
    (``1:7:2:8:3:9:101``) would pass as ``1::2::3::101``; pyarrow has checked 6 colons a line,
    so the gaps are all empty exactly when there are 3 ``::`` a line. One vectorised pass over
    16 MiB blocks: 0.26 s for 5M lines (138 MB) where pyarrow's parse takes 2.4-3.5 s."""
    total, tail = 0, False
    with open(path, "rb") as fh:
        while block := fh.read(1 << 24):
            colon = np.frombuffer(block, dtype=np.uint8) == ord(":")
            total += int(np.count_nonzero(colon[1:] & colon[:-1])) + int(tail and colon[0])
            tail = bool(colon[-1])
    return total


def _check_csv_header(path: Path) -> None:
    with open(path, "rb") as fh:  # the first line ends at LF, CRLF or a lone CR (bench.data.inputs)
        first = fh.readline().split(b"\r", 1)[0].decode("utf-8", errors="replace").strip()
        first = first.lstrip("\ufeff")
    got = tuple(c.strip().strip("\"") for c in first.split(","))
    if got != _CSV_HEADER:
        raise DataError(
            f"header {first!r}: expected {','.join(_CSV_HEADER)}", path=path, line=1
        )


def _locate_bad_ratings_line(
    path: Path, sep: str, header: bool, exc: Exception | None
) -> DataError:
    """The first line that the strict grammar refuses (integers in int64, a finite plain
    decimal rating), as a :class:`DataError` naming it and what was expected."""
    names = ("user", "item", "rating", "timestamp")
    expected = sep.join(names)
    for lineno, raw in text_lines(path, expected="a ratings file"):
        if header and lineno == 1:
            continue
        text = raw.decode("utf-8")
        fields = text.split(sep)
        shown = text if len(text) <= 60 else text[:57] + "..."
        if len(fields) != 4:
            return DataError(f"malformed line {shown!r}: {len(fields)} fields, expected "
                             f"{expected!r}{dos_eof_hint(raw)}", path=path, line=lineno)
        for name, value in zip(names, fields, strict=True):
            try:
                if name == "rating":
                    parse_float(value, what=name, path=path, line=lineno, column=name)
                elif parse_int(value, what=name, path=path, line=lineno, column=name) is not None \
                        and value.strip().startswith("+"):  # pyarrow's int64 takes no '+'
                    raise DataError(f"{name} {value!r} has a '+' sign: expected plain digits")
            except DataError as bad:
                return DataError(f"malformed line {shown!r}: {bad.reason}; expected {expected!r}",
                                 path=path, line=lineno, column=name)
    return DataError(f"could not parse (expected lines {expected!r}): {exc}", path=path)


# --------------------------------------------------------------------------- ml-100k side files


def _read_u_genre(path: Path) -> tuple[str, ...]:
    names: dict[int, str] = {}
    for lineno, line in enumerate(dat_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        name, _, idx = line.rpartition("|")
        if not name or not _digits(idx.strip()):
            raise DataError(f"expected 'genre|index', got {line!r}", path=path, line=lineno)
        names[int(idx)] = name
    if sorted(names) != list(range(len(names))):
        raise DataError(f"genre indices {sorted(names)} are not 0..{len(names) - 1}", path=path)
    return tuple(names[i] for i in range(len(names)))


def _read_u_item(path: Path, genre_names: Sequence[str]) -> pd.DataFrame:
    n_genres = len(genre_names)
    cols = ["item", "title", "release_date", "video_release_date", "imdb_url",
            *[f"g{i}" for i in range(n_genres)]]
    text = dat_text(path)  # Latin-1 where it is not UTF-8
    try:
        df = pd.read_csv(io.StringIO(text), sep="|", header=None, names=cols,
                         dtype={"item": "int64", "title": str}, keep_default_na=False,
                         quoting=3)
    except (ValueError, pd.errors.ParserError) as exc:
        raise _located(path, "|", (0,), f"could not parse u.item: {exc}") from exc
    flags = df[[f"g{i}" for i in range(n_genres)]]
    if not flags.isin([0, 1]).to_numpy().all():
        r = int(np.flatnonzero(~flags.isin([0, 1]).to_numpy().all(axis=1))[0])
        raise DataError(f"expected {n_genres} genre flags 0/1", path=path, line=r + 1)
    flag_values = flags.to_numpy(dtype=bool)
    names = np.asarray(genre_names, dtype=object)
    genres = [tuple(names[row]) for row in flag_values]
    year = _years(df["title"])
    release_year = pd.to_datetime(df["release_date"], format="%d-%b-%Y", errors="coerce").dt.year
    year = year.fillna(release_year.astype("Int64"))
    return pd.DataFrame({
        "item": df["item"].astype(np.int64),
        "title": df["title"].astype(str),
        "year": year,
        "genres": genres,
        "release_date": df["release_date"],
        "imdb_url": df["imdb_url"],
    })


def _read_u_user(path: Path) -> pd.DataFrame:
    text = dat_text(path)
    try:
        df = pd.read_csv(io.StringIO(text), sep="|", header=None,
                         names=["user", "age", "gender", "occupation", "zip"],
                         dtype={"user": "int64", "age": "int64", "gender": str,
                                "occupation": str, "zip": str}, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as exc:
        raise _located(path, "|", (0, 1), "could not parse u.user (user|age|gender|occupation|"
                       f"zip): {exc}", fields=5) from exc
    bad = _located(path, "|", (0, 1), "", fields=5)  # 'user|age|gender|occupation' reads
    if bad.reason:  # with an empty zip: a Python pass over its 943 lines tells it
        raise bad
    return df


# --------------------------------------------------------------------------- ml-1m / ml-10m side files


def _read_movies_dat(path: Path) -> pd.DataFrame:
    ids, titles, genres = [], [], []
    for lineno, line in enumerate(dat_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        head, sep1, rest = line.partition("::")
        title, sep2, g = rest.rpartition("::")
        if not sep1 or not sep2 or not _digits(head.strip()):
            raise DataError(f"expected 'MovieID::Title::Genres', got {line[:60]!r}", path=path,
                            line=lineno)
        ids.append(int(head))
        titles.append(title)
        genres.append(_split_genres(g))
    return _items_frame(ids, titles, genres)


def _read_users_dat(path: Path) -> pd.DataFrame:
    rows = []
    for lineno, line in enumerate(dat_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("::")
        if len(parts) != 5 or not _digits(parts[0]) or not _digits(parts[2]) \
                or not _digits(parts[3]):
            raise DataError(f"expected 'UserID::Gender::Age::Occupation::Zip-code', got "
                            f"{line[:60]!r}", path=path, line=lineno)
        rows.append((int(parts[0]), parts[1], int(parts[2]), int(parts[3]), parts[4]))
    return pd.DataFrame(rows, columns=["user", "gender", "age", "occupation", "zip"]).astype(
        {"user": "int64", "age": "int64", "occupation": "int64"}
    )


def _read_tags_dat(path: Path) -> pd.DataFrame:
    users, items, tags, stamps = [], [], [], []
    for lineno, line in enumerate(dat_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        u, s1, rest = line.partition("::")
        i, s2, rest = rest.partition("::")
        tag, s3, ts = rest.rpartition("::")
        if not (s1 and s2 and s3) or not (_digits(u) and _digits(i) and _digits(ts.strip())):
            raise DataError(f"expected 'UserID::MovieID::Tag::Timestamp', got {line[:60]!r}",
                            path=path, line=lineno)
        users.append(int(u))
        items.append(int(i))
        tags.append(tag)
        stamps.append(int(ts))
    return pd.DataFrame({
        "user": np.asarray(users, dtype=np.int64),
        "item": np.asarray(items, dtype=np.int64),
        "tag": pd.Series(tags, dtype=object),
        "timestamp": np.asarray(stamps, dtype=np.int64),
    })


# --------------------------------------------------------------------------- csv side files


def _read_movies_csv(path: Path) -> pd.DataFrame:
    check_field_counts(path, ",")  # a NUL or U+2028 in a title or genre, a line short of fields
    try:
        df = pd.read_csv(path, dtype={"movieId": "int64", "title": str, "genres": str},
                         keep_default_na=False, encoding="utf-8")
    except (ValueError, pd.errors.ParserError) as exc:
        raise _located(path, ",", (0,), f"could not parse movies.csv (movieId,title,genres): "
                       f"{exc}", header=True) from exc
    missing = [c for c in ("movieId", "title", "genres") if c not in df.columns]
    if missing:
        raise DataError("missing column", path=path, column=missing[0])
    genres = [_split_genres(g) for g in df["genres"].tolist()]
    return _items_frame(df["movieId"].to_numpy(), df["title"].tolist(), genres)


def _read_tags_csv(path: Path) -> pd.DataFrame:
    check_field_counts(path, ",")  # the stray characters and field counts of every reader
    try:
        df = pd.read_csv(path, dtype={"userId": "int64", "movieId": "int64", "tag": str,
                                      "timestamp": "int64"},
                         keep_default_na=False, encoding="utf-8")
    except (ValueError, pd.errors.ParserError) as exc:
        raise _located(path, ",", (0, 1, -1), "could not parse tags.csv (userId,movieId,tag,"
                       f"timestamp): {exc}", header=True) from exc
    missing = [c for c in ("userId", "movieId", "tag", "timestamp") if c not in df.columns]
    if missing:
        raise DataError("missing column", path=path, column=missing[0])
    stamps = df["timestamp"].to_numpy(np.int64)  # one unit within the file (the Dask path too)
    refuse_mixed_units(stamps, path=path, column="timestamp", where=lambda i: {"row": i + 1})
    return pd.DataFrame({"user": df["userId"].to_numpy(np.int64), "item": df["movieId"].to_numpy(
        np.int64), "tag": df["tag"].astype(object), "timestamp": stamps})


# --------------------------------------------------------------------------- helpers


def _located(path: Path, sep: str, ints: tuple[int, ...], fallback: str, *,
             fields: int | None = None, header: bool = False) -> DataError:
    """The first line of a side file whose integer fields (positions ``ints``, negative from
    the end: a quoted title may hold the separator) are no plain integers, or that has not
    ``fields`` fields, as a :class:`DataError` naming it; ``fallback`` when every line is fine.
    Lines go through :func:`~bench.data.inputs.text_lines`: bytes that are not UTF-8 (a Latin-1
    ``movies.csv``) are named with their line too (``u.item``/``u.user`` are Latin-1: read so)."""
    latin1 = path.name in ("u.item", "u.user")
    for lineno, raw in text_lines(path, expected="a MovieLens file", plain=False) if not latin1 \
            else enumerate(path.read_bytes().split(b"\n"), start=1):
        parts = raw.decode("latin-1").rstrip("\r").split(sep)
        if (header and lineno == 1) or parts == [""]:
            continue
        if fields is not None and len(parts) != fields:
            return DataError(f"{len(parts)} fields, expected {fields}{dos_eof_hint(raw)}",
                             path=path, line=lineno)
        bad = next((parts[i] for i in ints if not _digits(parts[i].strip())), None)
        if bad is not None:
            return DataError(f"{bad[:40]!r} is not an integer (expected digits)"
                             f"{dos_eof_hint(bad)}{space_hint(bad)}", path=path, line=lineno)
    return DataError(fallback, path=path)


def _unique_ids(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    """``frame`` (items or users of ``path``) when each id is listed once: a second row of an
    id would give its item two titles and genres, or repeat its ratings when joined."""
    if "tag" in frame.columns:  # tags: many a (user, item); nothing to check
        return frame
    column = "item" if "item" in frame.columns else "user"
    twice = frame[column].duplicated(keep=False).to_numpy()
    if twice.any():
        rows = np.flatnonzero(twice)
        first = frame[column].to_numpy()[rows[0]]
        again = rows[frame[column].to_numpy()[rows] == first]
        raise DataError(f"{column} id {first} is listed twice (data rows {again[0] + 1} and "
                        f"{again[1] + 1}): expected one row per {column}", path=path,
                        column=column)
    return frame


def _split_genres(g: str) -> tuple[str, ...]:
    g = g.strip()
    if not g or g == NO_GENRES:
        return ()
    return tuple(x for x in g.split("|") if x)


def _years(titles: pd.Series) -> pd.Series:
    return titles.astype(str).str.extract(_YEAR, expand=False).astype("Int64")


def _items_frame(ids: Sequence[int] | np.ndarray, titles: Sequence[str],
                 genres: Sequence[tuple[str, ...]]) -> pd.DataFrame:
    title = pd.Series(list(titles), dtype=object)
    return pd.DataFrame({"item": np.asarray(ids, dtype=np.int64), "title": title, "year": _years(title),
                         "genres": pd.Series(list(genres), dtype=object)})


def _digits(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` is true for ``"١٢"`` (Arabic-Indic), which ``int``
    reads as 12, so such an id would silently join id 12."""
    return text.isascii() and text.isdigit()


def _given(path: PathLike) -> Path:
    if os.fspath(path) == "":  # Path("") is the working directory: say what was given
        raise DataError("an empty path: expected a MovieLens folder or ratings file", path="''")
    return Path(path)


def _folder(p: Path) -> Path:
    if p.is_file():
        return p.parent
    if not p.is_dir():
        raise DataError(f"no such file or folder{missing_note(p)}", path=p)
    markers = ("u.data", "ratings.dat", "ratings.csv")
    if any((p / m).is_file() for m in markers):
        return p
    subdirs = [d for d in p.iterdir() if d.is_dir() and not d.name.startswith(".")]
    inner = [d for d in subdirs if any((d / m).is_file() for m in markers)]
    if len(inner) == 1:
        return inner[0]
    return p
