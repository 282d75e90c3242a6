"""The translation between taash and the SmartBots 29 HTTP protocol
(docs/http-bots.md; the rules are docs/rules.md §29b, variant ``house/29-bhoos``), both ways,
as pure functions with no I/O:

- arena side (`taash bot http`): `request_of(observation, ids, time_ms)` builds the
  protocol's request from a seat's observation alone; `parse_answer(path, body, observation)`
  turns the bot's answer into an action text of taash (`Answer`).
- server side (`taash serve http`): `state_of(variant, path, request, rng)` builds a `State`
  consistent with a request (the seat's own hand and the public history; the cards it
  cannot see dealt at random among the deals the history allows); `answer_of(action)`
  turns a taash action into the protocol's answer.

Cards: the protocol writes rank then suit with ``1`` for the ace (``1S``); taash writes
``AS``. Bids: ``0`` is ``pass``, ``N`` is ``bid N``. A reveal (``revealTrump``) is taash's
``expose`` (docs/rules.md §29b.6).
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass

from taash.interpreter import State
from taash.interpreter.errors import TaashError

from ..errors import ArenaError

SUITS = ("S", "H", "D", "C")
RANKS = ("J", "9", "A", "T", "K", "Q", "8", "7")      # taash's ranks, strongest first
ENDPOINTS = {"auction": "/bid", "trump": "/chooseTrump", "play": "/play"}


class AnswerError(ArenaError, ValueError):
    """An answer of an HTTP bot that names no action at all: a body that is not JSON, not
    an object, or lacks its field (``/bid``: ``bid``; ``/chooseTrump``: ``suit``;
    ``/play``: ``card`` or ``revealTrump``), or a field of the wrong type. The bridge
    reports it to the arena as the bot's error (verdict ``BOT_ERROR``)."""


class RequestError(ArenaError, ValueError):
    """A request that `state_of` cannot read or that no deal of docs/rules.md §29b fits: the
    server answers 400 with ``{"error": message}``."""


class Unsupported(ArenaError, ValueError):
    """An observation the protocol has no request for (a phase other than the auction, the
    trump choice and the play, or a variant that is not four seats of 32 cards)."""


# -- cards ----------------------------------------------------------------------------------
def card_out(card: str) -> str:
    """taash's card text -> the protocol's: ``AS`` -> ``1S``, ``TH`` -> ``TH``."""
    return ("1" + card[1:]) if card[:1] == "A" else card


def card_in(text) -> str | None:
    """The protocol's card text -> taash's (``1S`` -> ``AS``; ``AS`` is taken too, as one
    public bot writes it); None for anything that is no card of the 32 (``ZZ``, ``10S``,
    a number, lower case)."""
    if not isinstance(text, str) or len(text) != 2:
        return None
    r, s = text[0], text[1]
    if r == "1":
        r = "A"
    return r + s if r in RANKS and s in SUITS else None


# -- arena side: observation -> request -----------------------------------------------------
def default_ids(players: int = 4) -> list[str]:
    """The player ids the bridge sends: ``P0 .. P3`` in seat order."""
    return [f"P{i}" for i in range(players)]


def endpoint_of(observation: dict) -> str:
    """The protocol's endpoint for the decision of ``observation`` (``/bid``,
    ``/chooseTrump`` or ``/play``). Raises Unsupported for any other phase."""
    path = ENDPOINTS.get(observation.get("phase"))
    if path is None or observation.get("players") != 4:
        raise Unsupported(f"the protocol has no request for phase {observation.get('phase')!r} "
                          f"with {observation.get('players')} players (it plays docs/rules.md §29b only)")
    return path


def _calls(history) -> list[tuple[int, int]]:
    """(seat, bid) of each auction call in ``history``, 0 for a pass."""
    out = []
    for seat, action in history:
        if action == "pass":
            out.append((seat, 0))
        elif action.startswith("bid "):
            out.append((seat, int(action.split()[1])))
        elif action == "trump" or action.startswith("trump ") or action.startswith("play "):
            break
    return out


