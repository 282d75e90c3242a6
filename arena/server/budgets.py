"""The message budgets of bot streams (docs/protocol.md, "Limits"): each stream's own
bucket (`Connection.meter`) and one per token shared by all its streams (`Budgets`), and
what the arena tells a stream past either (faults.Bucket)."""

from __future__ import annotations

from .connection import Connection
from .faults import STREAM_BURST, STREAM_RATE, TOKEN_BURST, TOKEN_RATE, Bucket


class Budgets:
    """Token -> its message budget (a faults.Bucket), shared by the token's streams: one
    per token that ever connected, and only the store's tokens connect (bounded by the
    admin); `keep` forgets those of tokens that no longer hold."""

    def __init__(self):
        self.tokens: dict[str, Bucket] = {}

    def attach(self, conn: Connection) -> None:
        """Give ``conn`` its token's budget (``conn.token_meter``), made at its token's
        first stream."""
        meter = self.tokens.get(conn.token)
        if meter is None:
            meter = self.tokens[conn.token] = Bucket(TOKEN_BURST, TOKEN_RATE)
        conn.token_meter = meter

    def keep(self, holds) -> None:
        """Forget the budgets of the tokens for which ``holds(token)`` is false."""
        for token in list(self.tokens):
            if not holds(token):
                del self.tokens[token]

    def spend(self, conn: Connection) -> str | None:
        """One message of ``conn`` not paid for by a request, from its stream's budget and
        its token's: None while both hold, else why the stream is to be closed (the
        status's message, naming the limit)."""
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
        return None
