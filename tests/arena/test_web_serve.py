"""`taash arena serve --web PORT`: the web pages run beside the arena in a
process of their own, follow its games, and stop with it, also when it is killed."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _start(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "taash.arena.cli", "arena", "serve", "--port", "0", "--web", "0",
                          "--data", str(tmp_path), "--quiet"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    lines = [p.stdout.readline(), p.stdout.readline()]
    arena = re.search(r"listening on [\d.]+:(\d+)", "".join(lines))
    web = re.search(r"web pages on (http://[\d.]+:(\d+)/)", "".join(lines))
    assert arena and web, lines
    return p, int(arena.group(1)), web.group(1), int(web.group(2))


def _refused(port: int, timeout_s: float = 10) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
        except OSError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_web_pages_follow_the_arena_and_stop_with_it(tmp_path, how):
    p, arena_port, url, web_port = _start(tmp_path)
    try:
        for _ in range(200):    # the pages reach the arena's Watch stream
            live = json.load(urllib.request.urlopen(url + "live.json", timeout=5))
            if live["connected"]:
                break
            time.sleep(0.05)
        assert live == {**live, "connected": True, "running": 0}
        assert urllib.request.urlopen(url + "live", timeout=5).status == 200
    finally:
        p.send_signal(how)
        p.wait(10)
    assert _refused(arena_port)
    assert _refused(web_port), "the web pages outlived the arena"


def test_web_pages_follow_a_private_watch_arena(tmp_path):
    """--private-watch: the pages read DIR/watch-token and still follow the arena."""
    p = subprocess.Popen([sys.executable, "-m", "taash.arena.cli", "arena", "serve", "--port", "0", "--web", "0",
                          "--private-watch", "--data", str(tmp_path), "--quiet"], stdout=subprocess.PIPE, text=True,
                         cwd=ROOT)
    try:
        lines = [p.stdout.readline(), p.stdout.readline()]
        url = re.search(r"web pages on (http://[\d.]+:\d+/)", "".join(lines)).group(1)
        for _ in range(200):
            live = json.load(urllib.request.urlopen(url + "live.json", timeout=5))
            if live["connected"]:
                break
            time.sleep(0.05)
        assert live["connected"] is True
    finally:
        p.terminate()
        p.wait(10)


def test_web_arena_address_is_checked_like_server(tmp_path):
    """`taash web --arena nonsense` served the pages, and /live said nothing of the address
    it could never reach; the address is refused at once as `taash bot --server` does."""
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "web", "--data", str(tmp_path), "--port", "0",
                        "--arena", "nonsense"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.splitlines()[-1] == ("taash web: error: argument --arena: 'nonsense': the arena's "
                                         "address is HOST:PORT (default 127.0.0.1:50051)")