def request_of(observation: dict, ids: list[str] | None = None, time_ms: float = 1500.0) -> tuple[str, dict]:
    """(endpoint, body) of the protocol's request for the decision of ``observation``
    (`State.observation(seat)` of a 29b deal, the seat to act), built from it alone:

    - every request: ``playerId``, ``playerIds`` (``ids``, seat order), ``timeRemaining``
      (``time_ms``, ms, a float), ``cards`` (the seat's hand), ``bidHistory``
      (``[[id, bid], ...]``, 0 for a pass);
    - ``/bid``: ``bidState`` ``{defenderId, challengerId, defenderBid, challengerBid}``:
      the holder and the challenger of docs/rules.md §29b.4 and their last bids (0 = none yet);
      before the first bid the seat asked stands as the defender and the next seat not out
      as the challenger;
    - ``/play``: ``teams`` (``[{players, bid, won}]`` for seats 0+2 and 1+3: ``bid`` is the
      contract for the declarer's side, else 0; ``won`` card points), ``played`` (this
      trick so far), ``handsHistory`` (``[[leaderId, [4 cards], winnerId], ...]``),
      ``trumpSuit`` (the suit if this seat knows it: the declarer, or anyone after the
      reveal; else false) and ``trumpRevealed`` (false, or ``{hand, playerId}``: the
      1-based trick of the reveal and who asked for it).

    Raises Unsupported for another phase or table."""
    path = endpoint_of(observation)
    n = observation["players"]
    ids = list(ids or default_ids(n))
    seat = observation["seat"]
    calls = _calls(observation.get("history") or [])
    body = {
        "playerId": ids[seat],
        "playerIds": ids,
        "timeRemaining": float(time_ms),
        "cards": [card_out(c) for c in observation.get("hand") or []],
        "bidHistory": [[ids[s], b] for s, b in calls],
    }
    if path == "/bid":
        last = {}
        for s, b in calls:
            if b:
                last[s] = b
        out = set(observation.get("passed") or [])
        holder, challenger = observation.get("holder"), observation.get("challenger")
        if holder is None:
            holder = seat
        if challenger is None:
            challenger = next((x for x in ((holder + k) % n for k in range(1, n))
                               if x not in out and x != holder), holder)
        body["bidState"] = {"defenderId": ids[holder], "challengerId": ids[challenger],
                            "defenderBid": last.get(holder, 0), "challengerBid": last.get(challenger, 0)}
    elif path == "/play":
        declarer = observation.get("declarer")
        bid = observation.get("high_bid") or observation.get("target") or 0
        points = observation.get("points") or [0] * n
        body["teams"] = [{"players": [ids[s] for s in range(side, n, 2)],
                          "bid": bid if declarer is not None and declarer % 2 == side else 0,
                          "won": sum(points[s] for s in range(side, n, 2))} for side in (0, 1)]
        body["played"] = [card_out(c) for _, c in observation.get("trick") or []]
        body["handsHistory"] = [[ids[t["leader"]], [card_out(c) for c in t["cards"]], ids[t["winner"]]]
                                for t in observation.get("tricks") or []]
        trump = observation.get("trump")
        body["trumpSuit"] = trump if trump in SUITS else False
        if observation.get("trump_exposed") and observation.get("exposer") is not None:
            body["trumpRevealed"] = {"hand": observation["exposure_trick"], "playerId": ids[observation["exposer"]]}
        else:
            body["trumpRevealed"] = False
    return path, body


# -- arena side: answer -> action ------------------------------------------------------------
@dataclass(frozen=True)
class Answer:
    """An HTTP bot's answer as taash actions: ``action`` is the text to send to the arena
    now (it may be illegal: the arena judges it, ILLEGAL_ACTION); ``then`` is the card
    (``play XY``) that came with a reveal, to send after ``expose`` is applied, or None
    (a reveal without a card: the protocol asks ``/play`` again)."""
    action: str
    then: str | None = None


def load_body(body) -> dict:
    """The JSON object of an answer's body (bytes or text; any Content-Type, a trailing
    newline, pretty-printed, a UTF-8 BOM). Raises AnswerError if it is not one."""
    if isinstance(body, (bytes, bytearray)):
        try:
            body = body.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise AnswerError("the body is not UTF-8 text") from None
    try:
        obj = json.loads(body)
    except ValueError:
        raise AnswerError(f"the body is not JSON: {body[:80]!r}") from None
    if not isinstance(obj, dict):
        raise AnswerError(f"the body is not a JSON object: {body[:80]!r}")
    return obj


