"""Helpers for tests/engine/test_properties.py: independent oracles written from docs/rules.md, and
the re-dealing of the cards a seat cannot see (docs/architecture.md, "Information").

Nothing here calls engine internals: the helpers read public State fields (hands, dealt,
widow, history, tricks, trick_cards, trick_seats, trump_card, declarer, phase, side) and
the variant's data (players, flow, deck letters, trump mode, the counts_as_trump rule
text, trump.dealt_card); everything else is rebuilt from the action history.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter

from taash.interpreter import IllegalActionError, State

# docs/rules.md §0.3: every suit ranks J 9 A T K Q 8 7, high to low (a variant may list other
# ranks of the 52-card pack: `use_ranks` sets its order); §0.10: suits S H D C.
STRENGTH_ORDER = "J9ATKQ87"
ALL_RANKS = "23456789TJQKA"
SUIT_ORDER = "SHDC"
DENOMINATIONS = ["S", "H", "D", "C", "NT", "NOES"]
MAX_ACTIONS_PER_DEAL = 500


def use_ranks(v) -> None:
    """Take the variant's order of strength (its file's ``deck.ranks``, strongest first)."""
    global STRENGTH_ORDER
    STRENGTH_ORDER = "".join(v.data["deck"]["ranks"])


def strength(card: str) -> int:
    """Higher is stronger (docs/rules.md §0.3)."""
    return len(STRENGTH_ORDER) - STRENGTH_ORDER.index(card[0])


def playing(st: State) -> int:
    """How many seats play the tricks: those that do not sit out (``State.out``)."""
    return st.v.players - sum(st.out)


def card_key(card: str):
    """§0.10 order of cards: by suit S H D C, then by strength high to low."""
    return (SUIT_ORDER.index(card[1]), -strength(card))


def is_card(x: str) -> bool:
    return len(x) == 2 and x[0] in ALL_RANKS and x[1] in SUIT_ORDER


# -- §0.10 order of legal actions ------------------------------------------------------
# pass; bids; double; redouble; other auction or exchange actions (trump, trump-card, call,
# take, discard, done); declarations (cot is declared like one, §56.8); expose; cards.
_CATEGORY = {"pass": (0, 0), "bid": (1, 0), "double": (2, 0), "redouble": (3, 0),
             "trump": (4, 0), "trump-card": (4, 1), "call": (4, 2), "take": (4, 3),
             "discard": (4, 4), "done": (4, 5), "declare": (5, 0), "cot": (5, 0),
             "expose": (6, 0), "play": (7, 0)}


def action_sort_key(action: str):
    """A sort key for docs/rules.md §0.10 from the action text (and an Action's kind, for a
    declaration named by a word of its own). Where §0.10 says nothing
    (the order of declarations among themselves, of trump suits, of called, taken or
    discarded cards) the key ties."""
    parts = action.split()
    # a declaration's action may be a word of its own (`cot`, `redeal`): an Action says so
    kind = "declare" if getattr(action, "kind", None) == "declare" else parts[0]
    assert kind in _CATEGORY, f"§0.10 does not place the action {action!r}"
    cat = _CATEGORY[kind]
    if kind == "bid":
        # by number, then by denomination S H D C NT NOES, number-first before suit-first
        if parts[1].isdigit():
            num, den, suit_first = int(parts[1]), (parts[2] if len(parts) > 2 else None), 0
        else:
            den, num, suit_first = parts[1], int(parts[2]), 1
        return cat + (num, -1 if den is None else DENOMINATIONS.index(den), suit_first)
    if kind == "play":
        return cat + card_key(parts[1])
    return cat


def check_order(legal: list[str]) -> None:
    """Assert that ``legal`` is ordered per §0.10."""
    keys = [action_sort_key(a) for a in legal]
    for i in range(len(keys) - 1):
        assert keys[i] <= keys[i + 1], (f"legal actions out of §0.10 order: {legal[i]!r} before "
                                        f"{legal[i + 1]!r} in {legal}")


# -- playing -------------------------------------------------------------------------
def play_out(st: State, choose, stop_after: int | None = None, check=None) -> list[str]:
    """Apply ``choose(legal) -> index`` until terminal (or ``stop_after`` actions).
    ``check(st)`` is called before every action and at the end. Asserts property 1."""
    done = []
    while not st.is_terminal:
        if stop_after is not None and len(done) >= stop_after:
            break
        if check:
            check(st)
        legal = st.legal_actions()
        assert legal, f"no legal action in phase {st.phase} (seat {st.to_act}) after {done}"
        assert len(set(legal)) == len(legal), f"duplicate legal actions: {legal}"
        a = legal[choose(legal)]
        st.apply(a)
        done.append(a)
        assert len(done) <= MAX_ACTIONS_PER_DEAL, f"deal not over after {len(done)} actions"
    if check:
        check(st)
    return done


def auction_shy_chooser(rng: random.Random):
    """A random chooser that passes often in the auction, so that matches end sooner."""
    def choose(legal):
        if legal[0] == "pass" and rng.random() < 0.75:
            return 0
        return rng.randrange(len(legal))
    return choose


# -- what the history says ------------------------------------------------------------
def played_by_seat(st: State) -> list[list[int]]:
    """Card ids played by each seat so far (completed tricks and the current one), from
    the history."""
    out = [[] for _ in range(st.v.players)]
    for s, a in st.history:
        if a.startswith("play "):
            out[s].append(st.v.deck.parse(a.split()[1]))
    return out


def dealt_card_index(v) -> int | None:
    """0-based index in the declarer's dealt cards of trump.dealt_card (§H 28-seventh-card)."""
    k = ((v.data.get("trump") or {}).get("dealt_card")) or 0
    return k - 1 if k else None


