"""`taash replay REC --seat N --deal D --at K`: what a seat observes at a point of a record
(records.observation_at), and record errors that count deals as the replay prints them."""

from __future__ import annotations

import json

import pytest

from taash.interpreter import Match, RecordError, State, load_variant, replay
from taash.interpreter.records import observation_at

from tests.engine.test_cli import taash
from tests.helpers import ROOT

EXAMPLE = ROOT / "docs" / "examples" / "three-hand-alone.yaml"
HANDS = [["TD", "9D", "AC", "KC", "QC", "JC", "TC", "9C"],
         ["QS", "JS", "TS", "9S", "AD", "KD", "QD", "JD"],
         ["AH", "KH", "QH", "JH", "TH", "9H", "AS", "KS"]]
ACTIONS = ["trump H", "pass", "declare alone", "pass"]


def _record():
    v = load_variant(EXAMPLE)
    st = State(v, dealer=0, hands=HANDS)
    for a in ACTIONS:
        st.apply(a)
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])
    return {"format": "taash-record/1", "variant": str(EXAMPLE), "options": {}, "seed": 0,
            "deals": [{"dealer": 0, "hands": HANDS, "widow": [], "actions": st.actions()}]}


def test_before_the_first_action_the_eldest_names_trump_from_four_cards():
    rec = _record()
    obs = observation_at(rec, 1, 1, 0)
    assert obs["phase"] == "trump" and obs["to_act"] == 1 and obs["history"] == []
    assert obs["hand"] == ["QS", "JS", "TS", "9S"]          # the first packet, sorted
    assert obs["legal_actions"] == ["trump S", "trump H", "trump D", "trump C"]
    other = observation_at(rec, 0, 1, 0)
    assert other["legal_actions"] == [] and other["hand"] == ["TD", "9D", "AC", "KC"]


def test_after_the_lone_hand_every_seat_sees_the_new_declarer():
    rec = _record()
    for seat in range(3):
        obs = observation_at(rec, seat, 1, 4)
        assert obs["declarer"] == 2 and obs["target"] == 8 and obs["trump"] == "H"
        assert obs["phase"] == "play" and obs["to_act"] == 2
        assert obs["history"] == [[1, "trump H"], [1, "pass"], [2, "declare alone"], [0, "pass"]]
    assert observation_at(rec, 2, 1, 4)["legal_actions"][:2] == ["play AS", "play KS"]  # deck order


def test_at_the_end_and_past_it():
    rec = _record()
    n = len(rec["deals"][0]["actions"])
    end = observation_at(rec, 0, 1)
    assert end == observation_at(rec, 0, 1, n)
    assert end["phase"] == "done" and end["score"] == [0, 0, 16] and len(end["tricks"]) == 8
    with pytest.raises(RecordError, match=rf"deal 1 has actions 0..{n - 1}: --at takes 0..{n}"):
        observation_at(rec, 0, 1, n + 1)
    with pytest.raises(RecordError, match=r"the record has deals 1..1, not 2"):
        observation_at(rec, 0, 2, 0)
    with pytest.raises(RecordError, match=r"seat 3 is not a seat 0..2"):
        observation_at(rec, 3, 1, 0)


def test_the_command_prints_the_observation(tmp_path):
    p = tmp_path / "rec.json"
    p.write_text(json.dumps(_record()))
    r = taash("replay", p, "--seat", 2, "--at", 4)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == observation_at(_record(), 2, 1, 4)
    r = taash("replay", p, "--at", 4)
    assert r.returncode == 2 and "give --seat N" in r.stderr


def test_a_deal_after_the_match_end_is_named_as_the_replay_counts():
    v = load_variant("29")
    m = Match(v, seed=2)
    while not m.over:
        st = m.new_deal()
        while not st.is_terminal:
            st.apply(st.legal_actions()[-1] if st.phase == "auction" and st.bids == 0 else st.legal_actions()[0])
        m.finish_deal(st)
    rec = m.record()
    k = len(rec["deals"])
    rec["deals"].append(rec["deals"][-1])
    with pytest.raises(RecordError, match=rf"^deal {k + 1}: the match was already over after deal {k}$"):
        replay(rec, variant=v)