def _integer(value, field: str) -> int:
    """An integer from an int or an integral float (``17``, ``17.0``); AnswerError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AnswerError(f"{field!r} is not a number: {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise AnswerError(f"{field!r} is not a whole number: {value!r}")
        value = int(value)
    return value


def _raw(text) -> str:
    """A bot's unknown card or suit text, made safe to send as (illegal) action text."""
    s = text if isinstance(text, str) else json.dumps(text)
    return "".join(ch if ch.isprintable() else "?" for ch in s)[:16]


def parse_answer(path: str, body, observation: dict) -> Answer:
    """The taash action of the answer ``body`` (bytes, text or a parsed dict) to the
    request of ``path`` for the seat of ``observation``:

    - ``/bid``: ``{"bid": 0}`` -> ``pass``; ``{"bid": N}`` -> ``bid N`` (N an int or an
      integral float);
    - ``/chooseTrump``: ``{"suit": "H"}`` -> ``trump H``;
    - ``/play``: ``{"card": "1S"}`` -> ``play AS``; ``{"revealTrump": true}`` -> ``expose``
      (and the bridge asks ``/play`` again); ``{"revealTrump": true, "card": "9H"}`` ->
      ``expose`` then ``play 9H``. A ``revealTrump`` from the seat that revealed in this
      trick, with a card, is that card (the reveal is done); any other reveal that
      ``expose`` is not legal for is sent as ``expose`` all the same, and the arena refuses
      it (ILLEGAL_ACTION).

    An unknown card or suit text gives an action text that is no legal action (``play ZZ``),
    which the arena refuses as ILLEGAL_ACTION. Raises AnswerError for a body that names no
    action (not JSON, not an object, a missing field, a field of the wrong type)."""
    obj = body if isinstance(body, dict) else load_body(body)
    if path == "/bid":
        if "bid" not in obj:
            raise AnswerError(f"no field 'bid' in the answer: {_raw(json.dumps(obj))}")
        n = _integer(obj["bid"], "bid")
        return Answer("pass" if n == 0 else f"bid {n}")
    if path == "/chooseTrump":
        if "suit" not in obj:
            raise AnswerError("no field 'suit' in the answer")
        suit = obj["suit"]
        if not isinstance(suit, str):
            raise AnswerError(f"'suit' is not text: {suit!r}")
        return Answer(f"trump {_raw(suit)}")
    if path != "/play":
        raise ValueError(f"no such endpoint {path!r}")
    reveal = obj.get("revealTrump", False)
    if reveal not in (True, False, None, 0, 1):
        raise AnswerError(f"'revealTrump' is not true or false: {reveal!r}")
    card = obj.get("card")
    if card is None and not reveal:
        raise AnswerError("no field 'card' (nor 'revealTrump') in the answer")
    play = None
    if card is not None:
        c = card_in(card)
        play = f"play {c}" if c else f"play {_raw(card)}"
    if reveal:
        seat = observation.get("seat")
        done = (observation.get("trump_exposed") and observation.get("exposer") == seat
                and observation.get("exposure_trick") == len(observation.get("tricks") or []) + 1)
        if done and play is not None:
            return Answer(play)            # the reveal is done: the card alone
        return Answer("expose", play)
    return Answer(play)


# -- server side: action -> answer -----------------------------------------------------------
def answer_of(action: str) -> dict:
    """The protocol's answer for a taash action: ``pass`` -> ``{"bid": 0}``, ``bid N`` ->
    ``{"bid": N}``, ``trump S`` -> ``{"suit": "S"}``, ``play AS`` -> ``{"card": "1S"}``,
    ``expose`` -> ``{"revealTrump": true}``. Raises ValueError for any other action."""
    a = str(action)
    if a == "pass":
        return {"bid": 0}
    if a.startswith("bid "):
        return {"bid": int(a.split()[1])}
    if a.startswith("trump ") and a[6:] in SUITS:
        return {"suit": a[6:]}
    if a.startswith("play "):
        return {"card": card_out(a[5:])}
    if a == "expose":
        return {"revealTrump": True}
    raise ValueError(f"the protocol has no answer for {a!r}")


