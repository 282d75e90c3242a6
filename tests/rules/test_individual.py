"""Each player for himself (`partnership: individual`) and a contract that changes hands
(`declarer = ...` in a declaration's effect), on the worked example of docs/authoring.md
("Each player for himself, and a contract that changes hands"), a game we do not ship:
docs/examples/three-hand-alone.yaml. Values worked out by hand from the file's rules."""

from __future__ import annotations

import pickle
import random
import re

import pytest

from taash.interpreter import Match, State, VariantError, check_files, load_variant, replay
from taash.interpreter.rulebook import render

from tests.helpers import ROOT

EXAMPLE = ROOT / "docs" / "examples" / "three-hand-alone.yaml"
GUIDE = (ROOT / "docs" / "authoring.md").read_text()

# dealer 0, eldest 1: seat 2 holds every heart and the two top spades; seat 1 has no heart
HANDS = [["TD", "9D", "AC", "KC", "QC", "JC", "TC", "9C"],
         ["QS", "JS", "TS", "9S", "AD", "KD", "QD", "JD"],
         ["AH", "KH", "QH", "JH", "TH", "9H", "AS", "KS"]]


@pytest.fixture(scope="module")
def v():
    return load_variant(EXAMPLE)


def _play_first(st):
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])


def test_the_guide_shows_the_file_the_tests_load():
    blocks = re.findall(r"```yaml\n(.*?)```", GUIDE, re.S)
    assert EXAMPLE.read_text() in blocks


def test_the_example_checks_and_every_seat_is_its_own_side(v):
    assert check_files([EXAMPLE]) == []
    assert v.partnership == "individual" and v.score_unit == "seat"
    st = State(v, dealer=0, hands=HANDS)
    assert st.side[:3] == [0, 1, 2]
    assert len(st.scores) == 3


def test_a_lone_hand_takes_over_the_contract_and_wins_every_trick(v):
    st = State(v, dealer=0, hands=HANDS)
    assert (st.declarer, st.target, st.to_act) == (1, 4, 1)   # contract: eldest, 4
    st.apply("trump H")
    st.apply("pass")               # seat 1
    st.apply("declare alone")      # seat 2: declarer = me; target = tricks
    st.apply("pass")               # seat 0
    assert (st.declarer, st.target, st.to_act) == (2, 8, 2)   # he leads (play.leader: declarer)
    assert st.side[:3] == [0, 1, 2]                           # individual: the sides stay
    _play_first(st)
    r = st.result()
    # hearts are trump and only seat 2 holds any; AS KS are the top spades: all 8 tricks
    assert [t["winner"] for t in r["tricks"]] == [2] * 8
    assert r["declarer"] == 2 and r["target"] == 8 and r["made"] is True
    assert r["taken_over"] == {"from": 1, "by": "alone", "seat": 2}
    # 8 for his tricks + the stake of 8 (tricks); the others won no trick
    assert r["score_change"] == [0, 0, 16]


def test_without_a_lone_hand_the_eldest_plays_for_four_tricks(v):
    st = State(v, dealer=0, hands=HANDS)
    st.apply("trump S")            # seat 1 names spades: he holds QS JS TS 9S
    for _ in range(3):
        st.apply("pass")
    assert st.to_act == 1
    # seat 1 leads QS: seat 2 must follow with AS (the first legal action is the lowest
    # id: AS), seat 0 has no spade
    _play_first(st)
    r = st.result()
    assert "taken_over" not in r and r["declarer"] == 1
    won = [sum(1 for t in r["tricks"] if t["winner"] == s) for s in range(3)]
    assert sum(won) == 8
    made = won[1] >= 4
    stake = 2 if made else -2
    assert r["made"] is made
    assert r["score_change"] == [won[0], won[1] + stake, won[2]]


def test_the_rulebook_says_each_for_himself_and_the_take_over(v):
    text = render(v)
    assert "each player plays for himself" in text
    assert "the player takes over the contract: he is the declarer from now on" in text
    assert "Scores are kept for each player" in text
    assert "- for each seat s: the score of s goes up by the number of tricks won by s" in text


