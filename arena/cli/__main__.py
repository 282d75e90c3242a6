"""`python -m taash.arena.cli`: the `taash` command."""

import sys

from taash.arena.cli import main

sys.exit(main())
