"""A checked rule's typed tree (`taash.interpreter.dsl.T`) as numba-compatible Python
source over the kernel's state array.

The text made here comes only from this module's templates and the tree's checked
values: the state's offsets and the variant's fixed numbers (ints), locals the checker
named (``_vN``, ``_qN``, checked by pattern), and ``True``/``False``. No text of the
variant file reaches it. Cards and seats sets are int64 bit masks (bit ``c`` for card
``c``, bit ``s`` for seat ``s``; ascending bits are the engine's sorted lists); ``none``
is -1 as in the engine. A construct the kernel has no code for raises `Unsupported`
naming it, in the rulebook's terms.
"""

from __future__ import annotations

import re

from .source import Facts, Layout, Unsupported

_LOCAL = re.compile(r"_[vq]\d{1,4}\Z")
_CMP = {"==", "!=", "<", "<=", ">", ">="}
_ARITH = {"+", "-", "*"}


def is_const(t) -> bool:
    """Whether the checker folded ``t`` to a constant (an int, bool or a declaration's
    name; anything else is its "not a constant" mark)."""
    return type(t.const) in (int, bool, str)


def free_locals(t) -> set[str]:
    """The rule's locals (``_vN``, ``_qN``) tree ``t`` reads, less those its own
    quantifiers bind."""
    if not hasattr(t, "op"):
        return set()
    out = {t.info} if t.op == "local" and isinstance(t.info, str) else set()
    for k in t.kids:
        if k is not None:
            out |= free_locals(k)
    if t.op in ("any", "all", "those"):
        out.discard(t.info)
    return out