class Facts:
    """What the full action history of a deal says (the truth, for the oracles)."""

    def __init__(self, st: State, history=None, dealt=None):
        v = st.v
        history = st.history if history is None else history
        dealt = [[v.deck.text[c] for c in h] for h in st.dealt] if dealt is None else dealt
        self.fd_seat = self.fd_card = self.fd_index = None  # the face-down trump card
        self.exposed = False          # the face-down card has been shown (or played)
        self.trump = fixed_trump(v)   # suit letter, as known to the declarer
        self.taken, self.discarded = [], []   # (seat, card text) of the exchange
        self.called = None
        self.bid_den = None
        for seat, a in history:
            head, _, rest = a.partition(" ")
            if head == "trump-card":
                self.fd_seat = seat
                if is_card(rest):
                    self.fd_card = rest
                    self.fd_index = dealt[seat].index(rest)
                else:  # e.g. `trump-card seventh`: a dealt card by its position
                    self.fd_index = dealt_card_index(v)
                    self.fd_card = dealt[seat][self.fd_index]
                self.trump = self.fd_card[1]
            elif head == "trump":
                self.trump, self.exposed = rest, v.trump_mode != "secret"
            elif head == "expose":
                self.exposed = True
            elif head == "take":
                self.taken.append((seat, rest))
            elif head == "discard":
                self.discarded.append((seat, rest))
            elif head == "call":
                self.called = rest
            elif head == "bid":
                den = [p for p in rest.split() if not p.isdigit()]
                self.bid_den = den[0] if den else None
            elif head == "play":
                if (self.fd_card is not None and not self.exposed and seat == self.fd_seat
                        and rest == self.fd_card):
                    self.exposed = True  # §28.8: exposed as it is played
        if v.trump_mode == "bid" and self.bid_den in ("S", "H", "D", "C"):
            self.trump = self.bid_den

    def set_aside(self, widow: list[str]) -> Counter:
        """The cards the exchange set aside: the widow not taken, plus the discards."""
        out = Counter(widow)
        out.subtract(Counter(c for _, c in self.taken))
        out.update(c for _, c in self.discarded)
        return +out


# -- card conservation (property 2) ----------------------------------------------------
def packet_boundaries(v) -> list[int]:
    """How many cards a seat may have received after each dealing step (0 included)."""
    out, k = [0], 0
    for step in v.flow:
        if isinstance(step, dict) and "deal" in step:
            k += sum(step["deal"])
            out.append(k)
    return out


