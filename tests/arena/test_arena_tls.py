"""The arena over TLS (docs/protocol.md, "TLS"), as a user runs it: a self-signed
certificate made here with Debian's `openssl` for localhost, `taash arena serve
--tls-cert --tls-key`, bots as processes of their own connecting with `--ca` (`taash bot`,
the HTTP bridge `taash bot http`, the Node.js bot), a whole match with `taash arena
match --ca`, a ladder through it, and what a plaintext or an untrusting client gets.
Binding beyond loopback without TLS is refused unless --insecure."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.helpers import readline
from tests.helpers.arena_util import ROOT, TAASH, Server, env, record

NODE_MODULES = ROOT / "bots" / "node" / "node_modules" / "@grpc" / "grpc-js"


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    """(certificate, key) paths: self-signed, for localhost and 127.0.0.1."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("no openssl command to make a certificate")
    d = tmp_path_factory.mktemp("tls")
    crt, key = d / "arena.crt", d / "arena.key"
    out = subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                          "-out", str(crt), "-days", "2", "-subj", "/CN=localhost",
                          "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return crt, key


@pytest.fixture(scope="module")
def server(tmp_path_factory, cert):
    crt, key = cert
    s = Server(tmp_path_factory.mktemp("tls-arena") / "data", "--tls-cert", str(crt), "--tls-key", str(key))
    s.addr = s.addr.replace("127.0.0.1", "localhost")
    s.ca = str(crt)
    yield s
    s.stop()