class Translator:
    """Typed trees to source, for one variant (``f``: its facts; ``lay``: the state's
    layout). Rule functions take ``(S, me, x, y)`` as the engine's take ``(s, me, x, y)``."""

    def __init__(self, f: Facts, lay: Layout):
        self.f, self.at = f, lay.at
        self.var_at = lay.var_at
        self._tmp = 0
        self._quants = 0
        self.functions: list[str] = []   # a quantifier's function each, to precede the rule using it

    def s(self, name: str, index: str | None = None) -> str:
        """The state's field ``name`` (a scalar), or element ``index`` of an array field."""
        return f"S[{self.at[name]}]" if index is None else f"S[{self.at[name]} + {index}]"

    def tmp(self) -> str:
        self._tmp += 1
        return f"_k{self._tmp}"

    # -- expressions ---------------------------------------------------------------------
    def ex(self, t) -> str:
        if is_const(t):
            return self.const(t)
        op, k = t.op, t.kids
        if op == "name":
            return self.name(t.info.name)
        if op == "local":
            if not _LOCAL.match(t.info):
                raise Unsupported(f"a local named {t.info!r}")
            return t.info
        if op == "var":
            if self.f.var_sizes[int(t.info)] != 1:
                raise Unsupported("a variable per seat or side read whole")
            return self.s("vars", str(self.var_at[int(t.info)]))
        if op == "var_at":     # an index out of range (none): the empty value
            i = int(t.info)
            read = f"_at_or(S, {self.at['vars'] + self.var_at[i]}, {self.f.var_sizes[i]}, {self.ex(k[0])}, " \
                   f"{0 if t.type in ('number', 'condition') else -1})"
            return f"({read} != 0)" if t.type == "condition" else read
        if op == "call":
            return self.call(t)
        if op == "call_list":
            if k[0].op != "name" or k[0].info.name != "score":
                raise Unsupported(f"{t.info.name}() of a list other than the score")
            return f"_{t.info.name}list(S, {self.at['scores']}, {self.f.nscores})"
        if op == "neg":
            return f"(-{self.ex(k[0])})"
        if op == "strength":
            return f"RS[{self.ex(k[0])}]"
        if op == "not":
            return f"(not {self.ex(k[0])})"
        if op in ("and", "or"):
            neutral = op == "and"
            keep = [a for a in k if a.const is not neutral]
            if len(keep) == 1:
                return self.ex(keep[0])
            return "(" + f" {op} ".join(self.ex(a) for a in keep) + ")"
        if op in ("any", "all", "those"):
            return self.quantifier(t)
        if op == "otherwise":
            out = self.ex(k[-1])
            for a in reversed(k[:-1]):
                out = f"_ow({self.ex(a)}, {out})"
            return out
        if op == "cond":
            c, a, b = k
            if is_const(c):
                return self.ex(a if c.const else b)
            return f"({self.ex(a)} if {self.ex(c)} else {self.ex(b)})"
        if op == "compare":
            a, b = k
            if t.info in _CMP:
                return f"({self.ex(a)} {t.info} {self.ex(b)})"
            if t.info in ("in", "not in") and b.type in ("cards", "seats"):
                test = f"_has({self.ex(b)}, {self.ex(a)})"
                return test if t.info == "in" else f"(not {test})"
            raise Unsupported(f"the comparison '{t.info}' of a number with a list")
        if op == "binop":
            a, b = k
            if t.info in _ARITH:
                return f"({self.ex(a)} {t.info} {self.ex(b)})"
            return f"{'_div' if t.info == '//' else '_mod'}({self.ex(a)}, {self.ex(b)})"
        if op == "index":
            if k[0].op != "name" or k[0].info.name != "score":
                raise Unsupported("an index of a list other than the score")
            return f"_at(S, {self.at['scores']}, {self.f.nscores}, {self.ex(k[1])})"
        if op == "cases":
            pairs = list(zip(k[::2], k[1::2]))
            out = None
            for i, (c, v) in enumerate(pairs):
                if c.const is True:
                    pairs, out = pairs[:i], self.ex(v)
                    break
            if out is None:
                out = self.ex(t.info) if t.info is not None else self.empty(t.type)
            for c, v in reversed(pairs):
                out = f"({self.ex(v)} if {self.ex(c)} else {out})"
            return out
        raise Unsupported(f"the construct {op}")

    def quantifier(self, t) -> str:
        """``any``/``all``/``those(x in SET: cond)`` as a call of a function made for it (in
        ``functions``), which goes over the set's bits in ascending order (the engine's
        sorted list) with the rule's locals that ``cond`` reads as its arguments."""
        op, (tset, body) = t.op, t.kids
        if tset.type not in ("cards", "seats", "sides"):
            raise Unsupported(f"{op}(...) over {tset.type}")
        if not _LOCAL.match(t.info):
            raise Unsupported(f"a local named {t.info!r}")
        free = sorted(free_locals(body) - {t.info})
        self._quants += 1
        name = f"_quant{self._quants}"
        cond = self.ex(body)        # its own quantifiers' functions are added first
        params = "".join(f", {v}" for v in free)
        found = {"any": ["            return True"], "all": [],
                 "those": ["            found |= low"]}[op]
        miss = ["        else:", "            return False"] if op == "all" else []
        end = {"any": "False", "all": "True", "those": "found"}[op]
        self.functions.append("\n".join([
            "@njit(cache=True)",     # called, not inlined: a rule may hold many (the compile's time)
            f"def {name}(S, me, x, y, m{params}):",
            "    found = np.int64(0)",
            "    while m:",
            "        low = m & -m",
            "        m ^= low",
            f"        {t.info} = _low_index(low)",
            f"        if {cond}:"] + (found or ["            pass"]) + miss + [f"    return {end}", ""]))
        return f"{name}(S, me, x, y, {self.ex(tset)}{params})"

    def const(self, t) -> str:
        v = t.const
        if type(v) is bool:
            return "True" if v else "False"
        if type(v) is int:
            if t.type in ("cards", "seats"):
                raise Unsupported("a constant set")
            return str(v)
        if t.type == "declaration":
            return str(self.f.declarations.index(v))
        if t.type == "answer":
            return str(self.f.answers.index(v))
        raise Unsupported(f"a constant {t.type}")

    @staticmethod
    def empty(typ: str) -> str:
        return {"cards": "np.int64(0)", "seats": "np.int64(0)", "condition": "False", "number": "0"}.get(typ, "-1")

    def name(self, name: str) -> str:
        s, f = self.s, self.f
        side = self.at["side"]
        n = f.players
        table = {
            "me": "me", "dealer": s("dealer"), "eldest": f"(({s('dealer')} + 1) % {n})",
            "declarer": s("declarer"),
            "my_side": f"_side(S, {side}, {n}, me)",
            "declarer_side": f"(_side(S, {side}, {n}, {s('declarer')}) if {s('declarer')} >= 0 else -1)",
            "defenders_side": f"((1 - _side(S, {side}, {n}, {s('declarer')})) if {s('declarer')} >= 0 else -1)",
            "partner": s("partner"), "partner_revealed": f"({s('partner_revealed')} != 0)",
            "called_card": s("called_card"), "high_bid": s("bid"), "bid": s("bid"),
            "high_bidder": s("high_bidder"), "calls": s("calls"), "bids": s("bids"), "passes": s("passes"),
            "bids_total": s("bids_total"),
            "passed": s("passed"), "holder": s("holder"), "challenger": s("challenger"),
            "doubled": f"({s('doubled')} >= 1)", "redoubled": f"({s('doubled')} >= 2)",
            "denomination": s("denomination"), "trump": s("trump"), "no_trump": f"({s('trump')} < 0)",
            "trump_exposed": f"({s('trump_exposed')} != 0)", "trump_hidden": f"({s('trump_card')} >= 0)",
            "exposer": s("exposer"), "exposure_trick": s("exposure_trick"), "led": s("led"),
            "leading": f"({s('led')} < 0)",
            "leader": f"({s('trick_seats', '0')} if {s('in_trick')} > 0 else me)",
            "trick": f"({s('tricks_done')} + 1)",
            "trick_winner": "_trick_winner(S)", "winning_card": "_winning_card(S)",
            "hand": s("hands", "me"), "my_side_tricks": "_known_side_tricks(S, me)",
            "card": "x", "played_after_exposure": "(y != 0)", "winner": "x", "declared_suit": "x",
            "target": s("target"), "made": "(x != 0)", "deals": s("deal_number"),
            "deals_played": f"({s('deal_number')} + {s('terminal')})",
            "seats": f"np.int64({(1 << n) - 1})", "trick_seats": "_trick_mask(S, TRICK_SEATS)",
            "sides": f"np.int64({(1 << f.sides) - 1})",
        }
        if name == "trick_cards":
            if f.max_copies > 1:
                raise Unsupported("trick_cards in a deck with copies of a card")
            return "_trick_mask(S, TRICK_CARDS)"
        if name not in table:
            raise Unsupported(f"the name '{name}'")
        return table[name]

    def call(self, t) -> str:
        f, s = self.f, self.s
        name = t.info.name
        args = [self.ex(a) for a in t.kids] if name not in ("declared", "answered") else [self.const(t.kids[0])]
        side = self.at["side"]
        n = f.players
        if name == "cards_won":    # of a seat, or of a side (its seats as the sides stand now)
            if t.kids[0].type == "side":
                return f"_side_won(S, {args[0]})"
            return f"_at(S, {self.at['won_cards']}, {n}, {args[0]})"
        if name == "count" and t.kids[0].type == "cards" and f.max_copies > 1:
            raise Unsupported("count() of cards in a deck with copies of a card")
        table = {
            "in_suit": lambda a, b: f"({a} & _suitmask({b}))",
            "not_in_suit": lambda a, b: f"({a} & ~_suitmask({b}))",
            "count": lambda a: f"_popcount({a})",
            "holds": lambda r, su: f"_has({s('hands', 'me')}, CARD[{r}, {su}])",
            "suit": lambda a: f"SUIT_OF[{a}]",
            "rank": lambda a: f"RANK_OF[{a}]",
            "side": lambda a: f"_side(S, {side}, {n}, {a})",
            "same_side": lambda a, b: f"(_side(S, {side}, {n}, {a}) == _side(S, {side}, {n}, {b}))",
            "points": lambda a: f"_at(S, {self.at['side_points']}, {f.sides}, {a})",
            "tricks_won": lambda a: f"_at(S, {self.at['side_tricks']}, {f.sides}, {a})",
            "seat_tricks": lambda a: f"_at(S, {self.at['seat_tricks']}, {n}, {a})",
            "seat_points": lambda a: f"_at(S, {self.at['seat_points']}, {n}, {a})",
            "declared": lambda a: s("declared", a),
            "answered": lambda a: f"((({s('answers')} >> {a}) & 1) != 0)",
            "bid_of": lambda a: f"_at(S, {self.at['seat_bids']}, {n}, {a})",
            "only": lambda a, b: f"({a} & _bit({b}))",
            "sits_out": lambda a: f"(_at(S, {self.at['out']}, {n}, {a}) == 1)",
            "played": lambda a: f"_played(S, {a})",
            "abs": lambda a: f"abs({a})",
            "max": lambda *a: f"max({', '.join(a)})",
            "min": lambda *a: f"min({', '.join(a)})",
            "next": lambda a: f"NEXT_DSL[{a}]",
            "previous": lambda a: f"PREVIOUS_DSL[{a}]",
            "partner_of": lambda a: f"_partner_of(S, {a})",
            "partners": lambda a: f"_side_seats(S, {a}, True)",
            "opponents": lambda a: f"_side_seats(S, {a}, False)",
            "above": lambda a, r: f"({a} & ABOVE[{r}])",
            "below": lambda a, r: f"({a} & BELOW[{r}])",
            "union": lambda a, b: f"({a} | {b})",
            "difference": lambda a, b: f"({a} & ~{b})",
            "intersection": lambda a, b: f"({a} & {b})",
            "higher": lambda a, b: f"_higher(S, me, {a}, {b})",
            "beats": lambda a, b: f"_beats(S, me, {a}, {b})",
        }
        if name not in table:
            raise Unsupported(f"the function {name}()")
        return table[name](*args)

    # -- statements ----------------------------------------------------------------------
    def stmts(self, ts, indent: int) -> list[str]:
        out = []
        for t in ts:
            out += self.stmt(t, indent)
        return out

    def stmt(self, t, indent: int) -> list[str]:
        pad = "    " * indent
        if t.op in ("set", "let"):
            if t.op == "let" and is_const(t.kids[0]):
                return []
            if not _LOCAL.match(t.info):
                raise Unsupported(f"a local named {t.info!r}")
            return [f"{pad}{t.info} = {self.ex(t.kids[0])}"]
        if t.op == "assign":
            entry, op = t.info
            idx, val = t.kids
            v = self.ex(val)
            name = entry.name
            if name == "target":
                return [f"{pad}{self.s('target')} {op} {v}"]
            if name == "trump":
                u = self.tmp()
                return [f"{pad}{u} = {v}", f"{pad}{self.s('trump')} = {u} if 0 <= {u} < {self.f.suits} else -1",
                        f"{pad}{self.s('trump_exposed')} = 1"]
            if name in ("score", "side"):
                field, bound = ("scores", self.f.nscores) if name == "score" else ("side", self.f.players)
                i = self.tmp()
                return [f"{pad}{i} = {self.ex(idx)}", f"{pad}if 0 <= {i} < {bound}:",
                        f"{pad}    {self.s(field, i)} {op} {v}"]
            raise Unsupported(f"an effect that sets '{name}'")
        if t.op == "assign_var":
            index, op, typ = t.info
            val, idx = t.kids
            v = self.ex(val)
            off = self.at["vars"] + self.var_at[int(index)]
            pre, guard, target = [], None, f"S[{off}]"
            if idx is not None:     # one of a variable per seat or side; an index out of range changes nothing
                i = self.tmp()
                pre, guard = [f"{pad}{i} = {self.ex(idx)}"], f"{pad}if 0 <= {i} < {self.f.var_sizes[int(index)]}:"
                target = f"S[{off} + {i}]"
            if op != "=":
                v = f"({target} {op[0]} {v})"
            if typ == "number":
                v = f"max(-1000000000, min(1000000000, {v}))"
            return pre + ([guard, f"{pad}    {target} = {v}"] if guard else [f"{pad}{target} = {v}"])
        if t.op == "for":
            tset, body = t.kids
            if not _LOCAL.match(t.info):
                raise Unsupported(f"a local named {t.info!r}")
            m = self.tmp()
            inner = self.stmt(body, indent + 2)
            if not inner:
                return []
            return [f"{pad}{m} = {self.ex(tset)}", f"{pad}for {t.info} in range({self.f.players}):",
                    f"{pad}    if ({m} >> {t.info}) & 1:"] + inner
        if t.op == "if":
            c, body, orelse = t.kids
            if is_const(c):
                chosen = body if c.const else orelse
                return self.stmt(chosen, indent) if chosen is not None else []
            out = [f"{pad}if {self.ex(c)}:"] + (self.stmt(body, indent + 1) or [f"{pad}    pass"])
            if orelse is not None:
                out += [f"{pad}else:"] + (self.stmt(orelse, indent + 1) or [f"{pad}    pass"])
            return out
        raise Unsupported(f"the statement {t.op}")