def check_conservation(st: State) -> None:
    v = st.v
    deck = v.deck
    text = deck.text
    n = v.players
    played = played_by_seat(st)
    bounds = packet_boundaries(v)
    facts = Facts(st)
    whole = Counter()  # where every card is now
    for s in range(n):
        # what the seat received from its dealt cards: what it holds, played, laid face
        # down or discarded, less what it took from the widow
        have = Counter(st.hands[s]) + Counter(played[s])
        if st.trump_card >= 0 and s == st.declarer:
            have[st.trump_card] += 1
        have.update(deck.parse(c) for t, c in facts.discarded if t == s)
        have.subtract(deck.parse(c) for t, c in facts.taken if t == s)
        assert all(x >= 0 for x in have.values()), f"seat {s} gave away a card it never had"
        have = +have
        dealt = Counter(st.dealt[s])
        assert not have - dealt, (f"seat {s} has cards it was not dealt: "
                                  f"{sorted(text[c] for c in (have - dealt).elements())}")
        k = sum(have.values())
        assert k in bounds, f"seat {s} holds/played {k} cards, not a packet boundary {bounds}"
        if st.phase == "play" or (st.phase == "done" and st.tricks):
            assert have == dealt, f"seat {s} does not have all its cards in play"
        whole.update(st.hands[s])
        whole.update(played[s])
        whole.update(dealt - have)  # not dealt yet
        if deck.max_copies == 1:  # no card both in a hand and on the table
            assert not set(st.hands[s]) & set(c for p in played for c in p)
    if st.trump_card >= 0:
        assert st.declarer >= 0
        whole[st.trump_card] += 1
        assert deck.max_copies > 1 or all(st.trump_card not in h for h in st.hands)
    widow_left = Counter(st.widow)
    widow_left.subtract(deck.parse(c) for _t, c in facts.taken)
    assert all(x >= 0 for x in widow_left.values()), "a card taken that is not in the widow"
    whole.update(+widow_left)
    whole.update(deck.parse(c) for _t, c in facts.discarded)
    assert whole == Counter(deck.cards()), (
        "hands + played + face-down + undealt + widow + discards is not the deck: "
        f"extra {sorted(text[c] for c in (whole - Counter(deck.cards())).elements())}, "
        f"missing {sorted(text[c] for c in (Counter(deck.cards()) - whole).elements())}")


# -- the trick-winner oracle (property 4, docs/rules.md §0.4, §28.7, §H) ----------------------
def _norm(rule: str) -> str:
    return re.sub(r"\s+", " ", rule.strip())


# Rule texts of play.counts_as_trump that the oracle knows, for hidden-trump variants.
HIDDEN_TRUMP_RULES = {
    # §28.7: a trump-suit card counts if played after the exposure, or if trump was led
    "suit(card) == trump and (played_after_exposure or led == trump)": "after-exposure-or-led",
    # §H 29-hidden-trump: trump-suit cards count once trump is exposed by the trick's end
    "suit(card) == trump and trump_exposed": "exposed-by-end",
    "suit(card) == trump": "always",
}


def trump_rule(v) -> str:
    if v.trump_mode not in ("hidden", "secret"):
        return "always"  # §0.4: where trump is open, every card of the trump suit counts
    rule = ((v.data.get("play") or {}).get("counts_as_trump")) or "suit(card) == trump"
    key = _norm(rule)
    if key not in HIDDEN_TRUMP_RULES:
        raise AssertionError(f"variant {v.name}: the test oracle does not know the hidden-trump "
                             f"rule {rule!r}; teach tests/helpers/props.py HIDDEN_TRUMP_RULES")
    return HIDDEN_TRUMP_RULES[key]


def oracle_winner(plays, led: str, trump: str | None, rule: str, exposed_at_end: bool) -> int:
    """plays: [(seat, card text, played_after_exposure)]; returns the winning seat."""
    best, best_key = None, None
    for seat, card, after in plays:
        is_trump_suit = trump is not None and card[1] == trump
        if rule == "always":
            counts = is_trump_suit
        elif rule == "after-exposure-or-led":
            counts = is_trump_suit and (after or led == trump)
        else:  # exposed-by-end
            counts = is_trump_suit and exposed_at_end
        key = (2 if counts else 1 if card[1] == led else 0, strength(card))
        if best_key is None or key > best_key:  # strict: of identical cards the first wins
            best, best_key = seat, key
    return best


