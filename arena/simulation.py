"""Simulating matches in process: `taash simulate`, and the Ray runner's tasks
(arena/ladder/cluster.py), which play the same matches from the same seeds.

A match is played by `taash.interpreter.playout.play` with a new agent per seat from the
bot registry (arena/bots/registry.py), seeded ``"{match_seed}:{seat}"``: a match depends
on its seed alone, wherever it is played.
"""

from __future__ import annotations

import sys

from rich.progress import Progress

from taash.interpreter import Match
from taash.interpreter.playout import play

from .bots import registry
from .errors import SimulationError
from .gcpolicy import fewer_collections


def _progress(total, label):
    """A rich progress bar on a terminal, nothing otherwise."""
    if not sys.stderr.isatty():
        return None
    p = Progress(transient=True)
    p.start()
    task = p.add_task(label, total=total)
    return p, task


def simulate_match(variant, entries, match_seed: int, max_deals=None, on_deal_end=None,
                   keep=False) -> dict:
    """Play one match of `simulate` from ``match_seed`` (at most ``max_deals`` deals):
    a new agent per seat from ``entries`` (`taash.arena.bots.registry.BotEntry`), seeded
    ``"{match_seed}:{seat}"``, so a match depends on its seed alone (the same on any
    process or Ray worker). Returns {"line": the summary's match line, "deals",
    "made", "thrown" (ints), "faults" (per seat), "first_faults" (seat -> its first
    fault in words), "match" (the Match if ``keep``)}."""
    agents = [e.make(variant, f"{match_seed}:{s}") for s, e in enumerate(entries)]
    faults = [0] * variant.players
    first = {}   # seat -> its first fault, in words

    def on_fault(f):
        faults[f.seat] += 1
        if f.seat not in first:
            why = f"{type(f.error).__name__}: {f.error}" if f.error is not None else "no answer"
            first[f.seat] = (f"match seed {match_seed}, deal {m.played + 1}: {f.kind.lower()} "
                             f"({why}); {f.default} applied")

    m = Match(variant, match_seed, keep_deals=keep)  # a State per deal only for a record
    made = thrown = 0

    def deal_end(st):
        nonlocal made, thrown
        made += st.made is True
        # thrown in: nobody bid (a deal played without a contract is not thrown in)
        thrown += st.declarer < 0 and st.taken_over is None and st.v.has_contract
        if on_deal_end is not None:
            on_deal_end(m)
    play(m, agents, max_deals=max_deals, on_fault=on_fault, on_deal_end=deal_end)
    return {"line": {"seed": m.seed, "deals": m.played, **m.summary()}, "deals": m.played,
            "made": made, "thrown": thrown, "faults": faults, "first_faults": first,
            "match": m if keep else None}


def simulate_entries(variant, bots=None):
    """The `BotEntry` per seat of ``bots`` (default all ``random``). Raises
    SimulationError for a wrong count, UnknownBotError for an unknown bot."""
    names = list(bots) if bots else ["random"] * variant.players
    if len(names) != variant.players:
        raise SimulationError(f"--bots: {variant.title} has {variant.players} seats: give {variant.players} "
                       f"bots separated by commas, not {len(names)}")
    return [registry.resolve(n) for n in names]


def simulate_summary(variant, seed, entries, results) -> dict:
    """The summary of `simulate` from the `simulate_match` results of its matches, in order."""
    total = sum(r["deals"] for r in results)
    made = sum(r["made"] for r in results)
    thrown = sum(r["thrown"] for r in results)
    played = total - thrown if variant.has_contract else 0   # a game without contracts: no rate
    return {
        "variant": variant.ref,
        "title": variant.title,
        "options": variant.options,
        "seed": seed,
        "bots": [e.name for e in entries],
        "deals": total,
        "thrown_in": thrown,
        "contracts_made": made,
        "contracts_made_rate": round(made / played, 4) if played else None,
        "faults": [sum(r["faults"][s] for r in results) for s in range(variant.players)],
        "first_faults": [next((r["first_faults"][s] for r in results if s in r["first_faults"]), None)
                         for s in range(variant.players)],
        "matches": [r["line"] for r in results],
    }


def simulate(variant, matches=None, deals=None, seed=0, options=None, progress=False, bots=None,
             keep=True, on_match=None):
    """Play ``matches`` full matches, or matches until ``deals`` deals, match k from seed
    ``seed + k``. ``bots``: a bot per seat (registered names or specs, `taash.arena.bots.registry`;
    default all ``random``); each match has its own agents, seeded ``"{seed + k}:{seat}"``
    (`simulate_match`), so match k is the same game wherever it is played (a Ray run,
    arena/ladder/cluster.py, gives the same summary). Through `taash.interpreter.playout.play`:
    no observation is built for a state agent, no record is made (``Match.record`` is
    the caller's). Returns (list of Match, summary dict); with ``keep`` False the list is
    empty and each match is let go once summed up. ``on_match(k, match)`` is called as
    match k (0-based) ends, with its Match when ``keep`` (else None): `taash simulate`
    writes its record then. Raises UnknownBotError."""
    entries = simulate_entries(variant, bots)
    results = []
    total_deals = 0
    bar = _progress(deals or matches, "simulating") if progress else None
    tick = None
    if bar and deals is not None:
        def tick(m):
            n = total_deals + m.played
            if n % 64 == 0 or n == deals:
                bar[0].update(bar[1], completed=n)
    try:
        with fewer_collections():
            k = 0
            while (k < matches) if deals is None else (total_deals < deals):
                r = simulate_match(variant, entries, seed + k, None if deals is None else deals - total_deals,
                                   on_deal_end=tick, keep=keep)
                k += 1
                total_deals += r["deals"]
                results.append(r)
                if on_match is not None:
                    on_match(k - 1, r.get("match"))
                if bar and deals is None:
                    bar[0].update(bar[1], completed=k)
    finally:
        if bar:
            bar[0].stop()
    done_matches = [r.pop("match") for r in results] if keep else []
    return [m for m in done_matches if m is not None], simulate_summary(variant, seed, entries, results)
