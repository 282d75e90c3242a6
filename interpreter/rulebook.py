"""A variant as a readable rulebook (Markdown), in plain words generated from the file:
deck and points, deal, auction, trump, play, declarations, scoring, match end.

`rulebook(variant)` -> list of (section title, text); `render(...)` -> Markdown;
`diff(variant, base)` -> Markdown of the sections that differ.
"""

from __future__ import annotations

from lark import Token

from .dsl import names, parser
from .variant import Variant

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {"J": "jack", "9": "nine", "A": "ace", "T": "ten", "K": "king", "Q": "queen",
              "8": "eight", "7": "seven", "6": "six", "5": "five", "4": "four", "3": "three",
              "2": "two"}
# words of the keywords that are values; names and functions have theirs in taash.interpreter.dsl.names
KEYWORD_WORDS = {"true": "always", "false": "never", "none": "nobody"}
_NAME_WORDS = {e.name: e for e in names.NAME_ENTRIES}
OPS = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
       ">=": "is at least"}


def _lit(text: str) -> str:
    if text in SUIT_NAMES:
        return SUIT_NAMES[text]
    if text in RANK_NAMES:
        return RANK_NAMES[text]
    if len(text) == 2 and text[0] in RANK_NAMES and text[1] in SUIT_NAMES:
        return f"the {RANK_NAMES[text[0]]} of {SUIT_NAMES[text[1]]}"
    return text


def words(node) -> str:
    """Plain words for a parsed DSL expression or statement."""
    if isinstance(node, Token):
        return str(node)
    d, ch = node.data, node.children
    if d == "expr_rule" and len(ch) > 1:   # let NAME = ...; then the value
        return "\n".join(words(c) for c in ch)
    if d in ("expr_rule", "effect_rule"):
        return "; ".join(words(c) for c in ch)
    if d == "let_def":
        return f"let *{name_words(str(ch[0]))}* be {words(ch[1])}; then"
    if d in QUANTIFIER_WORDS:
        return QUANTIFIER_WORDS[d].format(x=str(ch[0]), set=words(ch[1]), cond=words(ch[2]))
    if d == "cases":
        return "\n".join(words(c) for c in ch)
    if d == "case":
        return f"- when {words(ch[0])}: {words(ch[1])}"
    if d == "default_case":
        return f"- otherwise: {words(ch[0])}"
    if d == "number":
        return str(ch[0])
    if d in ("true", "false", "none"):
        return KEYWORD_WORDS[d]
    if d == "string":
        return _lit(str(ch[0])[1:-1])
    if d == "name":
        return name_words(str(ch[0]))
    if d == "neg":
        inner = words(ch[0])
        return f"minus ({inner})" if getattr(ch[0], "data", "") in ("binop", "cond") else f"minus {inner}"
    if d == "not_":
        entry = _NAME_WORDS.get(str(ch[0].children[0])) if getattr(ch[0], "data", "") == "name" else None
        if entry is not None and entry.words_not:
            return entry.words_not
        return f"not ({words(ch[0])})"
    if d == "and_":
        return " and ".join(f"({words(c)})" if getattr(c, "data", "") == "or_" else words(c) for c in ch)
    if d == "or_":
        return " or ".join(f"({words(c)})" if getattr(c, "data", "") == "and_" else words(c) for c in ch)
    if d == "otherwise":
        return "; if none, ".join(words(c) for c in ch)
    if d == "cond":
        return f"{words(ch[0])} if {words(ch[1])}, else {words(ch[2])}"
    if d == "compare":
        if getattr(ch[2], "data", "") == "none" and str(ch[1]) in ("==", "!="):
            return f"{words(ch[0])} {'is nobody' if str(ch[1]) == '==' else 'exists'}"
        if str(ch[1]) in RANK_OPS and any(_is_rank(c) for c in (ch[0], ch[2])):
            return f"{words(ch[0])} {RANK_OPS[str(ch[1])]} {words(ch[2])}"
        return f"{words(ch[0])} {OPS[str(ch[1])]} {words(ch[2])}"
    if d == "member":
        return f"{words(ch[0])} is among {words(ch[1])}"
    if d == "not_member":
        return f"{words(ch[0])} is not among {words(ch[1])}"
    if d == "binop":
        op = {"+": "plus", "-": "minus", "*": "times", "//": "divided by", "%": "modulo"}[str(ch[1])]

        def part(c):
            return f"({words(c)})" if getattr(c, "data", "") in ("cond", "binop") else words(c)
        return f"{part(ch[0])} {op} {part(ch[2])}"
    if d == "index":
        return f"{words(ch[0])} of {words(ch[1])}"
    if d == "call":
        f = names.FUNCTIONS.get(str(ch[0]))
        a = [words(c) for c in ch[1:]]
        return f.words(a) if f is not None else f"{ch[0]}({', '.join(a)})"
    if d == "assign":
        lv, op, e = ch
        target = words_lvalue(lv)
        val = words(e)
        if names.ASSIGNABLE.get(str(lv.children[0]), None) is not None and \
                names.ASSIGNABLE[str(lv.children[0])].type == names.BOOL and val in ("always", "never"):
            return target if val == "always" else f"not: {target}"  # `sits_out[x] = true`
        return {"=": f"{target} becomes {val}", "+=": f"{target} goes up by {val}",
                "-=": f"{target} goes down by {val}"}[str(op)]
    if d == "when_stmt":
        return f"when {words(ch[0])}: {words(ch[1])}"
    if d == "when_else":
        return f"when {words(ch[0])}: {words(ch[1])}; otherwise {words(ch[2])}"
    return " ".join(words(c) for c in ch)