# -- server side: request -> State ----------------------------------------------------------
def _req(obj: dict, key: str, kind, what: str):
    if key not in obj:
        raise RequestError(f"the request has no {key!r}")
    v = obj[key]
    if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
        raise RequestError(f"{key!r} is not {what}")
    return v


def _list(body: dict, key: str) -> list:
    """``body[key]``, a list (absent or null: empty); RequestError otherwise."""
    v = body.get(key)
    if v is None:
        return []
    if not isinstance(v, list):
        raise RequestError(f"{key!r} is not a list")
    return v


def _cards(lst, what: str) -> list[str]:
    if not isinstance(lst, list):
        raise RequestError(f"{what} is not a list of cards")
    out = []
    for t in lst:
        c = card_in(t)
        if c is None:
            raise RequestError(f"{what}: {t!r} is no card (rank J 9 1 T K Q 8 7, suit S H D C)")
        out.append(c)
    return out


@dataclass
class Parsed:
    """A request read into seats: ``seat`` asked, ``ids``, ``hand`` (taash cards),
    ``calls`` [(seat, 'pass' | 'bid N')], ``tricks`` [(leader, [cards], winner)],
    ``played`` (this trick), ``trump`` (a suit or None), ``revealed`` (trick number 1-based,
    seat) or None."""
    path: str
    seat: int
    ids: list[str]
    hand: list[str]
    calls: list[tuple[int, str]]
    tricks: list[tuple[int, list[str], int]]
    played: list[str]
    trump: str | None
    revealed: tuple[int, int] | None


def parse_request(path: str, body) -> Parsed:
    """Read a request body (bytes, text or dict) of ``path``; RequestError if malformed."""
    if isinstance(body, (bytes, bytearray, str)):
        try:
            body = json.loads(body.decode("utf-8-sig") if not isinstance(body, str) else body)
        except (ValueError, UnicodeDecodeError):
            raise RequestError("the body is not JSON") from None
    if not isinstance(body, dict):
        raise RequestError("the body is not a JSON object")
    ids = _req(body, "playerIds", list, "a list of four ids")
    if len(ids) != 4 or len({json.dumps(i) for i in ids}) != 4 or not all(isinstance(i, (str, int)) for i in ids):
        raise RequestError("'playerIds' must be four distinct ids")
    ids = [str(i) for i in ids]
    pid = body.get("playerId")
    if pid is None or str(pid) not in ids:
        raise RequestError(f"'playerId' {pid!r} is not one of 'playerIds'")
    seat = ids.index(str(pid))

    def seat_of(x, what):
        if x is None or str(x) not in ids:
            raise RequestError(f"{what}: {x!r} is not one of 'playerIds'")
        return ids.index(str(x))

    hand = _cards(_req(body, "cards", list, "a list of cards"), "'cards'")
    calls = []
    for e in _list(body, "bidHistory"):
        if not isinstance(e, list) or len(e) != 2:
            raise RequestError(f"'bidHistory': {e!r} is not [playerId, bid]")
        s = seat_of(e[0], "'bidHistory'")
        try:
            b = _integer(e[1], "bid")
        except AnswerError as x:
            raise RequestError(f"'bidHistory': {x}") from None
        calls.append((s, "pass" if b == 0 else f"bid {b}"))
    tricks, played, trump, revealed = [], [], None, None
    if path == "/play":
        for e in _list(body, "handsHistory"):
            if not isinstance(e, list) or len(e) != 3:
                raise RequestError(f"'handsHistory': {e!r} is not [leaderId, [4 cards], winnerId]")
            cs = _cards(e[1], "'handsHistory'")
            if len(cs) != 4:
                raise RequestError("'handsHistory': a trick of other than 4 cards")
            tricks.append((seat_of(e[0], "'handsHistory'"), cs, seat_of(e[2], "'handsHistory'")))
        played = _cards(_list(body, "played"), "'played'")
        if len(played) > 3:
            raise RequestError("'played' has more than 3 cards")
        t = body.get("trumpSuit", False)
        if t not in (False, None):
            if t not in SUITS:
                raise RequestError(f"'trumpSuit' {t!r} is not false or one of S H D C")
            trump = t
        r = body.get("trumpRevealed", False)
        if r not in (False, None):
            if not isinstance(r, dict):
                raise RequestError("'trumpRevealed' is not false or {hand, playerId}")
            try:
                k = _integer(r.get("hand"), "hand")
            except AnswerError as x:
                raise RequestError(f"'trumpRevealed': {x}") from None
            if not 1 <= k <= len(tricks) + 1:
                raise RequestError(f"'trumpRevealed': hand {k} is not a trick played so far")
            revealed = (k, seat_of(r.get("playerId"), "'trumpRevealed'"))
            if trump is None:
                raise RequestError("'trumpRevealed' is set but 'trumpSuit' is not")
    return Parsed(path, seat, ids, hand, calls, tricks, played, trump, revealed)


