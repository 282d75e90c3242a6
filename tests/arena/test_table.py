"""The person's table without a browser (arena/web/table.py, arena/cli/play.py): the
state the page draws is folded from what the seat's stream gives and equals the engine's
own observation of the seat after the same actions; it is the same for a re-deal of the
hidden cards; the deal's result is explained in one sentence; a stale or illegal click
is refused and nothing is sent; `taash play` refuses bad arguments in one line."""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from taash.arena.cli import main
from taash.arena.pb import messages_pb2 as pb
from taash.arena.web.table import SeatClient, table_view, why
from taash.interpreter import Match, load_variant, shipped_variants
from taash.interpreter.information import resample


class Feed:
    """The messages the arena sends on ``seat``'s stream for a game of ``state``'s
    variant (docs/protocol.md): GameStart, public events, SeatViews, DecisionRequests."""

    def __init__(self, variant: str, seat: int, players: int):
        self.c = SeatClient("127.0.0.1:1", "t", "you", clock=lambda: 0.0)
        self.seat, self.index, self.rid = seat, 0, 0
        self.told = None        # the observation of the last decision
        self.msgs = []          # every message sent, in order
        self.view_at = None     # when the seat was last sent a SeatView (as the arena keeps it)
        bots = ["b"] * players
        bots[seat] = "you"
        self.send(pb.ServerMessage(game_start=pb.GameStart(
            game_id="g1", variant=variant, bots=bots, your_seats=[seat],
            time_control=pb.TimeControl(move_ms=60000, bank_ms=0))))

    def send(self, msg):
        self.msgs.append(msg)
        self.c.handle(msg)

    def event(self, **kw):
        self.send(pb.ServerMessage(event=pb.GameEvent(game_id="g1", index=self.index, **kw)))
        self.index += 1

    def decision(self, st):
        self.rid += 1
        self.told = st.observation(self.seat)
        self.send(decision(st, self.seat, f"g1.{self.rid}"))

    def view(self, st):
        """A SeatView when the deal, its flow step, the trump's exposure or the partner's
        revelation or who sits out changed, unless the seat is to act (docs/protocol.md,
        "Seat views")."""
        at = (st.deal_number, st.step, st.trump_exposed, st.partner_revealed, tuple(st.out))
        if st.to_act < 0 or at == self.view_at:
            return
        self.view_at = at
        if st.to_act != self.seat:
            self.send(pb.ServerMessage(view=pb.SeatView(game_id="g1", seat=self.seat, deal=st.deal_number,
                                                        observation_json=st.observation_json(self.seat))))

    def action(self, st, a):
        """Apply ``a`` to ``st`` and send its ActionTaken as every other seat sees it."""
        s, done = st.to_act, len(st.tricks)
        public = str(st.v.hidden_forms.get(a, a))
        st.apply(a)
        kw = {}
        if len(st.tricks) > done:
            kw["trick"] = pb.TrickTaken(number=len(st.tricks), winner=st.tricks[-1][2],
                                        points=st.trick_points_of(len(st.tricks) - 1))
        if st.to_act >= 0:
            kw["to_act"] = st.to_act
        self.event(action=pb.ActionTaken(deal=0, seat=s, action=public, **kw))
        self.view(st)


def decision(st, seat, rid):
    return pb.ServerMessage(decision=pb.DecisionRequest(
        request_id=rid, game_id="g1", seat=seat, observation_json=st.observation_json(seat),
        legal_actions=[str(a) for a in st.legal_actions()], deadline_ms=60000))