def start(server, argv) -> str:
    """Start a process that prints ``listening on URL``; its URL."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env(), cwd=ROOT)
    server.procs.append(p)
    line = readline(p.stdout)
    assert "listening on " in line, line
    return line.split("listening on ")[1].split()[0]


def test_a_whole_match_over_tls(server, tmp_path):
    server.bot("heuristic", "h1", server.token("h1"), "--ca", server.ca)
    server.bot("random", "r1", server.token("r1"), "--ca", server.ca)
    url = start(server, [*TAASH, "serve", "http", "--bot", "heuristic", "--port", "0"])
    p = subprocess.Popen([*TAASH, "bot", "http", url, "--name", "web1", "--token", server.token("web1"),
                          "--server", server.addr, "--ca", server.ca], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    server.procs.append(p)
    # the HTTP bridge speaks SmartBots 29 (house/29-bhoos): a whole match against the heuristic
    m = tls_match(server, "house/29-bhoos", "h1,web1,h1,web1")
    assert m["complete"] and m["winners"]
    # the Node.js bot (when node and its packages are here; else the random bot, 2 deals)
    node = shutil.which("node")
    if node and NODE_MODULES.is_dir():
        log = open(tmp_path / "node.log", "w")
        server.procs.append(subprocess.Popen(
            [node, str(ROOT / "bots" / "node" / "bot.js"), "--name", "nodey", "--token", server.token("nodey"),
             "--server", server.addr, "--ca", server.ca], stdout=log, stderr=log))
        m = tls_match(server, "28", "nodey,h1,nodey,h1")
        assert m["complete"]
        assert "connected as nodey" in (tmp_path / "node.log").read_text()
    else:
        m = tls_match(server, "28", "r1,h1,r1,h1", "--max-deals", "2")
        assert m["deals"] == 2
    listed = server.taash("arena", "bots", "--server", server.addr, "--ca", server.ca, "--data", str(server.data))
    assert listed.returncode == 0, listed.stderr
    for name in ("h1", "r1", "web1"):
        assert name in listed.stdout
    # a bot's own standing over TLS: h1 played both matches
    mine = server.taash("arena", "standing", "--token", server.token("h1"), "--server", server.addr,
                        "--ca", server.ca, "--json")
    assert mine.returncode == 0, mine.stderr
    assert json.loads(mine.stdout)["games_total"] == 2


def tls_match(server, variant, bots, *extra) -> dict:
    """`taash arena match --ca` of one match; its result, checked: no error, no fault."""
    out = server.taash("arena", "match", variant, "--bots", bots, "--seed", "3", "--json", "--wait", "60",
                       "--server", server.addr, "--ca", server.ca, "--data", str(server.data), *extra)
    assert out.returncode == 0, out.stderr
    [m] = json.loads(out.stdout)["matches"]
    assert m["error"] == "" and m["faults"] == 0, m
    assert m["bots"] == bots.split(",")
    rec = record(m["record"])
    assert rec["arena"]["verdicts"] == [] and len(rec["deals"]) == m["deals"] >= 1
    return m


def test_a_ladder_through_the_arena_over_tls(server, tmp_path):
    server.bot("heuristic", "lh", server.token("lh"), "--ca", server.ca)
    server.bot("random", "lr", server.token("lr"), "--ca", server.ca)
    # the ladder keeps its database beside the arena's admin token (--data)
    out = server.taash("ladder", "run", "--variant", "28", "--deals", "2", "--game-deals", "1", "--arena",
                       server.addr, "--ca", server.ca, "--data", str(server.data), "--bots", "lh,lr", "--json")
    assert out.returncode == 0, out.stderr + out.stdout
    assert {"lh", "lr"} <= set(out.stdout.replace('"', " ").split())


def test_a_plaintext_client_does_not_reach_a_tls_arena(server):
    out = server.taash("arena", "bots", "--server", server.addr, "--data", str(server.data), timeout=60)
    assert out.returncode == 1
    assert "cannot reach the arena" in out.stderr and "needs --tls" in out.stderr
    out = server.taash("arena", "standing", "--token", server.token("s1"), "--server", server.addr, timeout=60)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "cannot reach the arena" in out.stderr and "needs --tls" in out.stderr


def test_a_client_that_does_not_trust_the_certificate_is_refused(server):
    # --tls alone checks the certificate against the system's roots: a self-signed one fails
    out = server.taash("arena", "bots", "--server", server.addr, "--tls", "--data", str(server.data), timeout=60)
    assert out.returncode == 1
    assert "cannot reach the arena" in out.stderr and "--ca FILE" in out.stderr


def test_a_ca_file_that_is_no_pem_is_a_usage_error(server, tmp_path):
    bad = tmp_path / "ca.txt"
    bad.write_text("not a certificate\n")
    out = server.taash("bot", "random", "--token", "t", "--server", server.addr, "--ca", str(bad), timeout=60)
    assert out.returncode == 2
    assert f"--ca {bad}: no PEM block" in out.stderr


def test_serving_beyond_loopback_needs_tls_or_insecure(tmp_path, cert):
    out = subprocess.run([*TAASH, "arena", "serve", "--host", "0.0.0.0", "--port", "0", "--data", str(tmp_path / "d")],
                         capture_output=True, text=True, env=env(), cwd=ROOT, timeout=60)
    assert out.returncode == 2
    assert "--host 0.0.0.0 is reachable from other machines" in out.stderr and "--insecure" in out.stderr
    assert not (tmp_path / "d").exists()          # refused before anything was made
    out = subprocess.run([*TAASH, "arena", "serve", "--tls-cert", str(cert[0]), "--port", "0",
                          "--data", str(tmp_path / "d")], capture_output=True, text=True, env=env(), cwd=ROOT,
                         timeout=60)
    assert out.returncode == 2 and "--tls-cert and --tls-key go together" in out.stderr
    # with --insecure it serves (stopped once it listens)
    p = subprocess.Popen([*TAASH, "arena", "serve", "--host", "0.0.0.0", "--port", "0", "--insecure",
                          "--data", str(tmp_path / "d")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env(), cwd=ROOT)
    try:
        assert "listening on 0.0.0.0:" in readline(p.stdout)
    finally:
        p.terminate()
        p.wait(30)


def test_the_sdk_connects_with_tls(server):
    # run(..., tls=True, ca=FILE): the SDK's own way, one game with two seats each
    server.bot("random", "sdk-other", server.token("sdk-other"), "--ca", server.ca)
    tok = server.token("sdk")
    code = ("import sys\nfrom taash.arena.sdk import run\n"
            "run(lambda obs, legal: legal[0], token=sys.argv[1], name='sdk', server=sys.argv[2], "
            "max_games=1, ca=sys.argv[3])\n")
    p = subprocess.Popen([sys.executable, "-c", code, tok, server.addr, server.ca], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    server.procs.append(p)
    out = server.taash("arena", "match", "28", "--bots", "sdk,sdk-other,sdk,sdk-other", "--max-deals", "1",
                       "--json", "--wait", "60", "--server", server.addr, "--ca", server.ca,
                       "--data", str(server.data))
    assert out.returncode == 0, out.stderr
    [m] = json.loads(out.stdout)["matches"]
    assert m["error"] == "" and m["faults"] == 0
    assert p.wait(60) == 0       # it leaves after its one game


def make_cert(d, name: str, san: str):
    """(certificate, key) paths of a self-signed certificate for CN=localhost with ``san``."""
    crt, key = d / f"{name}.crt", d / f"{name}.key"
    out = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                          "-out", str(crt), "-days", "2", "-subj", "/CN=localhost", "-addext",
                          f"subjectAltName={san}"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return crt, key


def serve(tmp_path, *extra) -> subprocess.CompletedProcess:
    """`taash arena serve --port 0 EXTRA` expected to stop before serving."""
    return subprocess.run([*TAASH, "arena", "serve", "--port", "0", "--data", str(tmp_path / "d"), *extra],
                          capture_output=True, text=True, env=env(), cwd=ROOT, timeout=60)


def test_a_key_pair_that_cannot_serve_is_one_line_before_serving(tmp_path, cert):
    crt, key = cert
    _, other = make_cert(tmp_path, "other", "DNS:localhost")
    out = serve(tmp_path, "--tls-cert", str(crt), "--tls-key", str(other))
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip() == f"taash: error: the key {other} does not match the certificate {crt}"
    # the two files swapped
    out = serve(tmp_path, "--tls-cert", str(key), "--tls-key", str(crt))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "the two files are swapped" in out.stderr
    # the certificate twice: no private key
    out = serve(tmp_path, "--tls-cert", str(crt), "--tls-key", str(crt))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and f"key {crt}: no private key in it" in out.stderr
    # the key twice: no certificate
    out = serve(tmp_path, "--tls-cert", str(key), "--tls-key", str(key))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and f"certificate {key}: no certificate in it" in out.stderr
    # a file that is no PEM at all
    junk = tmp_path / "junk.crt"
    junk.write_text("hello\n")
    out = serve(tmp_path, "--tls-cert", str(junk), "--tls-key", str(key))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and f"certificate {junk}: no PEM block" in out.stderr
    assert not (tmp_path / "d").exists()          # refused before anything was made


def test_a_ca_file_without_a_certificate_is_a_usage_error(server):
    key = server.ca.replace(".crt", ".key")       # the private key, given where the CA goes
    out = server.taash("bot", "random", "--token", "t", "--server", server.addr, "--ca", key, timeout=60)
    assert out.returncode == 2
    assert f"--ca {key}: no certificate in it" in out.stderr and "holds a private key" in out.stderr
    out = server.taash("arena", "bots", "--server", server.addr, "--ca", key, "--data", str(server.data), timeout=60)
    assert out.returncode == 2 and "no certificate in it" in out.stderr


def test_a_certificate_that_does_not_name_the_host_dialled_is_said(tmp_path):
    crt, key = make_cert(tmp_path, "named", "DNS:localhost")
    s = Server(tmp_path / "data", "--tls-cert", str(crt), "--tls-key", str(key))
    try:
        assert s.addr.startswith("127.0.0.1:")        # dialled by address: not a name in the certificate
        out = s.taash("arena", "bots", "--server", s.addr, "--ca", str(crt), "--data", str(s.data), timeout=60)
        assert out.returncode == 1
        assert "does not name 127.0.0.1, the host dialled" in out.stderr, out.stderr
        assert "not one this client trusts" not in out.stderr
        # by the name it holds, it answers
        out = s.taash("arena", "bots", "--server", s.addr.replace("127.0.0.1", "localhost"), "--ca", str(crt),
                      "--data", str(s.data), timeout=60)
        assert out.returncode == 0, out.stderr
    finally:
        s.stop()


def test_the_listening_line_says_tls_and_tls_with_insecure_is_refused(tmp_path, cert, server):
    crt, key = cert
    out = serve(tmp_path, "--tls-cert", str(crt), "--tls-key", str(key), "--insecure")
    assert out.returncode == 2 and "contradict" in out.stderr and "--insecure" in out.stderr
    assert not (tmp_path / "d").exists()
    p = subprocess.Popen([*TAASH, "arena", "serve", "--host", "::1", "--port", "0", "--tls-cert", str(crt),
                          "--tls-key", str(key), "--data", str(tmp_path / "d6")], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    try:
        line = readline(p.stdout)
        if "listening on" not in line:
            pytest.skip(f"no IPv6 loopback here: {p.stderr.read()[-300:]}")
        assert line.startswith("taash arena listening on [::1]:") and "(TLS)" in line.split("(data")[0], line
    finally:
        p.terminate()
        p.wait(30)


def test_a_bot_whose_first_connection_fails_on_tls_stops_with_the_hint(server, tmp_path):
    tok = server.token("tlsless")
    run = [*TAASH, "bot", "random", "--name", "tlsless", "--token", tok, "--server", server.addr]
    # --tls alone: the self-signed certificate is not trusted
    out = server.taash(*run[len(TAASH):], "--tls", timeout=60)
    assert out.returncode == 1, out.stderr
    assert "its certificate is not one this client trusts" in out.stderr and "--ca FILE" in out.stderr
    # no TLS option at all against the TLS arena
    out = server.taash(*run[len(TAASH):], timeout=60)
    assert out.returncode == 1, out.stderr
    assert "an arena served with TLS needs --tls" in out.stderr
    # the right --ca, dialled by a name the certificate does not hold (127.0.0.1 is in it; this one is not)
    crt, _ = make_cert(tmp_path, "stranger", "DNS:localhost")
    out = server.taash(*run[len(TAASH):], "--ca", str(crt), timeout=60)
    assert out.returncode == 1
    assert f"not signed by --ca {crt}" in out.stderr and "does not name localhost" in out.stderr
    # one line after the bot's own "playing at": no retry lines, none of gRPC's C-core log
    err = out.stderr
    assert "retrying" not in err and "ssl_transport_security" not in err and "Handshake failed" not in err
    assert len(err.strip().splitlines()) == 2, err
    # the SDK's run() raises HandshakeError with the same words
    code = ("import sys\nfrom taash.arena.sdk import run, HandshakeError\n"
            "try:\n    run(lambda o, l: l[0], token=sys.argv[1], server=sys.argv[2], tls=True)\n"
            "except HandshakeError as e:\n    print(e)\n")
    p = subprocess.run([sys.executable, "-c", code, tok, server.addr], capture_output=True, text=True, env=env(),
                       cwd=ROOT, timeout=60)
    assert "its certificate is not one this client trusts" in p.stdout, p.stderr


def test_a_tls_client_at_a_plaintext_arena_is_told_it_answers_plaintext(tmp_path, cert):
    s = Server(tmp_path / "data")
    try:
        out = s.taash("bot", "random", "--token", s.token("b"), "--server", s.addr, "--ca", str(cert[0]), timeout=60)
        assert out.returncode == 1
        assert "it answers in plaintext" in out.stderr and "without --tls and --ca" in out.stderr
    finally:
        s.stop()


def test_a_bot_started_before_its_tls_arena_waits_for_it(tmp_path, cert):
    # a refused address is an arena still starting: the bot retries until it is up
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token_data = tmp_path / "data"
    out = subprocess.run([*TAASH, "arena", "token", "early", "--data", str(token_data)], capture_output=True,
                         text=True, env=env(), cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    bot = subprocess.Popen([*TAASH, "bot", "random", "--name", "early", "--token", out.stdout.strip(),
                            "--server", f"localhost:{port}", "--ca", str(cert[0])], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    try:
        # the bot has started and is dialling a port nobody listens on: its first lines
        assert "playing at" in readline(bot.stderr)
        s = Server(token_data, "--port", str(port), "--tls-cert", str(cert[0]), "--tls-key", str(cert[1]))
        s.procs.append(bot)
        try:
            addr = s.addr.replace("127.0.0.1", "localhost")
            while True:     # until it is connected (the test's own timeout bounds this)
                listed = s.taash("arena", "bots", "--server", addr, "--ca", str(cert[0]), "--data", str(token_data))
                assert listed.returncode == 0, listed.stderr
                assert bot.poll() is None, bot.stderr.read()
                if "early\t1 connection" in listed.stdout:
                    break
        finally:
            s.stop()
    finally:
        if bot.poll() is None:
            bot.terminate()
        bot.wait(30)