def _fill(need: dict[int, int], forbidden: dict[int, set], pool: list[str], rng) -> dict[int, list[str]] | None:
    """Deal ``pool`` to the seats of ``need`` (seat -> count), no seat getting a card of
    its ``forbidden`` set: a bipartite matching of seat slots to cards (augmenting paths,
    Kuhn), in random order; None if no such deal exists."""
    slots = [s for s in need for _ in range(need[s])]
    rng.shuffle(slots)
    cards = list(pool)
    rng.shuffle(cards)
    owner: dict[str, int] = {}              # card -> slot index

    def augment(i, seen):
        for c in cards:
            if c in seen or c in forbidden.get(slots[i], ()):
                continue
            seen.add(c)
            if c not in owner or augment(owner[c], seen):
                owner[c] = i
                return True
        return False

    for i in range(len(slots)):
        if not augment(i, set()):
            return None
    out = {s: [] for s in need}
    for c, i in owner.items():
        out[slots[i]].append(c)
    return out


def state_of(variant, path: str, body, rng: random.Random | None = None, tries: int = 50):
    """A `State` of ``variant`` (``house/29-bhoos``) at the decision of the request ``body``
    to ``path``, consistent with it: the asked seat's hand is ``cards``, the public history
    (``bidHistory``, the trump if the seat knows it, ``handsHistory``, ``played``, the
    reveal at ``trumpRevealed``) is replayed through the engine, and every card the seat
    cannot see is dealt at random among the seats that may hold it (a seat that did not
    follow suit holds none of that suit; the revealer who did not trump holds no trump, and
    none above an opponent's winning trump it did not beat: docs/rules.md §29b.6). A trump suit
    the seat does not know is drawn at random (it changes nothing before the reveal). The
    dealer is the seat before the first caller (docs/rules.md §29b.3-4). Returns (state, seat).
    Raises RequestError for a malformed request, or one that no deal of §29b fits (the seat
    asked is not the one to act, an illegal call or card in the history)."""
    rng = rng or random.Random(0)
    p = parse_request(path, body)
    deck_ = variant.deck

    def weakness(card: str) -> int:  # the variant's order of strength (docs/rules.md §29b.2)
        return -deck_.strength[deck_.card_index[card]]
    n = 4
    if p.calls:
        eldest = p.calls[0][0]
    elif p.tricks:
        eldest = p.tricks[0][0]
    else:
        eldest = p.seat
    dealer = (eldest - 1) % n
    # who played what, and what each seat cannot hold
    plays: list[tuple[int, str]] = []        # (seat, card) in order, with the reveal marked
    played_by = {s: [] for s in range(n)}
    forbidden = {s: set() for s in range(n)}
    trick_list = [(lead, cards) for lead, cards, _ in p.tricks]
    if p.path == "/play":
        cur_leader = p.tricks[-1][2] if p.tricks else eldest
        trick_list.append((cur_leader, p.played))
    for k, (lead, cards) in enumerate(trick_list, start=1):
        if not cards:
            continue
        led = cards[0][1]
        for i, c in enumerate(cards):
            s = (lead + i) % n
            played_by[s].append(c)
            if c[1] != led:
                forbidden[s] |= {r + led for r in RANKS}
            if p.revealed == (k, s) and i > 0 and p.trump:
                t = p.trump
                before = cards[:i]
                if c[1] != t:
                    forbidden[s] |= {r + t for r in RANKS}
                else:
                    trumps = [(j, x) for j, x in enumerate(before) if x[1] == t]
                    if trumps:
                        j, best = min(trumps, key=lambda jx: weakness(jx[1]))
                        if (lead + j) % 2 != s % 2 and weakness(c) > weakness(best):
                            forbidden[s] |= {r + t for r in RANKS if weakness(r + t) < weakness(best)}
    hand = list(p.hand)
    phase2 = p.path == "/play"
    if not phase2 and len(hand) != 4:
        raise RequestError(f"'cards' has {len(hand)} cards; the auction and the trump choice see 4")
    if phase2 and len(hand) + len(played_by[p.seat]) != 8:
        raise RequestError(f"'cards' has {len(hand)} cards; with the {len(played_by[p.seat])} this seat "
                           "played that is not 8")
    known = hand + [c for cs in played_by.values() for c in cs]
    if len(set(known)) != len(known):
        raise RequestError("a card appears twice in 'cards', 'handsHistory' and 'played'")
    deck = [r + s for s in SUITS for r in RANKS]
    pool = [c for c in deck if c not in set(known)]
    need = {s: 8 - len(played_by[s]) for s in range(n) if s != p.seat}
    if not phase2:
        need[p.seat] = 4
    if any(v < 0 for v in need.values()):
        raise RequestError("a seat played more than 8 cards")
    forbidden[p.seat] = set()
    history = [(s, a) for s, a in p.calls]
    last_err = None
    for _ in range(tries):
        got = _fill(need, forbidden, pool, rng)
        if got is None:
            raise RequestError("no deal fits the cards played (a seat that showed a void would need that suit)")
        hands = []
        for s in range(n):
            if s == p.seat:
                cards = hand + played_by[s] if phase2 else hand + got[s]
            else:
                cards = played_by[s] + got[s]
            hands.append(cards)
        st = State(variant, dealer=dealer, hands=hands)
        try:
            _replay(st, p, history, trick_list, rng)
        except (TaashError, _Mismatch) as e:
            last_err = e
            continue
        if st.to_act != p.seat:
            raise RequestError(f"after the history it is seat {p.ids[st.to_act] if st.to_act >= 0 else None}'s "
                               f"turn, not {p.ids[p.seat]}'s")
        want = {"/bid": "auction", "/chooseTrump": "trump", "/play": "play"}[p.path]
        if st.phase != want:
            raise RequestError(f"after the history the deal is in its {st.phase} phase, not asking {p.path}")
        return st, p.seat
    raise RequestError(f"the history is not a deal of docs/rules.md §29b: {last_err}")