def fixed_trump(v) -> str | None:
    """The suit letter of a trump the file fixes (trump.mode fixed), else None."""
    return v.data["trump"]["suit"] if v.trump_mode == "fixed" else None


def oracle_tricks(st: State):
    """Walk the action history; returns (completed tricks as (leader, [card texts],
    oracle winner, [(seat, card, after)]), the current trick as [(seat, card, after)])."""
    v = st.v
    rule = trump_rule(v)
    dealt = [[v.deck.text[c] for c in h] for h in st.dealt]
    trump = fixed_trump(v)
    exposed = False
    fd_seat = fd_card = None
    done, cur = [], []
    for k, (seat, a) in enumerate(st.history):
        head, _, rest = a.partition(" ")
        if head == "trump-card":
            fd_seat = seat
            fd_card = rest if is_card(rest) else dealt[seat][dealt_card_index(v)]
            trump = fd_card[1]
        elif head == "trump":
            trump, exposed = rest, v.trump_mode != "secret"  # §29b.5: a secret suit
        elif head == "expose":
            exposed = True
        elif head == "play":
            if v.trump_mode == "bid" and trump is None:
                trump = Facts(st, st.history[:k]).trump
            if fd_card is not None and not exposed and seat == fd_seat and rest == fd_card:
                exposed = True  # §28.8: the face-down card is exposed as it is played
            cur.append((seat, rest, exposed))
            if len(cur) == playing(st):
                led = cur[0][1][1]
                w = oracle_winner(cur, led, trump, rule, exposed)
                done.append((cur[0][0], [c for _, c, _ in cur], w, cur))
                cur = []
    return done, cur


def check_tricks(st: State) -> None:
    v = st.v
    text = v.deck.text
    done, cur = oracle_tricks(st)
    assert len(done) == len(st.tricks), f"{len(done)} tricks in the history, {len(st.tricks)} in the state"
    for i, ((leader, cards, w, _p), (sl, scards, sw)) in enumerate(zip(done, st.tricks)):
        assert (leader, cards) == (sl, [text[c] for c in scards]), f"trick {i + 1} differs from the history"
        assert w == sw, (f"trick {i + 1} {cards} led by seat {leader}: the oracle says seat {w} wins, "
                         f"the engine says seat {sw}")
    assert [c for _, c, _ in cur] == [text[c] for c in st.trick_cards]


# -- points (property 3) ----------------------------------------------------------------
def card_points(v, card: str) -> int:
    """A card's points as the file gives them: its own value, else its suit's, else its
    rank's (docs/authoring.md, "The deck")."""
    pts = v.data["deck"].get("points") or {}
    return pts.get(card, pts.get(card[1], pts.get(card[0], 0)))


def oracle_points(st: State):
    """(points per seat, points of the declarer's side) from the tricks, the last-trick
    bonus and the set-aside cards (§0.5), with sides per §0.6, §304.8 and §304s.1."""
    v = st.v
    n = v.players
    text = v.deck.text
    last = v.data["deck"].get("last_trick", 0) or 0
    facts = Facts(st)
    mode = v.data.get("partnership", "fixed")
    decl = st.declarer
    on_decl_side = set(s for s in range(n) if s % 2 == decl % 2) if mode == "fixed" else {decl}
    partner = None
    if mode == "called" and facts.called is not None:
        partner = next(s for s in range(n) if s != decl and facts.called in [text[c] for c in st.dealt[s]])
        on_decl_side.add(partner)
    seat_pts = [0] * n
    decl_pts = 0
    for i, (leader, cards, w) in enumerate(st.tricks):
        cards = [text[c] for c in cards]
        pts = sum(card_points(v, c) for c in cards) + (last if i == v.tricks - 1 else 0)
        seat_pts[w] += pts
        if w in on_decl_side:
            decl_pts += pts
        # §304.8, the cut: the declarer led the called card's suit, the holder played it,
        # the suit is not trump and a defender won with a trump: the partner goes over
        if partner is not None and partner in on_decl_side and leader == decl:
            led = cards[0][1]
            pos = (partner - leader) % n
            wcard = cards[(w - leader) % n]
            if (led == facts.called[1] and cards[pos] == facts.called and led != facts.trump
                    and wcard[1] == facts.trump and w not in on_decl_side):
                on_decl_side.discard(partner)
    aside = facts.set_aside([text[c] for c in st.widow]) if st.widow else Counter()
    extra = sum(card_points(v, c) * k for c, k in aside.items())
    # the widow's `points_to` (docs/authoring.md): the declarer, the last trick's winner, nobody
    to = next((step.get("points_to") for step in v.data["flow"]
               if isinstance(step, dict) and "widow" in step), None) or "declarer"
    taker = decl if to == "declarer" else st.tricks[-1][2] if to == "last_trick" else None
    if taker is not None:
        seat_pts[taker] += extra
        if taker in on_decl_side:
            decl_pts += extra
    return seat_pts, decl_pts


