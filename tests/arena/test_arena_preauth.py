"""Limits before a token (docs/protocol.md, "Limits"): the arena raises its open-file
limit at start and says what it holds, closes a connection that never finishes its
handshake within --handshake-ms, and welcomes an honest bot while such connections pile
up. A real arena process, raw TCP sockets, a real bot."""

from __future__ import annotations

import resource
import socket
import time

from tests.helpers.arena_util import Server

NOFILE = resource.RLIMIT_NOFILE


def closed_by_peer(sock: socket.socket, within_s: float) -> bool:
    """True once ``sock``'s peer closed it (EOF or a reset) within ``within_s`` seconds;
    what it sends before (HTTP/2's SETTINGS, a GOAWAY) is read and dropped."""
    end = time.monotonic() + within_s
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return False
        sock.settimeout(left)
        try:
            if sock.recv(4096) == b"":
                return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False


def test_idle_connections_are_closed_and_a_bot_is_welcomed(tmp_path):
    soft, hard = resource.getrlimit(NOFILE)
    resource.setrlimit(NOFILE, (min(512, hard), hard))     # the arena starts with a low soft limit
    try:
        s = Server(tmp_path / "data", "--handshake-ms", "1000", "--max-connections", "300")
    finally:
        resource.setrlimit(NOFILE, (soft, hard))
    try:
        # raised to the hard limit, and said so with the connections it allows
        assert resource.prlimit(s.proc.pid, NOFILE) == (hard, hard)
        assert (f"open files: {hard} (raised from {min(512, hard)}; the system's hard limit {hard}): "
                "at most 300 connections at once") in s.logtext()
        host, port = s.addr.rsplit(":", 1)
        idle = [socket.create_connection((host, int(port))) for _ in range(200)]   # no TLS, no HTTP/2
        try:
            # each is closed by the arena at its handshake's deadline (gRPC's own is 120 s)
            assert all(closed_by_peer(c, 30) for c in idle)
        finally:
            for c in idle:
                c.close()
        tok = s.token("honest")
        s.bot("random", "honest", tok)
        s.wait_connected(["honest"])
    finally:
        s.stop()
