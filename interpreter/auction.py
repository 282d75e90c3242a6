"""The auction (docs/rules.md §0.5, §29b.4: a round or a duel of calls), the round of
doubling after it (§H), and the contract of a flow without an auction: the file's
``auction:`` and ``contract:`` sections checked (`load`) and their rules (`HOOKS`,
`CONTRACT_HOOKS`), the phases (`Auction`, `Doubling`), and their rulebook words (`words`).
"""

from __future__ import annotations

import ast
from bisect import bisect_right
from dataclasses import dataclass, field

from .dsl import BOOL, INT, SEAT
from .dsl.pyast import parse
from .mechanic import Mechanic
from .phase import Phase, order_from, table_seat
from .wording import SUIT_NAMES, rule_of, rule_words

# hook -> (path in the file, expected kind, default rule text or None if required; "" an
# optional hook that does nothing when absent): compiled when the flow has an auction
HOOKS = {
    "auction.may_pass": (("auction", "may_pass"), BOOL, None),
    "auction.may_bid": (("auction", "may_bid"), BOOL, None),
    "auction.ends": (("auction", "ends"), BOOL, None),
    "auction.may_equal": (("auction", "may_equal"), BOOL, ""),
    "auction.may_double": (("auction", "may_double"), BOOL, "false"),
    "auction.may_redouble": (("auction", "may_redouble"), BOOL, "false"),
    "auction.first": (("auction", "first"), SEAT, ""),   # the first to call; the eldest without it
    # the declarer at the lowest bid when every seat passes (`all_pass: {seat: RULE}`)
    "auction.all_pass": (("auction", "all_pass", "seat"), SEAT, ""),
}
# a flow without an auction: the contract the variant gives (docs/authoring.md, "Flow")
CONTRACT_HOOKS = {
    "contract.declarer": (("contract", "declarer"), SEAT, ""),
    "contract.target": (("contract", "target"), INT, ""),
}
MAX_BIDS = 1000  # distinct bid numbers an auction may offer


def skipped_hooks(c) -> set:
    """The hooks of this module that a file checked by ``c`` (loader.Checks) does not
    compile: the auction's without an auction, the contract's with one or without a
    ``contract:`` section (a deal with no contract)."""
    if c.has_auction:
        return set(CONTRACT_HOOKS)
    return set(HOOKS) | (set(CONTRACT_HOOKS) if "contract" not in c.data else set())


