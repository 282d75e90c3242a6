"""taash: a rules-as-data engine for trick-taking games, and an arena for their bots.

The engine (``taash.interpreter``) is the core install; its public names are here:

>>> from taash import load_variant, Match
>>> v = load_variant("29")
>>> st = Match(v, seed=1).new_deal()
>>> st.phase, len(st.observation(st.to_act)["hand"])
('auction', 4)

The arena (``taash.arena``: gRPC server, bots, ladder, web pages, HTTP bots) needs the
``taash[arena]`` extra; the command line is ``taash`` (``taash --help``).
"""

from .interpreter import *  # noqa: F401,F403  (the engine's public names)
from .interpreter import __all__  # noqa: F401
