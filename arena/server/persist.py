"""What a game's end writes: its record (the engine's Match.record plus the arena's
part: bots, time control, verdicts, timings) and its row in the store."""

from __future__ import annotations

import logging
import time

from ..store import Store, StoreError

log = logging.getLogger("taash.arena")


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def save_game(store: Store, game, unfinished: dict | None, error: str | None) -> dict:
    """Build the record of ``game`` (a hosting.Game whose match has ended or been cut
    short; ``unfinished``: the deal log of a deal in progress) and save it with its row.
    Returns the GameResult fields as a dict (game_id, seed, bots, deals, score, winners,
    complete, faults, record path, error); a StoreError is logged and joins ``error``."""
    m = game.match
    record = m.record(game.options)
    record["variant"] = game.ref
    arena = {
        "game_id": game.id, "bots": game.bots,
        "time_control": {"move_ms": game.tc.move_ms, "bank_ms": game.tc.bank_ms,
                         "grace_ms": game.tc.grace_ms, "max_strikes": game.tc.max_strikes},
        "started": _iso(game.started), "finished": _iso(time.time()),
        "complete": m.over, "deals": [{"t_ms": d["t_ms"], "by_default": d["by_default"]}
                                     for d in game.deal_log[:len(m.deals)]],
        "verdicts": game.verdicts,
    }
    if unfinished is not None:
        arena["unfinished_deal"] = {"deal": len(m.deals), **unfinished}
    if error:
        arena["error"] = error
    record["arena"] = arena
    result = {"game_id": game.id, "seed": game.seed, "bots": game.bots, "deals": len(m.deals),
              "score": m.seat_scores(), "winners": list(m.winners), "complete": m.over,
              "faults": len(game.verdicts), "record": "", "error": error or ""}
    try:
        result["record"] = store.save_game(game.id, {**result, "variant": game.ref}, record)
    except StoreError as e:
        log.error("%s", e)
        result["error"] = (result["error"] + "; " if result["error"] else "") + str(e)
    return result