def load(c) -> dict:
    """Check the ``auction:`` and ``contract:`` sections against the flow (``c``: a
    loader.Checks with ``steps``, ``has_auction`` and ``trump_mode`` set); record each
    problem in ``c`` and return the Variant's auction fields. Sets ``c.denominations``.
    A flow with neither an auction nor ``contract:`` plays every deal without a contract:
    no declarer, no target, nothing made or lost; ``scoring.effect`` alone scores it."""
    data, flow, steps, has_auction = c.data, c.data["flow"], c.steps, c.has_auction
    if has_auction and "contract" in data:
        c.problem(("contract",), "the contract comes from the auction: remove `contract` (it is for "
                                 "a flow without an 'auction' step)")
    if has_auction and "auction" not in data:
        c.problem(("auction",) if ("auction",) in c.locs else ("flow", flow.index("auction")),
                  "'auction' is required: the flow has an 'auction' step")
    if not has_auction:
        if "contract" not in data and "made" in (data.get("scoring") or {}):
            c.problem(("scoring", "made"), "no auction and no `contract:`: the deal has no contract to "
                                           "make or lose (remove `made`, or give the `contract:`)")
        if "auction" in data:
            c.problem(("auction",), "the flow has no 'auction' step: remove `auction:`, or add the step")
        if c.trump_mode == "bid":
            c.problem(("trump", "mode"), "trump.mode 'bid' takes trump from a bid: it needs an 'auction' step")
        if "doubling" in steps:
            c.problem(("flow", flow.index("doubling")), "a 'doubling' step needs an 'auction' step")
    au = data.get("auction") or {}
    min_bid, max_bid, step = au.get("min_bid", 0), au.get("max_bid", 0), au.get("step", 1)
    if min_bid > max_bid:
        c.problem(("auction", "min_bid"), f"min_bid {min_bid} is above max_bid {max_bid}: no bid is possible",
                  value=True)
    elif (max_bid - min_bid) // step + 1 > MAX_BIDS:
        c.problem(("auction", "max_bid"), f"{(max_bid - min_bid) // step + 1} bid numbers: at most "
                                          f"{MAX_BIDS} (raise step or narrow min_bid..max_bid)", value=True)
    dens = c.denominations = tuple(au.get("denominations", ()))
    for i, den in enumerate(dens):
        if len(den) == 1 and den not in c.deck.suits:
            c.problem(("auction", "denominations", i), f"denomination {den} is not a suit of the deck "
                      "(a no-trump denomination needs a name of two letters or more, such as NT)", value=True)
    gives = all_pass(data) != "throw_in"   # a seat plays at the lowest bid when all pass
    said = "`all_pass: dealer`" if all_pass(data) == "dealer" else "`all_pass`"
    if gives and au.get("standing_bid"):
        c.problem(("auction", "all_pass"), "with a standing bid the dealer already holds a bid when all pass: "
                                           f"remove {said} (or the standing bid)", value=True)
    if gives and dens:
        c.problem(("auction", "all_pass"), f"{said} gives the lowest bid, with no denomination: "
                                           "not with `denominations`", value=True)
    if au.get("order") == "duel" and au.get("final_pass") is False:
        c.problem(("auction", "final_pass"), "in a duel auction every pass is final (remove final_pass: false)",
                  value=True)
    return dict(has_auction=has_auction, has_contract=has_auction or "contract" in data, min_bid=min_bid, max_bid=max_bid, bid_step=step,
                denominations=dens, suit_first=bool(au.get("suit_first")),
                standing_bid=au.get("standing_bid", 0), final_pass=bool(au.get("final_pass")),
                auction_order=au.get("order", "round"))


def all_pass(data: dict) -> str:
    """What happens when every seat passes and nobody holds a bid, by a variant's merged
    file ``data`` (``auction.all_pass``): ``throw_in`` (the default: the deal is thrown
    in), ``dealer`` (the dealer is the declarer at ``min_bid``) or ``seat`` (``{seat:
    RULE}``: the seat the rule ``auction.all_pass`` names is the declarer at ``min_bid``)."""
    given = (data.get("auction") or {}).get("all_pass", "throw_in")
    return "seat" if isinstance(given, dict) else given


