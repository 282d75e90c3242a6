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

from tests.helpers import readline

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _start(tmp_path, stderr=None):
    p = subprocess.Popen([sys.executable, "-m", "taash.arena.cli", "arena", "serve", "--port", "0", "--web", "0",
                          "--data", str(tmp_path), "--quiet"], stdout=subprocess.PIPE, stderr=stderr, text=True,
                         cwd=ROOT)
    try:
        lines = [readline(p.stdout), readline(p.stdout)]
        arena = re.search(r"listening on [\d.]+:(\d+)", "".join(lines))
        web = re.search(r"web pages on (http://[\d.]+:(\d+)/)", "".join(lines))
        assert arena and web, lines
    except BaseException:
        p.kill()
        p.wait(10)
        raise
    return p, int(arena.group(1)), web.group(1), int(web.group(2))


def _children(pid: int) -> list[int]:
    """The pids of process ``pid``'s children (Linux /proc)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            found += [int(c) for c in f.read().split()]
    return found


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
        lines = [readline(p.stdout), readline(p.stdout)]
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


def test_web_pages_that_die_at_their_start_stop_the_arena_with_an_error(tmp_path):
    """The `taash web` child dies before serving (here: its web extra, aiohttp, cannot be
    imported; the arena itself does not import it): `serve --web` says so and exits 1,
    rather than serving on without the pages it was asked for."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "aiohttp.py").write_text('raise ImportError("no aiohttp here (a test)")\n')
    env = {**os.environ, "PYTHONPATH": str(shadow) + os.pathsep + ROOT}
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "arena", "serve", "--port", "0", "--web", "0",
                        "--data", str(tmp_path / "d"), "--quiet"], capture_output=True, text=True, cwd=ROOT,
                       env=env, timeout=60)
    assert r.returncode == 1
    assert "listening on" in r.stdout and "web pages on" not in r.stdout
    assert r.stderr.splitlines()[-1] == ("taash: error: --web 0: the web pages (taash web) stopped at their start "
                                         "with exit code 1 (their error is above); the arena stops too")


def test_web_pages_that_die_later_are_logged_and_the_arena_serves_on(tmp_path):
    p, arena_port, url, web_port = _start(tmp_path, stderr=subprocess.PIPE)
    try:
        [child] = _children(p.pid)
        os.kill(child, signal.SIGKILL)
        said = readline(p.stderr)
        assert said.rstrip().endswith("the web pages (taash web, --web 0) stopped with signal 9; the arena "
                                      "serves on without them"), said
        assert _children(p.pid) == []       # reaped, no zombie
        assert p.poll() is None
        socket.create_connection(("127.0.0.1", arena_port), 5).close()
    finally:
        p.terminate()
        p.wait(10)
    assert p.returncode == 0


def test_web_arena_address_is_checked_like_server(tmp_path):
    """`taash web --arena nonsense` served the pages, and /live said nothing of the address
    it could never reach; the address is refused at once as `taash bot --server` does."""
    r = subprocess.run([sys.executable, "-m", "taash.arena.cli", "web", "--data", str(tmp_path), "--port", "0",
                        "--arena", "nonsense"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.splitlines()[-1] == ("taash web: error: argument --arena: 'nonsense': the arena's "
                                         "address is HOST:PORT (default 127.0.0.1:50051)")
