"""proto/observation.schema.json (the JSON Schema of a DecisionRequest's
observation_json, docs/protocol.md) against real observations of every shipped variant,
and its example of a hidden-trump deal against the rules (docs/rules.md §28.7)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from tests.helpers import ROOT

from taash.arena.bots.registry import resolve
from taash.interpreter import Match, load_variant, shipped_variants
from taash.interpreter.playout import play

SCHEMA = json.loads((ROOT / "proto" / "observation.schema.json").read_text())


def validator():
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA, format_checker=cls.FORMAT_CHECKER)


def observations(name: str, bot: str, seed: int, deals: int) -> list[dict]:
    """The observations of a match's decisions, as the arena sends them (JSON text, parsed)."""
    v = load_variant(name)
    agents = [resolve(bot).make(v, seed + s) for s in range(v.players)]
    seen = []

    def asking(agent):
        def decide(obs, legal):
            seen.append(json.loads(json.dumps(obs, separators=(",", ":"), ensure_ascii=False)))
            return agent.decide(obs, legal)
        return decide

    play(Match(v, seed), [asking(a) for a in agents], prefer="observation", max_deals=deals)
    return seen


@pytest.mark.parametrize("name", shipped_variants())
def test_real_observations_of_every_shipped_variant_fit_the_schema(name):
    check = validator()
    phases = set()
    for bot, seed in (("heuristic", 1), ("random", 2)):
        obs = observations(name, bot, seed, deals=2)
        assert obs
        for o in obs:
            # the schema names every key (additionalProperties is open, so this is the
            # check that it does not fall behind the engine)
            assert set(o) == set(SCHEMA["properties"]), set(o) ^ set(SCHEMA["properties"])
            errors = sorted(check.iter_errors(o), key=str)
            assert not errors, f"{name} seat {o['seat']} {o['phase']}: {errors[0].message} at {list(errors[0].path)}"
            assert o["to_act"] == o["seat"] and o["legal_actions"]
            phases.add(o["phase"])
    # every variant has a play; one without an auction has its bids of one's own
    # (call-break) or a trump choice (court-piece)
    v = load_variant(name)
    assert {"auction" if v.has_auction else "bids" if v.has_bids else "trump", "play"} <= phases


def test_the_schema_requires_every_key_it_names_and_protocol_md_lists_them():
    import re
    assert SCHEMA["required"] == list(SCHEMA["properties"])
    doc = (ROOT / "docs" / "protocol.md").read_text()
    listed = re.search(r"Today's keys: `([^`]*)`", doc).group(1).split()
    assert listed == SCHEMA["required"]


def test_the_schema_is_strict_where_it_matters():
    """It can fail: a card not of the notation, a missing key, a bad history entry."""
    check = validator()
    [ex] = SCHEMA["examples"]
    assert check.is_valid(ex)
    for bad in ({**ex, "hand": ["10H"]}, {**ex, "trick": [[2, "7d"]]}, {**ex, "trump": "X"},
                {k: x for k, x in ex.items() if k != "face_down"}, {**ex, "history": [[0]]},
                {**ex, "legal_actions": [""]}, {**ex, "seat": -1}):
        assert not check.is_valid(bad)
    assert check.is_valid({**ex, "a_key_of_a_later_version": 1})    # new keys are allowed


def test_the_hidden_trump_example_hides_the_trump():
    """28, seat 3 (not the declarer, seat 1) while the declarer's trump card lies face
    down (§28.7): the history shows `trump-card` without the card, trump and trump_card
    are null."""
    [ex] = SCHEMA["examples"]
    assert ex["variant"] == "28" and ex["seat"] == 3 and ex["declarer"] == 1
    assert ex["face_down"] is True and ex["trump_exposed"] is False
    assert ex["trump"] is None and ex["trump_card"] is None and ex["exposed_card"] is None
    assert [1, "trump-card"] in ex["history"]
    assert not any(a.startswith("trump-card ") for _, a in ex["history"])
    # 8 cards each (§28.2), one trick played (JH QH 8H 7H), seat 2 led the second with 7D,
    # the declarer's card lies face down
    assert ex["hand_sizes"] == [7, 6, 6, 7] and len(ex["hand"]) == 7
