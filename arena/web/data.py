"""What the pages show, read from the ladder store (arena/store/ladder.py) and the arena's
data directory (arena/store/arena.py: records/<game_id>.json): standings, a chart, head-to-head,
a bot's games and faults, and a recorded game replayed deal by deal for the viewer.

Everything here is plain data (JSON-ready dicts and lists); the templates draw it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from taash.interpreter import load_variant, replay

from ..errors import ArenaError
from ..ladder.margins import store_margins
from ..ladder.ratings import Z95, game_teams, initial_rating
from ..store import SQLiteStore, has_arena

SUITS = {"S": ("\u2660", "black"), "H": ("\u2665", "red"), "D": ("\u2666", "red"), "C": ("\u2663", "black")}
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]


def card_parts(text: str) -> tuple[str, str, str]:
    """A card text ("JH", "TS") as (rank, suit symbol, colour class); "T" is shown as 10.
    Unknown suits are shown as they are, in black."""
    if not text or len(text) < 2:
        return text or "", "", "black"
    rank, suit = text[:-1], text[-1]
    sym, colour = SUITS.get(suit, (suit, "black"))
    return ("10" if rank == "T" else rank), sym, colour


class BadRecord(ArenaError):
    """A record file that cannot be shown: not JSON, or not a JSON object."""


class Site:
    """The data behind the pages. ``ladder``: a LadderStore or None; ``open_ladder()``: the
    LadderStore once there is one, else None (called while there is none: a ladder run
    after the pages started shows); ``data_dir``: the arena's data directory (records,
    arena.sqlite3) or None."""

    def __init__(self, ladder=None, data_dir=None, open_ladder=None):
        self._ladder = ladder
        self._open_ladder = open_ladder
        self.data_dir = Path(data_dir) if data_dir else None
        self._arena = None

    @property
    def ladder(self):
        """The LadderStore, or None while there is none."""
        if self._ladder is None and self._open_ladder is not None:
            self._ladder = self._open_ladder()
        return self._ladder

    # -- sources ---------------------------------------------------------------------
    def arena_store(self):
        """The arena's SQLiteStore of ``data_dir`` if it has one (opened once), else None."""
        if self._arena is None and self.data_dir and has_arena(self.data_dir):
            self._arena = SQLiteStore(self.data_dir)
        return self._arena

    def variants(self) -> list[str]:
        return self.ladder.variants() if self.ladder else []

    def arena_games(self) -> list[dict]:
        """The arena's finished games, newest first (arena/store/arena.py `games`)."""
        st = self.arena_store()
        return list(reversed(st.games())) if st else []

    def record(self, source: str, key: str) -> dict | None:
        """The record of game ``key``: source "arena" (records/<id>.json in the data directory)
        or a ladder variant reference. None if there is none; BadRecord for an arena record
        file that is not a JSON object (cut short, edited)."""
        if source == "arena":
            st = self.arena_store()
            if st is None:
                return None
            try:
                p = st.record_path(key)
            except Exception:
                return None
            if not p.is_file():
                return None
            try:
                rec = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise BadRecord(f"the record of game {key} cannot be read: {e}") from None
            if not isinstance(rec, dict):
                raise BadRecord(f"the record of game {key} is not a record (a JSON object)")
            # a caller's variant file is named relative to the record (DATA/variants/)
            for field in ("variant", "variant_copy"):
                v = rec.get(field)
                if isinstance(v, str) and not Path(v).is_absolute() and (p.parent / v).is_file():
                    rec[field] = str((p.parent / v).resolve())
            return rec
        if not self.ladder or source not in self.variants():
            return None
        g = self.ladder.games(source, records=True).get(key)
        return g.record if g else None

    # -- standings, chart, head-to-head ----------------------------------------------
    def standings(self, variant: str) -> list[dict]:
        """Standing lines best first, with faults summed from the variant's stored games."""
        faults: dict[str, int] = {}
        for g in self.ladder.games(variant).values():
            if g.faults:
                for b in set(g.bots):
                    faults[b] = faults.get(b, 0) + g.faults
        out = []
        for s in self.ladder.standings(variant):
            d = s.to_json()
            d["faults"] = faults.get(s.bot, 0)
            out.append(d)
        return out

    def head_to_head(self, variant: str) -> dict:
        """Each ordered pair's result over the games where they sat on opposing teams:
        {"bots": [...], "cells": {a: {b: {"w", "d", "l", "diff"}}}, "margins": [...]}, diff
        being the sum of a's team's score minus b's team's (the duplicate result when the
        ladder plays duplicate: card luck cancels over the seatings); margins: each pair's
        score margin a deal with its 95% interval (`Margin.to_json`, arena/ladder/margins.py)."""
        v = load_variant(variant)
        cells: dict[str, dict[str, dict]] = {}
        bots: set[str] = set()
        games = self.ladder.games(variant)
        for g in games.values():
            teams, scores = game_teams(v.partnership, v.side_of, g.bots, g.scores)
            for i, ta in enumerate(teams):
                for j, tb in enumerate(teams):
                    if i == j:
                        continue
                    for a in ta:
                        for b in tb:
                            bots.update((a, b))
                            c = cells.setdefault(a, {}).setdefault(b, {"w": 0, "d": 0, "l": 0, "diff": 0.0})
                            x, y = scores[i], scores[j]
                            c["w" if x > y else "l" if x < y else "d"] += 1
                            c["diff"] += x - y
        return {"bots": sorted(bots), "cells": cells,
                "margins": [m.to_json() for m in store_margins(self.ladder, v, games)]}

    def games(self, variant: str, bot: str | None = None) -> list[dict]:
        """The variant's ladder games (newest first), optionally those of one bot."""
        out = []
        for g in self.ladder.games(variant).values():
            if bot is None or bot in g.bots:
                out.append({"key": g.key, "bots": list(g.bots), "scores": list(g.scores), "deals": g.deals,
                            "faults": g.faults, "source": variant})
        return list(reversed(out))

    def bot(self, name: str) -> dict:
        """A bot's page: per variant its standing line and games; faults by kind from the
        arena's records of its games, and apart from them its seats taken back (RESUMED
        verdicts: a recovery, not a fault) in ``resumed``."""
        per_variant = []
        for v in self.variants():
            line = next((s for s in self.standings(v) if s["bot"] == name), None)
            games = self.games(v, name)
            if line or games:
                per_variant.append({"variant": v, "line": line, "games": games})
        faults: dict[str, int] = {}
        resumed = 0
        arena_games = []
        for g in self.arena_games():
            if name not in g["bots"]:
                continue
            arena_games.append(g)
            if g.get("faults"):
                try:
                    rec = self.record("arena", g["game_id"]) or {}
                except BadRecord:       # one bad file costs its own faults, not the page
                    g = {**g, "unreadable": True}
                    arena_games[-1] = g
                    continue
                arena = rec.get("arena") if isinstance(rec.get("arena"), dict) else {}
                for vd in arena.get("verdicts") or []:
                    s = vd.get("seat", -1) if isinstance(vd, dict) else -1
                    if isinstance(s, int) and 0 <= s < len(g["bots"]) and g["bots"][s] == name:
                        if vd.get("kind") == "RESUMED":
                            resumed += 1
                        else:
                            faults[str(vd.get("kind"))] = faults.get(str(vd.get("kind")), 0) + 1
        return {"name": name, "variants": per_variant, "arena_games": arena_games,
                "faults": dict(sorted(faults.items())), "resumed": resumed}


