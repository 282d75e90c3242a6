"""The wire contract: proto/ is the source; arena/pb/ is generated from it and must not
drift (regenerate with `python -m taash.arena.proto_gen`)."""

from __future__ import annotations

from pathlib import Path

from taash.arena import proto_gen
from taash.arena.pb import arena_pb2, messages_pb2 as pb


def test_generated_code_matches_proto():
    assert proto_gen.drift() == []


def test_drift_is_detected(tmp_path):
    for name, text in proto_gen.generate().items():
        (tmp_path / name).write_text(text)
    assert proto_gen.drift(tmp_path) == []
    p = tmp_path / "messages_pb2.py"
    p.write_text(p.read_text().replace("DecisionRequest", "DecisionRequesT", 1))
    (tmp_path / "stray_pb2.py").write_text("")
    assert proto_gen.drift(tmp_path) == ["messages_pb2.py", "stray_pb2.py"]


def test_package_and_service():
    assert pb.DESCRIPTOR.package == "taash.arena.v1"
    svc = arena_pb2.DESCRIPTOR.services_by_name["Arena"]
    methods = {m.name: (m.client_streaming, m.server_streaming) for m in svc.methods}
    assert methods == {"Play": (True, True), "Watch": (False, True), "WatchBatches": (False, True),
                       "RunMatches": (False, True),
                       "ListBots": (False, False), "MyStanding": (False, False)}
    protos = sorted(p.name for p in (Path(proto_gen.PROTO_DIR) / "taash" / "arena" / "v1").glob("*.proto"))
    assert protos == ["arena.proto", "messages.proto"]


def test_decision_request_carries_what_the_issue_asks():
    fields = set(pb.DecisionRequest.DESCRIPTOR.fields_by_name)
    assert {"request_id", "observation_json", "legal_actions", "deadline_ms", "time_bank_ms"} <= fields
    assert set(pb.Answer.DESCRIPTOR.fields_by_name) == {"request_id", "action"}
    kinds = set(pb.Verdict.Kind.keys())
    assert {"TIMEOUT", "LATE_ANSWER", "ILLEGAL_ACTION", "STRIKE_OUT", "MALFORMED_MESSAGE", "STALE_REQUEST",
            "UNKNOWN_REQUEST", "DISCONNECTED", "CRASHED", "ABSENT", "BOT_ERROR", "RESUMED"} <= kinds