class Auction(Phase):
    """The auction of calls (docs/rules.md §0.5 and each game's auction): pass, bids above the
    high bid (§0.10: by number, then denomination), double and redouble when the variant
    allows them. ``auction.order``:

    - ``round``: every seat calls in turn. A full round of consecutive passes, every seat
      passed for good (``final_pass``), or the variant's ``auction.ends`` ends it.
    - ``duel`` (docs/rules.md §29b.4): a *holder* and a *challenger* face each other. Seats call
      in turn from eldest until one bids (a seat that passes is out): he is the holder,
      and the next seat in turn that is not out challenges. After the challenger's call
      the holder answers; after the holder's, the challenger calls again. A holder who
      passes leaves the challenger holding the bid; a challenger who passes is followed
      by the next seat in turn that is not out. Every pass is final. It ends when no
      seat is left to challenge (or by ``auction.ends``).

    A bid may equal the high bid only when ``auction.may_equal`` holds for the caller, the
    high bid is another seat's, and the last bid was not itself an equal bid: every two
    bids raise the high bid, so every auction ends. The high bidder at the end is the
    declarer; if nobody bid the deal is thrown in."""

    name = "auction"

    def enter(self, s):
        v = s.v
        n = v.players
        if v.standing_bid:
            s.bid, s.high_bidder = v.standing_bid, s.dealer
        # the first to call: the eldest, or the seat the file's `auction.first` names
        s.to_act = table_seat(s, "auction.first") if v.rules.get("auction.first") else (s.dealer + 1) % n
        if v.auction_order == "duel" and s.high_bidder >= 0:  # the standing bid's holder
            s.holder = s.high_bidder
            s.challenger = s.to_act = self.next_challenger(s, s.holder)

    def legal(self, s):
        v = s.v
        me = s.to_act
        out = [v.pass_action.id] if v.may_pass(s, me, None, None) else []
        may_bid = v.may_bid
        high = s.bid
        may_equal = v.may_equal  # None: the file has no such rule
        if (may_equal is not None and s.high_bidder >= 0 and s.high_bidder != me
                and not s.equal_bid and may_equal(s, me, None, None)):
            high -= 1  # an equal bid is allowed (every two bids still raise the high bid)
        # the rule reads the bid's number only (the DSL has no name for its denomination
        # there), so it is asked once per number, for every form of that number
        for b, ids in v.bid_number_ids[bisect_right(v.bid_numbers, high):]:
            if may_bid(s, me, b, None):
                out += ids
        if s.doubled == 0 and v.may_double is not None and s.high_bidder >= 0 and v.may_double(s, me, None, None):
            out.append(v.double_action.id)
        if s.doubled == 1 and v.may_redouble is not None and v.may_redouble(s, me, None, None):
            out.append(v.redouble_action.id)
        return out or [v.pass_action.id]

    def apply(self, s, seat, a):
        v = s.v
        n = v.players
        kind = a.kind
        duel = v.auction_order == "duel"
        s.calls += 1
        if kind == "pass":
            s.passes += 1
            if (v.final_pass or duel) and seat not in s.passed:
                s.passed.append(seat)
        elif kind == "bid":
            number, den = a.code
            s.equal_bid = s.high_bidder >= 0 and number == s.bid
            s.bid = number
            s.denomination = -1 if den is None else den
            s.high_bidder = seat
            s.bids += 1
            s.passes = 0
            s.doubled = 0  # a new bid cancels any double and redouble (§56.4)
        else:
            s.doubled = 1 if kind == "double" else 2
            s.passes = 0
        if duel:
            nxt = self.duel_next(s, seat, kind)
        else:
            nxt = (seat + 1) % n
            if v.final_pass:
                while nxt in s.passed and nxt != seat:
                    nxt = (nxt + 1) % n
        if nxt < 0 or s.passes >= n or len(s.passed) >= n or v.auction_ends(s, seat, None, None):
            if s.high_bidder < 0 and all_pass(v.data) != "throw_in":   # a seat plays at the lowest bid:
                s.bid = v.min_bid                                          # the dealer, or the rule's
                s.high_bidder = s.dealer if all_pass(v.data) == "dealer" else table_seat(s, "auction.all_pass")
            if s.high_bidder < 0:  # everybody passed: the deal is thrown in
                s._end_deal()
                return
            s._set_contract(s.high_bidder, s.bid)
            s._next_step()
            return
        s.to_act = nxt

    @staticmethod
    def next_challenger(s, after: int) -> int:
        """The next seat in turn after ``after`` that is neither out nor the holder, or -1."""
        n = s.v.players
        for k in range(1, n):
            t = (after + k) % n
            if t not in s.passed and t != s.holder:
                return t
        return -1

    def duel_next(self, s, seat: int, kind: str) -> int:
        """Move the duel on after ``seat``'s call (docs/rules.md §29b.4): the seat to call next,
        or -1 when no seat is left to challenge (or none to open)."""
        if s.holder < 0:  # nobody has bid yet: the caller opens or is out
            if kind == "bid":
                s.holder = seat
                s.challenger = self.next_challenger(s, seat)
                return s.challenger
            return self.next_challenger(s, seat)
        if seat == s.challenger:
            if kind == "pass":
                s.challenger = self.next_challenger(s, seat)
                return s.challenger
            return s.holder
        # the holder's call
        if kind == "pass":  # the challenger holds his bid
            s.holder, old = s.challenger, s.challenger
            s.challenger = self.next_challenger(s, old)
        return s.challenger


