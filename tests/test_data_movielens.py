"""MovieLens loaders: every layout on small files written here, and ml-latest-small for real."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import numpy as np
import pytest

from bench.data.movielens import ML100K_GENRES, detect_layout, load_movielens
from bench.errors import ConfigError, DataError


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _flags(*names: str) -> str:
    return "|".join("1" if g in names else "0" for g in ML100K_GENRES)


@pytest.fixture
def ml100k(tmp_path: Path) -> Path:
    d = tmp_path / "ml-100k"
    d.mkdir()
    (d / "u.data").write_text(
        "196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\t878887116\n"
        "196\t302\t5\t881250950\n"
    )
    items = [
        f"242|Kolya (1996)|24-Jan-1997||http://us.imdb.com/M/title-exact?Kolya%20(1996)|"
        f"{_flags('Comedy')}",
        f"302|L.A. Confidential (1997)|01-Jan-1997||http://x|{_flags('Crime', 'Film-Noir')}",
        f"377|Misérables, Les (1995)|01-Jan-1995||http://x|{_flags('Drama', 'Musical')}",
        f"267|unknown||||{_flags('unknown')}",
        f"1|Toy Story|01-Jan-1995||http://x|{_flags('Animation', 'Children', 'Comedy')}",
    ]
    (d / "u.item").write_bytes(("\n".join(items) + "\n").encode("latin-1"))
    (d / "u.genre").write_text("".join(f"{g}|{i}\n" for i, g in enumerate(ML100K_GENRES)) + "\n")
    (d / "u.user").write_text("196|49|M|writer|55105\n186|39|F|executive|00000\n"
                              "22|25|M|writer|40206\n")
    return d


def test_ml100k_ratings_items_users_and_hashes(ml100k: Path) -> None:
    r = load_movielens(ml100k)
    assert detect_layout(ml100k) == "ml-100k"
    assert r.frame["user"].tolist() == [196, 186, 22, 196]
    assert r.frame["item"].tolist() == [242, 302, 377, 302]
    assert r.frame["rating"].tolist() == [3.0, 3.0, 1.0, 5.0]
    assert r.frame["timestamp"].tolist() == [881250949, 891717742, 878887116, 881250950]
    assert r.frame.dtypes.astype(str).tolist() == ["int64", "int64", "float64", "int64"]
    items = r.items.set_index("item")
    assert items.loc[377, "title"] == "Misérables, Les (1995)"  # Latin-1 decoded
    assert items.loc[302, "genres"] == ("Crime", "Film-Noir")
    assert items.loc[242, "year"] == 1996
    assert items.loc[267, "genres"] == ("unknown",)
    assert items.loc[267, "year"] is pd_na()
    assert items.loc[1, "year"] == 1995  # no year in the title: from the release date
    assert items.loc[1, "genres"] == ("Animation", "Comedy")  # "Children" is not a genre name
    assert r.users["occupation"].tolist() == ["writer", "executive", "writer"]
    assert r.users["zip"].tolist() == ["55105", "00000", "40206"]
    assert r.sha256 == {f: _sha(ml100k / f) for f in ("u.data", "u.genre", "u.item", "u.user")}
    assert not r.implicit


def pd_na() -> object:
    import pandas as pd

    return pd.NA


def test_ml100k_without_u_genre_uses_the_documented_genre_list(ml100k: Path) -> None:
    (ml100k / "u.genre").unlink()
    r = load_movielens(ml100k)
    assert r.items.set_index("item").loc[377, "genres"] == ("Drama", "Musical")
    assert "u.genre" not in r.sha256


def test_ml100k_short_line_names_file_and_line(ml100k: Path) -> None:
    (ml100k / "u.data").write_text("196\t242\t3\t881250949\n186\t302\t3\n")
    with pytest.raises(DataError) as info:
        load_movielens(ml100k)
    assert info.value.line == 2
    assert str(info.value).startswith(f"{ml100k / 'u.data'}:2: malformed line")


@pytest.fixture
def ml1m(tmp_path: Path) -> Path:
    d = tmp_path / "ml-1m"
    d.mkdir()
    (d / "ratings.dat").write_text("1::1193::5::978300760\n1::661::3::978302109\n"
                                   "2::1193::4::978298413\n")
    (d / "movies.dat").write_bytes(
        "1193::One Flew Over the Cuckoo's Nest (1975)::Drama\n"
        "661::James and the Giant Peach (1996)::Animation|Children's|Musical\n"
        "260::Star Wars: Episode IV - A New Hope (1977)::Action|Adventure|Fantasy|Sci-Fi\n"
        "73::Misérables, Les (1995)::Drama|Musical\n".encode("latin-1")
    )
    (d / "users.dat").write_text("1::F::1::10::48067\n2::M::56::16::70072\n")
    return d


def test_ml1m_dat_files(ml1m: Path) -> None:
    r = load_movielens(ml1m)
    assert detect_layout(ml1m) == "ml-1m"
    assert r.frame.values.tolist() == [[1, 1193, 5, 978300760], [1, 661, 3, 978302109],
                                       [2, 1193, 4, 978298413]]
    items = r.items.set_index("item")
    assert items.loc[260, "title"] == "Star Wars: Episode IV - A New Hope (1977)"
    assert items.loc[260, "year"] == 1977
    assert items.loc[661, "genres"] == ("Animation", "Children's", "Musical")
    assert items.loc[73, "title"] == "Misérables, Les (1995)"
    assert r.users.to_dict("list") == {"user": [1, 2], "gender": ["F", "M"], "age": [1, 56],
                                       "occupation": [10, 16], "zip": ["48067", "70072"]}
    assert set(r.sha256) == {"ratings.dat", "movies.dat", "users.dat"}


def test_ml1m_malformed_rating_names_the_line(ml1m: Path) -> None:
    (ml1m / "ratings.dat").write_text("1::1193::5::978300760\n1::661::x::978302109\n")
    with pytest.raises(DataError, match=r"ratings\.dat:2, column 'rating': malformed line "
                       r"'1::661::x::978302109': rating 'x' is not a plain decimal number"):
        load_movielens(ml1m)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("nan", "rating 'nan' is not a plain decimal number"),  # was "could not parse: None"
        ("inf", "rating 'inf' is not a plain decimal number"),  # was a row of the folder
        ("0_3", "rating '0_3' is not a plain decimal number"),
    ],
)
def test_ml100k_non_finite_or_lax_rating_names_the_line(ml100k: Path, value: str,
                                                         reason: str) -> None:
    (ml100k / "u.data").write_text(f"196\t242\t3\t881250949\n186\t302\t{value}\t891717742\n")
    with pytest.raises(DataError, match=rf"u\.data:2, column 'rating': .*{reason}"):
        load_movielens(ml100k)


def test_ml100k_timestamp_beyond_int64_names_the_line(ml100k: Path) -> None:
    (ml100k / "u.data").write_text("196\t242\t3\t881250949\n186\t302\t3\t100000000000000000000\n")
    with pytest.raises(DataError, match=r"u\.data:2, column 'timestamp': .*out of range"):
        load_movielens(ml100k)


def test_ratings_file_with_a_utf8_bom_reads_as_without(ml100k: Path) -> None:
    plain = load_movielens(ml100k).frame
    (ml100k / "u.data").write_bytes(b"\xef\xbb\xbf" + (ml100k / "u.data").read_bytes())
    assert load_movielens(ml100k).frame.equals(plain)
    assert plain["user"].tolist()[0] == 196


def test_utf16_ratings_file_is_refused(ml100k: Path) -> None:
    (ml100k / "u.data").write_bytes("196\t242\t3\t881250949\n".encode("utf-16"))
    with pytest.raises(DataError, match=r"u\.data:1: the file is UTF-16"):
        load_movielens(ml100k)


@pytest.fixture
def ml10m(tmp_path: Path) -> Path:
    outer = tmp_path / "ml-10m"
    d = outer / "ml-10M100K"  # what ml-10m.zip unpacks to
    d.mkdir(parents=True)
    (d / "ratings.dat").write_text("1::122::5::838985046\n1::185::4.5::838983525\n"
                                   "2::122::0.5::868245777\n")
    (d / "movies.dat").write_text("122::Boomerang (1992)::Comedy|Romance\n"
                                  "185::Net, The (1995)::Action|Crime|Thriller\n")
    (d / "tags.dat").write_text("15::122::excellent!::1215184630\n"
                                "20::185::politics: satire::1188263880\n")
    return outer


def test_ml10m_half_stars_tags_and_nested_folder(ml10m: Path) -> None:
    r = load_movielens(ml10m)  # the outer folder: the loader finds ml-10M100K/
    assert detect_layout(ml10m) == "ml-10m"
    assert r.source.endswith("ml-10M100K")
    assert r.frame["rating"].tolist() == [5.0, 4.5, 0.5]
    assert r.tags.to_dict("list") == {"user": [15, 20], "item": [122, 185],
                                      "tag": ["excellent!", "politics: satire"],
                                      "timestamp": [1215184630, 1188263880]}
    assert r.users is None
    assert r.items["genres"].tolist() == [("Comedy", "Romance"), ("Action", "Crime", "Thriller")]


@pytest.fixture
def mlcsv(tmp_path: Path) -> Path:
    d = tmp_path / "ml-small"
    d.mkdir()
    (d / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,1,4.0,964982703\n"
                                   "1,3,4.5,964981247\n2,1,3.5,1445714994\n")
    (d / "movies.csv").write_text(
        "movieId,title,genres\n1,Toy Story (1995),Adventure|Animation\n"
        '3,"American President, The (1995)",Comedy|Drama|Romance\n'
        "5,Black Mirror,(no genres listed)\n"
        '7,"Death Note: Desu nôto (2006–2007)",(no genres listed)\n'
        "9,Jumanji (1995) ,Adventure\n",
        encoding="utf-8",
    )
    (d / "tags.csv").write_text('userId,movieId,tag,timestamp\n2,1,"funny, really",1445714994\n'
                                '1,3,"the ""best""",1445714995\n')
    return d


