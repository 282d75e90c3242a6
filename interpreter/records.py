"""Records: a match as JSON, and replaying it (docs/records.md).

A record is ``{"format": "taash-record/1", "variant", "options", "seed", "deals":
[{"dealer", "hands", "widow", "actions", "variables"}]}``; ``hands`` may be omitted (the
seed deals), ``variables`` too (the match-scope variables at the deal's start: checked).
"""

from __future__ import annotations

import json
from pathlib import Path

from .engine import Match
from .errors import ActionError, TaashError
from .variant import Variant, load_variant

FORMAT = "taash-record/1"
SET_FORMAT = "taash-records/1"  # several matches in one file: {"format", "records": [record, ...]}
MAX_RECORDS = 100_000


class RecordError(TaashError, ValueError):
    """A record that cannot be replayed: malformed, or an illegal action. For an illegal
    action ``deal``/``index`` (0-based), ``action`` and ``legal`` say where and what."""

    def __init__(self, message, deal=None, index=None, action=None, legal=None):
        super().__init__(message)
        self.deal, self.index, self.action, self.legal = deal, index, action, legal


def read_record(path: str | Path) -> dict:
    """Read a record file. Raises RecordError for unreadable or malformed JSON."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RecordError(f"{path} is not JSON: {e}") from None
    return data


def record_set(records: list[dict]) -> dict:
    """One file's worth of several records: ``{"format": "taash-records/1", "records": [...]}``."""
    return {"format": SET_FORMAT, "records": list(records)}


def records_of(data) -> list[dict]:
    """The records a file holds: ``[data]`` for one record, the records of a set (in
    order) for a set. Raises RecordError for a malformed set (each record is checked by
    `replay`)."""
    if isinstance(data, dict) and data.get("format") == SET_FORMAT:
        recs = data.get("records")
        if not isinstance(recs, list) or not recs:
            raise RecordError("a set of records needs 'records': a list of at least one record")
        if len(recs) > MAX_RECORDS:
            raise RecordError(f"a set of records holds at most {MAX_RECORDS} records")
        for i, r in enumerate(recs):
            if not isinstance(r, dict):
                raise RecordError(f"record {i} of the set must be an object")
        return recs
    return [data]


def _check_shape(rec) -> None:
    if not isinstance(rec, dict):
        raise RecordError("a record is a JSON object")
    if rec.get("format") != FORMAT:
        raise RecordError(f"record format must be {FORMAT!r}, not {rec.get('format')!r}")
    for key, typ in (("variant", str), ("deals", list)):
        if not isinstance(rec.get(key), typ):
            raise RecordError(f"record field {key!r} must be a {typ.__name__}")
    if not isinstance(rec.get("options", {}), dict):
        raise RecordError("record field 'options' must be an object")
    seed = rec.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError("record field 'seed' must be an integer")
    for i, d in enumerate(rec["deals"]):
        if not isinstance(d, dict):
            raise RecordError(f"deal {i + 1} must be an object")
        if not isinstance(d.get("actions"), list) or not all(isinstance(a, str) for a in d["actions"]):
            raise RecordError(f"deal {i + 1}: 'actions' must be a list of action texts")
        if "dealer" in d and (not isinstance(d["dealer"], int) or isinstance(d["dealer"], bool)):
            raise RecordError(f"deal {i + 1}: 'dealer' must be a seat number")
        if "hands" in d and not (isinstance(d["hands"], list)
                                 and all(isinstance(h, list) and all(isinstance(c, str) for c in h)
                                         for h in d["hands"])):
            raise RecordError(f"deal {i + 1}: 'hands' must be a list of lists of card texts")
        if "widow" in d and not (isinstance(d["widow"], list) and all(isinstance(c, str) for c in d["widow"])):
            raise RecordError(f"deal {i + 1}: 'widow' must be a list of card texts")
        if "variables" in d and not isinstance(d["variables"], dict):
            raise RecordError(f"deal {i + 1}: 'variables' must be an object (variable name -> value)")


def replay(rec: dict, variant: Variant | None = None, base: str | Path | None = None) -> Match:
    """Replay a record; returns the Match with every deal applied. ``base``: the record's
    folder, against which a relative variant path is resolved first. Raises RecordError
    (malformed record, a variant changed since the record was written, bad hands, an
    illegal action: naming the deal (counted from 1, as `taash replay` prints them), the
    action's index in the deal's ``actions`` (from 0), the action and the legal set) or
    VariantError (the record's variant does not load)."""
    return _replay(rec, variant, base)


