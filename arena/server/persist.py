"""What a game's end writes: its record (the engine's Match.record plus the arena's
part: bots, time control, verdicts, timings) and its row in the store."""

from __future__ import annotations

import logging
import time
from dataclasses import asdict

from taash.interpreter import Match, load_variant

from ..store import Store, StoreError
from .game import Game, TimeControl

log = logging.getLogger("taash.arena")


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def record_of(game, unfinished: dict | None, error: str | None) -> tuple[dict, dict]:
    """The record of ``game`` (a game.Game whose match has ended or been cut short;
    ``unfinished``: the deal log of a deal in progress) and its GameResult fields as a
    dict (game_id, seed, bots, deals, score, winners, complete, faults, record: "",
    error). Reads the engine's Match: call it on the event loop."""
    m = game.match
    record = m.record(game.options)
    record["variant"] = game.ref
    if getattr(game, "named", None):     # a caller's file sent as text: named as they named it
        record["variant"], record["variant_copy"] = game.named, game.ref
    arena = {
        "game_id": game.id, "bots": game.bots,
        "time_control": asdict(game.tc),
        "started": _iso(game.started), "finished": _iso(time.time()),
        "complete": m.over, "deals": [{"t_ms": d["t_ms"], "by_default": d["by_default"]}
                                     for d in game.deal_log[:len(m.deals)]],
        "verdicts": game.verdicts,
        "fault_counts": game.faults.summary(),
    }
    if unfinished is not None:
        arena["unfinished_deal"] = {"deal": len(m.deals), **unfinished}
    if error:
        arena["error"] = error
    record["arena"] = arena
    result = {"game_id": game.id, "seed": game.seed, "bots": game.bots, "deals": len(m.deals),
              "score": m.seat_scores(), "winners": list(m.winners), "complete": m.over,
              "faults": len(game.verdicts) + game.faults.hidden(), "record": "", "error": error or ""}
    return result, record


def write(store: Store, variant_ref: str, result: dict, record: dict) -> dict:
    """Save ``record`` and its row (``result`` from record_of) in ``store``; fill in
    ``result["record"]`` (the path) and return ``result``. A StoreError is logged and
    joins ``result["error"]``; so does any other failure to save (a value the database
    refuses), named by its type: the game still ends, its journal kept. Touches no engine
    object: safe on the store's thread."""
    try:
        result["record"] = store.save_game(result["game_id"], {**result, "variant": variant_ref}, record)
    except Exception as e:
        text = str(e) if isinstance(e, StoreError) else f"game {result['game_id']} not saved: {type(e).__name__}: {e}"
        log.error("%s", text)
        result["error"] = (result["error"] + "; " if result["error"] else "") + text
    return result


# -- the journal: what a game has played so far, kept as it goes ------------------------------
CUT_BY_CRASH = ("the arena stopped before the game ended (killed, or the machine went down); "
                "saved at its next start with the deals its journal held")


def journal_start(store: Store, game, max_deals: int = 0, run=None) -> None:
    """Entry 0 of ``game``'s journal: what its recovery needs to load the variant and
    name the game; ``max_deals``: the deals asked for (0: to the end). A StoreError is
    logged: the game goes on, unjournaled. ``run(fn, *args)`` runs the write (the arena's
    store thread, which keeps the store's writes in order on its one connection); by
    default it is called here."""
    (run or _call)(_journal, store, game.id, 0, {
        "variant": game.ref, "options": game.options, "seed": game.seed, "bots": game.bots,
        "max_deals": max_deals,
        "time_control": asdict(game.tc),
        "started": game.started})


def journal_deal(store: Store, game, st, dlog: dict, run=None):
    """The entry of a deal of ``game`` just finished (``st``, its terminal State; ``dlog``
    the arena's log of it): its cards and actions as its record holds them, the times
    and default actions, and the verdicts given during it. One row per deal. ``run``: as
    for `journal_start` (the entry is made here, only the write is run by it); returns
    what ``run`` returns (the arena's: a Future done once the entry is committed)."""
    text = game.v.deck.text
    d = st.deal_number
    return (run or _call)(_journal, store, game.id, d + 1, {
        "dealer": st.dealer, "hands": [[text[c] for c in h] for h in st.dealt],
        "widow": [text[c] for c in st.widow], "actions": st.actions(),
        "t_ms": list(dlog["t_ms"]), "by_default": list(dlog["by_default"]),
        "verdicts": [v for v in game.verdicts if v["deal"] == d]})


def _call(fn, *args):
    return fn(*args)


def _journal(store: Store, game_id: str, n: int, entry: dict) -> None:
    try:
        store.journal(game_id, n, entry)
    except Exception as e:      # a StoreError, or a value the database refuses
        log.error("game %s: journal entry %d not written: %s", game_id, n, e)


def recover(store: Store) -> list[dict]:
    """Save every game the arena was playing when it last stopped without saving it (a
    kill -9, a power cut): its record holds the deals its journal held, marked cut short
    (``complete`` false unless the match had ended, arena ``error`` = CUT_BY_CRASH), and
    replays with `taash replay`. Returns their GameResult dicts (see `record_of`); a game
    whose variant no longer loads, or whose record cannot be saved, is logged and kept
    for a later start."""
    out = []
    for game_id, entries in store.journals().items():
        head, deals = entries[0], entries[1:]
        if "variant" not in head:   # its first entry was lost: nothing to rebuild from
            continue
        try:
            v = load_variant(head["variant"], head["options"] or None)
            game = Game(game_id, v, head["variant"], head["options"], head["seed"], head["bots"],
                        TimeControl(**head["time_control"]))
            game.started = head["started"]
            m = game.match = Match(v, head["seed"])
            for d in deals:
                st = m.new_deal(hands=d["hands"], widow=d["widow"], dealer=d["dealer"])
                for a in d["actions"]:
                    st.apply(a)
                m.finish_deal(st)
                game.deal_log.append(d)
                game.verdicts += d["verdicts"]
        except Exception as e:   # a variant file changed or gone since: try again next start
            log.error("game %s cannot be recovered from its journal: %s: %s", game_id, type(e).__name__, e)
            continue
        ended = m.over or (head.get("max_deals") and len(m.deals) >= head["max_deals"])
        result, record = record_of(game, None, None if ended else CUT_BY_CRASH)
        result = write(store, game.ref, result, record)
        if result["record"]:        # else logged by write, its journal kept
            out.append(result)
    return out
