"""Which profile reproduces which library release (README "What changed between library
releases"), and what a profile name that carries a release no profile carries is told.

A profile name carries a release only where the library's definition changed
(``xgboost@1.7``, ``allrank@1.4.0``). ``xgboost@3.2.0`` or ``lightgbm@4`` are names a user
writes after an upgrade; edit distance would point ``xgboost@2.1.4`` at ``xgboost@1.7``, the
profile of the release it is *not*. :func:`release_hint` answers from :data:`RELEASES`, the
table ``ltrbench crosscheck --versions`` measured (``results/definitions/versions.json``;
``tests/test_hostile_round19b_upgrades.py`` keeps the two in step).
"""

from __future__ import annotations

import re

#: library -> ((first release, first release past, profile), ...), as README says: "xgboost@1.7
#: for XGBoost 1.x, xgboost for 2.x and 3.x, lightgbm for any LightGBM from 3.3 on" (measured
#: on 1.7.6, 2.1.4, 3.2.0 and 3.3.5, 4.7.0); allRank 1.4.1 changed a blank slate's score.
RELEASES: dict[str, tuple[tuple[tuple[int, ...], tuple[int, ...], str], ...]] = {
    "xgboost": (((1,), (2,), "xgboost@1.7"), ((2,), (4,), "xgboost")),
    "lightgbm": (((3, 3), (999,), "lightgbm"),),
    "allrank": (((0,), (1, 4, 1), "allrank@1.4.0"), ((1, 4, 1), (999,), "allrank")),
}
#: The releases measured, as README's table names them.
MEASURED = ("XGBoost 1.7.6 -> 'xgboost@1.7', 2.1.4 and 3.2.0 -> 'xgboost'; "
            "LightGBM 3.3.5 and 4.7.0 -> 'lightgbm' (results/definitions/versions.md)")
_NAME = re.compile(r"^(?P<lib>[a-z]+)(?P<minus>-?)\s*@\s*(?P<release>.*?)(?P<minus2>-?)$")
_RELEASE = re.compile(r"^[1-9][0-9]*(\.(0|[1-9][0-9]*))*$")


def _profile_for(library: str, release: str) -> str | None:
    """The profile of ``library``'s ``release`` (``"2.1.4"``, ``"2"``), None if README's table
    does not cover it."""
    if not _RELEASE.match(release):
        return None
    parts = [int(p) for p in release.split(".")][:4]
    first = tuple(parts + [0] * (4 - len(parts)))  # ``2`` is every 2.x: all of it is covered
    last = tuple(parts + [10**9] * (4 - len(parts)))
    for low, past, profile in RELEASES.get(library, ()):
        if first >= low and last < past:
            return profile
    return None


def release_hint(name: str) -> str | None:
    """What to tell about ``name`` when it is ``LIBRARY@RELEASE`` and no profile: the profile
    README lists for that release, or the releases measured and how to measure another; None
    when ``name`` does not look like a library and a release."""
    found = _NAME.match(name.strip().lower())
    if found is None:
        return None
    lib, release = found["lib"], found["release"].strip()
    minus = "-" if (found["minus"] or found["minus2"]) else ""
    if lib == "catboost":
        return ("CatBoost releases were not compared (`crosscheck --versions` reads LightGBM "
                "and XGBoost); profile 'catboost' reproduces the CatBoost installed here. "
                f"Measured: {MEASURED}")
    if lib not in RELEASES:
        return None
    profile = _profile_for(lib, release)
    if lib == "allrank":
        if profile is None:
            return ("profile 'allrank' reproduces allRank 1.4.1 and later, 'allrank@1.4.0' "
                    "the releases before it")
        return f"allRank {release} is reproduced by profile '{profile}'"
    if profile is None:
        return (f"{lib} {release or '(no release)'} is not a release measured: {MEASURED}; "
                f"measure another with `ltrbench crosscheck --versions {lib}==X.Y.Z`")
    profile += minus if profile.startswith("xgboost") else ""
    return (f"{lib} {release} is reproduced by profile '{profile}' (a profile name carries "
            f"a release only where the definition changed; measured: {MEASURED})")
