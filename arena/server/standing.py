"""A bot's own standing, as MyStanding answers it (docs/protocol.md, "A bot's own
standing"): its ratings per variant from the ladder of the arena's data directory, its
latest finished games in the arena and the faults of its seats in them (RESUMED, a seat
taken back, counted apart: it is no fault). Reads the stores and record files only:
run it off the event loop (the arena's store thread)."""

from __future__ import annotations

import json
import logging

from ..errors import NoLadder, StoreError
from ..pb import arena_pb2 as apb
from ..pb import messages_pb2 as pb

log = logging.getLogger("taash.arena")

RECENT = 20         # games listed when the request asks for none
MAX_RECENT = 200    # games listed at most


def wanted(recent: int) -> int:
    """The games a request for ``recent`` lists: `RECENT` for 0, at most `MAX_RECENT`."""
    return min(recent or RECENT, MAX_RECENT)


def standing(bot: str, games: list[dict], total: int, open_ladder=None) -> apb.StandingReply:
    """The StandingReply of ``bot``: ``games``, its latest finished games (newest first,
    as Store.games_of gives them, of ``total``), with the faults of its seats read from
    their records, and its ratings in the LadderStore that ``open_ladder()`` opens (it
    raises NoLadder when there is none; None: no ratings). A record file that cannot be
    read costs its game's faults only (logged)."""
    out = apb.StandingReply(bot=bot, games_total=total)
    faults: dict[int, int] = {}
    for g in games:
        seats = [s for s, b in enumerate(g["bots"]) if b == bot]
        mine, resumed = _verdicts(g, seats) if g.get("faults") else ({}, 0)
        out.resumed += resumed
        for kind, k in mine.items():
            faults[kind] = faults.get(kind, 0) + k
        out.games.add(game_id=g["game_id"], variant=str(g["variant"] or ""), bots=g["bots"], seats=seats,
                      score=[x for x in g["score"] if -2**31 <= x < 2**31] if len(g["score"]) == len(g["bots"]) else [],
                      winners=g["winners"], complete=g["complete"], faults=sum(mine.values()),
                      record=str(g["record"] or ""))
    for kind, k in sorted(faults.items()):
        out.faults.add(kind=kind, count=k)
    if open_ladder is not None:
        try:
            ladder = open_ladder()
        except NoLadder:
            return out
        except StoreError as e:
            log.warning("bot %s's standing: no ratings: %s", bot, e)
            return out
        try:
            for variant in ladder.variants():
                lines = ladder.standings(variant)
                for rank, s in enumerate(lines, 1):
                    if s.bot == bot:
                        out.ratings.add(variant=variant, mu=s.mu, sigma=s.sigma, games=s.games, deals=s.deals,
                                        wins=s.wins, draws=s.draws, losses=s.losses, rank=rank, ranked=len(lines))
        finally:
            ladder.close()
    return out


def _verdicts(game: dict, seats: list[int]) -> tuple[dict[int, int], int]:
    """({Verdict kind: count} of the faults of ``seats`` in ``game``'s record, its
    RESUMED verdicts of them); ({}, 0) for a record that cannot be read."""
    try:
        with open(game["record"], "rb") as f:
            rec = json.loads(f.read())
        verdicts = rec["arena"]["verdicts"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        log.warning("game %s: its record cannot be read for a standing: %s", game["game_id"], e)
        return {}, 0
    out: dict[int, int] = {}
    resumed = 0
    for v in verdicts if isinstance(verdicts, list) else ():
        if not isinstance(v, dict) or v.get("seat") not in seats:
            continue
        kind = pb.Verdict.Kind.Value(v["kind"]) if v.get("kind") in pb.Verdict.Kind.keys() else None
        if kind == pb.Verdict.RESUMED:
            resumed += 1
        elif kind is not None:
            out[kind] = out.get(kind, 0) + 1
    return out, resumed
