"""`taash play` and `taash serve http` serve on loopback unless told otherwise, as `taash
arena serve` does: a --host beyond loopback is refused with the reason (exit 2) before
anything is made, unless --insecure; with it, the listening line says where."""

from __future__ import annotations

import subprocess

from tests.helpers import readline
from tests.helpers.arena_util import ROOT, TAASH, env


def test_play_beyond_loopback_needs_insecure(tmp_path):
    data = tmp_path / "d"
    out = subprocess.run([*TAASH, "play", "29", "--no-browser", "--host", "0.0.0.0", "--data", str(data)],
                         capture_output=True, text=True, env=env(), cwd=ROOT, timeout=60)
    assert out.returncode == 2
    assert "--host 0.0.0.0 is reachable from other machines" in out.stderr and "--insecure" in out.stderr
    assert not data.exists()          # refused before anything was made
    p = subprocess.Popen([*TAASH, "play", "29", "--no-browser", "--host", "0.0.0.0", "--insecure",
                          "--data", str(data)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env(), cwd=ROOT)
    try:
        assert readline(p.stdout).startswith("your table: http://0.0.0.0:")
        said = readline(p.stderr)
        assert said.startswith("the table's page listens on 0.0.0.0:")
        assert "reachable from other machines" in said
    finally:
        p.terminate()
        p.wait(30)


def test_play_on_loopback_says_where_it_listens(tmp_path):
    p = subprocess.Popen([*TAASH, "play", "29", "--no-browser", "--data", str(tmp_path / "d")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    try:
        assert readline(p.stdout).startswith("your table: http://127.0.0.1:")
        said = readline(p.stderr)
        assert said.startswith("the table's page listens on 127.0.0.1:") and "reachable" not in said
    finally:
        p.terminate()
        p.wait(30)


def test_serve_http_beyond_loopback_needs_insecure():
    out = subprocess.run([*TAASH, "serve", "http", "--bot", "random", "--host", "0.0.0.0", "--port", "0"],
                         capture_output=True, text=True, env=env(), cwd=ROOT, timeout=60)
    assert out.returncode == 2
    assert "--host 0.0.0.0 is reachable from other machines" in out.stderr and "--insecure" in out.stderr
    p = subprocess.Popen([*TAASH, "serve", "http", "--bot", "random", "--host", "0.0.0.0", "--port", "0",
                          "--insecure"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(),
                         cwd=ROOT)
    try:
        assert "listening on http://0.0.0.0:" in readline(p.stdout)
    finally:
        p.terminate()
        p.wait(30)


def _one_deal(tmp_path, variant: str, cwd) -> str:
    """Play one deal of ``variant`` through `taash play` (the person's seat left to the
    time control: the arena plays its default action) in ``cwd``; the record's path."""
    p = subprocess.Popen([*TAASH, "play", variant, "--no-browser", "--data", str(tmp_path / "d"), "--pace", "0",
                          "--think-time", "10ms", "--bank", "0", "--deals", "1"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, env=env(), cwd=cwd)
    try:
        for line in p.stdout:
            if line.startswith("record: "):
                return line.split()[1]
        raise AssertionError("taash play wrote no record line")
    finally:
        p.terminate()
        p.wait(30)


def test_a_record_of_play_names_the_variant_as_the_user_did(tmp_path):
    import json
    rec = _one_deal(tmp_path / "a", "house/29-bhoos", ROOT)
    assert json.loads(open(rec).read())["variant"] == "house/29-bhoos"
    # a file of the user's, named by a relative path: the record names its own absolute path
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "my29.yaml").write_text('extends: "29"\nname: my29\ntitle: My twenty-nine\n')
    rec = _one_deal(tmp_path / "b", "my29.yaml", tmp_path / "mine")
    r = json.loads(open(rec).read())
    assert r["variant"] == str(tmp_path / "mine" / "my29.yaml")
    assert r["variant_copy"].startswith("../variants/")
    out = subprocess.run([*TAASH, "replay", rec], capture_output=True, text=True, env=env(), cwd=tmp_path,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"My twenty-nine ({tmp_path / 'mine' / 'my29.yaml'}), seed ")
    # the user's file gone: the arena's copy still replays it
    (tmp_path / "mine" / "my29.yaml").unlink()
    again = subprocess.run([*TAASH, "replay", rec], capture_output=True, text=True, env=env(), cwd=tmp_path,
                           timeout=120)
    assert again.returncode == 0, again.stderr
    assert again.stdout == out.stdout


def test_sigterm_with_a_connected_table_stops_play_promptly(tmp_path):
    import signal
    import urllib.request
    p = subprocess.Popen([*TAASH, "play", "29", "--no-browser", "--data", str(tmp_path / "d")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    try:
        url = readline(p.stdout).split("your table: ")[1].strip()
        # the page's event stream, held open as a browser holds it, until the seat is connected
        # and the game has started
        stream = urllib.request.urlopen(url.replace("/table?", "/table/events?"), timeout=60)
        for line in stream:
            if b'"connected":true' in line and b'"game":{' in line:
                break
        p.send_signal(signal.SIGTERM)
        assert p.wait(10) == 0            # a generous bound: it used to wait out the page's stream
        assert "taash play: stopped" in p.stderr.read()
        stream.close()
        # the game is saved as cut short by the host: no seat is blamed (the arena stops
        # before any seat's stream closes)
        import json
        recs = list((tmp_path / "d" / "records").glob("*.json"))
        assert len(recs) == 1
        rec = json.loads(recs[0].read_text())
        assert rec["arena"]["error"].startswith("stopped by the host")
        assert rec["arena"]["verdicts"] == []
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