# issue 11: quantifiers over seats or cards, and ranks compared in the order of strength
QUANTIFIER_WORDS = {"any_": "for some {x} among {set}, {cond}",
                    "all_": "for every {x} among {set}, {cond}",
                    "those": "those {x} among {set} for which {cond}"}
RANK_OPS = {"<": "ranks below", "<=": "ranks at most", ">": "ranks above", ">=": "ranks at least"}


def _is_rank(node) -> bool:
    """A rank literal (only ranks are ordered among strings) or a ``rank(...)`` call."""
    d = getattr(node, "data", "")
    return d == "string" or (d == "call" and str(node.children[0]) == "rank")


def name_words(name: str) -> str:
    """Words for a name: the registry's, else (an option, a named value) the name itself."""
    entry = _NAME_WORDS.get(name)
    return entry.words if entry is not None else name.replace("_", " ")


def words_lvalue(lv) -> str:
    name = str(lv.children[0])
    entry = names.ASSIGNABLE.get(name)
    if len(lv.children) == 2:
        index = words(lv.children[1])
        return entry.words(index) if entry is not None else f"the {name} of {index}"
    return entry.words(None) if entry is not None else name_words(name)


def rule_words(text, effect: bool = False) -> str:
    """Plain words for one rule's text (a value rule, or an effect when ``effect``)."""
    if isinstance(text, bool):
        return "always" if text else "never"
    tree = parser().parse(str(text), start="effect_rule" if effect else "expr_rule")
    out = words(tree)
    if effect:
        return "\n".join(f"- {part.strip()}" for part in out.split("; ") if part.strip())
    return out


def _rule(v: Variant, *path, effect=False, default=None):
    node = v.data
    for k in path:
        node = node.get(k) if isinstance(node, dict) else None
    if node is None:
        node = default
    if node is None:
        return None
    return rule_words(node, effect)


