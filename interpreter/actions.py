"""Actions: each action of a variant is one `Action`, made once when the variant loads.

An `Action` is its stable text form (it *is* a ``str``: ``"play JH"``, ``"bid 20"``;
docs/architecture.md, "Actions and notation"), so it goes unchanged into records, the CLI and the
wire, and compares equal to its text. It also carries:

- ``kind``: what the action does, one of the mechanics' (`Mechanic.action_kinds`,
  all of them in mechanics.ACTION_KINDS);
- ``arg``: its argument in text terms (the same table says what it holds);
- ``id``: its index in the variant's action table (``variant.actions[a.id] is a``);
- ``code``: the argument in the engine's terms (a card id, a suit index, ...).

>>> from taash.interpreter import load_variant
>>> v = load_variant("29")
>>> a = v.action("play JH")
>>> a == "play JH", a.kind, a.arg
(True, 'play', 'JH')
>>> v.action("bid 20").arg
(20, None)
"""

from __future__ import annotations

# kinds that a seat that did not answer is never made to take (State.default_action)
NOT_DEFAULT = frozenset(("declare", "expose", "double", "redouble"))


class Action(str):
    """One action of a variant: its text (the ``str`` itself), ``kind``, ``arg``,
    ``code`` and ``id`` (see the module's docstring)."""

    kind: str
    arg: object
    code: object
    id: int

    def __new__(cls, text: str, kind: str, arg=None, code=None):
        a = super().__new__(cls, text)
        a.kind, a.arg, a.code, a.id = kind, arg, code, -1
        return a

    @property
    def text(self) -> str:
        """The stable text form, as a plain ``str``."""
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Action({str.__repr__(self)})"

    def __reduce__(self):
        # across processes an action travels as its text (records, results)
        return (str, (self.text,))


def default_of(legal) -> "Action":
    """The default among ``legal`` (Actions in docs/rules.md §0.10 order): the first whose kind
    is not in `NOT_DEFAULT`, else the first. See `State.default_action`."""
    for a in legal:
        if a.kind not in NOT_DEFAULT:
            return a
    return legal[0]
