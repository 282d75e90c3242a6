"""Messages framed from bytes already serialized: a public event is serialized once
(events.publish) and goes, as those bytes, into every feed, every ServerMessage.event and
every DecisionRequest.events that carries it, without being parsed or copied again.

Protobuf's wire format (protobuf.dev, "Encoding"): a message field is its key (field
number << 3 | 2), its length as a varint and the message's bytes; a repeated field is
that, once per element; fields go in field-number order. So the bytes framed here are
the bytes `SerializeToString` writes for the same message (tests/arena/test_arena_speed.py
compares them). No gRPC here."""

from __future__ import annotations

from ..pb import messages_pb2 as pb


def _key(message, field: str) -> bytes:
    n = pb_field_number(message, field)
    assert n < 16, "a key of one byte"
    return bytes([n << 3 | 2])


def pb_field_number(message, field: str) -> int:
    """The number of ``field`` of protobuf message class ``message``."""
    return message.DESCRIPTOR.fields_by_name[field].number


def varint(n: int) -> bytes:
    """``n`` (>= 0) as a protobuf varint: 7 bits a byte, low first, high bit set on all
    but the last."""
    if n < _SHORT:
        return _VARINTS[n]
    return _varint(n)


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SHORT = 1 << 14    # every length of an event or a request: one or two bytes, made once
_VARINTS = [_varint(n) for n in range(_SHORT)]

EVENT = _key(pb.ServerMessage, "event")
EVENT_BATCH = _key(pb.ServerMessage, "events")
DECISION = _key(pb.ServerMessage, "decision")
EVENTS = _key(pb.DecisionRequest, "events")
VIEW = _key(pb.ServerMessage, "view")
VIEW_EVENTS = _key(pb.SeatView, "events")
BATCH = _key(pb.GameEventBatch, "events")
BATCH_BYTES = 1 << 20      # a GameEventBatch holds about this much at most (the 4 MiB limit)
# DecisionRequest.events and SeatView.events are their last fields, so appending events
# keeps protobuf's order
for _m in (pb.DecisionRequest, pb.SeatView):
    assert pb_field_number(_m, "events") == max(f.number for f in _m.DESCRIPTOR.fields)


def event_message(event: bytes) -> bytes:
    """A ServerMessage carrying one serialized GameEvent."""
    return EVENT + varint(len(event)) + event


def batch_event_messages(events: list[bytes]) -> list[bytes]:
    """ServerMessages carrying ``events`` (serialized GameEvents) in order as
    ``ServerMessage.events`` batches (one, unless they pass `BATCH_BYTES`)."""
    return [EVENT_BATCH + varint(len(b)) + b for b, _ in batch_messages(events)]


def decision_message(request: bytes, events: list[bytes]) -> bytes:
    """A ServerMessage carrying a DecisionRequest: ``request`` serialized without events,
    then ``events`` (serialized GameEvents) as its ``events``."""
    return _carrying(DECISION, EVENTS, request, events)


def view_message(view: bytes, events: list[bytes]) -> bytes:
    """A ServerMessage carrying a SeatView: ``view`` serialized without events, then
    ``events`` (serialized GameEvents) as its ``events``."""
    return _carrying(VIEW, VIEW_EVENTS, view, events)


def _carrying(key: bytes, events_key: bytes, body: bytes, events: list[bytes]) -> bytes:
    if events:
        parts = [body]
        for ev in events:
            parts += (events_key, varint(len(ev)), ev)
        body = b"".join(parts)
    return key + varint(len(body)) + body


def batch_messages(events: list[bytes], limit: int = BATCH_BYTES):
    """Serialized GameEventBatch messages holding ``events`` (serialized GameEvents) in
    order, each of about ``limit`` bytes at most (an event larger than that is a batch of
    its own), as (message, number of events in it) pairs."""
    parts, size = [], 0
    for data in events:
        if size + len(data) > limit and parts:
            yield b"".join(parts), len(parts) // 2
            parts, size = [], 0
        head = BATCH + varint(len(data))
        parts.append(head)
        parts.append(data)
        size += len(head) + len(data)
    if parts:
        yield b"".join(parts), len(parts) // 2
