"""Information (docs/architecture.md): the bytes the arena sends to a seat are the same when the
cards that seat cannot see are re-dealt in a way consistent with what it knows.

A hidden-trump game (28) is played twice through a real arena over gRPC on localhost:
once with the dealt hands, once with the cards unseen by seat k permuted within their
suits (the face-down trump card included, so the declarer's `trump-card` names another
card). The other seats replay the same public actions; seat k's connection must receive
the very same bytes up to its decision in the first trick (its SeatViews included)."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest

from taash.arena.pb import messages_pb2 as pb
from taash.arena.server import ArenaServer, TimeControl
from taash.arena.store import SQLiteStore
from taash.interpreter import Match, load_variant

METHOD = "/taash.arena.v1.Arena/Play"


def first_legal_deal(v, seed):
    """Deal 0 of Match(v, seed) played with the first legal action: (hands, dealer, actions)."""
    m = Match(v, seed)
    st = m.new_deal()
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])
    m.finish_deal(st)
    d = m.record()["deals"][0]
    return d["hands"], d["dealer"], d["actions"]


def seats_of(v, hands, dealer, actions):
    m = Match(v, 0)
    st = m.new_deal(hands=hands, dealer=dealer)
    out = []
    for a in actions:
        out.append(st.to_act)
        st.apply(a)
    return out, st


def redeal(v, hands, dealer, actions, k, t, rng):
    """Permute, suit by suit, the cards seat k has not seen after actions[:t] (the other
    seats' unplayed cards, the face-down one included). Returns (hands', actions'[:t])."""
    played = {a.split()[1] for a in actions[:t] if a.startswith("play ")}
    positions = {}
    for s, h in enumerate(hands):
        if s == k:
            continue
        for p, c in enumerate(h):
            if c not in played:
                positions.setdefault(c[-1], []).append((s, p))
    face_down = next((a.split()[1] for a in actions[:t] if a.startswith("trump-card ")), None)
    new = [list(h) for h in hands]
    for suit, pos in positions.items():
        cards = [hands[s][p] for s, p in pos]
        rng.shuffle(cards)
        if face_down in cards and len(cards) > 1:    # the face-down card must become another
            i = [hands[s][p] for s, p in pos].index(face_down)
            if cards[i] == face_down:
                j = (i + 1) % len(cards)
                cards[i], cards[j] = cards[j], cards[i]
        for (s, p), c in zip(pos, cards):
            new[s][p] = c
    where = {(s, p): new[s][p] for s in range(len(hands)) for p in range(len(hands[s]))}
    prefix = []
    for a in actions[:t]:
        if a.startswith("trump-card "):
            card = a.split()[1]
            s, p = next((s, p) for s in range(len(hands)) for p in range(len(hands[s])) if hands[s][p] == card)
            a = "trump-card " + where[(s, p)]
        prefix.append(a)
    return new, prefix


async def play_and_capture(hands, dealer, prefix, seats, k, stop_after, tmp):
    """One game through the arena; seat k answers its first legal action and records the
    raw bytes it receives; the other seats play ``prefix`` then their first legal action."""
    store = SQLiteStore(tmp)
    server = ArenaServer(store, TimeControl(move_ms=60_000, bank_ms=5_000, grace_ms=5_000))
    port = await server.start("127.0.0.1", 0)
    v = load_variant("28")
    names = [f"s{s}" for s in range(v.players)]
    tokens = {n: store.issue_token(n) for n in names}
    script = {s: [a for a, who in zip(prefix, seats) if who == s] for s in range(v.players)}
    captured: list[bytes] = []
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")

    async def bot(s):
        call = channel.stream_stream(METHOD, request_serializer=lambda b: b, response_deserializer=lambda b: b)(
            metadata=[("authorization", f"Bearer {tokens[names[s]]}")])
        requests = 0
        while True:
            raw = await call.read()
            if raw is grpc.aio.EOF:
                return
            if s == k and requests < stop_after:
                captured.append(raw)
            msg = pb.ServerMessage.FromString(raw)
            which = msg.WhichOneof("msg")
            if which == "decision":
                d = msg.decision
                requests += s == k
                todo = script[s]
                action = todo.pop(0) if todo else d.legal_actions[0]
                await call.write(pb.BotMessage(answer=pb.Answer(request_id=d.request_id, action=action))
                                 .SerializeToString())
            elif which == "verdict":
                raise AssertionError(f"seat {s}: unexpected verdict {msg.verdict}")
            elif which == "event" and msg.event.WhichOneof("event") == "game_ended":
                call.cancel()
                return

    tasks = [asyncio.ensure_future(bot(s)) for s in range(v.players)]
    await server.arena.wait_for_bots(names, 10)
    result = await server.arena.run_game(v, 0, names, max_deals=1, game_id="info",
                                         deals=[{"hands": hands, "dealer": dealer}])
    await asyncio.wait_for(asyncio.gather(*tasks), 30)
    await channel.close()
    await server.stop()
    store.close()
    assert result["error"] == "" and result["faults"] == 0
    return captured


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_bytes_to_a_seat_do_not_depend_on_cards_it_cannot_see(tmp_path, seed):
    v = load_variant("28")
    hands, dealer, actions = first_legal_deal(v, seed)
    seats, _ = seats_of(v, hands, dealer, actions)
    declarer = seats[next(i for i, a in enumerate(actions) if a.startswith("trump-card "))]
    k = (declarer + 1) % v.players                    # a seat that does not see the face-down card
    # t: seat k's second play decision (a whole trick and part of another are public), or
    # its last decision before an exposure: from then on the face-down card is public
    # (docs/rules.md §28.7) and may not be re-dealt
    plays_of_k = [i for i, a in enumerate(actions) if seats[i] == k and a.startswith("play ")]
    exposed = next((i for i, a in enumerate(actions) if a == "expose"), len(actions))
    t = plays_of_k[1]
    if t > exposed:
        t = max(i for i in range(exposed + 1) if seats[i] == k)
    new_hands, new_prefix = redeal(v, hands, dealer, actions, k, t, random.Random(seed))
    assert new_hands != hands and new_hands[k] == hands[k]
    assert new_prefix != actions[:t]                  # the face-down card is another one
    # the engine agrees: the prefix is legal and seat k's observation is the same
    _, st_a = seats_of(v, hands, dealer, actions[:t])
    new_seats, st_b = seats_of(v, new_hands, dealer, new_prefix)
    assert new_seats == seats[:t] and st_a.to_act == st_b.to_act == k
    assert st_a.observation(k) == st_b.observation(k)
    assert st_a.observation(declarer) != st_b.observation(declarer)
    stop_after = sum(1 for i in range(t + 1) if seats[i] == k)   # up to its decision at t
    a = asyncio.run(play_and_capture(hands, dealer, actions[:t], seats[:t], k, stop_after, tmp_path / "a"))
    b = asyncio.run(play_and_capture(new_hands, dealer, new_prefix, seats[:t], k, stop_after, tmp_path / "b"))
    kinds = [pb.ServerMessage.FromString(x).WhichOneof("msg") for x in a]
    assert kinds[0] == "welcome" and kinds[1] == "game_start" and kinds.count("decision") == stop_after
    assert kinds.count("event") >= t                  # every public action reached the seat
    # its SeatViews (the deal begun, and each later step of the flow before its decision
    # at t, while it did not act next) are among the bytes compared: they too are the same
    assert kinds.count("view") >= 1
    assert a == b
    last = pb.ServerMessage.FromString(a[-1]).decision
    assert last.seat == k and last.request_id == f"info.{t}"
