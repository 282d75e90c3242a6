"""The web pages (arena/web, docs/web.md) without a browser: the data they show, worked out
by hand from a small ladder, the routes through aiohttp's test client, the static report,
and the live state's guarantee that no hand is shown before its deal ends."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.parse
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from taash.arena.ladder.ratings import BotStanding, GameResult
from taash.arena.ladder.schedule import GameSpec
from taash.arena.store import SQLiteLadderStore
from taash.arena.web.app import make_app
from taash.arena.web.data import Site, card_parts, game_view
from taash.arena.web.live import apply_event
from taash.arena.web.report import write_report
from taash.interpreter import Match, load_variant
from tests.helpers import ROOT


def first_legal_record(variant="29", seed=3, deals=2):
    """A record of ``deals`` deals of Match(variant, seed), every seat playing its first legal action."""
    v = load_variant(variant)
    m = Match(v, seed)
    for _ in range(deals):
        st = m.new_deal()
        while not st.is_terminal:
            st.apply(st.legal_actions()[0])
        m.finish_deal(st)
    return m.record()


@pytest.fixture
def site(tmp_path):
    """A ladder of 29 with two games, scores chosen by hand: in 29 seats 0 and 2 are one
    side, 1 and 3 the other (docs/rules.md §0.1), so game 1 is ann's side +3 vs bob's -1 and
    game 2 (seats swapped) bob's side +2 vs ann's 0."""
    store = SQLiteLadderStore(tmp_path / "ladder.sqlite3")
    store.save_settings("29", {"seed": 0})
    rec = first_legal_record()
    g1 = GameResult("k1", ("ann", "bob", "ann", "bob"), [3, -1, 3, -1], 2, rec, faults=1)
    g2 = GameResult("k2", ("bob", "ann", "bob", "ann"), [2, 0, 2, 0], 2, rec)
    for i, g in enumerate((g1, g2)):
        store.save_game("29", GameSpec(key=g.key, event=f"e{i}", round=0, seed=i, bots=g.bots, deals=2), g, "test")
    store.apply_event("29", "e0", ["k1", "k2"], 4,
                      [BotStanding("ann", 27.5, 7.0, 2, 4, 1, 0, 1), BotStanding("bob", 22.5, 7.0, 2, 4, 1, 0, 1)])
    return Site(store, tmp_path)


def test_standings_and_head_to_head_from_the_store(site):
    lines = site.standings("29")
    assert [s["bot"] for s in lines] == ["ann", "bob"]
    assert lines[0]["ci95"] == pytest.approx([27.5 - 1.959964 * 7, 27.5 + 1.959964 * 7], abs=1e-4)
    assert [s["faults"] for s in lines] == [1, 1]       # the one game with a fault had both
    h = site.head_to_head("29")
    # ann vs bob: +4 (3 - -1) in game 1, -2 (0 - 2) in game 2: total +2, one win, one loss
    assert h["cells"]["ann"]["bob"] == {"w": 1, "d": 0, "l": 1, "diff": 2.0}
    assert h["cells"]["bob"]["ann"] == {"w": 1, "d": 0, "l": 1, "diff": -2.0}
    # one event of 4 deals: ann's side 3 + 0, bob's -1 + 2, a margin of +2 over 4 deals
    # for ann; one event has no interval
    assert h["margins"] == [{"better": "ann", "worse": "bob", "mean": 0.5, "ci95": None, "events": 1,
                             "deals": 4, "apart": False}]


def test_game_view_follows_the_tricks():
    rec = first_legal_record()
    view = game_view(rec, ["a", "b", "c", "d"])
    assert view["players"] == 4 and len(view["deals"]) == 2
    for d, rd in zip(view["deals"], rec["deals"]):
        assert [s["text"] for s in d["steps"]] == rd["actions"]
        plays = [s for s in d["steps"] if s["kind"] == "play"]
        # 29: 32 cards, 8 tricks of one card per seat (docs/rules.md §29)
        assert len(plays) == 32 and len(d["tricks"]) == 8
        assert [p["trick"] for p in plays] == [i // 4 for i in range(32)]
        assert [p["card"] for p in plays] == [c for t in d["tricks"] for c in t["cards"]]
        assert d["hands"] == rd["hands"]
    # 29 has an auction and a target in card points (points(declarer_side) >= target)
    assert view["auction"] is True and view["target_unit"] == "points"


def test_game_view_tells_a_contract_without_an_auction_in_tricks():
    from tests.records import record_path
    view = game_view(json.loads(record_path("court-piece", 1).read_text()))
    # court piece: the eldest's side must win 7 tricks (tricks_won(declarer_side) >= target)
    assert view["auction"] is False and view["target_unit"] == "tricks"


def test_card_parts():
    assert card_parts("TH") == ("10", "\u2665", "red")
    assert card_parts("JS") == ("J", "\u2660", "black")
    assert card_parts("QD")[2] == "red" and card_parts("AC")[1] == "\u2663"


async def _get(site, *paths):
    async with TestClient(TestServer(make_app(site))) as c:
        out = []
        for p in paths:
            r = await c.get(p)
            out.append((r.status, await r.text(), r.headers))
        return out


def test_pages_answer(site):
    key = urllib.parse.quote("k1", safe="")
    (s1, home, _), (s2, lad, _), (s3, game, _), (s4, rec, hd), (s5, bot, _), (s6, _, _), (s7, css, _) = asyncio.run(_get(
        site, "/", "/ladder/29", f"/game?src=29&key={key}", f"/record?src=29&key={key}", "/bot/ann",
        "/game?src=29&key=nope", "/static/style.css"))
    assert (s1, s2, s3, s4, s5, s6, s7) == (200, 200, 200, 200, 200, 404, 200)
    assert "ann" in home and "27.5" in home
    assert "<svg" in lad and "+2" in lad and "-2" in lad
    assert re.search(r"<td>ann</td><td>bob</td><td class=\"num\">\+0\.500</td>", lad)   # the margin a deal
    data = json.loads(re.search(r'<script id="game-data" type="application/json">(.*?)</script>', game, re.S).group(1))
    assert data["bots"] == ["ann", "bob", "ann", "bob"] and len(data["deals"]) == 2
    assert json.loads(rec) == first_legal_record() and "attachment" in hd["Content-Disposition"]
    assert "27.5" in bot and "k1" in bot


def test_pages_load_nothing_from_another_site(site, tmp_path):
    pages = [t for _, t, _ in asyncio.run(_get(site, "/", "/ladder/29", "/game?src=29&key=k1", "/bot/ann"))]
    out = write_report(site, tmp_path / "r" / "report.html")
    pages.append(out.read_text())
    for html in pages:
        for url in re.findall(r'(?:src|href)="([^"]*)"', html):
            assert not re.match(r"^(https?:)?//", url), url
    report = pages[-1]
    assert "<style>" in report and "<svg" in report and "ann" in report and "/static/" not in report
    assert "&#34;" not in report.split("</style>")[0]                  # the CSS is not escaped


def test_report_command(site, tmp_path):
    from taash.arena.cli import main
    assert main(["ladder", "report", "--data", str(tmp_path), "--out", str(tmp_path / "x.html")]) == 0
    assert "Head to head" in (tmp_path / "x.html").read_text()


def test_live_state_shows_hands_only_after_the_deal():
    games = {}
    ev = lambda t, **kw: {"game": "g1", "index": 0, "type": t, **kw}
    apply_event(games, ev("game_started", variant="29", bots=["a", "b", "c", "d"]))
    apply_event(games, ev("deal_started", deal=0, dealer=3))
    g = apply_event(games, ev("action", deal=0, seat=0, action="bid 16", by_default=False))
    assert g["hands"] is None and g["actions"] == [[0, "bid 16"]]
    hands = [["JS"], ["9S"], ["AS"], ["TS"]]
    g = apply_event(games, ev("deal_ended", deal=0, hands=hands, widow=[], result={"score_change": [1, 0, 1, 0]}))
    assert g["hands"] == hands and g["score"] == [1, 0, 1, 0]
    g = apply_event(games, ev("deal_started", deal=1, dealer=0))
    assert g["hands"] is None and g["actions"] == []     # the next deal starts hidden again


def test_live_state_counts_tricks_and_points_per_seat_and_deal():
    games = {}
    ev = lambda t, **kw: {"game": "g1", "index": 0, "type": t, **kw}
    g = apply_event(games, ev("game_started", variant="29", bots=["a", "b", "c", "d"], sides=[0, 1, 0, 1]))
    assert g["sides"] == [0, 1, 0, 1] and g["tricks"] == [0, 0, 0, 0]
    apply_event(games, ev("deal_started", deal=0, dealer=3))
    for seat, card in enumerate(["7H", "JH", "8H", "QH"]):      # JH wins: 3 points
        g = apply_event(games, ev("action", deal=0, seat=seat, action=f"play {card}", by_default=False,
                                  **({"trick": [1, 3]} if seat == 3 else {})))
    g = apply_event(games, ev("action", deal=0, seat=3, action="play 9C", by_default=False, trick=[3, 2]))
    assert g["tricks"] == [0, 1, 0, 1] and g["points"] == [0, 3, 0, 2]
    g = apply_event(games, ev("deal_started", deal=1, dealer=0))
    assert g["tricks"] == [0, 0, 0, 0] and g["points"] == [0, 0, 0, 0]


def test_a_wheel_carries_the_templates_and_static_files():
    """Every file under arena/web/templates and static matches a package-data pattern."""
    import fnmatch
    import tomllib
    from tests.helpers import ROOT
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    pats = conf["package-data"]["taash.arena.web"]
    web = ROOT / "arena" / "web"
    files = [p.relative_to(web).as_posix() for d in ("templates", "static") for p in (web / d).rglob("*") if p.is_file()]
    assert files and all(any(fnmatch.fnmatch(f, pat) for pat in pats) for f in files), files
    assert "taash.arena.web" in conf["packages"]


def test_bot_page_counts_its_own_faults_by_kind(tmp_path):
    from taash.arena.store import SQLiteStore
    st = SQLiteStore(tmp_path)
    rec = first_legal_record(deals=1)
    rec["arena"] = {"game_id": "g1", "bots": ["x", "y", "x", "y"], "verdicts": [
        {"deal": 0, "index": 3, "seat": 0, "kind": "TIMEOUT"}, {"deal": 0, "index": 5, "seat": 2, "kind": "TIMEOUT"},
        {"deal": 0, "index": 9, "seat": 1, "kind": "ILLEGAL_ACTION"}]}
    gid = st.new_game_id()
    st.save_game(gid, {"variant": "29", "seed": 3, "bots": ["x", "y", "x", "y"], "complete": False,
                       "score": [0, 0, 0, 0], "winners": [], "faults": 3}, rec)
    site = Site(None, tmp_path)
    assert site.bot("x")["faults"] == {"TIMEOUT": 2}          # seats 0 and 2 are x's
    assert site.bot("y")["faults"] == {"ILLEGAL_ACTION": 1}
    [(status, html, _)] = asyncio.run(_get(site, "/bot/x"))
    assert status == 200 and "TIMEOUT" in html and gid in html
    view = game_view(rec)
    assert [v["index"] for v in view["deals"][0]["verdicts"]] == [3, 5, 9] and view["bots"][1] == "y"



def test_a_record_that_cannot_be_read_or_replayed_costs_only_its_own_game(tmp_path):
    # from a fresh-eyes tester: one cut-short record file made the bot's whole page a 500,
    # and a record that does not replay gave "500 Internal Server Error"
    from taash.arena.store import SQLiteStore
    st = SQLiteStore(tmp_path)
    good, cut, bad = (st.new_game_id() for _ in range(3))
    row = {"variant": "29", "seed": 3, "bots": ["x", "y", "x", "y"], "complete": False, "score": [0] * 4,
           "winners": [], "faults": 1}
    rec = first_legal_record(deals=1)
    rec["arena"] = {"verdicts": [{"deal": 0, "index": 3, "seat": 0, "kind": "TIMEOUT"}]}
    st.save_game(good, row, rec)
    path = Path(st.save_game(cut, row, rec))
    path.write_text(path.read_text()[:500])          # cut short
    illegal = json.loads(json.dumps(rec))
    illegal["deals"][0]["actions"][3] = "play ZZ"
    st.save_game(bad, row, illegal)
    site = Site(None, tmp_path)
    assert site.bot("x")["faults"] == {"TIMEOUT": 2}     # the good and the illegal one's records
    got = asyncio.run(_get(site, "/bot/x", f"/game?src=arena&key={cut}", f"/record?src=arena&key={cut}",
                           f"/game?src=arena&key={bad}", f"/game?src=arena&key={good}"))
    (s_bot, html, _), (s_cut, t_cut, _), (s_rec, t_rec, _), (s_bad, t_bad, _), (s_good, _, _) = got
    assert s_bot == 200 and "(record unreadable)" in html and good in html
    assert (s_cut, s_rec) == (422, 422) and f"the record of game {cut} cannot be read" in t_cut
    assert s_bad == 422 and f"the record of game {bad} does not replay" in t_bad and "play ZZ" in t_bad
    assert s_good == 200


def test_unknown_bot_and_bad_page_numbers_are_refused(site):
    (s1, t1, _), = asyncio.run(_get(site, "/bot/nobody"))
    assert s1 == 404 and "nobody" in t1

    async def live():
        app = make_app(site, arena="127.0.0.1:1")    # no arena there: the pages still answer
        async with TestClient(TestServer(app)) as c:
            return [(await c.get(p)).status for p in ("/live?page=abc", "/live?page=-1",
                                                       "/live?page=99999999999999999999", "/live?page=2",
                                                       "/live/events?page=x")]
    assert asyncio.run(live()) == [400, 400, 400, 200, 400]


def test_web_command_refuses_bad_arguments_in_one_line(tmp_path):
    import socket
    import subprocess
    import sys
    from tests.helpers import ROOT
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    cases = [(["--port", "99999"], "a port is at most 65535"),
             (["--data", str(tmp_path / "missing")], "no data directory"),
             (["--data", str(tmp_path), "--port", str(busy.getsockname()[1])], "address already in use")]
    try:
        for argv, words in cases:
            r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "web", *argv], capture_output=True, text=True,
                               cwd=ROOT, timeout=60)
            assert r.returncode != 0 and words in r.stderr and "Traceback" not in r.stderr, (argv, r.stderr)
            assert words in r.stderr.strip().splitlines()[-1], r.stderr     # said in its last line
    finally:
        busy.close()
    assert not (tmp_path / "missing").exists()


def test_the_pages_create_no_ladder_where_there_is_none(tmp_path):
    # docs/web.md: nothing on the pages writes the store; an arena's data directory
    # without a ladder stays without one
    from argparse import Namespace

    from taash.arena.cli.web import _site
    site = _site(Namespace(store=None, data=str(tmp_path)))
    assert site.ladder is None and site.variants() == []
    assert list(tmp_path.iterdir()) == []


def test_a_game_page_without_its_name_is_a_bad_request(site):
    got = asyncio.run(_get(site, "/game", "/game?src=29", "/game?key=k1"))
    assert [s for s, _, _ in got] == [400, 400, 400]
    assert "?src=arena|VARIANT&key=GAME" in got[0][1]


def test_a_game_of_a_callers_variant_file_shows_from_a_moved_data_directory(tmp_path):
    # the arena keeps a caller's variant text in DATA/variants/ and names it relative to the
    # record: the game's page still replays once the directory is moved
    import shutil
    from taash.arena.store import SQLiteStore
    st = SQLiteStore(tmp_path / "data")
    kept = st.save_variant((ROOT / "variants" / "28.yaml").read_text())
    rec = first_legal_record("28", deals=1)
    rec["variant"] = str(kept)
    gid = st.new_game_id()
    path = st.save_game(gid, {"variant": str(kept), "seed": 3, "bots": ["x"] * 4, "complete": False,
                              "score": [0] * 4, "winners": [], "faults": 0}, rec)
    assert json.loads(open(path).read())["variant"] == f"../variants/{kept.name}"
    shutil.move(tmp_path / "data", tmp_path / "moved")
    got = Site(None, tmp_path / "moved").record("arena", gid)
    assert got["variant"] == str((tmp_path / "moved" / "variants" / kept.name).resolve())
    assert len(game_view(got)["deals"]) == 1


def test_a_ladder_made_after_the_pages_started_shows(tmp_path):
    # from a fresh-eyes tester: `taash arena serve --web`, then a ladder: the pages said
    # "No ladder yet" and /ladder/56 was 404 until the web process was started again
    import argparse
    from taash.arena.cli.web import _site
    site = _site(argparse.Namespace(store=None, data=str(tmp_path)))
    assert site.ladder is None and site.variants() == []
    assert list(tmp_path.iterdir()) == []          # the pages made nothing
    store = SQLiteLadderStore(tmp_path / "ladder.sqlite3")
    store.save_settings("29", {"seed": 0})
    g = GameResult("k1", ("ann", "bob", "ann", "bob"), [3, -1, 3, -1], 2, first_legal_record())
    store.save_game("29", GameSpec(key="k1", event="e0", round=0, seed=0, bots=g.bots, deals=2), g, "test")
    store.apply_event("29", "e0", ["k1"], 2, [BotStanding("ann", 27.5, 7.0, 1, 2, 1, 0, 0),
                                               BotStanding("bob", 22.5, 7.0, 1, 2, 0, 0, 1)])
    assert site.variants() == ["29"]
    (s_home, home, _), (s_lad, _, _) = asyncio.run(_get(site, "/", "/ladder/29"))
    assert s_home == 200 and "/ladder/29" in home and s_lad == 200