def play_to(variant: str, seat: int, seed: int, stop: int):
    """Deal ``variant`` (seed ``seed``), feed ``seat``'s stream while random actions are
    played, and stop after ``stop`` actions; returns (state, feed)."""
    v = load_variant(variant)
    st = Match(v, seed).new_deal()
    f = Feed(variant, seat, v.players)
    f.event(deal_started=pb.DealStarted(deal=0, dealer=st.dealer))
    f.view(st)
    rng = random.Random(seed)
    for _ in range(stop):
        if st.is_terminal:
            break
        if st.to_act == seat:
            f.decision(st)
        legal = st.legal_actions()
        a = legal[rng.randrange(len(legal))]
        if st.to_act == seat:
            f.c.sent = str(a)       # as SeatClient.answer keeps it
            f.c.request = None
        f.action(st, a)
    return st, f


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(hs.sampled_from(shipped_variants()), hs.integers(0, 7), hs.integers(0, 10**6), hs.integers(0, 80))
def test_the_table_is_the_seats_observation(variant, seat, seed, stop):
    seat %= load_variant(variant).players
    st, f = play_to(variant, seat, seed, stop)
    view = table_view(f.c, now=0)
    obs = st.observation(seat)
    if st.is_terminal:          # the deal's end shows every hand (DealEnded), not the view
        return
    if st.to_act == seat:       # its request is sent at once
        f.decision(st)
        view = table_view(f.c, now=0)
    # the seat was told its cards as they were dealt and each fact that follows from the
    # rules rather than from public actions as it became true (its SeatViews and its
    # requests): the table is its observation now
    # (56 deals two copies of each card: compared as multisets)
    assert Counter(view["hand"]) == Counter(obs["hand"])
    assert view["trick"] == [list(t) for t in obs["trick"]]
    assert view["points"] == obs["points"]
    assert view["tricks_won"] == [sum(1 for t in obs["tricks"] if t["winner"] == s) for s in range(obs["players"])]
    assert view["actions"] == len(obs["history"])
    assert [a[1] for a in view["auction"]] == [a for _, a in obs["history"] if not a.startswith("play ")]
    # the seat to act, and every trick of the deal with the seat of each card (the turn
    # passes to seat + 1, a seat that sits out skipped)
    assert view["to_act"] == st.to_act
    text = st.v.deck.text
    played = []
    for leader, cards, winner in st.tricks:
        seats, s = [], leader
        for _ in cards:
            seats.append(s)
            s = (s + 1) % obs["players"]
            while s in obs["sitting_out"]:
                s = (s + 1) % obs["players"]
        played.append([[x, text[c]] for x, c in zip(seats, cards)] + [winner])
    assert [t["cards"] + [t["winner"]] for t in view["tricks"]] == played
    assert view["widow"] == obs["widow"]     # shown only while the seat is to act (in the exchange)
    assert view["sitting_out"] == obs["sitting_out"] and view["trump"] == obs["trump"]
    assert view["declarer"] == obs["declarer"] and view["exposed_card"] == obs["exposed_card"]
    assert view["partner"] == obs["partner"]
    assert view["hand_sizes"] == obs["hand_sizes"]     # every seat's count, from its plays and views


def test_the_hand_shows_as_dealt_before_the_first_decision():
    """29 (docs/rules.md §29.3: four cards, the auction, trump, four more, the play),
    seed 3, every seat taking its first legal action: the dealer opens nothing, so seat
    (dealer + 2) % 4 has four cards on the table before it is asked anything, and all
    eight as soon as the play begins, before its first card is asked for."""
    v = load_variant("29")
    st = Match(v, 3).new_deal()
    seat = (st.dealer + 2) % 4
    f = Feed("29", seat, 4)
    f.event(deal_started=pb.DealStarted(deal=0, dealer=st.dealer))
    f.view(st)
    text = v.deck.text
    first = table_view(f.c, now=0)
    assert f.c.request is None and st.to_act != seat
    assert sorted(first["hand"]) == sorted(text[c] for c in st.dealt[seat][:4])
    assert first["phase"] == "auction" and first["contract"] is None
    while st.phase != "play":
        if st.to_act == seat:
            f.decision(st)
            f.c.sent, f.c.request = str(st.legal_actions()[0]), None
        f.action(st, st.legal_actions()[0])
    view = table_view(f.c, now=0)
    assert sorted(view["hand"]) == sorted(text[c] for c in st.dealt[seat]) and len(view["hand"]) == 8
    # the dealer was made to bid 15 after three passes and named the first suit
    assert view["contract"]["bidder"] == st.dealer and view["contract"]["bid"] == 15
    assert view["trump"] == st.observation(seat)["trump"] is not None and view["phase"] == "play"


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(hs.sampled_from(["29", "304", "304-solo", "house/29-hidden-trump", "house/29-single-hand", "56"]),
       hs.integers(0, 7), hs.integers(0, 10**6), hs.integers(1, 40))
def test_the_table_does_not_depend_on_hidden_cards(variant, seat, seed, stop):
    """Re-deal the cards the seat cannot see (resample) at its decision: the same
    stream, so the same page state, byte for byte, and no card of the hidden ones in it."""
    seat %= load_variant(variant).players
    st, f = play_to(variant, seat, seed, stop)
    if st.is_terminal or st.to_act != seat:
        return
    f.decision(st)
    other = resample(st, seat, random.Random(seed))
    # the same stream with the last request made from the re-dealt state
    g = SeatClient("127.0.0.1:1", "t", "you", clock=lambda: 0.0)
    for m in f.msgs[:-1]:
        g.handle(m)
    g.handle(decision(other, seat, f"g1.{f.rid}"))
    a, b = (json.dumps(table_view(c, now=0), sort_keys=True) for c in (f.c, g))
    assert a == b
    assert table_view(f.c)["widow"] == st.observation(seat)["widow"]
    text = st.v.deck.text
    # the other seats' cards (in 56, two copies of a card may be in two hands: not those)
    hidden = {text[c] for s in range(st.v.players) if s != seat for c in st.hands[s]} - \
        {text[c] for c in st.hands[seat]}
    view = table_view(f.c, now=0)
    assert not hidden & set(view["hand"]) and not hidden & set(view["playable"])