def test_a_lone_hand_replays_pickles_and_copies(v):
    m = Match(v, seed=3)
    rng = random.Random(5)
    while not m.over and m.played < 12:
        st = m.new_deal()
        while not st.is_terminal:
            if st.phase == "declare":   # the eldest passes, the next seat goes alone
                eldest = st.to_act == (st.dealer + 1) % 3
                st.apply("declare alone" if not eldest and "declare alone" in st.legal_actions() else "pass")
                continue
            st.apply(rng.choice(st.legal_actions()))
        m.finish_deal(st)
    rec = m.record()
    again = replay(rec, variant=v)
    assert [d.result() for d in again.deals] == [d.result() for d in m.deals]
    for d in m.deals:   # the seat after the eldest goes alone in every deal
        r = d.result()
        assert r["target"] == 8 and r["declarer"] == (d.dealer + 2) % 3
        assert r["taken_over"] == {"from": (d.dealer + 1) % 3, "by": "alone", "seat": r["declarer"]}
    st = m.deals[-1]
    back = pickle.loads(pickle.dumps(st))
    assert back.result() == st.result() and back.taken_over == st.taken_over


def test_the_sides_re_form_when_a_solo_contract_changes_hands(tmp_path):
    # 304-solo: the declarer alone on side 0; a declaration that hands the contract to the
    # player who makes it puts him alone on side 0 and the old declarer among the others
    p = tmp_path / "take.yaml"
    p.write_text('extends: "28"\nname: take\nplayers: 3\npartnership: solo\n'
                 'deck: {suits: [S, H, D, C], ranks: [J, "9", A, T, K, Q], '
                 'points: {J: 3, "9": 2, A: 1, T: 1}, total: 28}\n'
                 'flow: [{deal: [4]}, auction, trump, {deal: [4]}, {declare: eldest}, play]\n'
                 'trump: {mode: open}\n'
                 'auction: {min_bid: 14, max_bid: 28, order: round, may_pass: "true",\n'
                 '          may_bid: number > high_bid, ends: passes == players - 1 and bids > 0}\n'
                 'declarations:\n  take:\n    at: flow\n    when: me != declarer\n'
                 '    effect: |\n      declarer = me\n      target = 20\n'
                 'scoring:\n  made: points(declarer_side) >= target\n'
                 '  effect: |\n    when made: score[declarer_side] += 1\n    else: score[declarer_side] -= 1\n'
                 'match: {score: side, ends: max(score) >= 6}\n')
    v = load_variant(p)
    st = Match(v, 1).new_deal()
    while st.phase != "declare":
        st.apply(st.legal_actions()[-1] if st.phase == "auction" and st.bids == 0 else st.legal_actions()[0])
    old = st.declarer
    while st.phase == "declare":
        if "declare take" in st.legal_actions():
            taker = st.to_act
            st.apply("declare take")
        else:
            st.apply("pass")
    assert taker != old and st.declarer == taker and st.target == 20
    assert st.side[taker] == 0 and st.side[old] == 1
    assert sorted(st.side[:3]) == [0, 1, 1]


def test_no_contract(tmp_path):
    # `declarer = none`: the deal goes on without one and is scored by the effect alone
    text = EXAMPLE.read_text().replace("declarer = me\n      target = tricks", "declarer = none")
    text = text.replace("stake = tricks if", "stake = 0 if").replace("leader: declarer", "leader: eldest")
    text = text.replace("    when made: score[declarer] += stake\n    else: score[declarer] -= stake\n",
                        "    when made: score[declarer] += stake\n")
    p = tmp_path / "none.yaml"
    p.write_text(text)
    v = load_variant(p)
    st = State(v, dealer=0, hands=HANDS)
    st.apply("trump H")
    st.apply("pass")
    st.apply("declare alone")
    st.apply("pass")
    assert st.declarer == -1
    assert st.to_act == 1   # play.leader: eldest
    _play_first(st)
    r = st.result()
    assert r["declarer"] is None and r["made"] is None and r["taken_over"] == {"from": 1, "by": "alone", "seat": 2}
    won = [sum(1 for t in r["tricks"] if t["winner"] == s) for s in range(3)]
    assert r["score_change"] == won    # each his tricks, no stake


