"""The arena's limits on what a client may cost it, beyond a game's own (docs/protocol.md,
"Limits"), with their defaults: `Limits`, one value that `taash arena serve`'s flags fill
in and the server reads. Each is per token, per peer address or for the arena in all, as
its comment says; a client past one is refused or cut alone, with a status naming it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """The limits of one arena (units in each field's name; 0 turns a bound off where
    its flag says so)."""
    # MyStanding calls of one token: this many at once, then this many a second
    # (--query-burst, --query-rate)
    query_burst: int = 10
    query_rate: float = 2.0
    # bytes of what a bot sends on its streams, past the first FREE_BYTES of each message
    # (an answer, a hello, an error are far below it and cost nothing here), per token
    # (--token-bytes, --token-byte-rate) ...
    token_bytes: int = 4 << 20
    token_byte_rate: int = 256 << 10
    # ... and per peer address, all its streams and tokens together (--peer-bytes,
    # --peer-byte-rate), with its messages (--peer-messages, --peer-message-rate), counted
    # as the per-token message budget counts them
    peer_bytes: int = 16 << 20
    peer_byte_rate: int = 1 << 20
    peer_messages: int = 10_000
    peer_message_rate: int = 1000
    # the arena in all: built Variants kept for the next RunMatches, by their estimated
    # sizes (server/loading.py, estimated_bytes; --variant-cache-bytes)
    variant_cache_bytes: int = 32 << 20

    # before a token: a connection that has not finished its handshake (TLS, and HTTP/2's
    # first frames) in this many ms is closed (--handshake-ms; gRPC's default is 120 s) ...
    handshake_ms: int = 5000
    # ... one with no call for this many ms is closed (--idle-ms) ...
    idle_ms: int = 60_000
    # ... and the server holds at most this many connections at once (--max-connections;
    # 0: the open-file limit, raised at start as far as it goes, less what the arena keeps)
    max_connections: int = 0
    # per peer address, counted by the arena's front door (server/front.py) before gRPC
    # reads a byte: connections on which no call has shown a valid token yet
    # (--peer-pending) ...
    peer_pending: int = 16
    # ... and new connections, each a TLS handshake on a TLS arena: this many at once, then
    # this many a second (--peer-connect-burst, --peer-connect-rate; rate 0: no bound)
    peer_connect_burst: int = 40
    peer_connect_rate: float = 10.0
    # for the arena in all, by the front door: new connections from addresses that have
    # not shown a valid token lately, this many at once, then this many a second
    # (--connect-burst, --connect-rate; rate 0: no bound); the last this many addresses
    # to show one are known, and not held by this bound (--known-peers).
    # --peer-pending 0, --peer-connect-rate 0 and --connect-rate 0: no front door, gRPC
    # accepts connections itself
    connect_burst: int = 200
    connect_rate: float = 100.0
    known_peers: int = 10_000

    @property
    def front(self) -> bool:
        """Whether the arena accepts connections through its front door."""
        return bool(self.peer_pending or self.peer_connect_rate or self.connect_rate)

FREE_BYTES = 1024       # bytes of each bot message the byte budgets do not count


def size(n: float) -> str:
    """``n`` bytes in words: "4 MiB", "256 KiB", "1000 bytes"."""
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << (shift - 4)) == 0:
            return f"{n / (1 << shift):g} {unit}"
    return f"{n:g} bytes"
