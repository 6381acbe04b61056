"""A team's module that prints a banner on import (round 18b)."""

print("teamrankers v1.2 loaded")

from round18b_rankers import Linear  # noqa: E402


class Printing(Linear):
    def predict(self, X):  # type: ignore[no-untyped-def]
        return self.scores(X)
