"""`taash bot` and the SDK's first connection: a host name that does not resolve is not a
passing failure; after a bounded number of attempts the bot stops, one line, exit 1."""

from __future__ import annotations

import subprocess

from tests.helpers.arena_util import ROOT, TAASH, env


def test_an_unresolvable_server_stops_the_bot():
    # .invalid never resolves (RFC 2606)
    out = subprocess.run([*TAASH, "bot", "random", "--token", "t", "--server", "nosuchhost.invalid:50051"],
                         capture_output=True, text=True, env=env(), cwd=ROOT, timeout=120)
    assert out.returncode == 1
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("taash: error: the arena's address nosuchhost.invalid:50051 does not resolve "
                           "(5 attempts): check its host name")
    assert "Traceback" not in out.stderr


def test_the_sdk_raises_unresolved_error():
    import asyncio

    from taash.arena.sdk import RESOLVE_ATTEMPTS, BotClient, HandshakeError, UnresolvedError
    c = BotClient(lambda o, legal: legal[0], "t", "b", "nosuchhost.invalid:50051", retry_max_s=0.2)
    try:
        asyncio.run(c.run())
    except UnresolvedError as e:
        assert isinstance(e, HandshakeError)
        assert f"nosuchhost.invalid:50051 does not resolve ({RESOLVE_ATTEMPTS} attempts)" in str(e)
    else:
        raise AssertionError("run() returned")
