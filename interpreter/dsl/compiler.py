"""The compiler of one variant's rules: the stages of the DSL in order, behind the
methods the variant's loader calls (`taash.interpreter.variant`).

``Compiler.add`` parses (`parse`) and checks (`check`) a rule; ``Compiler.build`` lowers
every checked rule to Python and compiles them as one module (`lower`, with the globals
of `runtime`); ``build_play_legal``, ``build_auction_legal`` and ``build_play_step``
generate the engine's hot path from the checked rules (`fastpath`).
"""

from __future__ import annotations

from . import runtime
from .check import Checker
from .fastpath import FastPath
from .lower import Compiled, Lowerer, compile_rules


class Compiler(Checker):
    """Compile the rules of one variant into one Python module.

    The constructor's arguments are the `check.Checker`'s: ``deck``, ``players``,
    ``tricks`` (per deal), ``min_bid``, ``max_bid`` are the variant's fixed values (folded
    into the code); ``declarations`` and ``answers`` the names
    ``declared()``/``answered()`` accept; ``options`` the option values by name;
    ``denominations`` the no-trump denominations' suit values; ``score_unit`` ``side`` or
    ``seat``; ``defines`` the file's named expressions (``check_defines()`` checks them
    all); ``variables`` the variant's own variables, (name, type) in the order of
    ``State.vars``. Rules are added with ``add(hook, text, kind)`` (parse tree -> typed
    tree: types checked, constants folded, ``consts`` set) and built at once with
    ``build()`` (typed tree -> Python ``ast`` made from registry entries ->
    ``compile()``); then the hot path with ``build_play_legal``, ``build_play_step`` and
    ``build_auction_legal``. Set ``only_options`` to accept options only (a preset's
    condition).
    """

    _fast: FastPath | None = None

    def build(self) -> dict[str, Compiled]:
        """Make the ast of every rule, check it, compile and exec the module once (empty
        builtins; only the helpers in its globals). Returns {function name: Compiled}."""
        lowerer = Lowerer(self.deck, self.players, self.tricks, self.min_bid, self.max_bid, self.sides)
        g = runtime.helpers(self.deck, self.players, self.denominations)
        built = compile_rules(lowerer, self.rules, self.consts, g)
        trees = {fname: (typed, lets) for fname, typed, _, lets in self.rules}
        self._fast = FastPath(lowerer, trees, g, self.deck)
        return built

    def build_play_legal(self, may_play: str, checks, expose=None, face_down: bool = False,
                         dedupe: bool = False):
        """`fastpath.FastPath.build_play_legal`: the play phase's legal actions as one
        function ``f(state) -> list[int]``. Called after ``build()``."""
        return self._fast.build_play_legal(may_play, checks, expose, face_down, dedupe)

    def build_play_step(self, plain_play: bool, apply_id, card_played, end_trick, actions,
                        plain_trump: bool = False, tricks: int = 0, last_trick: int = 0,
                        after_trick=None, after_card=None) -> Compiled:
        """`fastpath.FastPath.build_play_step`: ``State.apply_id`` with the play of a card
        written out. Called after ``build_play_legal()``."""
        return self._fast.build_play_step(plain_play, apply_id, card_played, end_trick, actions,
                                          plain_trump, tricks, last_trick, after_trick, after_card)

    def build_auction_legal(self, may_pass: str, may_bid: str, may_equal, may_double, may_redouble,
                            numbers, pass_id: int, double_id: int, redouble_id: int) -> Compiled:
        """`fastpath.FastPath.build_auction_legal`: the auction's legal calls as one
        function ``f(state) -> list[int]``. Called after ``build()``."""
        return self._fast.build_auction_legal(may_pass, may_bid, may_equal, may_double, may_redouble,
                                              numbers, pass_id, double_id, redouble_id)
