"""The dataset catalogue: completeness, honest digests, specs, the generated table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.datasets.catalogue import (
    UNKNOWN,
    cards_dir,
    fold_of,
    get_card,
    load_card,
    load_catalogue,
    parse_spec,
    render_markdown,
)
from bench.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]
REQUIRED = {
    "ml-100k", "ml-1m", "ml-10m", "ml-latest-small", "ml-latest", "ml-25m", "ml-32m",
    "mslr-web10k", "mslr-web30k", "yahoo-ltr", "istella", "mq2007", "mq2008", "ohsumed",
    "lightgbm-lambdarank", "synthetic", "synthetic-mslr30k", "synthetic-yahoo", "synthetic-istella",
}
HEX64 = re.compile(r"[0-9a-f]{64}")


def _all_variants() -> list:
    out = []
    for card in load_catalogue().values():
        out.extend([card.with_variant(v) for v in card.variants] or [card])
    return out


def test_every_required_dataset_has_a_card() -> None:
    assert set(load_catalogue()) == REQUIRED


def test_cards_live_in_the_package() -> None:
    import bench.datasets

    assert cards_dir() == Path(bench.datasets.__file__).parent / "cards"
    assert {p.stem for p in cards_dir().glob("*.toml")} == REQUIRED


def test_every_card_has_the_fields_a_user_needs() -> None:
    for c in _all_variants():
        for field in (c.title, c.size, c.licence, c.citation):
            assert field, c.spec
        assert c.kind in ("letor", "ratings", "synthetic"), c.spec
        if c.kind != "synthetic":
            assert c.homepage.startswith("http"), c.spec
            assert c.dir, c.spec
            assert c.hash_source, c.spec
        for digest in [c.archive_sha256, *c.files.values()]:
            assert digest == UNKNOWN or HEX64.fullmatch(digest), (c.spec, digest)


def test_kinds_and_loaders_agree() -> None:
    for c in _all_variants():
        expected = {"ratings": ("movielens",), "synthetic": ("synthetic", "letor-shapes")}
        if c.kind in expected:
            assert c.loader in expected[c.kind], c.spec
        else:
            assert c.loader in ("letor", "lightgbm"), c.spec


def _manifest() -> dict[str, str]:
    f = REPO.parent / "shared" / "data" / "MANIFEST.sha256"
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    out = {}
    for line in f.read_text().splitlines():
        digest, path = line.split()
        out[path.removeprefix("./")] = digest
    return out


@pytest.mark.parametrize(("name", "folder"), [
    ("ml-latest-small", "ml-latest-small"),
    ("ohsumed", "letor3-OHSUMED-QueryLevelNorm"),
    ("lightgbm-lambdarank", "lightgbm-lambdarank"),
])
def test_card_digests_of_shared_datasets_equal_the_shared_manifest(name: str, folder: str) -> None:
    manifest = _manifest()
    card = get_card(name)
    assert card.dir == folder
    assert card.files, name
    for rel, digest in card.files.items():
        assert manifest[f"{folder}/{rel}"] == digest, rel


def test_datasets_without_a_public_download_say_so() -> None:
    for name in ("yahoo-ltr", "mq2007", "mq2008", "ohsumed"):
        card = get_card(name)
        assert not card.downloadable, name
        assert card.url == ""
    assert "no public download URL" in get_card("yahoo-ltr").licence
    assert "Webscope" in get_card("yahoo-ltr").notes
    assert get_card("mq2007").archive_format == "rar"


def test_downloadable_cards_with_known_digest_also_give_the_size() -> None:
    for c in _all_variants():
        if c.downloadable and c.archive_format != "files" and c.archive_sha256 != UNKNOWN:
            assert c.archive_size > 0, c.spec
            assert c.archive, c.spec


def test_published_archive_digests_are_the_tensorflow_datasets_ones() -> None:
    # tensorflow/datasets: url_checksums/movielens.txt, ranking/mslr_web/checksums.tsv
    assert get_card("ml-25m").archive_sha256.startswith("8b21cfb7eb1706b4")
    assert get_card("ml-latest-small").archive_size == 978202
    assert get_card("mslr-web30k").archive_sha256.startswith("08cb7977e1d5cbde")
    assert get_card("ml-10m").archive_sha256 == UNKNOWN
    assert get_card("ml-32m").archive_sha256 == UNKNOWN


def test_variants_and_folds() -> None:
    assert get_card("istella").variant == "full"
    s = get_card("istella:s")
    assert s.dir == "istella-s-letor"
    assert s.splits["vali"] == "sample/vali.txt"
    assert get_card("yahoo-ltr:set2").splits["train"] == "set2.train.txt"
    assert get_card("yahoo-ltr").variant == "set1"
    web = get_card("mslr-web10k:Fold3")
    assert fold_of("mslr-web10k:Fold3", web) == "Fold3"
    assert fold_of("mslr-web10k", web) == "Fold1"
    with pytest.raises(ConfigError, match="no fold 'Fold9'"):
        fold_of("mslr-web10k:Fold9", web)
    with pytest.raises(ConfigError, match="valid: full, s, x"):
        get_card("istella:y")
    assert parse_spec("ISTELLA:s") == ("istella", "s")


def test_unknown_name_lists_the_valid_names() -> None:
    with pytest.raises(ConfigError) as info:
        get_card("mslr")
    for name in ("ml-latest-small", "ohsumed", "synthetic"):
        assert name in str(info.value)


def test_bad_card_is_a_config_error_naming_file_and_key(tmp_path: Path) -> None:
    f = tmp_path / "x.toml"
    f.write_text('name = "x"\ntitle = "X"\nkind = "letor"\nloader = "letor"\nhomepage = ""\n'
                 'size = "1"\nlicence = "l"\ncitation = "c"\narchive_sha256 = "abc"\n')
    with pytest.raises(ConfigError, match=r"x\.toml: 'abc' is neither a sha256"):
        load_card(f)
    f.write_text(f.read_text().replace('archive_sha256 = "abc"', 'colour = "red"'))
    with pytest.raises(ConfigError, match=r"x\.toml: unknown key 'colour'"):
        load_card(f)


def test_committed_catalogue_table_is_up_to_date() -> None:
    committed = (REPO / "datasets" / "catalogue.md").read_text(encoding="utf-8")
    assert committed == render_markdown(), (
        "regenerate: ltrbench datasets list --format markdown > datasets/catalogue.md")


@pytest.mark.parametrize("spec", ["istella:", "ohsumed: ", "synthetic-mslr30k:"])
def test_a_colon_with_nothing_after_it_is_refused_not_read_as_the_default(spec: str) -> None:
    from bench.datasets.catalogue import parse_spec

    with pytest.raises(ConfigError, match="nothing after ':'"):
        parse_spec(spec)
