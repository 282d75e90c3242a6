"""The arena's front door (docs/protocol.md, "Limits"): it accepts TCP connections itself,
so that it knows each one's peer address before a byte of TLS or HTTP/2 is read, and
relays each admitted connection's bytes, unread, to the gRPC server listening on a Unix
domain socket in a directory only the arena's user may enter (`private_socket`; TLS,
when served, stays gRPC's: the front never decrypts). gRPC opens no TCP port of its own:
nobody, on the arena's machine or beyond, reaches it but through the front.

gRPC (grpcio's server) offers no hook at accept, and its only bound is on connections
in all (grpc.max_allowed_incoming_connections); its interceptors see a peer only once a
call arrives, which an idle or half-open connection never makes. The front adds, per
peer address:

- new connections a second (a token bucket: ``connect_burst`` at once, refilled at
  ``connect_rate`` a second): on a TLS arena each is one TLS handshake, the dearest
  thing a stranger can make it do (about 1.2 ms of CPU);
- connections that have shown no token yet (``pending``): a connection stops counting
  once a call on it shows a valid token (`shown`);

and for the arena in all:

- connections at once (``max_connections``);
- new connections a second from addresses not known (``all_burst`` at once, refilled at
  ``all_rate`` a second): a flood from many addresses, each within its own bound, spends
  no more of the arena's CPU on handshakes than that. An address is known once a call
  on one of its connections showed a valid token (`shown`; the last ``known`` such
  addresses are kept, the least recently shown forgotten first): a known address's
  connections do not count against this bound nor wait for it, so that a bot that has
  played here before is welcomed at once during such a flood. A new address is not
  favoured over the flood's: its connection is reset when the bound is spent, and it
  gets in when one of its tries (gRPC's clients retry, backing off) finds room.

A connection past one is closed at once (a TCP reset), before gRPC sees it, and counted
by its bound in the log (refusals.Refusals); the others are not slowed.

The gRPC server sees each relayed connection as coming from the relay's socket, which
the kernel names in the abstract namespace at bind (autobind: "unix-abstract:0a1b2", unique
while it is open); `peer` turns that back into the client's address (gRPC's form,
"ipv4:203.0.113.5:40000")."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import socket
import stat
import struct
import tempfile
import time
from collections import OrderedDict

from .budgets import address_key, peer_host
from .faults import Bucket
from .refusals import Refusals

log = logging.getLogger("taash.arena")

KEPT_RATES = 10_000     # peer addresses' connection buckets kept before the full ones are forgotten
ACCEPT_BATCH = 64       # connections accepted at one readiness of the listening socket
PAUSE_S = 0.1           # no accept for this long after one failed (out of open files)
EARLY_CHUNKS = 16       # reads kept of a client whose relay to gRPC is not up yet (then it waits)
KNOWN = 10_000          # addresses that showed a valid token, kept (the default of --known-peers)
SUN_PATH = 108          # bytes of a Unix socket's path, its terminating NUL included (Linux's sun_path)


STALE_S = 60.0          # a socket no one listens on, this many seconds old: an arena's that was killed
PREFIX = "taash-grpc-"  # the directories of `private_socket`


def private_socket() -> str:
    """A path for gRPC's Unix socket in a new directory of mode 0700 (tempfile.mkdtemp:
    only this user may reach the socket in it), in the system's temporary directory, or
    in /tmp when that one's path is too long for a socket (`SUN_PATH`). The caller
    removes the directory (`remove_private_socket`); those left by arenas killed before
    they could are removed first (`remove_stale_sockets`). Raises OSError if none can be made."""
    base = tempfile.gettempdir()
    if len(os.fsencode(base)) + len(f"/{PREFIX}XXXXXXXX/grpc") >= SUN_PATH:
        base = "/tmp"
    remove_stale_sockets(base)
    return os.path.join(tempfile.mkdtemp(prefix=PREFIX, dir=base), "grpc")


def remove_stale_sockets(base: str) -> list[str]:
    """Remove the directories of `private_socket` in ``base`` that an arena killed
    (SIGKILL) left: this user's, whose socket was made more than `STALE_S` ago and
    refuses a connection (nobody listens on it). Returns the directories removed."""
    removed = []
    try:
        names = [n for n in os.listdir(base) if n.startswith(PREFIX)]
    except OSError:
        return removed
    for name in names:
        path = os.path.join(base, name, "grpc")
        try:
            st = os.lstat(path)
            if st.st_uid != os.getuid() or not stat.S_ISSOCK(st.st_mode) or time.time() - st.st_mtime < STALE_S:
                continue
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.connect(path)
        except ConnectionRefusedError:      # a socket nobody listens on
            shutil.rmtree(os.path.dirname(path), ignore_errors=True)
            removed.append(os.path.dirname(path))
        except OSError:
            continue
    return removed


def remove_private_socket(path: str) -> None:
    """Remove the directory `private_socket` made for ``path``, and the socket in it."""
    shutil.rmtree(os.path.dirname(path), ignore_errors=True)


def grpc_peer(peername) -> str:
    """A socket's peer name (asyncio's ``peername``) in gRPC's form: "ipv4:1.2.3.4:5",
    "ipv6:[::1]:5"."""
    host, port = peername[0], peername[1]
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


class Link:
    """One admitted connection: the client's side (``outer``) and the relay's to gRPC
    (``inner``, once connected); ``peer``: the client's address in gRPC's form,
    ``host``: what the bounds count it under (`address_key`); ``shown``: a call on it
    showed a valid token; ``relayed``: the peer gRPC sees for it ("unix-abstract:0a1b2")."""

    __slots__ = ("front", "peer", "host", "outer", "inner", "early", "shown", "relayed", "closed")

    def __init__(self, front: Front, peer: str):
        self.front, self.peer, self.host = front, peer, address_key(peer_host(peer))
        self.outer = None
        self.inner = None
        self.early: list[bytes] = []    # bytes the client sent before the relay's side was up
        self.shown = False
        self.relayed = ""               # set once the relay's side is connected
        self.closed = False

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.front.forget(self)
        if self.outer is not None:
            self.outer.close()      # after what is buffered is written
        if self.inner is not None:
            self.inner.close()


class _Outer(asyncio.Protocol):
    """The client's side of a connection."""

    def __init__(self, link: Link):
        self.link = link

    def data_received(self, data: bytes) -> None:
        link = self.link
        if link.inner is not None:
            link.inner.write(data)
        else:
            link.early.append(data)
            if len(link.early) > EARLY_CHUNKS:     # read no more until the relay's side is up
                link.outer.pause_reading()

    def pause_writing(self) -> None:      # the client reads slower than gRPC writes: stop reading gRPC
        if self.link.inner is not None:
            self.link.inner.pause_reading()

    def resume_writing(self) -> None:
        if self.link.inner is not None:
            self.link.inner.resume_reading()

    def eof_received(self):
        if self.link.inner is not None and self.link.inner.can_write_eof():
            self.link.inner.write_eof()
            return True     # half-closed: gRPC may still answer
        return None

    def connection_lost(self, exc) -> None:
        self.link.close()


