"""Sub-commands of the ``ltrbench`` CLI, one module each (see :mod:`bench.cli`)."""
