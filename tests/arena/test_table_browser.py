"""A person at the table (`taash play`, arena/web/table.py) in a real headless Chromium
(Debian's `chromium`, driven by Playwright, as test_web_browser.py does): whole deals
of 29 and of 304 (a called partner) played by clicking and with the keyboard, one of a
house rule file written into the test's folder; a reload in the middle of a deal
resumes the seat; and the page's DOM and every server-sent message it got hold no card
of another seat before the rules show it to the person's seat: each is checked against
the seat's observation after the same number of actions, replayed from the record, and
that observation is checked to be the same for a re-deal of the hidden cards
(`resample`). TAASH_TABLE_SHOTS=DIR writes the table at desktop and phone width there
(docs/img/table-desktop.png and table-phone.png are made so)."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from taash.interpreter import Match, load_variant, read_record
from taash.interpreter.information import resample
from tests.helpers import ROOT, readline, sigint_default
from tests.helpers.arena_util import TAASH, env

from .test_web_browser import CHROMIUM, FLAGS, _need_browser

pytestmark = pytest.mark.slow
CARD = re.compile(r"(?<![0-9A-Za-z])[2-9TJQKA][SHDC](?![0-9A-Za-z])")
# the data-card attribute of a drawn card (the text shows "10♥", the attribute "TH")
DATA_CARD = re.compile(r'data-card="([2-9TJQKA][SHDC])"')
# the frames the page gets from /table/events, kept for the secrecy check
INIT = """
window.__frames = [];
const ES = window.EventSource;
window.EventSource = function (url) {
  const es = new ES(url);
  es.addEventListener("message", m => window.__frames.push(m.data));
  return es;
};
"""


class Play:
    """`taash play VARIANT --no-browser` in a process of its own: ``url`` of the table,
    ``lines`` of its standard output as they come."""

    def __init__(self, tmp: Path, variant: str, *extra: str):
        self.data = tmp / "data"
        self.log = open(tmp / "play.log", "w")
        self.proc = subprocess.Popen([*TAASH, "play", variant, "--no-browser", "--data", str(self.data),
                                      "--pace", "0.05", *extra], stdout=subprocess.PIPE, stderr=self.log,
                                     text=True, env=env(), cwd=ROOT, preexec_fn=sigint_default)
        self.lines: list[str] = []
        try:
            first = readline(self.proc.stdout)
        except AssertionError:
            first = "(none in 60 s)"
        if "your table: " not in first:
            self.stop()
            raise AssertionError(f"taash play did not start: {first!r}: {(tmp / 'play.log').read_text()}")
        self.url = first.split("your table: ")[1].strip()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line)

    def record_path(self, timeout=30.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in self.lines:
                if line.startswith("record: "):
                    return line.split()[1]
            time.sleep(0.05)
        raise AssertionError(f"no record line: {self.lines}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    _need_browser()
    from playwright.sync_api import sync_playwright
    pw = sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
    yield b
    b.close()
    pw.stop()


def _state(page):
    return page.evaluate("() => typeof S === 'undefined' ? null : S")


def play_deal(page, rng, snaps, reload_after=None, shots=None, stop_after=None, review=None, keys_only=False) -> dict:
    """Play the person's seat by clicking (and every third decision with the keyboard)
    until the match is over (or ``stop_after`` decisions); ``snaps`` gets (deal, actions
    seen, DOM html) before each decision. ``reload_after``: reload the page after that
    many decisions and check the seat resumes. ``review(page, state)``: called at each
    deal's review before it is closed. ``keys_only``: every decision by its keys.
    Returns the last state."""
    decisions, end = 0, time.monotonic() + 240
    reloaded = False
    shot = False
    while time.monotonic() < end:
        st = _state(page)
        if st and st.get("over") or decisions == stop_after:
            return st
        if st and st.get("game") and not page.locator("#ended").is_hidden():
            assert page.locator("#ended .why").count() >= 1
            if st["ended"] and not st["over"]:
                if review is not None:
                    review(page, st)
                page.keyboard.press("Enter")      # the deal's summary: next deal
            time.sleep(0.05)
            continue
        req = st and st.get("request")
        if not req or not page.locator("[data-action], [data-num]").count():   # (a first bid may have no pass: numbers only)
            time.sleep(0.03)
            continue
        if reload_after is not None and decisions == reload_after and not reloaded:
            keep = ("hand", "auction", "trick", "deal", "actions", "playable")
            before = {k: st[k] for k in keep}, req["id"], req["legal"]
            page.reload()
            page.wait_for_function("() => typeof S !== 'undefined' && S && S.request")
            after = _state(page)
            # the same seat, the same request: nothing lost
            assert ({k: after[k] for k in keep}, after["request"]["id"], after["request"]["legal"]) == before
            reloaded = True
            continue
        snaps.append((st["deal"], st["actions"], page.evaluate("() => document.body.innerHTML")))
        # every seat's card count, the seat's own the cards in its hand
        sizes = st["hand_sizes"]
        assert sizes[st["game"]["seat"]] == len(st["hand"])
        for s, n in enumerate(sizes):
            counts = page.locator(f'.seat[data-seat="{s}"] .counts').inner_text()
            assert counts.startswith(f"{n} card{'' if n == 1 else 's'} · "), (s, counts)
        if shots and decisions >= shots[0] and st.get("trick") and not shot:     # a trick under way
            _shots(page, *shots[1:])
            shot = True
        rid = req["id"]
        cards = page.locator(".hand button[data-action]")
        others = page.locator(".actions button[data-action], .actions button[data-num]")
        if keys_only or decisions % 3 == 2:          # the keyboard
            if cards.count() and rng.random() < 0.5 and not keys_only:
                for _ in range(rng.randrange(1, cards.count() + 1)):
                    page.keyboard.press("ArrowRight")
                page.keyboard.press("Enter")
            else:       # an action's own keys (drawn from the variant's action table)
                keyed = [ch for ch in req["choices"] if ch["key"]]
                assert len(keyed) == len(req["choices"]), req["choices"]
                for k in rng.choice(keyed)["key"]:
                    page.keyboard.press(k)
        elif cards.count() and (not others.count() or rng.random() < 0.8):
            b = cards.nth(rng.randrange(cards.count()))
            b.dblclick()                    # a double click sends one action
        else:
            b = others.nth(rng.randrange(others.count()))
            num = b.get_attribute("data-num")
            b.click()
            if num is not None:         # a bid's number: then one of its denominations
                dens = page.locator(".box .den[data-action]")
                assert dens.count() == len({ch["denom"] for ch in req["choices"] if ch["number"] == int(num)})
                dens.nth(rng.randrange(dens.count())).click()
        page.wait_for_function("rid => !S.request || S.request.id !== rid", arg=rid)
        decisions += 1
    raise AssertionError(f"the match did not end: {decisions} decisions; state {_state(page)}")


def _shots(page, out: Path, stem: str = "table"):
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"{stem}-desktop.png"), full_page=True)
    size = page.viewport_size
    page.set_viewport_size({"width": 390, "height": 844})
    time.sleep(0.2)
    page.screenshot(path=str(out / f"{stem}-phone.png"), full_page=True)
    page.set_viewport_size(size)


def check_secrecy(rec: dict, seat: int, frames: list[str], snaps: list, base: Path | None = None) -> int:
    """No card of another seat in what the page got before the rules showed it: each
    frame and DOM snapshot of deal 0 (before its end) holds only cards of the seat's
    observation after the same number of actions (replayed from the record), an
    observation that a re-deal of the hidden cards leaves the same. Returns the checks
    made. ``base``: the record's folder (a house file's path is relative to it)."""
    name = rec["variant"]
    if base is not None and (base / name).is_file():
        name = str(base / name)
    v = load_variant(name, rec.get("options") or None)
    d = rec["deals"][0]
    st = Match(v, rec.get("seed", 0)).new_deal(hands=d.get("hands"), widow=d.get("widow"), dealer=d["dealer"])
    seen = []           # the card texts of the seat's observation after k actions
    for k in range(len(d["actions"]) + 1):
        obs = st.observation(seat)
        if k % 5 == 0 and not st.is_terminal:
            again = resample(st, seat, random.Random(k))
            assert again.observation(seat) == obs      # the seat's view does not depend on the hidden cards
        seen.append(set(CARD.findall(json.dumps(obs))))
        if k < len(d["actions"]):
            st.apply(d["actions"][k])
    theirs = {c for s, h in enumerate(d["hands"]) if s != seat for c in h} | set(d.get("widow") or [])
    checks = 0
    for text in frames:
        f = json.loads(text)
        if not f.get("game") or f.get("deal") != 0 or f.get("ended"):
            continue
        shown = set(CARD.findall(json.dumps({k: x for k, x in f.items() if k != "notes"})))
        extra = (shown & theirs) - seen[f["actions"]]
        assert not extra, f"the page got {extra} after {f['actions']} actions, before the rules show them"
        checks += 1
    for deal, k, html in snaps:
        if deal != 0:
            continue
        extra = (set(DATA_CARD.findall(html)) & theirs) - seen[k]
        assert not extra, f"the page showed {extra} after {k} actions, before the rules show them"
        checks += 1
    return checks


def _game(browser, tmp_path, variant, *extra, seed=1, reload_after=None, shots=None):
    p = Play(tmp_path, variant, "--deals", "1", "--seed", str(seed), *extra)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.add_init_script(INIT)
        bad = []
        page.on("pageerror", lambda e: bad.append(str(e)))
        # no request of the page fails (no favicon 404)
        page.on("response", lambda r: r.status >= 400 and bad.append(f"{r.status} {r.url}"))
        page.goto(p.url)
        page.wait_for_function("() => typeof S !== 'undefined' && S && S.game")
        st = play_deal(page, random.Random(seed), snaps := [], reload_after=reload_after, shots=shots)
        assert not bad, bad
        assert st["over"]["deals"] == 1
        # the deal's end: every hand and why the contract was made or lost
        assert page.locator("#ended h2").inner_text() == "Match over"
        why = page.locator("#ended .why").inner_text()
        rec = read_record(p.record_path())
        res = rec["deals"][0]
        if res.get("declarer") is not None:
            assert f"seat {res['declarer']} " in why and ("contract made" in why) == bool(res["made"])
        for s, h in enumerate(res["hands"]):
            shown = page.locator(".endhand").nth(s).locator("[data-card]").evaluate_all(
                "els => els.map(e => e.dataset.card)")
            assert sorted(shown) == sorted(h)     # shown sorted by suit and rank (test_table.py)
        seat = rec["arena"]["bots"].index("you")
        frames = page.evaluate("() => window.__frames")
        base = Path(p.record_path()).parent
        assert check_secrecy(rec, seat, frames, snaps, base) > 10
        # the check can fail: a frame with a card of the next seat's hand, before any action
        hands = rec["deals"][0]["hands"]
        other = [c for c in hands[(seat + 1) % len(hands)] if c not in hands[seat]]     # 56: two copies
        leak = json.dumps({"game": {"id": "g"}, "deal": 0, "actions": 0, "ended": None, "trick": [[0, other[-1]]]})
        with pytest.raises(AssertionError):
            check_secrecy(rec, seat, [leak], [], base)
        # a stale click (the request was answered), a body that is no JSON, no key:
        # refused with a sentence, and nothing reaches the arena (no verdict in the record)
        base_url, key = p.url.split("/table?key=")
        r = page.request.post(f"{base_url}/table/answer?key={key}", data={"request": "g000001.1",
                                                                            "action": "pass"})
        assert r.status == 409 and "no longer open" in r.json()["error"]
        r = page.request.post(f"{base_url}/table/answer?key={key}", data="{", headers={"Content-Type": "text/plain"})
        assert r.status == 400
        assert page.request.post(f"{base_url}/table/answer", data={"request": "x", "action": "y"}).status == 403
        assert rec["arena"]["verdicts"] == []
        # the rulebook, one click away
        page.locator("#ended").evaluate("e => e.hidden = true")
        with page.expect_popup() as pop:
            page.click("#rules")
        # formatted: its title a heading, no Markdown marks left
        assert pop.value.locator(".rulebook h1").count() == 1
        assert not pop.value.locator(".rulebook").inner_text().startswith("#")
        pop.value.close()
        page.locator("#ended").evaluate("e => e.hidden = false")
        # the viewer replays the person's game like any other
        page.click("#ended a")
        page.wait_for_url("**/game?src=arena*")
        assert page.locator(".seat").count() == len(rec["arena"]["bots"])
        out = subprocess.run([*TAASH, "replay", p.record_path()], capture_output=True, text=True, env=env(),
                             cwd=ROOT, timeout=120)
        assert out.returncode == 0, out.stderr
        page.close()
        return rec
    finally:
        p.stop()


def test_a_deal_of_29_by_clicking_with_a_reload(browser, tmp_path):
    shots = os.environ.get("TAASH_TABLE_SHOTS")
    rec = _game(browser, tmp_path, "29", "--seat", "2", seed=3, reload_after=3,
                shots=(6, Path(shots)) if shots else None)
    assert rec["arena"]["bots"] == ["heuristic", "heuristic", "you", "heuristic"]


def test_a_deal_of_304_with_a_called_partner(browser, tmp_path):
    rec = _game(browser, tmp_path, "304", "--bots", "heuristic,random", seed=7)
    assert rec["arena"]["bots"] == ["you", "heuristic", "random", "random"]
    assert any(a.startswith("call ") for a in rec["deals"][0]["actions"])


def test_a_house_rule_file(browser, tmp_path):
    f = tmp_path / "my-29.yaml"
    f.write_text("extends: house/29-hidden-trump\nname: my hidden-trump 29\n")
    rec = _game(browser, tmp_path, str(f), "--seat", "1", seed=11)
    assert any(a.startswith("trump-card ") for a in rec["deals"][0]["actions"])


def test_a_seat_in_an_arena_match(browser, tmp_path):
    """`taash web --arena ADDR --play-as NAME`: a person takes a seat of a match that
    `taash arena match` starts on a running arena, against bots that are processes of
    their own; the arena's time control applies; the game is recorded like any other."""
    from tests.helpers.arena_util import Server
    s = Server(tmp_path / "data")
    web = None
    try:
        h = s.token("h1")
        alice = s.token("alice")
        s.bot("heuristic", "h1", h)
        def start_web():
            w = subprocess.Popen([*TAASH, "web", "--data", str(s.data), "--arena", s.addr, "--port", "0",
                                  "--play-as", "alice", "--token", alice], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True, env=env(), cwd=ROOT)
            try:
                assert "web pages on" in readline(w.stdout)
                line = readline(w.stdout)
                assert line.startswith("your table: "), line
            except BaseException:
                w.kill()
                w.wait(10)
                raise
            return w, line.split("your table: ")[1].strip()
        web, url = start_web()
        s.wait_connected(["h1", "alice"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.add_init_script(INIT)
        page.goto(url)
        # without the key: no table
        assert page.request.get(url.split("?")[0]).status == 403
        match = subprocess.Popen([*TAASH, "arena", "match", "29", "--bots", "h1,alice,h1,h1", "--max-deals", "1",
                                  "--move-ms", "60000", "--seed", "4", "--json", "--server", s.addr,
                                  "--data", str(s.data)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True, env=env(), cwd=ROOT)
        page.wait_for_function("() => typeof S !== 'undefined' && S && S.game")
        rng = random.Random(4)
        play_deal(page, rng, snaps := [], stop_after=3)
        frames = page.evaluate("() => window.__frames")
        # the web server stops in the middle of the deal (the seat's stream breaks) and
        # starts again: the arena sends the game, the events missed and the open request
        page.close()
        web.terminate()
        web.wait(10)
        web, url = start_web()
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.add_init_script(INIT)
        page.goto(url)
        page.wait_for_function("() => typeof S !== 'undefined' && S && S.request")
        st = _state(page)
        assert st["actions"] > 0 and st["deal"] == 0 and st["hand"]
        st = play_deal(page, rng, snaps)
        assert st["game"]["seat"] == 1 and st["over"]["deals"] == 1
        out, _ = match.communicate(timeout=60)
        g = json.loads(out)["matches"][0]
        assert g["bots"] == ["h1", "alice", "h1", "h1"] and g["deals"] == 1
        rec = read_record(g["record"])
        assert rec["arena"]["time_control"]["move_ms"] == 60000
        kinds = [v["kind"] for v in rec["arena"]["verdicts"] if v["seat"] == 1]
        assert "RESUMED" in kinds and "TIMEOUT" not in kinds
        assert check_secrecy(rec, 1, frames + page.evaluate("() => window.__frames"), snaps) > 10
        page.close()
    finally:
        if web is not None:
            web.terminate()
            web.wait(10)
        s.stop()


@pytest.mark.parametrize("variant, seat", [("304-solo", 1), ("house/29-single-hand", 3), ("56", 4)])
def test_a_deal_of_other_shipped_variants(browser, tmp_path, variant, seat):
    """A widow exchange (304-solo, three seats), a seat that may sit out (29 with a
    single hand), six seats with doubles (56): a whole deal by clicking, no card leaked."""
    shots = os.environ.get("TAASH_TABLE_SHOTS_ALL")
    rec = _game(browser, tmp_path, variant, "--seat", str(seat), seed=seat,
                shots=(4, Path(shots) / variant.replace("/", "-")) if shots else None)
    assert rec["arena"]["bots"][seat] == "you"


def test_a_closed_tab_leaves_the_seat_to_the_time_control(browser, tmp_path):
    """The person closes the tab at its first decision: the arena's time control plays
    the default action for it (TIMEOUT verdicts in the record), the deal goes on to its
    end, and a new tab shows the seat where the game is."""
    p = Play(tmp_path, "29", "--deals", "1", "--seed", "2", "--think-time", "0.3s", "--bank", "0s")
    try:
        page = browser.new_page()
        page.goto(p.url)
        page.wait_for_function("() => typeof S !== 'undefined' && S && S.request")
        page.close()
        rec = read_record(p.record_path(timeout=120))
        seat = rec["arena"]["bots"].index("you")
        timeouts = [v for v in rec["arena"]["verdicts"] if v["kind"] == "TIMEOUT"]
        assert timeouts and all(v["seat"] == seat for v in timeouts)
        assert len(rec["deals"]) == 1
        page = browser.new_page()
        page.goto(p.url)
        page.wait_for_function("() => typeof S !== 'undefined' && S && S.over")
        assert page.locator("#ended h2").inner_text() == "Match over"
        page.close()
    finally:
        p.stop()


def _open(browser, p, width=1280, height=900):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.add_init_script(INIT)
    bad = []
    page.on("pageerror", lambda e: bad.append(str(e)))
    page.on("response", lambda r: r.status >= 400 and bad.append(f"{r.status} {r.url}"))
    page.goto(p.url)
    page.wait_for_function("() => typeof S !== 'undefined' && S && S.game")
    return page, bad


def test_a_deal_review_holds_the_next_deal_and_play_again(browser, tmp_path):
    """Two deals of 29 with 5 s a decision and no bank: the review of deal 1 shows every
    trick (who played what, who won it, its points) and holds the next deal, with no
    decision open, for 6 s, longer than a decision's time, and no TIMEOUT follows (the
    person's clock did not run; nor did a bot's: no verdict at all); continue deals the
    next one; at the match's end "play again" starts another match with the same settings."""
    shots = os.environ.get("TAASH_TABLE_SHOTS")
    p = Play(tmp_path, "29", "--deals", "2", "--seed", "5", "--think-time", "5s", "--bank", "0s")
    try:
        page, bad = _open(browser, p)
        held = []

        def review(page, st):
            e = st["ended"]
            if e["deal"] == 1:      # the match's last deal: no break (its end may show before GameEnded)
                return
            try:
                page.wait_for_function("d => S.reviewing === d", arg=e["deal"], timeout=10000)
            except Exception:
                raise AssertionError(json.dumps({k: v for k, v in _state(page).items() if k in ("reviewing", "deal", "over", "request", "actions", "connected")}))
            tricks = e["result"]["tricks"]
            assert page.locator("#ended table.review tbody tr").count() == len(tricks) == 8
            for i, t in enumerate(tricks):      # each card with its seat's name, the winner named
                row = page.locator("#ended table.review tbody tr").nth(i)
                # a column per seat: the cards in seat order, the leader's and the winner's marked
                by_seat = [t["cards"][(s - t["leader"]) % 4] for s in range(4)]
                assert row.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)") == by_seat
                assert row.locator("td.won [data-card]").get_attribute("data-card") == by_seat[t["winner"]]
                assert row.locator("td.lead [data-card]").get_attribute("data-card") == by_seat[t["leader"]]
            # the tricks' points add up to the points the seats took
            assert sum(t["points"] for t in e["tricks"]) == sum(e["result"]["points"])
            if shots:
                page.screenshot(path=str(Path(shots) / "table-review.png"), full_page=False)
            time.sleep(6)
            st = _state(page)
            assert st["reviewing"] == e["deal"] and st["deal"] == e["deal"] and st["request"] is None
            held.append(e["deal"])

        st = play_deal(page, random.Random(5), [], review=review)
        assert held == [0] and st["over"]["deals"] == 2 and not bad
        rec = read_record(p.record_path())
        assert rec["arena"]["verdicts"] == []
        # the break is between the deals: the first action of deal 2 came 6 s or more
        # after the last of deal 1
        assert rec["arena"]["deals"][1]["t_ms"][0] - rec["arena"]["deals"][0]["t_ms"][-1] >= 6000
        # stopped by --deals: the final score says why nobody won
        assert "stopped after 2 deals" in page.locator("#ended").inner_text()
        first = st["game"]["id"]
        time.sleep(0.8)     # the panel takes no click in its first 0.7 s (a double click on the last card)
        page.click("#again")
        page.wait_for_function("id => S.game && S.game.id !== id && S.deal === 0", arg=first)
        assert _state(page)["game"]["bots"] == st["game"]["bots"]
        page.close()
    finally:
        p.stop()


def test_the_bidding_box_of_56_by_keys_alone(browser, tmp_path):
    """56 (six seats, 262 calls a decision at most): every decision of a deal made with
    the keyboard alone, each action by its own keys; at the person's first call the box
    shows the numbers in one row and the denominations in another, pass apart, and
    typing a number marks it and enables its denominations."""
    shots = os.environ.get("TAASH_TABLE_SHOTS")
    p = Play(tmp_path, "56", "--deals", "1", "--seed", "2", "--seat", "1")
    try:
        page, bad = _open(browser, p)
        page.wait_for_function("() => S.request && S.request.choices.some(c => c.kind === 'bid')", timeout=60000)
        st = _state(page)
        bids = [c for c in st["request"]["choices"] if c["kind"] == "bid"]
        numbers = sorted({c["number"] for c in bids})
        assert page.locator(".box .numbers button").count() == len(numbers)
        assert page.locator(".box .denoms button").count() == 6          # S H D C NT NOES
        assert page.locator(".box .calls button").first.inner_text().startswith("pass")
        assert page.locator(".box .den[data-action]").count() == 0       # no number yet
        for k in str(numbers[0]):
            page.keyboard.press(k)
        assert page.locator(".box .num.sel").inner_text() == str(numbers[0])
        assert page.locator(".box .den[data-action]").count() == len({c["denom"] for c in bids
                                                                    if c["number"] == numbers[0]})
        if shots:
            page.screenshot(path=str(Path(shots) / "table-bidding.png"), full_page=False)
        page.keyboard.press("Escape")
        assert page.locator(".box .num.sel").count() == 0
        st = play_deal(page, random.Random(2), [], keys_only=True,
                       shots=(8, Path(shots), "table-56") if shots else None)
        assert st["over"]["deals"] == 1 and not bad
        rec = read_record(p.record_path())
        assert rec["arena"]["verdicts"] == []
        page.close()
    finally:
        p.stop()
