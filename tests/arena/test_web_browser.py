"""The web pages in a real headless Chromium (Debian's `chromium`, driven by Playwright
with ``executable_path``; no browser is downloaded): every page loads, the viewer steps
through a recorded game with the keyboard, a live game's cards appear as they are played
and no card is in the live page before the rules show it to everybody. Each test
screenshots its page into its tmp dir (TAASH_WEB_SHOTS=DIR copies them there too)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.helpers import ROOT, readline
from tests.helpers.arena_util import TAASH, Server, env

pytestmark = pytest.mark.slow
CHROMIUM = os.environ.get("TAASH_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _need_browser():
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("the browser tests need the playwright package (pip install playwright; .ci/run installs it)")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"the browser tests need Chromium at {CHROMIUM} (apt-get install chromium; .ci/run installs it)")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A real arena with bots, a recorded arena game, a small ladder in the same data
    directory, and `taash web --arena` on it; yields a dict of what the tests need."""
    _need_browser()
    base = tmp_path_factory.mktemp("web")
    s = Server(base / "data")
    procs = []
    try:
        toks = {n: s.token(n) for n in ("h1", "r1", "slow1", "slow2")}
        s.bot("heuristic", "h1", toks["h1"])
        s.bot("random", "r1", toks["r1"])
        e = env()
        e["TAASH_SLOW_BOT_S"] = "0.12"
        for n in ("slow1", "slow2"):
            s.procs.append(subprocess.Popen([*TAASH, "bot", f"{n}=tests.helpers.slow_bot:make", "--name", n,
                                             "--token", toks[n], "--server", s.addr], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL, env=e, cwd=ROOT))
        s.wait_connected(["h1", "r1", "slow1", "slow2"])
        [g] = s.run_matches("29", ["h1", "r1", "h1", "r1"], seed=5, max_deals=2)
        assert g.error == ""
        lad = s.taash("ladder", "run", "--variant", "29", "--deals", "8", "--bots", "heuristic,random",
                      "--data", str(s.data), "--quiet")
        assert lad.returncode == 0, lad.stderr
        web = subprocess.Popen([*TAASH, "web", "--data", str(s.data), "--arena", s.addr, "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env(), cwd=ROOT)
        procs.append(web)
        line = readline(web.stdout)
        assert "web pages on" in line, line
        url = line.split("web pages on ")[1].strip().rstrip("/")
        from playwright.sync_api import sync_playwright
        pw = sync_playwright().start()
        ctx = pw.chromium.launch_persistent_context(str(base / "profile"), executable_path=CHROMIUM, args=FLAGS,
                                                    headless=True, viewport={"width": 1280, "height": 900})
        yield {"server": s, "url": url, "game": g, "ctx": ctx}
        ctx.close()
        pw.stop()
    finally:
        for p in procs:
            p.terminate()
            p.wait(10)
        s.stop()


def shot(page, tmp_path, name):
    out = tmp_path / f"{name}.png"
    page.screenshot(path=str(out), full_page=True)
    if os.environ.get("TAASH_WEB_SHOTS"):
        Path(os.environ["TAASH_WEB_SHOTS"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(out, Path(os.environ["TAASH_WEB_SHOTS"]) / out.name)
    return out


def test_home_ladder_and_bot_pages(world, tmp_path):
    page = world["ctx"].new_page()
    page.goto(world["url"] + "/")
    assert page.locator("table.standings").count() == 1
    assert world["game"].game_id in page.inner_text("table.games")
    shot(page, tmp_path, "home")
    page.click("text=29")
    page.wait_for_url("**/ladder/29")
    assert page.locator("svg.chart polyline").count() == 2            # heuristic and random
    rows = page.locator("table.standings tbody tr")
    assert rows.count() == 2
    assert page.locator("table.h2h td.plus").count() + page.locator("table.h2h td.minus").count() \
        + page.locator("table.h2h td:has-text('+0')").count() == 2
    shot(page, tmp_path, "ladder")
    page.click("table.standings >> text=heuristic")
    page.wait_for_url("**/bot/heuristic")
    assert "29" in page.inner_text("main")
    shot(page, tmp_path, "bot")
    page.close()


def test_viewer_steps_with_the_keyboard(world, tmp_path):
    from tests.helpers.arena_util import record
    g = world["game"]
    rec = record(g.record)
    d0 = rec["deals"][0]
    page = world["ctx"].new_page()
    page.goto(f"{world['url']}/game?src=arena&key={g.game_id}")
    n = len(d0["actions"])
    assert page.inner_text("#pos") == f"deal 1 of {len(rec['deals'])} · action 0 of {n}"
    assert page.locator(".seat").count() == 4
    assert page.locator(".hand .card").count() == 32 and page.locator(".hand .card.gone").count() == 0
    first_play = next(i for i, a in enumerate(d0["actions"]) if a.startswith("play "))
    for _ in range(first_play + 1):
        page.keyboard.press("ArrowRight")
    card = d0["actions"][first_play].split()[1]
    assert page.inner_text("#pos").endswith(f"action {first_play + 1} of {n}")
    assert page.locator(f'.hand .card.gone[data-card="{card}"]').count() == 1
    assert page.locator(f'.played .card[data-card="{card}"]').count() == 1
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    shot(page, tmp_path, "viewer")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#pos").endswith(f"action {first_play + 3} of {n}")
    page.keyboard.press("End")
    assert page.locator(".hand .card.gone").count() == 32
    assert "contract" in page.inner_text("#summary")
    page.keyboard.press("PageDown")
    assert page.inner_text("#pos").startswith("deal 2 of")
    page.keyboard.press("Home")
    assert page.inner_text("#pos").endswith("action 0 of " + str(len(rec["deals"][1]["actions"])))
    with page.expect_download() as dl:
        page.click("#download")
    assert json.loads(Path(dl.value.path()).read_text())["deals"] == rec["deals"]
    page.close()


def test_live_cards_appear_and_nothing_hidden_shows(world, tmp_path):
    s = world["server"]
    page = world["ctx"].new_page()
    page.goto(world["url"] + "/live")
    page.wait_for_function("document.getElementById('status').textContent === 'connected'")
    box = {}
    t = threading.Thread(target=lambda: box.update(g=s.run_matches("28", ["slow1", "slow2", "slow1", "slow2"],
                                                                  seed=11, max_deals=1)))
    t.start()
    try:
        page.wait_for_selector("section.live", timeout=30_000)
        page.wait_for_selector("section.live .played .card", timeout=60_000)
        seen = []           # (actions shown, cards in the DOM) while the deal goes on
        shot_taken = False
        end = time.monotonic() + 90
        while time.monotonic() < end:
            snap = page.evaluate("""() => { const el = document.querySelector('section.live');
                if (!el) return null;
                return {n: Number(el.dataset.actions), hands: el.querySelectorAll('.hand').length,
                        cards: [...el.querySelectorAll('[data-card]')].map(c => c.dataset.card)}; }""")
            if snap is None or snap["hands"]:
                break
            seen.append(snap)
            if not shot_taken and len([c for c in snap["cards"]]) >= 3:
                shot(page, tmp_path, "live")
                shot_taken = True
            time.sleep(0.1)
        page.wait_for_selector("section.live .hand .card", timeout=60_000)   # the hands, once the deal ends
        shot(page, tmp_path, "live-deal-over")
        sides = page.inner_text("section.live .sides")       # per side, the deal's 8 tricks and 28 points
    finally:
        t.join(120)
    [g] = box["g"]
    from tests.helpers.arena_util import record
    actions = record(g.record)["deals"][0]["actions"]
    assert len(seen) >= 3 and seen[-1]["n"] > seen[0]["n"]              # it updated by itself
    counts = [len(x["cards"]) for x in seen]
    assert max(counts) >= 2                                            # cards appeared one by one
    for x in seen:
        shown_plays = [a.split()[1] for a in actions[:x["n"]] if a.startswith("play ")]
        # every card in the page was played by then, in the current trick (a trick of 28 is 4 cards)
        assert set(x["cards"]) <= set(shown_plays), (x, shown_plays)
        assert len(x["cards"]) <= 4
    import re
    assert sum(map(int, re.findall(r"(\d+) tricks", sides))) == 8, sides
    assert sum(map(int, re.findall(r"(\d+) points", sides))) == 28, sides
    page.close()