def chart_svg(history: list[dict], width: int = 640, height: int = 300) -> str:
    """An inline SVG of ratings over time (the same data as arena/ladder/plot.py): per bot a
    step line of mu and its 95% band (mu +- 1.96 sigma) against the deals rated. ``history``:
    `LadderStore.history` rows. Returns "" when there is nothing to draw."""
    if not history:
        return ""
    from html import escape
    mu0, sd0 = initial_rating()
    per: dict[str, list[dict]] = {}
    for r in history:
        per.setdefault(r["bot"], []).append(r)
    end = history[-1]["deals_total"] or 1
    lo = min(min(r["mu"] - Z95 * r["sigma"] for r in history), mu0 - Z95 * sd0)
    hi = max(max(r["mu"] + Z95 * r["sigma"] for r in history), mu0 + Z95 * sd0)
    ml, mr, mt, mb = 44, 110, 12, 32
    W, H = width - ml - mr, height - mt - mb

    def X(d):
        return ml + W * d / end

    def Y(m):
        return mt + H * (hi - m) / (hi - lo or 1)

    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
             f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="ratings over time">',
             f'<rect x="{ml}" y="{mt}" width="{W}" height="{H}" fill="#fff" stroke="#bbb"/>']
    step = 10 ** math.floor(math.log10(max(hi - lo, 1)))
    if (hi - lo) / step < 4:
        step /= 2
    t = math.ceil(lo / step) * step
    while t <= hi:
        y = Y(t)
        parts.append(f'<line x1="{ml}" x2="{ml + W}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
                     f'<text x="{ml - 4}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{t:g}</text>')
        t += step
    parts.append(f'<text x="{ml + W / 2}" y="{height - 6}" text-anchor="middle" font-size="11">deals rated '
                 f'(0 .. {end})</text>')
    for i, bot in enumerate(sorted(per)):
        col = PALETTE[i % len(PALETTE)]
        pts = [(0, mu0, sd0)] + [(p["deals_total"], p["mu"], p["sigma"]) for p in per[bot]] + \
              [(end, per[bot][-1]["mu"], per[bot][-1]["sigma"])]
        line, up, down = [], [], []
        for k, (d, m, s) in enumerate(pts):
            if k:
                line.append((X(d), Y(pts[k - 1][1])))
                up.append((X(d), Y(pts[k - 1][1] + Z95 * pts[k - 1][2])))
                down.append((X(d), Y(pts[k - 1][1] - Z95 * pts[k - 1][2])))
            line.append((X(d), Y(m)))
            up.append((X(d), Y(m + Z95 * s)))
            down.append((X(d), Y(m - Z95 * s)))
        band = " ".join(f"{x:.1f},{y:.1f}" for x, y in up + down[::-1])
        parts.append(f'<polygon points="{band}" fill="{col}" fill-opacity="0.13" stroke="none"/>')
        parts.append(f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in line)}" fill="none" '
                     f'stroke="{col}" stroke-width="2"/>')
        ly = mt + 14 + 18 * i
        parts.append(f'<rect x="{ml + W + 10}" y="{ly - 9}" width="12" height="4" fill="{col}"/>'
                     f'<text x="{ml + W + 26}" y="{ly - 4}" font-size="12">{escape(bot)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def game_view(rec: dict, bots=None) -> dict:
    """A record (docs/records.md) replayed by the engine for the viewer: {"variant",
    "players", "bots", "score", "deals": [{"dealer", "hands" (per seat, as dealt), "widow",
    "steps": [{"seat", "text", "kind", "card", "trick"}], "tricks" ([{leader, cards, winner}]),
    "result", "verdicts"}], "auction" (whether the variant has one: else no bid to show),
    "target_unit" ("points", "tricks" or None: Variant.target_unit)}. Raises RecordError /
    VariantError as `replay` does."""
    m = replay(rec)
    arena = rec.get("arena") or {}
    bots = list(bots or arena.get("bots") or [])
    deals = []
    verdicts = arena.get("verdicts", [])
    for i, (st, d) in enumerate(zip(m.deals, rec["deals"])):
        res = st.result()
        tricks = res.get("tricks") or []
        sizes = [len(t["cards"]) for t in tricks]
        steps, t, n = [], 0, 0
        for seat, a in st.history:
            step = {"seat": seat, "text": str(a), "kind": a.kind, "card": None, "trick": None}
            if a.kind == "play":
                step["card"] = str(a.arg)
                while t < len(sizes) and n >= sizes[t]:
                    t, n = t + 1, 0
                step["trick"] = t
                n += 1
            steps.append(step)
        deals.append({"dealer": st.dealer, "hands": d.get("hands") or [], "widow": d.get("widow") or [],
                      "steps": steps, "tricks": tricks, "result": res,
                      "verdicts": [x for x in verdicts if x.get("deal") == i]})
    players = len(deals[0]["hands"]) if deals else 0
    if not bots:
        bots = [f"seat {s}" for s in range(players)]
    return {"variant": rec.get("variant"), "players": players, "bots": bots, "seed": rec.get("seed"),
            "score": m.seat_scores(), "deals": deals, "auction": m.v.has_auction,
            "target_unit": m.v.target_unit, "arena": {k: arena[k] for k in ("game_id", "complete", "error")
                                                                 if k in arena}}
