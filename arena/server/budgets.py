"""The budgets of bot streams (docs/protocol.md, "Limits"): messages per stream
(`Connection.meter`), messages and bytes per token, shared by all its streams, and
messages and bytes per peer address (an IPv6 address by its /64: `address_key`), shared
by all its streams and tokens (`Budgets`);
what the arena tells a stream past one, and how long a token or address past one is
refused new streams."""

from __future__ import annotations

import ipaddress

from ..limits import FREE_BYTES, Limits, size
from .connection import Connection
from .faults import STREAM_BURST, STREAM_RATE, TOKEN_BURST, TOKEN_RATE, Bucket

KEPT_PEERS = 10_000     # peer addresses' budgets kept before the full (idle) ones are forgotten


def peer_host(peer: str) -> str:
    """The address of a gRPC peer string without its port: "ipv4:127.0.0.1:5555" ->
    "ipv4:127.0.0.1", "ipv6:[::1]:5555" -> "ipv6:[::1]"; other forms as they are."""
    head, sep, port = peer.rpartition(":")
    return head if sep and port.isdigit() and ":" in head else peer


def address_key(host: str) -> str:
    """What the budgets and the front door's bounds count as one peer address, from a
    peer's address in gRPC's form without its port (`peer_host`): an IPv4 address itself; an IPv6
    address by its /64 (one host or home network is usually given a whole /64, so that
    each of its addresses counted apart would multiply every bound); an IPv4 address
    seen through a dual-stack socket (::ffff:a.b.c.d) as that IPv4 address.
    "ipv6:[2001:db8:1:2:3::4]" -> "ipv6:[2001:db8:1:2::/64]"."""
    if host.startswith("ipv6:[") and host.endswith("]"):
        try:
            addr = ipaddress.IPv6Address(host[6:-1].split("%")[0])
        except ValueError:
            return host
        if addr.ipv4_mapped is not None:
            return f"ipv4:{addr.ipv4_mapped}"
        return f"ipv6:[{ipaddress.IPv6Network((addr, 64), strict=False)}]"
    return host


class Budgets:
    """The budgets shared by several streams, as faults.Bucket: per token (made at its
    first stream; only the store's tokens connect, bounded by the admin; `keep` forgets
    those of tokens that no longer hold) and per peer address (at most `KEPT_PEERS`
    kept: past that, those refilled to the full are forgotten)."""

    def __init__(self, limits: Limits = Limits()):
        self.limits = limits
        self.tokens: dict[str, tuple[Bucket, Bucket]] = {}      # token -> (messages, bytes)
        self.peers: dict[str, tuple[Bucket, Bucket]] = {}       # peer address -> (messages, bytes)

    def attach(self, conn: Connection) -> None:
        """Give ``conn`` its token's and its address's budgets (``conn.token_meter``,
        ``conn.token_bytes``, ``conn.peer_meter``, ``conn.peer_bytes``)."""
        lim = self.limits
        t = self.tokens.get(conn.token)
        if t is None:
            t = self.tokens[conn.token] = (Bucket(TOKEN_BURST, TOKEN_RATE),
                                           Bucket(lim.token_bytes, lim.token_byte_rate))
        p = self._peer(address_key(peer_host(conn.peer)), True)
        conn.token_meter, conn.token_bytes = t
        conn.peer_meter, conn.peer_bytes = p

    def _peer(self, host: str, make: bool) -> tuple[Bucket, Bucket] | None:
        p = self.peers.get(host)
        if p is None and make:
            if len(self.peers) >= KEPT_PEERS:
                for k in [k for k, (m, b) in self.peers.items() if m.full() and b.full()]:
                    del self.peers[k]
            lim = self.limits
            p = self.peers[host] = (Bucket(lim.peer_messages, lim.peer_message_rate),
                                    Bucket(lim.peer_bytes, lim.peer_byte_rate))
        return p

    def keep(self, holds) -> None:
        """Forget the budgets of the tokens for which ``holds(token)`` is false."""
        for token in list(self.tokens):
            if not holds(token):
                del self.tokens[token]

    def owed_s(self, token: str, peer: str) -> float:
        """Seconds until a new stream of ``token`` from ``peer`` may open (0: now)."""
        t = self.tokens.get(token)
        p = self._peer(peer_host(peer), False)
        return max([b.owed_s() for buckets in (t, p) if buckets is not None for b in buckets], default=0.0)

    def owed(self, token: str, peer: str) -> str | None:
        """None if a new stream of ``token`` from ``peer`` may open; else why not (its
        token's or its address's budget is past its limit: the seconds until it is not)."""
        t = self.tokens.get(token)
        p = self._peer(address_key(peer_host(peer)), False)
        for buckets, whose in ((t, "this token"), (p, "this address")):
            if buckets is None:
                continue
            wait = max(b.owed_s() for b in buckets)
            if wait > 0:
                return (f"{whose} is past its budget (docs/protocol.md, Limits): no new stream for "
                        f"{wait:.1f} s")
        return None

    def spend(self, conn: Connection, nbytes: int, paid: bool) -> str | None:
        """A message of ``conn`` of ``nbytes`` bytes (``paid``: the first answer to a
        request, which costs no message): spent from its budgets; None while they all
        hold, else why the stream is to be closed (the status's message, naming the
        limit and its flag)."""
        lim = self.limits
        extra = nbytes - FREE_BYTES
        if extra > 0:
            if conn.token_bytes is not None and conn.token_bytes.spend(extra):
                return (f"too many bytes with this token (more than {size(lim.token_bytes)} at once or "
                        f"{size(lim.token_byte_rate)} a second on all its streams, past the first "
                        f"{FREE_BYTES} bytes of each message: --token-bytes, --token-byte-rate; "
                        "docs/protocol.md, Limits): closed by the arena")
            if conn.peer_bytes is not None and conn.peer_bytes.spend(extra):
                return (f"too many bytes from this address (more than {size(lim.peer_bytes)} at once or "
                        f"{size(lim.peer_byte_rate)} a second on all its streams, past the first "
                        f"{FREE_BYTES} bytes of each message: --peer-bytes, --peer-byte-rate; "
                        "docs/protocol.md, Limits): closed by the arena")
        if paid:
            return None
        over = conn.meter.spend()
        tm = conn.token_meter
        if tm is not None and tm.spend():
            return (f"too many messages with this token (more than {TOKEN_BURST} at once or {TOKEN_RATE:g} "
                    "a second on all its streams, beyond the answers to the requests sent: docs/protocol.md, "
                    "Limits): closed by the arena")
        if over:
            return (f"too many messages on this stream (more than {STREAM_BURST} at once or {STREAM_RATE:g} "
                    "a second, beyond the answers to the requests sent: docs/protocol.md, Limits): "
                    "closed by the arena")
        pm = conn.peer_meter
        if pm is not None and pm.spend():
            return (f"too many messages from this address (more than {lim.peer_messages} at once or "
                    f"{lim.peer_message_rate:g} a second on all its streams, beyond the answers to the "
                    "requests sent: --peer-messages, --peer-message-rate; docs/protocol.md, Limits): "
                    "closed by the arena")
        return None
