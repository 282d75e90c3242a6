"""End to end, as a user runs it: `taash arena serve`, `taash arena token`, bots as
processes of their own (`taash bot ...`, the Node.js bot), `taash arena match`, and
`taash replay` on the records. Real gRPC on localhost."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import grpc
import pytest

from tests.helpers import sigint_default
from tests.helpers.arena_util import ROOT, TAASH, Server, env, record

from taash.arena.pb import arena_pb2 as apb
from taash.arena.pb import arena_pb2_grpc
from taash.arena.pb import messages_pb2 as pb
from taash.interpreter import replay


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("e2e") / "data")
    s.tokens = {n: s.token(n) for n in ("h1", "h2", "r1", "nodebot")}
    s.bot("heuristic", "h1", s.tokens["h1"])
    s.bot("heuristic", "h2", s.tokens["h2"])
    s.bot("random", "r1", s.tokens["r1"])
    s.wait_connected(["h1", "h2", "r1"])
    yield s
    s.stop()


def match(server, *args):
    out = server.taash("arena", "match", *args, "--json", "--server", server.addr, "--data", str(server.data))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def replay_json(path):
    out = subprocess.run([*TAASH, "replay", path, "--json"], capture_output=True,
                         text=True, env=env(), cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_full_match_of_29_recorded_and_replayed(server):
    res = match(server, "29", "--bots", "h1,h2,h1,h2", "--seed", "5")
    [m] = res["matches"]
    assert m["complete"] and m["error"] == "" and m["faults"] == 0
    assert m["bots"] == ["h1", "h2", "h1", "h2"]
    assert max(m["score"]) >= 6                       # §29.9: the first side to 6 wins
    assert m["winners"] and all(m["score"][s] >= 6 for s in m["winners"])
    assert res["wins"] == {"h1": int(0 in m["winners"]), "h2": int(1 in m["winners"])}
    rec = record(m["record"])
    assert rec["format"] == "taash-record/1" and rec["variant"] == "29" and rec["seed"] == 5
    assert len(rec["deals"]) == m["deals"]
    arena = rec["arena"]
    assert arena["bots"] == ["h1", "h2", "h1", "h2"] and arena["complete"] and arena["verdicts"] == []
    for d, ad in zip(rec["deals"], arena["deals"]):
        assert len(ad["t_ms"]) == len(d["actions"]) and ad["t_ms"] == sorted(ad["t_ms"])
    rj = replay_json(m["record"])
    assert rj["match"] == {"score": m["score"], "over": True, "winners": m["winners"], "ended_by": "rule"}


def test_full_match_of_28_heuristic_beats_random(server):
    res = match(server, "28", "--bots", "h1,r1,h1,r1", "--seed", "1", "--matches", "3", "--parallel", "3")
    assert len(res["matches"]) == 3
    for m in res["matches"]:
        assert m["complete"] and m["faults"] == 0
        assert m["winners"] == [0, 2]                 # the heuristic side
        assert replay_json(m["record"])["match"]["score"] == m["score"]
    assert res["wins"] == {"h1": 3, "r1": 0}


def test_same_seed_same_game(server):
    a = match(server, "house/29-hidden-trump", "--bots", "h1,r1,h2,r1", "--seed", "9", "--max-deals", "3")
    b = match(server, "house/29-hidden-trump", "--bots", "h1,r1,h2,r1", "--seed", "9", "--max-deals", "3")
    ra, rb = record(a["matches"][0]["record"]), record(b["matches"][0]["record"])
    assert a["matches"][0]["game_id"] != b["matches"][0]["game_id"]
    assert ra["deals"] == rb["deals"] and len(ra["deals"]) == 3
    assert a["matches"][0]["complete"] is False       # cut at 3 deals, and says so


def test_node_bot_plays_a_full_match(server, tmp_path):
    node = shutil.which("node")
    modules = ROOT / "bots" / "node" / "node_modules" / "@grpc" / "grpc-js"
    if not node or not modules.is_dir():
        if os.environ.get("CI"):
            pytest.fail("CI must run the Node.js bot: `make test` installs bots/node (npm ci)")
        pytest.skip("node or bots/node/node_modules missing (run `make test`, which runs npm ci)")
    log = open(tmp_path / "node.log", "w")
    p = subprocess.Popen([node, str(ROOT / "bots" / "node" / "bot.js"), "--name", "nodebot", "--token",
                          server.tokens["nodebot"], "--server", server.addr, "--games", "1"],
                         stdout=log, stderr=log)
    try:
        server.wait_connected(["nodebot"])
        res = match(server, "28", "--bots", "nodebot,h2,nodebot,h2", "--seed", "4")
        [m] = res["matches"]
        assert m["complete"] and m["faults"] == 0 and m["deals"] >= 1
        assert replay_json(m["record"])["match"]["score"] == m["score"]
        assert p.wait(30) == 0                        # it leaves cleanly after --games 1
    finally:
        if p.poll() is None:
            p.kill()
        log.close()
    assert "connected as nodebot" in (tmp_path / "node.log").read_text()


def _play_call(server, metadata):
    with grpc.insecure_channel(server.addr) as ch:
        stub = arena_pb2_grpc.ArenaStub(ch)
        call = stub.Play(iter([pb.BotMessage(hello=pb.Hello(client="test"))]), metadata=metadata, timeout=10)
        with pytest.raises(grpc.RpcError) as e:
            for _ in call:
                pass
        return e.value.code(), e.value.details()


def test_tokens_are_checked(server):
    code, details = _play_call(server, [])
    assert code == grpc.StatusCode.UNAUTHENTICATED and "missing token" in details
    code, details = _play_call(server, [("authorization", "Bearer taash_not-a-token")])
    assert code == grpc.StatusCode.UNAUTHENTICATED and "unknown token" in details
    code, details = _play_call(server, [("authorization", f"Bearer {server.tokens['r1']}"), ("taash-bot", "h1")])
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert details == "this token belongs to bot 'r1', not to 'h1'"
    # a bot token does not run matches
    with grpc.insecure_channel(server.addr) as ch:
        with pytest.raises(grpc.RpcError) as e:
            list(arena_pb2_grpc.ArenaStub(ch).RunMatches(
                apb.MatchRequest(variant="29", bots=["h1"] * 4),
                metadata=[("authorization", f"Bearer {server.tokens['h1']}")], timeout=10))
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_spectators_see_public_events_only(server):
    """28 has a hidden trump: the face-down card is never shown before the rules show it;
    all hands come once the deal is over."""
    events = []
    with grpc.insecure_channel(server.addr) as ch:
        stream = arena_pb2_grpc.ArenaStub(ch).Watch(apb.WatchRequest(), timeout=120)
        res = match(server, "28", "--bots", "h1,h2,h1,h2", "--seed", "11", "--max-deals", "2")
        [m] = res["matches"]
        for ev in stream:
            if ev.game_id != m["game_id"]:
                continue
            events.append(ev)
            if ev.WhichOneof("event") == "game_ended":
                break
    rec = record(m["record"])
    kinds = [ev.WhichOneof("event") for ev in events]
    assert kinds[0] == "game_started" and kinds[-1] == "game_ended"
    assert [ev.index for ev in events] == list(range(len(events)))
    assert events[0].game_started.bots == ["h1", "h2", "h1", "h2"]
    actions = [ev.action for ev in events if ev.WhichOneof("event") == "action"]
    truth = [a for d in rec["deals"] for a in d["actions"]]
    assert len(actions) == len(truth)
    for shown, real in zip(actions, truth):
        if real.startswith("trump-card "):
            assert shown.action == "trump-card"       # the card stays face down
        else:
            assert shown.action == real
    ends = [ev.deal_ended for ev in events if ev.WhichOneof("event") == "deal_ended"]
    assert [[list(h.cards) for h in e.hands] for e in ends] == [d["hands"] for d in rec["deals"]]
    assert [json.loads(e.result_json)["points"] for e in ends] == \
        [d["points"] for d in replay_json(m["record"])["deals"]]
    assert events[-1].game_ended.seed == 11 and events[-1].game_ended.record == m["record"]
    from taash.arena.cli.arena import describe_event       # what `taash arena watch` prints
    lines = [describe_event(ev) for ev in events]
    assert lines[0].endswith("game started: 28, seats h1, h2, h1, h2")
    assert any(line.endswith(": trump-card") for line in lines)
    assert not any("trump-card " in line for line in lines)


@pytest.mark.slow
def test_cli_errors_are_clear(server, tmp_path):
    def run(*args):
        return server.taash(*args, timeout=120)

    common = ["--server", server.addr, "--data", str(server.data)]
    out = run("arena", "match", "29", "--bots", "h1,nobody,h1,nobody", *common)
    assert out.returncode == 1 and "no bot named nobody" in out.stderr and "Traceback" not in out.stderr
    out = run("arena", "match", "29", "--bots", "h1,h2", *common)
    assert out.returncode == 1 and "29 is played by 4" in out.stderr
    out = run("arena", "match", "no-such-variant", "--bots", "h1,h2,h1,h2", *common)
    assert out.returncode == 1 and "invalid argument" in out.stderr and "Traceback" not in out.stderr
    out = run("arena", "match", "29", "--bots", "h1,,h1,h2", *common)
    assert out.returncode == 2 and "--bots takes bot names" in out.stderr
    out = run("arena", "match", "29", "--bots", "h1,h2,h1,h2", "--server", "127.0.0.1:1", "--data", str(server.data))
    assert out.returncode == 1 and "cannot reach the arena at 127.0.0.1:1" in out.stderr
    out = run("arena", "match", "29", "--bots", "h1,h2,h1,h2", "--server", "127.0.0.1", "--data", str(server.data))
    assert out.returncode == 2 and "'127.0.0.1': the arena's address is HOST:PORT" in out.stderr
    # a bot at a wrong address is refused at once (it used to retry for ever)
    out = run("bot", "random", "--name", "h1", "--token", "t", "--server", "nonsense")
    assert out.returncode == 2 and "'nonsense': the arena's address is HOST:PORT" in out.stderr
    out = run("arena", "watch", "--server", "127.0.0.1:99999")
    assert out.returncode == 2 and "the port is a number 1..65535, not '99999'" in out.stderr
    out = run("arena", "match", "29", "--bots", "h1,h2,h1,h2", "--data", str(tmp_path / "elsewhere"))
    assert out.returncode == 2 and "no admin token" in out.stderr
    out = run("arena", "token", "bad name!", "--data", str(server.data))
    assert out.returncode == 2 and "invalid bot name 'bad name!'" in out.stderr
    # a mistyped --data: revoke makes nothing; token says the directory is new
    out = run("arena", "revoke", "h1", "--data", str(tmp_path / "typo"))
    assert out.returncode == 2 and "no arena data in" in out.stderr and not (tmp_path / "typo").exists()
    out = run("arena", "token", "h9", "--data", str(tmp_path / "fresh"))
    assert out.returncode == 0 and "held no arena: it is new" in out.stderr
    out = run("arena", "token", "h9", "--data", str(tmp_path / "fresh"))
    assert out.returncode == 0 and "it is new" not in out.stderr
    out = run("bot", "random", "--server", server.addr)
    assert out.returncode == 2 and "no token" in out.stderr
    out = run("bot", "random", "--name", "h1", "--token", server.tokens["r1"], "--server", server.addr)
    assert out.returncode == 1 and "refused bot 'h1'" in out.stderr and "PERMISSION_DENIED" in out.stderr
    port = server.addr.rsplit(":", 1)[1]
    out = run("arena", "serve", "--port", port, "--data", str(tmp_path / "d2"))
    assert out.returncode == 1 and "cannot listen" in out.stderr and "Traceback" not in out.stderr
    out = run("arena", "match", "29", "--bots", "h1,h2,h1,h2", "--matches", "0", *common)
    assert out.returncode == 2 and "argument --matches: must be at least 1, not 0" in out.stderr


def test_a_python_bot_is_one_function(server, tmp_path):
    """The SDK as its doc shows it: one function, run(); a process of its own."""
    script = tmp_path / "mybot.py"
    script.write_text(
        "import sys\n"
        "from taash.arena.sdk import run\n\n"
        "def decide(observation, legal_actions):\n"
        "    assert observation['seat'] in (0, 2) and observation['legal_actions'] == legal_actions\n"
        "    return legal_actions[-1]\n\n"
        "run(decide, token=sys.argv[1], name='fn', server=sys.argv[2], max_games=1)\n")
    token = server.token("fn")
    p = subprocess.Popen([__import__("sys").executable, str(script), token, server.addr], env=env(), cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        server.wait_connected(["fn"])
        [m] = match(server, "28", "--bots", "fn,h2,fn,h2", "--seed", "8", "--max-deals", "2")["matches"]
        assert m["faults"] == 0 and m["deals"] == 2
        out, err = p.communicate(timeout=30)
        assert p.returncode == 0, err
    finally:
        if p.poll() is None:
            p.kill()
    rec = record(m["record"])
    from tests.arena.test_arena_faults import seat_actions
    for seat in (0, 2):                               # every action of its seats was its choice
        for d, i, a, dflt in seat_actions(rec, seat):
            assert not dflt


@pytest.mark.slow
def test_by_default_a_seed_does_not_reveal_the_cards(tmp_path):
    """Without --public-seeds the arena salts every shuffle with a secret of its data
    directory: the hands of `--seed 5` differ from `taash simulate --seed 5`, the same
    arena deals the same cards again, and the record still replays."""
    from taash.interpreter import Match, load_variant
    s = Server(tmp_path / "data", public_seeds=False)
    try:
        tok = s.token("h")
        s.bot("heuristic", "h", tok)
        s.wait_connected(["h"])
        runs = []
        for _ in range(2):
            out = s.taash("arena", "match", "28", "--bots", "h,h,h,h", "--seed", "5", "--max-deals", "2",
                          "--json", "--server", s.addr, "--data", str(s.data))
            assert out.returncode == 0, out.stderr
            [m] = json.loads(out.stdout)["matches"]
            runs.append(record(m["record"]))
            rj = replay_json(m["record"])
            assert rj["match"]["score"] == m["score"]
        assert (s.data / "deal-secret").is_file()
        public = Match(load_variant("28"), 5).new_deal()
        text = load_variant("28").deck.text
        public_hands = [[text[c] for c in h] for h in public.dealt]
        assert runs[0]["deals"][0]["hands"] != public_hands
        assert runs[0]["deals"][0]["hands"] == runs[1]["deals"][0]["hands"]
    finally:
        s.stop()


@pytest.mark.slow
def test_interrupting_the_client_stops_its_games(tmp_path):
    """Ctrl-C on `taash arena match` cancels its games on the server: the seats are freed
    and the record is saved as cut short, still replayable."""
    import signal
    import time

    s = Server(tmp_path / "data")
    try:
        tok = s.token("r")
        s.bot("random", "r", tok)
        s.wait_connected(["r"])
        # random bots in 29 overbid and fail: the match runs towards its 1000-deal limit
        client = subprocess.Popen([*TAASH, "arena", "match", "29", "--bots", "r,r,r,r", "--server", s.addr,
                                   "--data", str(s.data)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=env(), cwd=ROOT, preexec_fn=sigint_default)

        def seats():
            out = s.taash("arena", "bots", "--server", s.addr, "--data", str(s.data))
            assert out.returncode == 0, out.stderr
            return int(out.stdout.split("\t")[2].split()[0])

        deadline = time.monotonic() + 60
        while seats() == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert seats() == 4
        client.send_signal(signal.SIGINT)
        _, err = client.communicate(timeout=30)
        # it says what it had and where the cut game is (it said only "interrupted")
        assert client.returncode == 130 and "Traceback" not in err
        assert "interrupted after 0 of 1 results" in err and "saves the games it was playing" in err
        deadline = time.monotonic() + 30
        while seats() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert seats() == 0
        recs = sorted((s.data / "records").glob("*.json"))
        deadline = time.monotonic() + 30
        while not recs and time.monotonic() < deadline:
            time.sleep(0.2)
            recs = sorted((s.data / "records").glob("*.json"))
        [path] = recs
        rec = record(str(path))
        assert rec["arena"]["complete"] is False and 0 < len(rec["deals"]) < 1000
        out = subprocess.run([*TAASH, "replay", str(path), "--json"], capture_output=True, text=True,
                             env=env(), cwd=ROOT, timeout=120)
        assert out.returncode == 0, out.stderr
    finally:
        s.stop()


def test_a_match_stopped_at_the_variants_deal_limit_says_so(server, tmp_path):
    """A variant whose match never ends by its rule (`ends: false`) and stops after two
    deals (`max_deals: 2`): over, with no winner. `taash arena match` tells it as
    `taash simulate` and `taash replay` do (the "over" column: "deal limit", not "yes")."""
    p = tmp_path / "two-deals.yaml"
    p.write_text('extends: "29"\nname: two-deals\nmatch:\n  ends: "false"\n  max_deals: 2\n')
    res = match(server, str(p), "--bots", "h1,h2,h1,h2", "--seed", "3")
    [m] = res["matches"]
    assert m["complete"] and m["deals"] == 2 and m["winners"] == [] and m["ended_by"] == "deal limit"
    assert replay_json(m["record"])["match"]["ended_by"] == "deal limit"
    out = server.taash("arena", "match", str(p), "--bots", "h1,h2,h1,h2", "--seed", "3",
                       "--server", server.addr, "--data", str(server.data))
    assert out.returncode == 0, out.stderr
    row = next(x for x in out.stdout.splitlines() if " 3 " in x and "│" in x)
    cells = [c.strip() for c in row.split("│")]
    assert "deal limit" in cells and "yes" not in cells
    assert "(stopped at the deal limit, no winner)" in out.stderr
