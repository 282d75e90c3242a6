"""The front door's bounds per peer address (docs/protocol.md, "Limits"): connections
without a token shown (--peer-pending) and new connections a second
(--peer-connect-burst, --peer-connect-rate). A real arena process; the peers are real TCP
connections from distinct loopback addresses (Linux routes all of 127.0.0.0/8 to this
machine, so 127.0.0.2 and 127.0.0.3 are peers of their own)."""

from __future__ import annotations

import os
import shutil
import socket
import stat

import grpc
import pytest

from taash.arena.pb import messages_pb2 as pb
from tests.helpers.arena_util import PLAY_METHOD, Server

from .test_arena_preauth import closed_by_peer


def connect(addr: str, source: str) -> socket.socket:
    """A TCP connection to the arena at ``addr`` from the loopback address ``source``,
    that sends nothing."""
    host, port = addr.rsplit(":", 1)
    s = socket.socket()
    s.bind((source, 0))
    s.connect((host, int(port)))
    return s


def welcomed(addr: str, token: str) -> str:
    """A Play stream of ``token`` from 127.0.0.1 (a new channel: a new connection): the
    kind of its first message; the connection and the Welcome each get 1 s."""
    with grpc.insecure_channel(addr) as ch:
        grpc.channel_ready_future(ch).result(timeout=1)
        call = ch.stream_stream(PLAY_METHOD, request_serializer=lambda b: b,
                                response_deserializer=pb.ServerMessage.FromString)(
            iter(()), metadata=[("authorization", f"Bearer {token}")], timeout=1)
        try:
            return next(iter(call)).WhichOneof("msg")
        finally:
            call.cancel()


async def echo_server(path: str, seen: list[str]):
    """A Unix socket server at ``path`` standing for gRPC: it sends back what it reads,
    and adds to ``seen`` each connection's peer as gRPC names it (the relay's autobound
    name, b"\0" and 5 hex digits: "unix-abstract:0a1b2")."""
    import asyncio

    async def echo(reader, writer):
        seen.append("unix-abstract:" + writer.get_extra_info("peername")[1:].decode())
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()
    return await asyncio.start_unix_server(echo, path)


@pytest.fixture
def socks():
    opened: list[socket.socket] = []
    yield opened
    for s in opened:
        s.close()


def test_an_address_past_its_connections_without_a_token_is_refused_another_welcomed(tmp_path, socks):
    s = Server(tmp_path / "data", "--peer-pending", "3", "--peer-connect-rate", "0", "--handshake-ms", "20000")
    try:
        tok = s.token("honest")
        socks += [connect(s.addr, "127.0.0.2") for _ in range(3)]     # three idle: within the bound
        over = connect(s.addr, "127.0.0.2")                           # the fourth: reset at once
        socks.append(over)
        assert closed_by_peer(over, 1.0)
        assert not any(closed_by_peer(c, 0.2) for c in socks[:3])
        other = connect(s.addr, "127.0.0.3")                          # another address: its own bound
        socks.append(other)
        assert not closed_by_peer(other, 0.5)
        assert welcomed(s.addr, tok) == "welcome"                     # and 127.0.0.1 plays
        # one of 127.0.0.2's closes: it may open one again
        socks[0].close()
        for _ in range(40):     # once the arena has seen that close (at once, but not before this connect;
                                # under load, its loop may see it seconds later)
            again = connect(s.addr, "127.0.0.2")
            socks.append(again)
            if not closed_by_peer(again, 0.3):
                break
        else:
            raise AssertionError("127.0.0.2 was refused after it closed one of its connections")
        assert ("refused connections past their bound (docs/protocol.md, Limits): 1 for connections without "
                "a token per address (--peer-pending)") in s.logtext()
    finally:
        s.stop()


def test_a_connection_that_shows_a_token_no_longer_counts(tmp_path, socks):
    """--peer-pending 1: a bot's stream (its token shown) and one idle connection from
    the same address; a second idle one is refused."""
    s = Server(tmp_path / "data", "--peer-pending", "1", "--peer-connect-rate", "0", "--handshake-ms", "20000")
    try:
        s.bot("random", "honest", s.token("honest"))
        s.wait_connected(["honest"])       # that ListBots call showed the admin token: it does not count either
        idle = connect(s.addr, "127.0.0.1")
        socks.append(idle)
        assert not closed_by_peer(idle, 0.5)
        second = connect(s.addr, "127.0.0.1")
        socks.append(second)
        assert closed_by_peer(second, 1.0)
    finally:
        s.stop()