class Doubling(Phase):
    """A round of doubling after the contract (docs/rules.md §H): each defender in turn from
    next(declarer) may double; after a double each contractor in turn may redouble. A
    seat that sits out the deal (a flow `declare` step before this one) takes no part;
    with no defender left to double, the step passes."""

    name = "doubling"

    def enter(self, s):
        n = s.v.players
        s.doubling_queue = [t for t in order_from(s.declarer + 1, n)
                            if s.side[t] != s.side[s.declarer] and not s.out[t]]
        if s.doubling_queue:
            s.to_act = s.doubling_queue.pop(0)
        else:
            s._next_step()

    def legal(self, s):
        v = s.v
        return [v.pass_action.id, (v.double_action if s.doubled == 0 else v.redouble_action).id]

    def apply(self, s, seat, a):
        n = s.v.players
        if a.kind == "double":
            s.doubled = 1
            s.doubling_queue = [t for t in order_from(seat + 1, n)
                                if s.side[t] == s.side[s.declarer] and not s.out[t]]
        elif a.kind == "redouble":
            s.doubled = 2
            s.doubling_queue = []
        if s.doubling_queue:
            s.to_act = s.doubling_queue.pop(0)
        else:
            s._next_step()


def reads_target(v) -> bool:
    """Whether a compiled rule of variant ``v`` reads the contract's target (``target``
    read, not only set) or, in a rule asked after the auction (play, scoring, the match),
    the bid it ended at (``bid``, ``high_bid``: the target's value); named expressions
    count, expanded where used. Else the bid decides only who declares, and the target
    is nothing to state."""
    for hook, source in v.sources.items():
        attrs = ("target",) if hook.startswith("auction.") else ("target", "bid")
        if source and any(isinstance(n, ast.Attribute) and n.attr in attrs and isinstance(n.ctx, ast.Load)
                          and isinstance(n.value, ast.Name) and n.value.id == "s"
                          for n in ast.walk(parse(source))):
            return True
    return False


# flow step -> its words in the rulebook's Deal section
STEP_WORDS = {"auction": lambda v, step: "the auction",
              "doubling": lambda v, step: "the defenders may double, then the declarer's side may redouble"}