def rulebook(v: Variant) -> list[tuple[str, str]]:
    """The sections of the rulebook: [(title, Markdown text)]."""
    d = v.deck
    secs = []
    part = {"fixed": "two fixed sides: seat s plays on side s mod 2",
            "called": "no fixed partnerships: the declarer calls a partner by a card",
            "solo": "the declarer plays alone against the others, who form a side"}[v.partnership]
    secs.append(("Players", f"{v.players} players; {part}. Play goes {v.direction} "
                 "(the turn passes from each seat to the next)."))
    pts = ", ".join(f"{RANK_NAMES.get(r, r)} {p}" for r, p in d.points.items() if p)
    unpointed = any(not d.points.get(r) for r in d.ranks)
    copies = {1: "", 2: ", two copies of each card (of two identical cards the first played wins)"}.get(
        d.copies, f", {d.copies} copies of each card (of identical cards the first played wins)")
    deck = (f"{d.size * d.copies} cards: {' '.join(d.ranks)} (strongest first) in "
            f"{', '.join(SUIT_NAMES.get(s, s) for s in d.suits)}{copies}.\n"
            + (f"Points: {pts}{'; other cards 0' if unpointed else ''}." if pts else "No card has points.")
            + (f" The last trick is worth {v.last_trick}." if v.last_trick else "")
            + (f" {v.total} points in all." if v.total else ""))
    secs.append(("Deck and points", deck))
    steps = []
    for st in v.flow:
        if isinstance(st, dict) and "deal" in st:
            packets = " then ".join(str(k) for k in st["deal"])
            steps.append(f"deal {sum(st['deal'])} cards to each player (packets of {packets}), "
                         "starting with the eldest")
        elif isinstance(st, dict) and "declare" in st:
            steps.append(f"each player in turn from {rule_words(st['declare'])} may make one declaration "
                         "(see Declarations) or pass; a player who sits out by then does not call")
        elif isinstance(st, dict):
            steps.append(f"deal {st['widow']} cards face down to the widow"
                         + (", which is set aside unseen: its points count for the declarer"
                            if st.get("set_aside") else ""))
        elif st == "trump" and "chooser" in v.data["trump"]:
            steps.append(f"{rule_words(v.data['trump']['chooser'])} chooses trump")
        else:
            steps.append({"auction": "the auction", "trump": "the declarer chooses trump",
                          "play": "play of the tricks",
                          "exchange": "the declarer exchanges with the widow",
                          "call_partner": "the declarer calls a partner by naming a card",
                          "doubling": "the defenders may double, then the declarer's side may redouble"}[st])
    nd = _rule(v, "match", "next_dealer")
    passes = ("The dealer passes to the next seat after each deal. In order:" if nd is None else
              f"After each deal the next dealer is (the next seat when none is named):\n{nd}\nIn order:"
              if "\n" in nd else f"After each deal the next dealer is {nd} (the next seat when none "
              "is named). In order:")
    secs.append(("Deal", f"{passes}\n"
                 + "\n".join(f"{i + 1}. {s}" for i, s in enumerate(steps))))
    if not v.has_auction:
        ct = v.data["contract"]
        secs.append(("Contract", f"There is no auction. The declarer: {rule_words(ct['declarer'])}. "
                                 f"His target: {rule_words(ct['target'])}."))
    if v.has_auction:
        au = []
        rng = f"from {v.min_bid} to {v.max_bid}" + (f" in steps of {v.bid_step}" if v.bid_step > 1 else "")
        duel = v.auction_order == "duel"
        if duel:
            au.append("The auction is a duel between a holder and a challenger. From the eldest, each "
                      "player in turn bids or passes until one bids: he is the holder. The next player "
                      "in turn who is not out challenges him: the challenger bids above the holder's "
                      "bid or passes, and after each bid of the challenger the holder answers, bidding "
                      "or passing. When the holder passes, the challenger holds the bid; when the "
                      "challenger passes, the next player in turn who is not out challenges. A player "
                      "who passes is out for the deal. The auction ends when no player is left to "
                      "challenge.")
        equal = _rule(v, "auction", "may_equal", default="false")
        au.append(f"Bids are numbers {rng}, each above the high bid"
                  + (f", or equal to it when: {equal} (never two equal bids in a row)."
                     if equal != "never" else "."))
        if v.denominations:
            au.append("A bid names a denomination: " + ", ".join(
                SUIT_NAMES.get(x, f"{x} (no trump)") for x in v.denominations)
                      + (" (a suit may be named before the number)" if v.suit_first else "") + ".")
        if v.standing_bid:
            au.append(f"The dealer holds a standing bid of {v.standing_bid} (not a call).")
        if not duel:
            au.append("A pass is final: a player who passes calls no more." if v.final_pass
                      else "A pass is not final.")
        au.append(f"A player may pass when: {_rule(v, 'auction', 'may_pass')}.")
        au.append(f"A bid is allowed when: {_rule(v, 'auction', 'may_bid')}.")
        if "may_double" in v.data["auction"]:
            au.append(f"A player may double when: {_rule(v, 'auction', 'may_double')}.")
            au.append(f"A player may redouble when: {_rule(v, 'auction', 'may_redouble', default='false')}.")
            au.append("A new bid cancels any double and redouble.")
        ends = _rule(v, 'auction', 'ends')
        head = "The high bidder is the declarer and his bid the target."
        if not duel:
            head = f"The auction ends when: {ends}. {head}"
        elif ends != "never":
            head = f"The auction also ends when: {ends}. {head}"
        au.append(head)
        secs.append(("Auction", "\n".join(au)))
    chooser = v.data["trump"].get("chooser")
    tr = {"open": f"{rule_words(chooser).capitalize() if chooser else 'The declarer'} names trump openly.",
          "hidden": "The declarer lays one card face down as trump; nobody else sees it. "
                    "It is exposed when a player asks for it, and if never asked for, the "
                    "declarer plays it as his last card.",
          "bid": "Trump is the suit named by the contract; a contract that names no suit "
                 "is played without trump.",
          "secret": "The declarer names trump secretly: nobody else knows the suit until a "
                    "player asks for it to be exposed (no card is laid aside). A trump that is "
                    "never exposed stays secret."}[v.trump_mode]
    if v.dealt_card:
        tr += f" He may instead take the {v.dealt_card}th card dealt to him face down as trump."
    secs.append(("Trump", tr))
    pl = [f"The first leader: {_rule(v, 'play', 'leader', default='eldest')}.",
          "A player may play:\n" + _rule(v, "play", "may_play"),
          f"A card counts as a trump when: {_rule(v, 'play', 'counts_as_trump', default='suit(card) == trump')}.",
          "The trick goes to the highest card counting as a trump, else to the highest card of "
          "the suit led."]
    if v.trump_mode in ("hidden", "secret"):
        pl.append(f"A player may ask for trump to be exposed when: {_rule(v, 'play', 'may_expose', default='false')}.")
    if v.data["play"].get("after_trick"):
        pl.append("After each trick:\n" + _rule(v, "play", "after_trick", effect=True))
    secs.append(("Play", "\n".join(pl)))
    if v.declarations:
        ds = []
        for decl in v.declarations:
            dd = v.data["declarations"][decl.name]
            what = f" ({dd['description']})" if dd.get("description") else ""
            form = f"`{decl.action}{' SUIT' if decl.per_suit else ''}`"
            when = ("at the declarations before play" if decl.at == "flow"
                    else "on one's turn before one's card")
            ds.append(f"**{decl.name}**{what}, made as {form} {when}, "
                      f"at most once a deal{' for each suit' if decl.per_suit else ''}, when: "
                      f"{rule_words(dd['when'])}.")
            if dd.get("effect"):
                ds.append("Effect:\n" + rule_words(dd["effect"], True))
            if decl.answers:
                ds.append(f"Answered at once by {rule_words(dd['answered_by'])}: "
                          + " or ".join(f"`{decl.action} {a}`" for a in decl.answers) + ".")
        secs.append(("Declarations", "\n\n".join(ds)))
    made = _rule(v, 'scoring', 'made', default='points(declarer_side) >= target')
    sc = [f"The contract is made:\n{made}" if "\n" in made else f"The contract is made when: {made}.",
          "Then:\n" + _rule(v, "scoring", "effect", effect=True)]
    secs.append(("Scoring", "\n".join(sc)))
    unit = "each side" if v.score_unit == "side" else "each player"
    secs.append(("Match", f"Scores are kept for {unit}, starting at {v.score_start}. The match ends "
                 f"when: {_rule(v, 'match', 'ends')}. Every {'side' if v.score_unit == 'side' else 'player'}"
                 " with the top score wins."))
    if v.data.get("define"):
        secs.append(("Named expressions", "Used by name in the rules above.\n" + "\n".join(
            f"- *{name_words(k)}*: {rule_words(text)}" for k, text in v.data["define"].items())))
    if v.variables:
        secs.append(("Variables", variables_words(v)))
    if v.options:
        secs.append(("Options", "Change one with `--set NAME=VALUE`.\n" + "\n".join(
            f"- `{k}`: {str(val).lower() if isinstance(val, bool) else val}" for k, val in v.options.items())))
    return secs