class _Mismatch(ArenaError):
    pass


def _replay(st, p: Parsed, calls, tricks, rng) -> None:
    for s, a in calls:
        if st.phase != "auction":
            raise _Mismatch(f"'bidHistory' goes on after the auction ended: {a}")
        if st.to_act != s:
            raise _Mismatch(f"'bidHistory': {p.ids[s]} called out of turn")
        st.apply(a)
    if st.phase != "trump":
        return
    if p.path == "/chooseTrump":
        return
    declarer = st.to_act
    trump = p.trump if p.trump else SUITS[rng.randrange(4)]
    st.apply(f"trump {trump}")
    for k, (lead, cards) in enumerate(tricks, start=1):
        for i, c in enumerate(cards):
            s = (lead + i) % 4
            if st.to_act != s:
                raise _Mismatch(f"trick {k}: {p.ids[s]} played out of turn")
            if p.revealed == (k, s):
                st.apply("expose")
            st.apply(f"play {c}")
        if k <= len(p.tricks) and cards:
            winner = p.tricks[k - 1][2]
            if st.observation(declarer)["tricks"][k - 1]["winner"] != winner:
                raise _Mismatch(f"trick {k}: the winner is not {p.ids[winner]} under docs/rules.md §29b.6")
    k = len(tricks)
    if p.revealed is not None and p.revealed[0] == k and st.to_act == p.revealed[1] \
            and p.revealed[1] == p.seat and not any(a == "expose" for _, a in st.history):
        st.apply("expose")