def test_new_connections_a_second_per_address(tmp_path, socks):
    """--peer-connect-burst 4, --peer-connect-rate 1: 127.0.0.2's fifth connection in a row
    is refused (each would be a TLS handshake on a TLS arena); 127.0.0.3's first is not."""
    s = Server(tmp_path / "data", "--peer-pending", "0", "--peer-connect-burst", "4", "--peer-connect-rate", "1",
               "--handshake-ms", "20000")
    try:
        socks += [connect(s.addr, "127.0.0.2") for _ in range(4)]
        fifth = connect(s.addr, "127.0.0.2")
        socks.append(fifth)
        assert closed_by_peer(fifth, 1.0)
        assert not any(closed_by_peer(c, 0.2) for c in socks[:4])
        other = connect(s.addr, "127.0.0.3")
        socks.append(other)
        assert not closed_by_peer(other, 0.5)
    finally:
        s.stop()


def test_the_relay_carries_bytes_both_ways_without_nagle_and_names_the_client(tmp_path):
    """The front door in-process before an echo server on a Unix socket standing for
    gRPC: a client's bytes come back whole through it; the client's socket has
    TCP_NODELAY (a socket accepted from socket.create_server's has proto 0, on which
    asyncio does not set it: with Nagle on, each small answer waited for a delayed ACK,
    and games of `taash bot` processes took four times as long); the echo server sees
    the relay's socket under its autobound name, for which `peer` gives the client's
    address, and `shown` takes the connection out of its address's count."""
    import asyncio

    from taash.arena.server.front import Front

    async def main():
        seen = []
        path = str(tmp_path / "g")
        inner = await echo_server(path, seen)
        front = Front(pending=2, connect_burst=10, connect_rate=1.0, max_connections=100)
        port = await front.start("127.0.0.1", 0, path)
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0))
        sent = bytes(range(256)) * 1000
        writer.write(sent)
        got = await asyncio.wait_for(reader.readexactly(len(sent)), 10)
        [link] = front.links.values()
        nodelay = link.outer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        me = writer.get_extra_info("sockname")
        [relayed] = seen
        named, pending_before = front.peer(relayed), dict(front.pending)
        front.shown(relayed)
        pending_after = dict(front.pending)
        writer.close()
        front.close()
        inner.close()
        return got == sent, nodelay, named, me, pending_before, pending_after, relayed

    same, nodelay, named, me, before, after, relayed = asyncio.run(main())
    assert same
    assert nodelay
    assert len(relayed) == len("unix-abstract:") + 5
    assert named == f"ipv4:127.0.0.2:{me[1]}"
    assert before == {"ipv4:127.0.0.2": 1} and after == {}


