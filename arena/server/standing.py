"""A bot's own standing, as MyStanding answers it (docs/protocol.md, "A bot's own
standing"): its ratings per variant from the ladder of the arena's data directory, its
latest finished games in the arena and the faults of its seats in them, as their records'
``fault_counts`` count them (RESUMED, a seat taken back, counted apart: it is no fault).
Reads the stores only, no record file: run it off the event loop (the arena's reader
thread, storethread.StoreThread.store_read)."""

from __future__ import annotations

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
    as Store.games_of gives them, with its ``seats`` and their ``fault_counts``, of
    ``total``), and its ratings in the LadderStore that ``open_ladder()`` opens (it
    raises NoLadder when there is none; None: no ratings). A kind name the protocol does
    not know (a record of a later arena) is left out."""
    out = apb.StandingReply(bot=bot, games_total=total)
    faults: dict[int, int] = {}
    for g in games:
        seats = g["seats"]
        mine, resumed = _faults(g["fault_counts"])
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


def _faults(counts: dict[str, int]) -> tuple[dict[int, int], int]:
    """({Verdict kind: count} of the faults in ``counts`` ({kind name: count}), its
    RESUMED count)."""
    out: dict[int, int] = {}
    resumed = 0
    for name, n in counts.items():
        if name not in pb.Verdict.Kind.keys():
            continue
        kind = pb.Verdict.Kind.Value(name)
        if kind == pb.Verdict.RESUMED:
            resumed += n
        else:
            out[kind] = out.get(kind, 0) + n
    return out, resumed