def test_movielens_csv_quoted_titles_genres_years_and_tags(mlcsv: Path) -> None:
    r = load_movielens(mlcsv)
    assert detect_layout(mlcsv) == "movielens-csv"
    assert r.frame.values.tolist() == [[1, 1, 4.0, 964982703], [1, 3, 4.5, 964981247],
                                       [2, 1, 3.5, 1445714994]]
    items = r.items.set_index("item")
    assert items.loc[3, "title"] == "American President, The (1995)"
    assert items.loc[3, "genres"] == ("Comedy", "Drama", "Romance")
    assert items.loc[5, "genres"] == ()
    assert items.loc[5, "year"] is pd_na()
    assert items.loc[7, "year"] == 2006  # a year range: its first year
    assert items.loc[9, "year"] == 1995  # trailing space after the year
    assert r.tags["tag"].tolist() == ["funny, really", 'the "best"']
    assert r.sha256 == {f: _sha(mlcsv / f) for f in ("ratings.csv", "movies.csv", "tags.csv")}


def test_a_ratings_file_path_loads_its_folder(mlcsv: Path) -> None:
    assert load_movielens(mlcsv / "ratings.csv").n_ratings == 3


def test_csv_with_wrong_header_is_an_error_on_line_1(mlcsv: Path) -> None:
    (mlcsv / "ratings.csv").write_text("user,item,rating,timestamp\n1,1,4.0,1\n")
    with pytest.raises(DataError, match=r"ratings\.csv:1: header"):
        load_movielens(mlcsv)


