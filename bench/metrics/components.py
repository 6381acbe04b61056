"""Which kernel components a list of metrics needs, at which cutoffs (a :class:`Request`).

The components themselves, :class:`Components` (what a kernel returns) and :class:`Request` are
in :mod:`bench.metrics.kernels.components` (re-exported here); which components each family is
finished from is its record's ``components`` (:mod:`bench.metrics.families`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.errors import ConfigError
from bench.metrics.families import FAMILIES
from bench.metrics.kernels.components import COMPONENTS, Components, Request, split_param
from bench.metrics.names import MetricSpec
from bench.metrics.profile import Profile

__all__ = ["COMPONENTS", "Components", "Request", "build_request", "metric_cutoff"]


def build_request(specs: Sequence[MetricSpec], profile: Profile) -> Request:
    """Cutoffs per component for these metrics under ``profile`` (a bare name gets its
    ``default_k``; families without a cutoff -- set_P, bpref, ... -- are always over the
    whole list; a family's components under the profile and at its parameter:
    ``Family.components_for``, ``rbp=0.8``; a family that needs one order, ``Family.ordered``,
    is refused under ``ties="average"``)."""
    default_k = profile.default_k
    ks: dict[str, list[int | None]] = {c: [] for c in COMPONENTS}
    finite: list[int] = []
    uncut = False
    for spec in specs:
        if spec.pointwise:
            continue
        k = metric_cutoff(spec, default_k)
        if k is None:
            uncut = True
        else:
            finite.append(k)
        fam = FAMILIES[spec.family]
        if fam.subtopics:
            raise ConfigError(f"{spec.key} needs subtopic qrels ('topic subtopic docno judgment'):"
                              " evaluate it with evaluate_trec or ltrbench evaluate --qrels/--run")
        if fam.ordered and profile.ties == "average":
            raise ConfigError(
                f"{spec.key} needs one order of the documents, and profile {profile.name!r} "
                "averages tied scores (ties='average'): a maximum over ranks has no exact "
                "expectation over tied orders; use a profile with a tie rule (trec_eval: "
                f"document id descending), e.g. trec_eval:{spec.name}")
        param = spec.param if spec.param is not None else (
            fam.param.default if fam.param is not None else None)
        for comp in fam.components_for(profile, param):
            if split_param(comp)[0] not in COMPONENTS:
                raise ConfigError(f"metric family {spec.family!r} needs component {comp!r}, "
                                  f"which no kernel computes (known: {', '.join(COMPONENTS)})")
            if k not in ks.setdefault(comp, []):
                ks[comp].append(k)
    # The tie count covers the deepest cutoff asked: a whole-list metric (``map``) means the
    # whole list even beside ``ndcg@10``; ``None`` = whole list.
    ties_k = None if uncut else max(finite, default=None)
    return Request(ks={c: tuple(v) for c, v in ks.items() if v}, ties_k=ties_k)


def metric_cutoff(spec: MetricSpec, default_k: int | None) -> int | None:
    """The cutoff a metric is computed at: ``None`` (whole list) for the families without one,
    else its ``@k``, else the profile's ``default_k`` (``None`` for a bare ``rprec``:
    ``Family.bare_whole``)."""
    fam = FAMILIES[spec.family]
    if not fam.cutoff or (spec.k is None and fam.bare_whole):
        return None
    return spec.k if spec.k is not None else default_k
