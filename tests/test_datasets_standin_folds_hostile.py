"""Hostile fold specs of the stand-ins (synthetic-mslr30k, synthetic-yahoo, synthetic-istella):
the one grammar is ``NAME[:SCALE[,seed=N]]:FoldK`` with K an ASCII 1..5; anything else that
names a fold is refused saying that grammar, and the other datasets' specs are untouched.
On the code before stand-ins had folds, every stand-in fold spec was refused by the scale
grammar's message (which names no fold): 14 of the 16 cases failed; with the first fold
reader, 8 (Unicode digits, leading zeros, a fold not last taken by the scale grammar); 0 now."""

from __future__ import annotations

import pytest

from bench.datasets.resolve import resolve_spec
from bench.errors import ConfigError

ACCEPTED = [
    ("synthetic-mslr30k:0.01,seed=1:Fold2", 2, 0.01, 1),
    ("SYNTHETIC-MSLR30K:0.01:FOLD3", 3, 0.01, 0),
    ("synthetic-istella:fold5", 5, 1.0, 0),
]
REFUSED = [
    "synthetic-mslr30k:Fold",  # no number
    "synthetic-mslr30k:Fold 3",  # a space inside
    "synthetic-mslr30k: Fold3",  # a space before: taken as the scale grammar's item
    "synthetic-mslr30k:Fold3,seed=1",  # the fold before the seed
    "synthetic-mslr30k:Fold2:0.01",  # the fold before the scale
    "synthetic-mslr30k:0.01:Fold3:Fold2",  # two folds
    "synthetic-yahoo:Fold\u0663",  # an Arabic-Indic digit three
    "synthetic-mslr30k:Fold03",  # a leading zero: not the fold's name
    "synthetic-mslr30k:Fold0",
    "synthetic-mslr30k:0.01:Fold6",
    "synthetic-mslr30k:0.01:Fold99999999999999999999",
]


@pytest.mark.parametrize(("spec", "fold", "scale", "seed"), ACCEPTED)
def test_a_stand_in_fold_spec_is_read_once_into_its_fold_scale_and_seed(spec: str, fold: int,
                                                                        scale: float, seed: int) -> None:
    d = resolve_spec(spec)
    assert (d.fold, d.scale, d.seed) == (f"Fold{fold}", scale, seed)
    assert d.text == spec


@pytest.mark.parametrize("spec", REFUSED)
def test_a_malformed_stand_in_fold_is_refused_naming_the_fold_grammar(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"Fold(K|1 \.\.)"):
        resolve_spec(spec)


@pytest.mark.parametrize(("spec", "fold"), [("mslr-web10k:Fold3", "Fold3"), ("ohsumed", "Fold1")])
def test_the_real_letor_datasets_folds_are_read_as_before(spec: str, fold: str) -> None:
    assert resolve_spec(spec).fold == fold