# -- re-dealing what a seat cannot see (property 8) --------------------------------------
def void_suits(v, history, players=None) -> dict[int, set]:
    """Suits each seat has shown to be void in (it did not follow the suit led). Every
    shipped variant makes a seat follow suit when it can; the replay is the final judge
    anyway, this only speeds up the sampling of consistent re-deals."""
    voids = {t: set() for t in range(v.players)}
    cur = []
    for seat, a in history:
        if a.startswith("play "):
            cur.append((seat, a.split()[1]))
            if len(cur) > 1 and cur[-1][1][1] != cur[0][1][1]:
                voids[seat].add(cur[0][1][1])
            if len(cur) == (players or v.players):
                cur = []
    return voids


HIDDEN_PAYLOAD = ("trump-card", "take", "discard")  # actions whose card others do not see


class Redealer:
    """The positions of the deal (dealt cards and widow) whose card ``me`` cannot see,
    and how to fill them anew. What ``me`` sees, by the rules: its own cards as it
    receives them, every card played, the face-down trump card if it is the declarer or
    once exposed (§28.5, §28.7), the widow if it is the declarer once the exchange starts
    (§304s.4), the cards it took or discarded itself."""

    def __init__(self, st: State, me: int):
        v = self.v = st.v
        text = v.deck.text
        n = v.players
        self.st, self.me = st, me
        self.dealt = [[text[c] for c in h] for h in st.dealt]
        self.widow = [text[c] for c in st.widow]
        played = played_by_seat(st)
        f = self.facts = Facts(st)
        self.fd_pos = None
        self.positions = []  # (seat or 'w', index)
        for t in range(n):
            known = Counter(text[c] for c in played[t])
            if t == me:
                known.update(text[c] for c in st.hands[me])
                known.update(c for s, c in f.discarded if s == me)
                if t == f.fd_seat and not f.exposed:
                    known[f.fd_card] += 1
            elif t == f.fd_seat and f.exposed and f.fd_card not in known:
                known[f.fd_card] += 1  # exposed: in the declarer's hand, seen by all
            fd_here = (t == f.fd_seat and t != me and not f.exposed)
            for i, c in enumerate(self.dealt[t]):
                if fd_here and i == f.fd_index:
                    self.fd_pos = (t, i)
                    self.positions.append((t, i))
                    continue
                if known[c] > 0:
                    known[c] -= 1
                    continue
                self.positions.append((t, i))
        exchange_seen = me == st.declarer and (st.phase == "exchange" or f.taken or f.discarded
                                               or any(a == "done" for _, a in st.history))
        if not exchange_seen:
            self.positions += [("w", i) for i in range(len(self.widow))]
        self.voids = void_suits(v, st.history, playing(st))

    def card_at(self, pos, dealt=None, widow=None):
        dealt = self.dealt if dealt is None else dealt
        widow = self.widow if widow is None else widow
        t, i = pos
        return widow[i] if t == "w" else dealt[t][i]

    def unseen(self) -> list[str]:
        return [self.card_at(p) for p in self.positions]

    def _forbidden(self, p):
        t, _i = p
        if t == "w" or t == self.me or p == self.fd_pos:
            return set()
        if self.widow and t == self.st.declarer:
            return set()  # some of his dealt cards may have been discarded before play
        return self.voids[t]

    def sample(self, rng: random.Random, tries: int = 50):
        """A random re-deal {position: card} of the unseen cards over the unseen
        positions, honouring the shown voids. None if none found."""
        pool0 = self.unseen()
        order = sorted(self.positions, key=lambda p: -len(self._forbidden(p)))
        for _ in range(tries):
            pool = list(pool0)
            rng.shuffle(pool)
            out = {}
            for p in order:
                forb = self._forbidden(p)
                choices = [i for i, c in enumerate(pool) if c[1] not in forb]
                if not choices:
                    break
                out[p] = pool.pop(rng.choice(choices))
            else:
                return out
        return None

    def build(self, assignment: dict):
        """Hands, widow and the remapped history for an assignment {position: card}: the
        card of a hidden action of another seat (§28.5 face-down card, §304s.4 take and
        discard) becomes the card now at its position."""
        dealt = [list(h) for h in self.dealt]
        widow = list(self.widow)
        perm = {}
        for p, c in assignment.items():
            old = self.card_at(p)
            perm.setdefault(old, c)
            t, i = p
            if t == "w":
                widow[i] = c
            else:
                dealt[t][i] = c
        history = []
        for seat, a in self.st.history:
            head, _, rest = a.partition(" ")
            if seat != self.me and head in HIDDEN_PAYLOAD and rest in perm:
                a = f"{head} {perm[rest]}"
            history.append((seat, a))
        return dealt, widow, history