def words(v) -> list[tuple[str, str]]:
    """The rulebook's sections of variant ``v``'s contract: ``Contract`` (a flow without
    an auction) or ``Auction``, as (title, Markdown text)."""
    if not v.has_contract:
        return [("Contract", "There is no auction and no contract: nobody is declarer, and no "
                             "deal is made or lost.")]
    if not v.has_auction:
        ct = v.data["contract"]
        return [("Contract", f"There is no auction. The declarer: {rule_words(ct['declarer'], v=v)}. "
                             f"His target: {rule_words(ct['target'], v=v)}.")]
    au = []
    rng = f"from {v.min_bid} to {v.max_bid}" + (f" in steps of {v.bid_step}" if v.bid_step > 1 else "")
    duel = v.auction_order == "duel"
    if duel:
        au.append("The auction is a duel between a holder and a challenger. From the eldest, each "
                  "player in turn bids or passes until one bids: he is the holder. The next player "
                  "in turn who is not out challenges him: the challenger bids above the holder's "
                  "bid or passes, and after each bid of the challenger the holder answers, bidding "
                  "or passing. When the holder passes, the challenger holds the bid; when the "
                  "challenger passes, the next player in turn who is not out challenges. A player "
                  "who passes is out for the deal. The auction ends when no player is left to "
                  "challenge.")
    equal = rule_of(v, "auction", "may_equal", default="false")
    numbers = range(v.min_bid, v.max_bid + 1, v.bid_step)
    if len(numbers) == 1:   # one number: "from 1 to 1" would read as a range
        au.append(f"The only bid is {v.min_bid}: once it is made, no higher bid is possible"
                  + (f"; it may be bid again, equalling the high bid, when: {equal} (never two "
                     "equal bids in a row)." if equal != "never" else "."))
    else:
        au.append(f"Bids are numbers {rng}, each above the high bid"
                  + (f", or equal to it when: {equal} (never two equal bids in a row)."
                     if equal != "never" else "."))
    if v.denominations:
        au.append("A bid names a denomination: " + ", ".join(
            SUIT_NAMES.get(x, f"{x} (no trump)") for x in v.denominations)
                  + (" (a suit may be named before the number)" if v.suit_first else "") + ".")
    if v.standing_bid:
        au.append(f"The dealer holds a standing bid of {v.standing_bid} (not a call).")
    if "first" in v.data["auction"]:
        au.append(f"The first to call: {rule_of(v, 'auction', 'first')}.")
    if all_pass(v.data) == "dealer":
        au.append(f"If every player passes, the dealer is the declarer at the lowest bid, {v.min_bid}.")
    elif all_pass(v.data) == "seat":
        au.append(f"If every player passes, the declarer at the lowest bid, {v.min_bid}, is: "
                  f"{rule_of(v, 'auction', 'all_pass', 'seat')}.")
    if not duel:
        au.append("A pass is final: a player who passes calls no more." if v.final_pass
                  else "A pass is not final.")
    au.append(f"A player may pass when: {rule_of(v, 'auction', 'may_pass')}.")
    au.append(f"A bid is allowed when: {rule_of(v, 'auction', 'may_bid')}.")
    if "may_double" in v.data["auction"]:
        au.append(f"A player may double when: {rule_of(v, 'auction', 'may_double')}.")
        au.append(f"A player may redouble when: {rule_of(v, 'auction', 'may_redouble', default='false')}.")
        au.append("A new bid cancels any double and redouble.")
    ends = rule_of(v, 'auction', 'ends')
    # the bid is the target (Auction: s.target = s.bid); say so only when a rule reads it
    target = reads_target(v)
    head = ("The high bidder is the declarer and his bid the target." if target else
            "The high bidder is the declarer; no rule reads his bid as a target.")
    if not duel:
        head = f"The auction ends when: {ends}. {head}"
    elif ends != "never":
        head = f"The auction also ends when: {ends}. {head}"
    au.append(head)
    # Auction.enter: the standing bid is the dealer's high bid before any call; apply: an
    # auction that ends with no high bidder throws the deal in (scoring.score: no score),
    # unless `all_pass` names a seat to play at the lowest bid (then no deal is thrown in)
    if v.standing_bid:
        au.append(f"If nobody bids over the standing bid, the dealer is the declarer and {v.standing_bid} "
                  "his target." if target else "If nobody bids over the standing bid, the dealer is the declarer.")
    elif all_pass(v.data) == "throw_in":
        au.append("If the auction ends with no bid, the deal is thrown in: nothing is scored, and the "
                  "next deal is dealt as after any other.")
    return [("Auction", "\n".join(au))]


# flow step -> its phase (one handler serves every deal)
PHASES = {"auction": Auction(), "doubling": Doubling()}


def start(s, carried) -> None:
    """The auction's and the contract's fields as a deal starts: no call, no contract."""
    s.bid = 0
    s.denomination = -1
    s.high_bidder = -1
    s.calls = s.bids = s.passes = 0
    s.passed = []
    s.doubled = 0
    s.doubling_queue = []
    s.holder = s.challenger = -1  # the duel (auction.order: duel)
    s.equal_bid = False  # the last bid equalled the high bid before it
    s.declarer = -1
    s.target = 0
    s.taken_over = None  # (the first declarer, declaration, its seat) once one changed it


def view(s, seat, tricks) -> dict:
    """The auction's and the contract's part of ``seat``'s observation (all public)."""
    passed = s.passed
    return {
        "high_bid": s.bid or None,
        "high_bidder": s.high_bidder if s.high_bidder >= 0 else None,
        "denomination": s.v.denomination_name.get(s.denomination),
        "doubled": s.doubled,
        "passed": sorted(passed) if passed else [],
        "holder": s.holder if s.holder >= 0 else None,
        "challenger": s.challenger if s.challenger >= 0 else None,
        "declarer": s.declarer if s.declarer >= 0 else None,
        "target": s.target or None,
    }