_TYPE_WORDS = {"number": "a number", "condition": "true or false", "seat": "a seat",
               "side": "a side", "suit": "a suit", "rank": "a rank", "card": "a card"}


def variables_words(v: Variant) -> str:
    """The Variables section: each variable, its type, scope, visibility and initial value."""
    out = ["Values the rules keep, changed only by effects:"]
    for var in v.variables:
        spec = v.data["variables"][var.name]
        scope = ("set at the start of every deal" if var.scope == "deal"
                 else "set at the start of the match and kept from deal to deal")
        seen = "shown to every player" if var.public else "seen by the rules only"
        what = f": {var.description}" if var.description else ""
        out.append(f"- `{var.name}` ({_TYPE_WORDS[var.type]}, {seen}){what}; {scope}, to "
                   f"{rule_words(spec['initial'])}.")
    return "\n".join(out)


def render(v: Variant) -> str:
    """The whole rulebook as Markdown."""
    head = f"# {v.title}\n\n" + (f"Source: {v.data['source']}.\n\n" if v.data.get("source") else "")
    return head + "\n\n".join(f"## {t}\n\n{body}" for t, body in rulebook(v)) + "\n"


def diff(v: Variant, base: Variant) -> str:
    """Markdown of the sections of ``v`` that differ from ``base``, each with the base's
    version quoted after it."""
    mine, theirs = dict(rulebook(v)), dict(rulebook(base))
    mine_name, their_name = v.title, base.title
    if mine_name == their_name:     # a copy that kept its title: named by file (or name) too
        mine_name, their_name = f"{v.title} ({v.ref})", f"{base.title} ({base.ref})"
    out = [f"# {mine_name}: how it differs from {their_name}\n"]
    same = True
    for title, body in rulebook(v):
        if theirs.get(title) != body:
            same = False
            out.append(f"## {title}\n\n{body}\n")
            if title in theirs:
                quoted = "\n".join(f"> {line}" for line in theirs[title].splitlines())
                out.append(f"Instead of ({base.title}):\n\n{quoted}\n")
    for title in theirs:
        if title not in mine:
            same = False
            out.append(f"## {title}\n\nNone (the base has: {theirs[title]})\n")
    if same:
        out.append("No difference.\n")
    return "\n".join(out)