def observation_at(rec: dict, seat: int, deal: int, at: int | None = None, variant: Variant | None = None,
                   base: str | Path | None = None) -> dict:
    """What ``seat`` observes (`State.observation`, the shape of
    proto/taash/arena/v1/observation.schema.json) in deal ``deal`` of the record (from 1)
    before its action ``at`` (the index in the deal's ``actions``, from 0: ``at`` actions
    have been applied; None or the number of actions: at the end of the deal). The
    record is replayed up to there, so scores and variables are the match's. Raises
    RecordError for a seat, deal or action index the record has not, and as `replay`."""
    _check_shape(rec)
    deals = rec["deals"]
    if not 1 <= deal <= len(deals):
        raise RecordError(f"the record has deals 1..{len(deals)}, not {deal}" if deals else
                          "the record has no deal")
    n = len(deals[deal - 1]["actions"])
    if at is None:
        at = n
    if not 0 <= at <= n:
        raise RecordError(f"deal {deal} has actions 0..{n - 1}: --at takes 0..{n} (0: before the first, "
                          f"{n}: at the end)")
    st = _replay(rec, variant, base, stop=(deal - 1, at))
    if not (isinstance(seat, int) and 0 <= seat < st.v.players):
        raise RecordError(f"seat {seat} is not a seat 0..{st.v.players - 1} of {st.v.name}")
    return st.observation(seat)


def _replay(rec: dict, variant: Variant | None, base, stop: tuple[int, int] | None = None):
    """`replay`; with ``stop`` (deal index from 0, number of its actions), the State of
    that deal once that many of its actions are applied."""
    _check_shape(rec)
    if variant is None:
        name = rec["variant"]
        copy = rec.get("variant_copy")     # the arena's copy of a caller's file: what was played
        copy = Path(copy) if isinstance(copy, str) else None
        if copy is not None and not copy.is_absolute():
            copy = Path(base) / copy if base is not None else None
        if copy is not None and copy.is_file():
            name = str(copy)
        elif base is not None and not Path(name).is_absolute() and (Path(base) / name).is_file():
            name = str(Path(base) / name)
        variant = load_variant(name, rec.get("options") or None)
    v = variant
    digest = rec.get("variant_sha256")
    if digest is not None and digest != v.digest:
        raise RecordError(f"the variant {rec['variant']!r} has changed since this record was written "
                          "(its variant_sha256 differs): the record may not replay the same; restore "
                          "that file, or remove variant_sha256 from the record to replay anyway")
    m = Match(v, rec.get("seed", 0))
    for i, d in enumerate(rec["deals"]):
        if m.over:
            raise RecordError(f"deal {i + 1}: the match was already over after deal {i}", deal=i)
        dealer = d.get("dealer", m.dealer)
        if not 0 <= dealer < v.players:
            raise RecordError(f"deal {i + 1}: dealer {dealer} is not a seat 0..{v.players - 1}", deal=i)
        try:
            st = m.new_deal(hands=d.get("hands"), widow=d.get("widow"), dealer=dealer)
        except ValueError as e:
            raise RecordError(f"deal {i + 1}: {e}", deal=i) from None
        if "variables" in d:
            _check_variables(v, st, d["variables"], i)
        last = stop is not None and stop[0] == i
        for k, a in enumerate(d["actions"][:stop[1]] if last else d["actions"]):
            if st.is_terminal:
                raise RecordError(f"deal {i + 1}, action {k}: {a!r} after the end of the deal",
                                  deal=i, index=k, action=a, legal=[])
            try:
                st.apply(a)
            except ActionError as e:
                raise RecordError(f"deal {i + 1}, action {k}: illegal action {a!r} (seat {st.to_act}); "
                                  f"legal: {', '.join(e.legal)}", deal=i, index=k, action=a,
                                  legal=e.legal) from None
        if last:
            return st
        if not st.is_terminal:
            raise RecordError(f"deal {i + 1}: the record ends before the deal does "
                              f"(seat {st.to_act} to act; legal: {', '.join(st.legal_actions())})",
                              deal=i, index=len(d["actions"]), legal=st.legal_actions())
        m.finish_deal(st)
    return m


def _check_variables(v: Variant, st, given: dict, i: int) -> None:
    """The record's match-scope variables at the start of deal ``i`` are those the replay
    reached (a record replays exactly or not at all). Raises RecordError."""
    have = v.variables_json(st.start_vars, public_only=False, scope="match")
    for name, value in given.items():
        if name not in have:
            raise RecordError(f"deal {i + 1}: the record names a variable {name!r} that the variant "
                              f"has not (its match-scope variables: {', '.join(have) or 'none'})", deal=i)
        if have[name] != value or type(have[name]) is not type(value):
            raise RecordError(f"deal {i + 1}: the record has {name} = {json.dumps(value)} at the deal's "
                              f"start, but the replay reaches {json.dumps(have[name])}", deal=i)


def replay_json(m: Match) -> dict:
    """The documented output of `taash replay --json`: {"deals": [...], "match": {...}}."""
    return {"deals": [st.result() for st in m.deals], "match": m.summary()}