def compiler(c, fields) -> dict:
    """The rules compiler's bid numbers and no-trump denominations (dsl.Compiler)."""
    return dict(min_bid=fields["min_bid"], max_bid=fields["max_bid"],
                denominations={den: -2 - i for i, den in enumerate(x for x in c.denominations
                                                                   if x not in c.deck.suits)})


@dataclass(frozen=True, eq=False, kw_only=True)
class AuctionFields:
    """The auction's and the contract's fields of a Variant (`Mechanic.variant`): what
    `load` reads, and the calls with the rules of the hot path (`tables`)."""
    min_bid: int
    max_bid: int
    bid_step: int
    denominations: tuple
    suit_first: bool
    standing_bid: int
    final_pass: bool
    auction_order: str = "round"
    has_auction: bool = True
    has_contract: bool = True  # False: no auction and no `contract:`, no deal has a contract
    bid_numbers: list = field(repr=False, default=None)    # the numbers a bid may name, in order
    denomination_code: dict = field(repr=False, default=None)  # denomination -> suit, or -2, -3...
    denomination_name: dict = field(repr=False, default=None)  # the inverse
    pass_action: object = field(repr=False, default=None)
    double_action: object = field(repr=False, default=None)
    redouble_action: object = field(repr=False, default=None)
    bid_number_ids: list = field(repr=False, default=None)  # (number, [ids of its bids]), §0.10 order
    may_double: object = field(repr=False, default=None)    # the hot path's rules (None: never)
    may_redouble: object = field(repr=False, default=None)
    may_pass: object = field(repr=False, default=None)
    may_bid: object = field(repr=False, default=None)
    may_equal: object = field(repr=False, default=None)
    auction_ends: object = field(repr=False, default=None)


def calls_table(v, act) -> dict:
    """`pass`, `double`, `redouble` (`Mechanic.tables`, slot 1), the bid numbers and the
    denominations' codes (a suit: its index, that suit is trump; a no-trump denomination
    the file names: -2, -3, ...), and the auction's rules of the hot path (None for a
    condition that is always false: not asked)."""
    suits = v.deck.suits
    code = {}
    k = -2
    for den in v.denominations:
        if den in suits:
            code[den] = suits.index(den)
        else:
            code[den] = k
            k -= 1
    r = v.rules
    never = {hook for hook, value in v.constants.items() if value is False}
    return dict(
        bid_numbers=list(range(v.min_bid, max(v.max_bid, v.bids_up_to) + 1, v.bid_step)),
        denomination_code=code, denomination_name={c: den for den, c in code.items()},
        pass_action=act("pass", "pass"), double_action=act("double", "double"),
        redouble_action=act("redouble", "redouble"),
        may_double=None if "auction.may_double" in never else r.get("auction.may_double"),
        may_redouble=None if "auction.may_redouble" in never else r.get("auction.may_redouble"),
        may_pass=r.get("auction.may_pass"), may_bid=r.get("auction.may_bid"),
        may_equal=r.get("auction.may_equal"), auction_ends=r.get("auction.ends"))


def bids_table(v, act) -> dict:
    """The bids (slot 4), in the order of §0.10: by number, then denomination, the
    number-first form before the suit-first one; (number, [ids of its forms]) for the
    hot path (Auction.legal)."""
    suits = v.deck.suits
    ids = []
    for b in v.bid_numbers:
        forms = []
        if not v.denominations:
            forms.append((f"bid {b}", None, None))
        for den in v.denominations:
            code = v.denomination_code[den]
            forms.append((f"bid {b} {den}", den, code))
            if v.suit_first and den in suits:
                forms.append((f"bid {den} {b}", den, code))
        ids.append((b, [act(t, "bid", (b, den), (b, code)).id for t, den, code in forms]))
    return dict(bid_number_ids=ids)


