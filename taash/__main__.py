"""``python -m taash``: the `taash` command line, as the console script runs it."""

import sys

from taash.arena.cli import main

sys.exit(main())
