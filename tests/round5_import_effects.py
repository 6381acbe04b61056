"""A ranker module whose import changes ltrbench's process (``tests/test_hostile_api_round5.py``):
it prints to standard output, seeds NumPy's global generator, turns warnings into errors, sets
an environment variable and replaces ``numpy.argsort``."""

import os
import warnings

import numpy as np

print("round5: printed to stdout while imported")
np.random.seed(12345)  # noqa: NPY002 - the hostile part
warnings.simplefilter("error")
os.environ["ROUND5_IMPORT_EFFECT"] = "1"
_real_argsort = np.argsort
np.argsort = lambda a, *args, **kw: _real_argsort(a, *args, **kw)[::-1]

from round5_rankers import Base as Ranker  # noqa: E402, F401 - the factory
