"""``python -m bench`` is the same as the ``ltrbench`` console script."""

from bench.cli import main

raise SystemExit(main())