def test_csv_bad_value_names_the_line_counting_the_header(mlcsv: Path) -> None:
    (mlcsv / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,1,4.0,1\n1,2,,2\n")
    with pytest.raises(DataError, match=r"ratings\.csv:3, column 'rating': malformed line '1,2,,2'"):
        load_movielens(mlcsv)


def test_duplicate_user_item_pair_is_rejected(mlcsv: Path) -> None:
    (mlcsv / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,1,4.0,1\n1,1,3.0,2\n")
    with pytest.raises(DataError, match="duplicate"):
        load_movielens(mlcsv)


def test_forced_layout_must_be_known(mlcsv: Path) -> None:
    with pytest.raises(ConfigError, match="ml-100k, ml-1m, ml-10m, movielens-csv"):
        load_movielens(mlcsv, layout="ml-20m")


def test_folder_without_movielens_files_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="not a MovieLens folder"):
        load_movielens(tmp_path)


# --------------------------------------------------------------------------- real data


@pytest.fixture
def ml_latest_small(shared_data: Path) -> Path:
    d = shared_data / "ml-latest-small"
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    return d


def test_ml_latest_small_counts_match_the_grouplens_readme(ml_latest_small: Path) -> None:
    r = load_movielens(ml_latest_small)
    # README.txt: 100836 ratings and 3683 tag applications across 9742 movies, 610 users
    assert r.n_ratings == 100_836
    assert r.n_users == 610
    assert r.n_items == 9_724  # movies with at least one rating
    assert len(r.items) == 9_742
    assert len(r.tags) == 3_683
    assert r.frame["rating"].min() == 0.5
    assert r.frame["rating"].max() == 5.0


def test_ml_latest_small_frame_equals_a_csv_module_parse(ml_latest_small: Path) -> None:
    r = load_movielens(ml_latest_small)
    with open(ml_latest_small / "ratings.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert r.frame["user"].tolist() == [int(x["userId"]) for x in rows]
    assert r.frame["item"].tolist() == [int(x["movieId"]) for x in rows]
    assert r.frame["rating"].tolist() == [float(x["rating"]) for x in rows]
    assert r.frame["timestamp"].tolist() == [int(x["timestamp"]) for x in rows]
    with open(ml_latest_small / "movies.csv", newline="", encoding="utf-8") as fh:
        movies = list(csv.DictReader(fh))
    assert r.items["title"].tolist() == [m["title"] for m in movies]
    expected_genres = [() if m["genres"] == "(no genres listed)" else tuple(m["genres"].split("|"))
                       for m in movies]
    assert r.items["genres"].tolist() == expected_genres
    assert sum(g == () for g in expected_genres) == 34


def test_ml_latest_small_years_agree_with_a_naive_title_parse(ml_latest_small: Path) -> None:
    items = load_movielens(ml_latest_small).items
    naive = []
    for title in items["title"]:
        t = title.rstrip()
        ok = len(t) >= 6 and t[-6] == "(" and t[-1] == ")" and t[-5:-1].isdigit()
        naive.append(int(t[-5:-1]) if ok else None)
    years = items["year"].astype(object).where(items["year"].notna(), None).tolist()
    assert [y for y, n in zip(years, naive, strict=True) if n is not None] == \
        [n for n in naive if n is not None]
    assert sum(y is None for y in years) == 12  # titles with no year at all
    assert int(np.nanmin(items["year"].astype(float))) == 1902


def test_ml_latest_small_hashes_match_the_shared_manifest(ml_latest_small: Path) -> None:
    manifest = {}
    for line in (ml_latest_small.parent / "MANIFEST.sha256").read_text().splitlines():
        digest, path = line.split()
        manifest[path.removeprefix("./")] = digest
    r = load_movielens(ml_latest_small)
    for name, digest in r.sha256.items():
        assert manifest[f"ml-latest-small/{name}"] == digest