@pytest.mark.parametrize("rule, message", [
    ("defenders_side == 1", "'defenders_side' means nothing with `partnership: individual`"),
])
def test_individual_refuses_defenders_side(tmp_path, rule, message):
    p = tmp_path / "x.yaml"
    p.write_text(EXAMPLE.read_text().replace("seat_tricks(declarer) >= target", rule))
    with pytest.raises(VariantError) as e:
        load_variant(p)
    assert message in str(e.value)
    assert "opponents(declarer)" in str(e.value)


def test_declarer_is_assigned_only_in_a_declaration(tmp_path):
    p = tmp_path / "x.yaml"
    p.write_text(EXAMPLE.read_text().replace("    stake = tricks", "    declarer = me\n    stake = tricks"))
    with pytest.raises(VariantError) as e:
        load_variant(p)
    assert "'declarer' can be assigned only in a declaration's effect" in str(e.value)
    p.write_text(EXAMPLE.read_text().replace("declarer = me\n", "declarer += 1\n"))
    with pytest.raises(VariantError) as e:
        load_variant(p)
    assert "'+=' changes a number; 'declarer' is a seat" in str(e.value)


def test_a_hidden_trump_cannot_change_hands(tmp_path):
    p = tmp_path / "x.yaml"
    p.write_text('extends: "house/29-single-hand"\nname: x\ndeclarations:\n  single:\n'
                 '    at: flow\n    when: me != declarer\n    effect: declarer = me\n'
                 'trump: {mode: hidden}\n')
    with pytest.raises(VariantError) as e:
        load_variant(p)
    assert "cannot take over the contract (`declarer = ...`) in a game with a trump only the declarer knows" in str(e.value)
    assert ":7:" in str(e.value)   # at the effect's line


def test_replay_tells_the_deal_as_played(v, tmp_path):
    import json

    from tests.engine.test_cli import taash
    st = State(v, dealer=0, hands=HANDS)
    for a in ("trump H", "pass", "declare alone", "pass"):
        st.apply(a)
    _play_first(st)
    rec = {"format": "taash-record/1", "variant": str(EXAMPLE), "options": {}, "seed": 0,
           "deals": [{"dealer": 0, "hands": HANDS, "widow": [], "actions": st.actions()}]}
    p = tmp_path / "rec.json"
    p.write_text(json.dumps(rec))
    r = taash("replay", p)
    assert r.returncode == 0, r.stderr
    # made (seat_tricks(declarer) >= target, the target being all 8 tricks): he took all 8
    assert ("deal 1: dealer 0, declarer 2 (took over the contract from seat 1 by alone), trump H, "
            "target 8: the declarer took 8 tricks, made; tricks per seat [0, 0, 8]; score change [0, 0, 16]") in r.stdout


def test_replay_of_a_game_told_by_tricks_gives_each_seats_tricks(tmp_path):
    """Court piece (its cards have no points, its contract counts tricks): the replay
    gives the tricks of each seat, which add up to the 13 tricks of the deal, and no
    card points."""
    import json

    from tests.engine.test_cli import taash
    v = load_variant("court-piece")
    st = State(v, dealer=0, seed=5)
    while not st.is_terminal:
        st.apply(st.legal_actions()[0])
    won = [sum(1 for _, _, w in st.tricks if w == s) for s in range(4)]
    rec = {"format": "taash-record/1", "variant": "court-piece", "options": {}, "seed": 0,
           "deals": [{"dealer": 0, "hands": [[v.deck.text[c] for c in h] for h in st.dealt],
                      "widow": [], "actions": st.actions()}]}
    p = tmp_path / "rec.json"
    p.write_text(json.dumps(rec))
    r = taash("replay", p)
    assert r.returncode == 0, r.stderr
    assert sum(won) == 13 and f"; tricks per seat {won}; score change" in r.stdout
    assert "points per seat" not in r.stdout