class _Inner(asyncio.Protocol):
    """The relay's side of a connection, to the gRPC server."""

    def __init__(self, link: Link):
        self.link = link

    def data_received(self, data: bytes) -> None:
        self.link.outer.write(data)

    def pause_writing(self) -> None:      # gRPC reads slower than the client writes: stop reading the client
        self.link.outer.pause_reading()

    def resume_writing(self) -> None:
        if not self.link.closed:
            self.link.outer.resume_reading()

    def connection_lost(self, exc) -> None:
        self.link.close()


class Front:
    """The front door: `start` listens on the public address and relays to gRPC's
    Unix socket; `peer` and `shown` are for the server's calls. Bounds per peer
    address: ``pending`` connections without a token shown (0: no bound),
    ``connect_burst`` new connections at once then ``connect_rate`` a second (0: no bound).
    In all: ``max_connections`` at once; ``all_burst`` new connections at once then
    ``all_rate`` a second from addresses not among the ``known`` last to show a valid
    token (rate 0: no bound)."""

    def __init__(self, pending: int, connect_burst: int, connect_rate: float, max_connections: int,
                 all_burst: int = 0, all_rate: float = 0.0, known: int = KNOWN):
        self.pending_limit = pending
        self.connect_burst, self.connect_rate = connect_burst, connect_rate
        self.max_connections = max_connections
        # new connections from addresses not known, all together
        self.all_rate = Bucket(max(1, all_burst), all_rate) if all_rate else None
        self.known: OrderedDict[str, None] = OrderedDict()   # peer hosts that showed a valid token, last shown last
        self.known_limit = max(0, known)
        self.links: dict[str, Link] = {}         # the peer gRPC sees for a link (Link.relayed) -> the link
        self.open = 0                            # admitted links not yet closed
        self.pending: dict[str, int] = {}        # peer host -> its links without a token shown
        self.rates: dict[str, Bucket] = {}       # peer host -> its new connections' bucket
        self.refusals = Refusals("refused connections")     # counted by why, and logged
        self.sock: socket.socket | None = None
        self.loop = None
        self.inner_path = ""

    async def start(self, host: str, port: int, inner_path: str, backlog: int = 4096) -> int:
        """Listen on ``host:port`` (0: any free port; "" or "::": every address, IPv4 and
        IPv6 alike, as gRPC does) and relay to the Unix socket ``inner_path``; returns the
        port. Raises OSError if the address cannot be bound."""
        self.inner_path = inner_path
        six = ":" in host
        self.sock = socket.create_server((host, port), family=socket.AF_INET6 if six else socket.AF_INET,
                                         backlog=backlog,
                                         dualstack_ipv6=six and host == "::" and socket.has_dualstack_ipv6())
        self.sock.setblocking(False)
        self.loop = asyncio.get_running_loop()
        self.loop.add_reader(self.sock.fileno(), self._accept)
        return self.sock.getsockname()[1]

    def stop_listening(self) -> None:
        """No new connection; those open go on."""
        if self.sock is not None:
            self.loop.remove_reader(self.sock.fileno())
            self.sock.close()
            self.sock = None

    def close(self) -> None:
        """Stop listening and close every link; log the refusals not logged yet."""
        self.stop_listening()
        for link in list(self.links.values()):
            link.close()
        self.refusals.flush()

    # -- admission ------------------------------------------------------------------------
    def _why_not(self, host: str) -> str | None:
        if self.open >= self.max_connections:
            return "connections in all (--max-connections)"
        if self.pending_limit and self.pending.get(host, 0) >= self.pending_limit:
            return "connections without a token per address (--peer-pending)"
        if self.connect_rate:
            bucket = self.rates.get(host)
            if bucket is None:
                if len(self.rates) >= KEPT_RATES:
                    for k in [k for k, b in self.rates.items() if b.full()]:
                        del self.rates[k]
                bucket = self.rates[host] = Bucket(max(1, self.connect_burst), self.connect_rate)
            if bucket.level() < 1:      # a refused one costs nothing: a client that backs off gets in
                return "new connections a second per address (--peer-connect-burst, --peer-connect-rate)"
        every = self.all_rate if self.all_rate is not None and host not in self.known else None
        if every is not None:
            if every.level() < 1:
                return "new connections a second from addresses not known (--connect-burst, --connect-rate)"
            every.spend(1)
        if self.connect_rate:
            bucket.spend(1)
        return None

    def _accept(self) -> None:
        """The listening socket is readable: accept what is waiting (at most
        `ACCEPT_BATCH`, then the other callbacks get their turn). A connection past a
        bound is reset at once, with no more work than the accept: no transport, no
        buffer; the others are relayed."""
        for _ in range(ACCEPT_BATCH):
            try:
                conn, addr = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionAbortedError:
                continue
            except OSError as e:    # out of open files: accept again in a moment, not in a busy loop
                log.error("cannot accept a connection: %s; accepting again in %.1f s", e.strerror or e, PAUSE_S)
                self.loop.remove_reader(self.sock.fileno())
                self.loop.call_later(PAUSE_S, self._resume)
                return
            peer = grpc_peer(addr)
            link = Link(self, peer)
            why = self._why_not(link.host)
            if why is not None:
                self._refuse(conn, why)
                continue
            self.open += 1
            self.pending[link.host] = self.pending.get(link.host, 0) + 1
            conn.setblocking(False)
            # no Nagle: asyncio sets TCP_NODELAY only on sockets whose proto is IPPROTO_TCP,
            # and one accepted from socket.create_server's has proto 0; left on, a small
            # write waits for the client's delayed ACK (tens of ms a decision)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            asyncio.ensure_future(self._relay(link, conn))

    def _resume(self) -> None:
        if self.sock is not None:
            self.loop.add_reader(self.sock.fileno(), self._accept)

    def _refuse(self, conn: socket.socket, why: str) -> None:
        try:    # a reset, not a FIN: the client learns at once, and no TIME_WAIT is kept here
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        conn.close()
        self.refusals.count(why)

    async def _relay(self, link: Link, conn: socket.socket) -> None:
        """Make ``conn`` (accepted) the client's side of ``link`` and connect its side to gRPC."""
        try:
            link.outer, _ = await self.loop.connect_accepted_socket(lambda: _Outer(link), conn)
        except OSError:
            conn.close()
            link.close()
            return
        await self._connect(link)

    async def _connect(self, link: Link) -> None:
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind("")       # autobind: a name of its own, which gRPC gives as the call's peer
            sock.setblocking(False)
            await loop.sock_connect(sock, self.inner_path)
            inner, _ = await loop.create_unix_connection(lambda: _Inner(link), sock=sock)
        except OSError as e:
            sock.close()
            log.error("the front cannot reach the gRPC server on %s: %s", self.inner_path, e)
            link.close()
            return
        if link.closed:     # the client left while the relay connected
            inner.close()
            return
        link.relayed = "unix-abstract:" + sock.getsockname()[1:].decode("ascii", "replace")
        self.links[link.relayed] = link
        link.inner = inner
        if link.early:
            inner.write(b"".join(link.early))
            link.early = []
            link.outer.resume_reading()

    def forget(self, link: Link) -> None:
        """``link`` closed: it no longer counts."""
        self.open -= 1
        if link.relayed:
            self.links.pop(link.relayed, None)
        if not link.shown:
            self._unpend(link.host)

    def _unpend(self, host: str) -> None:
        n = self.pending.get(host, 0) - 1
        if n > 0:
            self.pending[host] = n
        else:
            self.pending.pop(host, None)

    # -- for the server's calls -------------------------------------------------------------
    def _link(self, relayed: str) -> Link | None:
        return self.links.get(relayed)

    def peer(self, relayed: str) -> str:
        """The client's address of the call gRPC sees from ``relayed`` (context.peer());
        ``relayed`` itself if it did not come through the front."""
        link = self._link(relayed)
        return link.peer if link is not None else relayed

    def shown(self, relayed: str) -> None:
        """A call on the connection gRPC sees from ``relayed`` showed a valid token: it no
        longer counts among its address's connections without one, and its address is
        known (the bound in all on new connections no longer holds it back)."""
        link = self._link(relayed)
        if link is not None and not link.shown:
            link.shown = True
            self._unpend(link.host)
            if self.known_limit:
                self.known[link.host] = None
                self.known.move_to_end(link.host)
                if len(self.known) > self.known_limit:
                    self.known.popitem(last=False)