def redeals(st: State, rd: "Redealer", rng: random.Random, tries: int):
    """Up to ``tries`` random re-deals of what ``rd``'s seat cannot see: for each,
    (assignment, (dealt, widow, history), steps of `replay_in_lockstep` or None when the
    re-deal is inconsistent with the public information). Stops when none can be drawn."""
    for _ in range(tries):
        assignment = rd.sample(rng)
        if assignment is None:
            return
        built = rd.build(assignment)
        yield assignment, built, replay_in_lockstep(st, *built, rd.me)


def replay_in_lockstep(st: State, dealt, widow, history, seat: int):
    """Replay ``history`` on the original deal and on the re-deal side by side. Returns
    None if the re-deal is inconsistent with the public information (an action illegal
    or by another seat, or a trick won by another seat); otherwise the list of (step,
    observation of the original, observation of the re-deal) as JSON texts."""
    v = st.v
    text = v.deck.text
    a_st = State(v, dealer=st.dealer, hands=[[text[c] for c in h] for h in st.dealt],
                 widow=[text[c] for c in st.widow] or None, scores=st.start_scores,
                 deal_number=st.deal_number)
    b_st = State(v, dealer=st.dealer, hands=dealt, widow=widow or None,
                 scores=st.start_scores, deal_number=st.deal_number)
    out = [(0, obs_json(a_st, seat), obs_json(b_st, seat))]
    for k, ((sa, a), (sb, b)) in enumerate(zip(st.history, history)):
        assert a_st.to_act == sa, "replaying the original history went off track"
        a_st.apply(a)
        if b_st.to_act != sb:
            return None
        try:
            b_st.apply(b)
        except IllegalActionError:
            return None
        if [w for *_x, w in a_st.tricks] != [w for *_x, w in b_st.tricks]:
            return None
        if b.startswith("declare ") and (called_holder(st.v, a_st, sa) != called_holder(st.v, b_st, sb)):
            return None  # §304.7, §304.9: a declaration shows whether its maker is the partner
        out.append((k + 1, obs_json(a_st, seat), obs_json(b_st, seat)))
    return out


def called_holder(v, st: State, seat: int) -> bool | None:
    """Whether ``seat`` holds the called card (§304.5), from the deal and the history."""
    called = Facts(st).called
    if called is None:
        return None
    return called in [v.deck.text[c] for c in st.dealt[seat]]


def obs_json(st: State, seat: int) -> str:
    return json.dumps(st.observation(seat), sort_keys=True)