def listening_tcp_ports(pid: int) -> set[int]:
    """The TCP ports process ``pid`` listens on, IPv4 and IPv6: the sockets in LISTEN
    state (st 0A) of /proc/PID/net/tcp and tcp6 whose inode is one of its open files."""
    inodes = set()
    fd_dir = f"/proc/{pid}/fd"
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(f"{fd_dir}/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as f:
            next(f)
            for line in f:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def unix_sockets_listening(pid: int) -> list[str]:
    """The paths of the Unix sockets process ``pid`` listens on (/proc/PID/net/unix,
    state 01 with the listening flag 00010000, whose inode is one of its open files)."""
    inodes = {os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1] for fd in os.listdir(f"/proc/{pid}/fd")
              if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:[")}
    paths = []
    with open(f"/proc/{pid}/net/unix") as f:
        next(f)
        for line in f:
            fields = line.split()
            if len(fields) >= 8 and fields[3] == "00010000" and fields[6] in inodes:
                paths.append(fields[7])
    return paths


def test_grpc_listens_on_a_private_unix_socket_and_the_arena_on_its_public_port_only(tmp_path):
    """The loopback bypass is closed: the arena process listens on one TCP port, the
    public one; gRPC's socket is a Unix socket in a directory of mode 0700 (nobody
    else may enter it), and the directory is gone once the arena stops. A bot plays
    through the front."""
    s = Server(tmp_path / "data")
    try:
        port = int(s.addr.rsplit(":", 1)[1])
        tok = s.token("honest")
        assert welcomed(s.addr, tok) == "welcome"
        assert listening_tcp_ports(s.proc.pid) == {port}
        [path] = [p for p in unix_sockets_listening(s.proc.pid) if p.endswith("/grpc")]
        directory = os.path.dirname(path)
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
        assert os.stat(directory).st_uid == os.getuid()
        assert len(os.fsencode(path)) < 108
    finally:
        s.stop()
    assert s.proc.returncode == 0
    assert not os.path.exists(directory)


def test_a_socket_directory_left_by_a_killed_arena_is_removed_at_the_next_start(tmp_path):
    """An arena killed (SIGKILL) cannot remove its socket's directory: the next one to
    start removes such directories of its user, whose socket nobody listens on and was
    made more than 60 s ago; one that is listened on, or younger, is kept."""
    import tempfile
    import time

    from taash.arena.server.front import PREFIX

    made, keep = [], []
    old = time.time() - 120
    for kind in ("dead", "live", "young"):
        d = tempfile.mkdtemp(prefix=PREFIX)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(os.path.join(d, "grpc"))
        if kind == "live":
            sock.listen()
            keep.append(sock)
        else:
            sock.close()        # bound, never listened on: as a killed arena's socket is
        if kind != "young":
            os.utime(os.path.join(d, "grpc"), (old, old))
        made.append(d)
    try:
        s = Server(tmp_path / "data")
        s.stop()
        assert [os.path.exists(d) for d in made] == [False, True, True]
    finally:
        for sock in keep:
            sock.close()
        for d in made:
            shutil.rmtree(d, ignore_errors=True)


def test_without_the_front_door_grpc_listens_on_the_public_port_itself(tmp_path):
    """--peer-pending 0 --peer-connect-rate 0 --connect-rate 0: no front door, no Unix
    socket; gRPC's own port is the public one, and a bot is welcomed on it."""
    s = Server(tmp_path / "data", "--peer-pending", "0", "--peer-connect-rate", "0", "--connect-rate", "0")
    try:
        port = int(s.addr.rsplit(":", 1)[1])
        assert welcomed(s.addr, s.token("honest")) == "welcome"
        assert listening_tcp_ports(s.proc.pid) == {port}
        assert not [p for p in unix_sockets_listening(s.proc.pid) if p.endswith("/grpc")]
    finally:
        s.stop()


def test_an_ipv6_peer_counts_by_its_64_bit_prefix():
    """One host is usually given a whole /64: its addresses counted apart would multiply
    every bound per address. A dual-stack socket's ::ffff:a.b.c.d is the IPv4 address."""
    from taash.arena.server.front import address_key
    assert address_key("ipv6:[2001:db8:1:2:3::4]") == "ipv6:[2001:db8:1:2::/64]"
    assert address_key("ipv6:[2001:db8:1:2:ffff::1]") == "ipv6:[2001:db8:1:2::/64]"
    assert address_key("ipv6:[2001:db8:1:3::1]") == "ipv6:[2001:db8:1:3::/64]"
    assert address_key("ipv6:[::1]") == "ipv6:[::/64]"
    assert address_key("ipv6:[::ffff:203.0.113.5]") == "ipv4:203.0.113.5"
    assert address_key("ipv4:203.0.113.5") == "ipv4:203.0.113.5"


def test_a_flood_from_many_addresses_is_bounded_in_all_and_a_known_bot_still_welcomed(tmp_path, socks):
    """--connect-burst 4 --connect-rate 1: eight addresses (127.0.0.2 to .9), each far
    within its own bound (40 at once, 10 a second), together open about 100 connections
    a second. A new address (127.0.0.20) is held by the bound in all: of five tries in
    0.5 s at most one finds room (the bucket refills one a second, and the flood takes
    each as it comes); the honest bot's address 127.0.0.1, known since its token was
    shown, is welcomed within 1 s meanwhile, again and again."""
    import threading
    import time

    s = Server(tmp_path / "data", "--connect-burst", "4", "--connect-rate", "1", "--handshake-ms", "20000")
    stop = threading.Event()
    flooded = []

    def flood():
        i = 0
        while not stop.is_set():
            try:
                c = connect(s.addr, f"127.0.0.{2 + i % 8}")
                flooded.append(c)
            except OSError:
                pass
            i += 1
            time.sleep(0.01)
    try:
        tok = s.token("honest")
        assert welcomed(s.addr, tok) == "welcome"           # 127.0.0.1 shows a valid token: known
        flooder = threading.Thread(target=flood)
        flooder.start()
        try:
            time.sleep(0.5)     # the flood has spent the bucket
            tries = []
            for _ in range(5):
                c = connect(s.addr, "127.0.0.20")
                socks.append(c)
                tries.append(closed_by_peer(c, 0.1))
            assert sum(tries) >= 4, tries
            for _ in range(3):
                t0 = time.monotonic()
                assert welcomed(s.addr, tok) == "welcome"
                assert time.monotonic() - t0 < 1.0
        finally:
            stop.set()
            flooder.join()
        socks.extend(flooded)
        assert len(flooded) > 50
        log = s.logtext()
        assert "for new connections a second from addresses not known (--connect-burst, --connect-rate)" in log
        assert "per address" not in log          # no address went past its own bound
    finally:
        s.stop()


def test_the_known_addresses_are_the_last_to_show_a_token(tmp_path):
    """--known-peers 2 in-process, before an echo server on a Unix socket standing for
    gRPC: three addresses show a token in turn; the first is forgotten, and a new
    connection from it is held by the bound in all (spent) while the last two pass."""
    import asyncio

    from taash.arena.server.front import Front

    async def main():
        seen = []
        path = str(tmp_path / "g")
        inner = await echo_server(path, seen)
        front = Front(pending=0, connect_burst=0, connect_rate=0, max_connections=100, all_burst=3, all_rate=0.001,
                      known=2)
        port = await front.start("127.0.0.1", 0, path)
        opened = []

        async def one(source):      # True: the byte came back through the relay; False: reset
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
                opened.append(writer)
                writer.write(b"x")
                return await asyncio.wait_for(reader.readexactly(1), 2) == b"x"
            except (ConnectionError, asyncio.IncompleteReadError):
                return False
        for n, source in enumerate(("127.0.0.2", "127.0.0.3", "127.0.0.4")):     # the bucket's 3
            assert await one(source)
            front.shown(seen[n])
        known = list(front.known)
        again = [await one(source) for source in ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")]
        for w in opened:
            w.close()
        front.close()
        inner.close()
        return known, again

    known, again = asyncio.run(main())
    assert known == ["ipv4:127.0.0.3", "ipv4:127.0.0.4"]
    assert again == [False, True, True, False]


def logged_refusals(log: str, what: str) -> dict[str, int]:
    """The refusals of kind ``what`` ("refused connections", "refused calls") the arena's
    log reports, summed over its lines: reason -> count."""
    head = f"{what} past their bound (docs/protocol.md, Limits): "
    counts: dict[str, int] = {}
    for line in log.splitlines():
        if head in line:
            for part in line.split(head, 1)[1].split("; "):
                n, why = part.split(" for ", 1)
                counts[why] = counts.get(why, 0) + int(n)
    return counts


def test_the_refusals_the_log_reports_are_the_refusals_made(tmp_path, socks):
    """Seven connections past --peer-pending 1 (127.0.0.2's idle one holds it), five Play
    streams past --max-streams 1 (the bot's first holds it), three Watch calls with
    --max-spectators 0: the log's lines, summed, say 7, 5 and 3, and nothing else. The
    first refusal of a kind is logged at once and the rest within the next 10 s in one
    line, or at the arena's stop: each in exactly one line."""
    from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc

    s = Server(tmp_path / "data", "--peer-pending", "1", "--peer-connect-rate", "0", "--max-streams", "1",
               "--max-spectators", "0", "--handshake-ms", "20000")
    try:
        tok = s.token("honest")
        socks.append(connect(s.addr, "127.0.0.2"))
        assert not closed_by_peer(socks[0], 0.3)
        for _ in range(7):
            over = connect(s.addr, "127.0.0.2")
            socks.append(over)
            assert closed_by_peer(over, 1.0)
        with grpc.insecure_channel(s.addr) as ch:
            play = ch.stream_stream(PLAY_METHOD, request_serializer=lambda b: b,
                                    response_deserializer=pb.ServerMessage.FromString)
            first = play(iter(()), metadata=[("authorization", f"Bearer {tok}")], timeout=30)
            assert next(iter(first)).WhichOneof("msg") == "welcome"
            codes = []
            for _ in range(5):
                call = play(iter(()), metadata=[("authorization", f"Bearer {tok}")], timeout=10)
                try:
                    next(iter(call))
                except grpc.RpcError as e:
                    codes.append(e.code())
            stub = arena_pb2_grpc.ArenaStub(ch)
            for _ in range(3):
                try:
                    for _ in stub.Watch(apb.WatchRequest(), timeout=10):
                        pass
                except grpc.RpcError as e:
                    codes.append(e.code())
            first.cancel()
        assert codes == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 8
    finally:
        s.stop()
    log = (tmp_path / "data-serve.log").read_text()     # all of it: the arena has stopped
    assert logged_refusals(log, "refused connections") == {
        "connections without a token per address (--peer-pending)": 7}
    assert logged_refusals(log, "refused calls") == {
        "Play streams per token (--max-streams)": 5, "Watch calls in all (--max-spectators)": 3}
