"""Broken files for the deck, seats and flow constructs (docs/authoring.md): each raises
VariantError whose first problem has the exact file, line and column (worked out by hand
from the text; columns from 1) and a message naming the mistake."""

from __future__ import annotations

from taash.interpreter import load_variant

from tests.dsl.test_broken_files import HEAD, check, write

FLOW = "flow: [{deal: [4]}, auction, trump, {deal: [4]}, {declare: eldest}, play]\n"
# columns on that line: `{deal: [4]}` 8, auction 21, trump 30, `{deal: [4]}` 37,
# `{declare: eldest}` 50 (its rule `eldest` at 60), play 69
AT_FLOW = "declarations:\n  single:\n    at: flow\n    when: me == declarer\n"


def test_a_rank_not_of_the_pack(tmp_path):
    # line 4: `  ranks: [J, "9", A, T, K, Q, "8", "1"]`, the "1" at column 36
    p = write(tmp_path, HEAD + 'deck:\n  ranks: [J, "9", A, T, K, Q, "8", "1"]\n')
    check(p, 4, 36, '"1" is not one of "2", "3"')


def test_too_many_copies(tmp_path):
    p = write(tmp_path, HEAD + "deck:\n  copies: 9\n")   # line 4, the 9 at column 11
    check(p, 4, 11, "9 should be at most 8")


def test_a_flow_without_an_auction_or_a_contract_has_nobody_to_choose_trump(tmp_path):
    # no auction and no `contract:`: no declarer; line 3, the 'trump' step at column 21
    p = write(tmp_path, HEAD + "flow: [{deal: [4]}, trump, {deal: [4]}, play]\nauction: null\n"
                               "scoring:\n  made: null\n")
    check(p, 3, 21, "no deal has a contract (no auction and no `contract:`), so no declarer chooses trump")


def test_a_contract_beside_an_auction(tmp_path):
    # line 3 `contract:`; its mapping starts on line 4, column 3
    p = write(tmp_path, HEAD + "contract:\n  declarer: eldest\n  target: 15\n")
    check(p, 4, 3, "the contract comes from the auction: remove `contract`")


def test_a_contract_rule_of_the_wrong_type(tmp_path):
    # line 6: `  declarer: trump`, the rule at column 13
    p = write(tmp_path, HEAD + "flow: [{deal: [4]}, trump, {deal: [4]}, play]\nauction: null\n"
                               "contract:\n  declarer: trump\n  target: 15\n")
    check(p, 6, 13, "contract.declarer: this rule should be a seat, not a suit")


def test_a_chooser_needs_open_trump(tmp_path):
    # 28 has a hidden trump; line 4: `  chooser: eldest`, the rule at column 12
    p = write(tmp_path, 'extends: "28"\nname: broken\ntrump:\n  chooser: eldest\n')
    check(p, 4, 12, "trump.chooser needs trump.mode 'open'")


def test_sits_out_only_in_a_declaration_at_the_flow(tmp_path):
    # line 5: `    effect: sits_out[me] = true`, `sits_out` at column 13
    p = write(tmp_path, HEAD + "declarations:\n  royals:\n    effect: sits_out[me] = true\n")
    check(p, 5, 13, "'sits_out' can be assigned only in the effect of a declaration with `at: flow`")


def test_a_declaration_at_the_flow_needs_a_declare_step(tmp_path):
    p = write(tmp_path, HEAD + AT_FLOW)   # line 5: `    at: flow`, the value at column 9
    check(p, 5, 9, "add one (e.g. `- declare: eldest` before play)")


def test_a_declare_step_needs_a_declaration_at_the_flow(tmp_path):
    p = write(tmp_path, HEAD + FLOW)
    check(p, 3, 50, "a 'declare' step needs a declaration with `at: flow`")


def test_a_declare_step_with_a_misspelt_seat(tmp_path):
    p = write(tmp_path, HEAD + FLOW.replace("eldest", "eldst") + AT_FLOW)
    check(p, 3, 60, "unknown name 'eldst'")


def test_a_declare_step_before_the_auction_loads(tmp_path):
    p = write(tmp_path, HEAD + "flow: [{deal: [4]}, {declare: eldest}, auction, trump, {deal: [4]}, play]\n"
              + AT_FLOW)
    assert [name for name, _ in load_variant(p).steps] == ["deal", "declare", "auction", "trump", "deal", "play"]


def test_a_step_before_the_auction_is_shown_at_that_step(tmp_path):
    # line 3: `flow: [{deal: [4]}, trump, auction, {deal: [4]}, play]`, `trump` at column 21
    p = write(tmp_path, HEAD + "flow: [{deal: [4]}, trump, auction, {deal: [4]}, play]\n")
    check(p, 3, 21, "'trump' comes before the auction: the flow must hold the auction first and play last")


def test_a_step_after_play_is_shown_at_that_step(tmp_path):
    # line 3: `flow: [{deal: [4]}, auction, {deal: [4]}, play, trump]`, `trump` at column 49
    p = write(tmp_path, HEAD + "flow: [{deal: [4]}, auction, {deal: [4]}, play, trump]\n")
    check(p, 3, 49, "'trump' comes after play: the flow must hold play last")


def test_a_widow_set_aside_is_not_exchanged(tmp_path):
    # `exchange` at column 62 of line 3
    p = write(tmp_path, 'extends: "304-solo"\nname: x\n'
                        'flow: [{deal: [5, 5]}, {widow: 2, set_aside: true}, auction, exchange, trump, play]\n')
    check(p, 3, 62, "a widow with `set_aside: true` is not exchanged")


def test_tricks_won_takes_a_side_not_a_seat(tmp_path):
    # line 4: `  made: tricks_won(declarer) >= 5`, the argument at column 20
    p = write(tmp_path, HEAD + "scoring:\n  made: tricks_won(declarer) >= 5\n")
    check(p, 4, 20, "should be a side, not a seat")
