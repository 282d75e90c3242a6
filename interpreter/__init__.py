"""taash interpreter: load a variant file (YAML + rules DSL) and play it.

>>> from taash.interpreter import load_variant, Match
>>> v = load_variant("29")
>>> st = Match(v, seed=1).new_deal()
>>> st.phase, len(st.observation(st.to_act)["hand"])
('auction', 4)
"""

from .cards import Deck
from .dsl import DSLError
from .actions import Action
from .engine import Match, State
from .errors import ActionError, IllegalActionError, InvalidActionError, RuleError, StateError, TaashError
from .information import ResampleError
from .loader import Problem, VariantError, find_variant, shipped_variants
from .records import RecordError, read_record, replay, replay_json
from .variant import Variant, check_files, load_variant

__all__ = ["Action", "ActionError", "InvalidActionError", "TaashError", "Deck", "DSLError", "IllegalActionError", "Match", "ResampleError", "RuleError", "State", "StateError", "Problem", "VariantError",
           "find_variant", "shipped_variants", "RecordError", "read_record", "replay", "replay_json", "Variant",
           "check_files", "load_variant"]