def test_a_click_on_a_stale_or_illegal_action_sends_nothing():
    st, f = play_to("29", 0, 5, 0)
    while st.to_act != 0:
        f.action(st, st.legal_actions()[0])
    f.decision(st)
    legal = [str(a) for a in st.legal_actions()]
    c = f.c
    assert asyncio.run(c.answer("g1.0", legal[0])).startswith("that request is no longer open")
    assert "is not a legal action" in asyncio.run(c.answer("g1.1", "play ZZ"))
    # no stream to the arena: not sent, and the request stays open for the next click
    assert asyncio.run(c.answer("g1.1", legal[0])).startswith("not connected")
    assert c.request["id"] == "g1.1"


def test_why_a_contract_was_made_or_lost():
    bots = ["ann", "bob", "cid", "dan"]
    # fixed sides 0&2 against 1&3: bob declared 18; bob and dan took 12 + 10 = 22 of 28
    r = {"declarer": 1, "bid": 18, "target": 18, "points": [4, 12, 2, 10], "made": True, "trump": "S",
         "score_change": [-1, 1, -1, 1]}
    assert why(r, bots, [0, 1, 0, 1]) == ("seat 1 (bob) declared 18, trump S; seat 1 (bob) & seat 3 (dan) took 22 "
                                          "points against a target of 18: contract made (score -1, +1, -1, +1)")
    # a called partner (no fixed sides): the declarer and the seat of the called card
    r = {"declarer": 0, "bid": 200, "target": 200, "points": [90, 20, 60, 134], "made": False, "partner": 2,
         "score_change": [-4, 2, -2, 2]}
    assert why(r, bots, None) == ("seat 0 (ann) declared 200; seat 0 (ann) & seat 2 (cid) took 150 points "
                                  "against a target of 200: contract lost (score -4, +2, -2, +2)")
    assert why({"declarer": None, "points": [0, 0, 0, 0]}, bots, None) == "no contract: the deal was thrown in"
    # a deal played without a contract (queen hunt's kind): each seat's points
    played = {"declarer": None, "points": [14, 1, 6, 0], "trump": "H", "score_change": [-14, -1, -6, 0],
              "tricks": [{"leader": 1, "cards": ["AS", "8S", "9H", "7S"], "winner": 1}]}
    assert why(played, bots, None) == (
        f"no contract; seat 0 ({bots[0]}) took 14 points, seat 1 ({bots[1]}) took 1 point, "
        f"seat 2 ({bots[2]}) took 6 points, seat 3 ({bots[3]}) took 0 points; trump H "
        "(score -14, -1, -6, 0)")


def test_why_tells_a_trick_target_in_tricks_and_no_bid_without_an_auction():
    bots = ["ann", "bob", "cid", "dan"]
    tricks = [{"leader": 0, "cards": [], "winner": w} for w in (0, 1, 2, 2, 3, 0, 1, 1, 2, 3, 0, 3, 1)]
    # court piece: no auction, target 7 tricks; ann & cid (0&2) won tricks 1, 3, 4, 6, 9, 11: 6 of 13
    r = {"declarer": 0, "bid": 0, "target": 7, "points": [0, 0, 0, 0], "made": False, "trump": "S",
         "tricks": tricks, "score_change": [0, 1, 0, 1]}
    cp = {"auction": False, "target_unit": "tricks"}
    assert why(r, bots, [0, 1, 0, 1], cp) == ("seat 0 (ann) is the declarer, trump S; seat 0 (ann) & seat 2 (cid) "
                                              "took 6 tricks against a target of 7: contract lost (score 0, +1, 0, +1)")
    # each player for himself (no sides, no partner): the declarer alone; bob won tricks
    # 2, 7, 8, 13: 4 tricks against a target of 4, made; points stay out of it
    r = {"declarer": 1, "bid": 0, "target": 4, "points": [3, 9, 0, 0], "made": True, "trump": "H",
         "tricks": tricks, "score_change": [0, 2, 0, 0]}
    assert why(r, bots, None, cp) == ("seat 1 (bob) is the declarer, trump H; seat 1 (bob) took 4 tricks "
                                      "against a target of 4: contract made (score 0, +2, 0, 0)")
    # a game with an auction and a point target reads as before
    r = {"declarer": 1, "bid": 18, "target": 18, "points": [4, 12, 2, 10], "made": True, "trump": "S",
         "tricks": tricks, "score_change": [-1, 1, -1, 1]}
    assert why(r, bots, [0, 1, 0, 1], {"auction": True, "target_unit": "points"}) == (
        "seat 1 (bob) declared 18, trump S; seat 1 (bob) & seat 3 (dan) took 22 points against a target of 18: "
        "contract made (score -1, +1, -1, +1)")