# its part of the variant file's schema (`Mechanic.schema`; grammar/variant.schema.json is
# made from the parts: interpreter/schema.py)
SCHEMA = {'properties': {'auction': {'type': 'object',
                            'additionalProperties': False,
                            'required': ['min_bid', 'max_bid', 'may_pass', 'may_bid', 'ends'],
                            'properties': {'min_bid': {'type': 'integer', 'minimum': 0},
                                           'max_bid': {'type': 'integer', 'minimum': 0},
                                           'step': {'type': 'integer', 'minimum': 1},
                                           'may_pass': {'$ref': '#/$defs/rule'},
                                           'may_bid': {'$ref': '#/$defs/rule'},
                                           'ends': {'$ref': '#/$defs/rule'},
                                           'denominations': {'type': 'array',
                                                             'uniqueItems': True,
                                                             'minItems': 1,
                                                             'items': {'type': 'string',
                                                                       'pattern': '^[A-Z]{1,6}$'},
                                                             'description': 'what a bid may name: '
                                                                            'suit letters (the '
                                                                            'suit becomes trump) '
                                                                            'and names of no-trump '
                                                                            'denominations such as '
                                                                            'NT'},
                                           'suit_first': {'type': 'boolean'},
                                           'first': {'$ref': '#/$defs/rule',
                                                     'description': 'the seat that calls first '
                                                                    '(default: the eldest)'},
                                           'all_pass': {'oneOf': [{'enum': ['throw_in', 'dealer']},
                                                                  {'type': 'object',
                                                                   'properties': {
                                                                       'seat': {'$ref': '#/$defs/rule',
                                                                                'description': 'the seat that is '
                                                                                               'the declarer at '
                                                                                               'min_bid'}},
                                                                   'required': ['seat'],
                                                                   'additionalProperties': False}],
                                                        'description': 'when every seat passes '
                                                                       'with no bid held: throw_in '
                                                                       '(the default: the deal is '
                                                                       'thrown in), dealer (the '
                                                                       'dealer is the declarer at '
                                                                       'min_bid) or {seat: RULE} (the '
                                                                       'seat the rule names is the '
                                                                       'declarer at min_bid)'},
                                           'standing_bid': {'type': 'integer', 'minimum': 0},
                                           'final_pass': {'type': 'boolean'},
                                           'may_double': {'$ref': '#/$defs/rule'},
                                           'may_redouble': {'$ref': '#/$defs/rule'},
                                           'order': {'enum': ['round', 'duel'],
                                                     'description': 'round: every seat calls in '
                                                                    'turn; duel: a holder and a '
                                                                    'challenger face each other, '
                                                                    'and a seat that passes is '
                                                                    'out'},
                                           'may_equal': {'$ref': '#/$defs/rule'}}},
                'contract': {'type': 'object',
                             'additionalProperties': False,
                             'required': ['declarer', 'target'],
                             'description': "for a flow without an 'auction' step: the declarer (a "
                                            'seat rule) and the target (a number rule), asked as '
                                            'the deal starts',
                             'properties': {'declarer': {'$ref': '#/$defs/rule'},
                                            'target': {'$ref': '#/$defs/rule'}}}},
 'steps': ['auction', 'doubling']}


MECHANIC = Mechanic(
    "auction", schema=SCHEMA, load=load, compiler=compiler,
    hooks={**HOOKS, **CONTRACT_HOOKS}, skipped_hooks=skipped_hooks,
    variant=AuctionFields, tables=((1, calls_table), (4, bids_table)),
    action_kinds={"pass": "None", "double": "None", "redouble": "None",
                  "bid": "(number, denomination or None): the bid's number and, if the bid names "
                         "one, its suit letter or no-trump name"},
    fields={"bid": "=", "denomination": "=", "high_bidder": "=", "calls": "=", "bids": "=",
            "passes": "=", "passed": "list", "doubled": "=", "doubling_queue": "list",
            "holder": "=", "challenger": "=", "equal_bid": "=",
            "declarer": "=", "target": "=", "taken_over": "="},
    start=start, phases=PHASES, compiled_legal={"auction": "auction_legal"}, view=view,
    step_words=STEP_WORDS, words=words)