@pytest.mark.parametrize("argv, said", [
    (["play", "29", "--seat", "4"], "--seat must be from 0 to 3 in 29, not 4"),
    (["play", "29", "--bots", "nobody"], "nobody"),
    (["play", "29", "--bots", "heuristic,heuristic,heuristic,heuristic"], "--bots names 4 bots"),
    (["play", "29", "--name", "heuristic"], "--name 'heuristic' is the name of a bot of --bots"),
    (["play", "29", "--name", "a b"], "--name must be"),
])
def test_play_refuses_bad_arguments(argv, said, capsys, tmp_path):
    assert main([*argv, "--data", str(tmp_path / "d"), "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
    assert not (tmp_path / "d").exists()        # nothing made


def test_play_a_bad_variant_file_is_located(capsys, tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text('extends: "29"\nplayers: five\n')
    assert main(["play", str(f), "--data", str(tmp_path / "d"), "--no-browser"]) == 1
    err = capsys.readouterr().err
    assert f"{f}:2:" in err and "Traceback" not in err


def test_play_durations(capsys):
    with pytest.raises(SystemExit) as e:
        main(["play", "29", "--pace", "fast"])
    assert e.value.code == 2
    assert "--pace: must be a duration such as 60s" in capsys.readouterr().err
    from taash.arena.cli.play import seconds
    assert (seconds("60s"), seconds("0.8s"), seconds("500ms"), seconds("2m"), seconds("3")) == (60, 0.8, 0.5, 120, 3)


def test_the_hand_is_sorted_by_suit_and_rank():
    """29's deck: suits S H D C, ranks J 9 A T K Q 8 7 from the strongest (docs/rules.md
    §29.2); black and red take turns: ♠ ♥ ♣ ♦."""
    from taash.arena.web.table import sort_hand
    v = load_variant("29")
    assert sort_hand(v, ["7H", "AD", "QC", "9S", "JS", "TD", "JD"]) == ["JS", "9S", "7H", "QC", "JD", "AD", "TD"]
    assert sort_hand(None, ["7H", "AD"]) == ["7H", "AD"]


def test_a_house_file_is_shown_by_its_name():
    from taash.arena.web.table import game_title
    v = load_variant("29")
    assert game_title({"variant": "/data/variants/dcf833b1a2.yaml"}, v) == v.name
    assert game_title({"variant": "house/29-bhoos"}, load_variant("house/29-bhoos")) == "house/29-bhoos"


def test_continue_before_the_break_begins_skips_it():
    """The person presses continue as the deal's end shows, before the arena's break has
    begun: the break does not wait (else the table would wait for a click already made);
    a break begun waits until continue."""
    async def run():
        c = SeatClient("127.0.0.1:1", "t", "you")
        c.game = {"id": "g1"}
        c.ended = {"deal": 0}
        assert c.go_on(0) is True
        await asyncio.wait_for(c.deal_break("g1", 0), 1)      # no wait
        c.ended = {"deal": 1}
        task = asyncio.ensure_future(c.deal_break("g1", 1))
        await asyncio.sleep(0.05)
        assert c.reviewing == 1 and not task.done()
        assert c.go_on(1) is True
        await asyncio.wait_for(task, 1)
        assert c.reviewing is None
        c.review_s = 0.05                                      # --review: the break's end
        c.ended = {"deal": 2}
        await asyncio.wait_for(c.deal_break("g1", 2), 1)
    asyncio.run(run())


def test_a_deals_first_request_before_its_start_stays_open():
    """The deal's first DecisionRequest may reach the seat before the DealStarted event
    of the same deal (they travel apart): the request stays open, the seat still to act.
    A request of an earlier deal is closed by the next deal's start."""
    v = load_variant("29")
    st = Match(v, 3).new_deal()
    f = Feed("29", st.to_act, v.players)
    f.decision(st)
    f.event(deal_started=pb.DealStarted(deal=0, dealer=st.dealer))
    assert f.c.request is not None and f.c.request["id"] == "g1.1" and f.c.to_act == st.to_act
    assert table_view(f.c, now=0)["request"]["id"] == "g1.1"
    f.event(deal_started=pb.DealStarted(deal=1, dealer=(st.dealer + 1) % v.players))
    assert f.c.request is None and f.c.to_act is None
