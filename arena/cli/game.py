"""The engine's commands: `taash check|simulate|replay|rules|variants` (the core install)."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from pathlib import Path

import yaml

from taash.interpreter import (RecordError, VariantError, check_files, load_variant, read_record, replay,
                               replay_json, shipped_variants)

from taash.interpreter.loader import More, resolve_name
from taash.interpreter.records import observation_at, record_set, records_of
from taash.interpreter.variant import check_warnings
from taash.interpreter.rulebook import diff, render
from taash.interpreter.auction import reads_target
from taash.interpreter.scoring import made_decided_by_names, made_units
from taash.kernel import why_not

from ..bots import registry
from ..errors import LadderError, UsageError
from .args import bots_list, parse_set, shipped_path


def cmd_check(args) -> int:
    """Every problem of each file, in order of position; then how many, in how many files."""
    paths = args.paths
    bad = count = 0
    for p in paths:
        real = shipped_path(p)
        problems = check_files([real])
        warnings = [] if problems else check_warnings([real])
        given = Path(real).resolve() if Path(real).is_file() else None
        for pr in warnings:   # the file loads: its warnings, then "ok"
            if given is not None and pr.file == str(given):
                pr = dataclasses.replace(pr, file=p)
            print(pr.format(), file=sys.stderr)
        if problems:
            bad += 1
            # a More stands for the problems past the first ones: counted, not listed
            count += sum(pr.count if isinstance(pr, More) else 1 for pr in problems)
            for pr in problems:
                if given is not None and pr.file == str(given):   # the file as the user named it
                    pr = dataclasses.replace(pr, file=p)
                print(pr.format(), file=sys.stderr)
        else:
            print(f"{p}: ok" + (f" ({len(warnings)} warning{'s' if len(warnings) != 1 else ''})" if warnings else ""))
            if args.kernel:
                print(f"{p}: {_kernel_verdict(load_variant(real))}")
    if bad:
        print(f"{count} problem{'s' if count != 1 else ''} in {bad} of {len(paths)} "
              f"file{'s' if len(paths) != 1 else ''}", file=sys.stderr)
    return 1 if bad else 0


def _kernel_verdict(v) -> str:
    """Whether the compiled kernel (`taash.kernel`) plays variant ``v``, in words: each
    deal size of a flow that changes by deal is its own kernel."""
    deals = [v] if v.deal_sizes is None else sorted(set(v.deal_variants.values()), key=lambda d: d.deal_index)
    reasons = []
    for d in deals:
        why = why_not(d)
        if why is not None:
            reasons.append(why if len(deals) == 1 else f"deal size {d.deal_index}: {why}")
    if not reasons:
        return "the compiled kernel plays it (the fast extra)"
    return f"the Python engine plays it; the compiled kernel cannot ({'; '.join(reasons)})"


def cmd_simulate(args) -> int:
    options = parse_set(args.set)
    v = load_variant(shipped_path(args.variant), options or None)
    if args.matches is not None and args.matches < 1:
        raise UsageError("--matches must be at least 1")
    if args.deals is not None and args.deals < 1:
        raise UsageError("--deals must be at least 1")
    if args.address and not args.cluster:
        raise UsageError("--address is for --cluster ray")
    matches = args.matches if args.matches is not None else (None if args.deals else 1)
    targets = None
    if args.record is not None:  # before playing: a bad place loses no work
        targets = _record_targets(args.record, matches or 1)
    folder = targets is not None and _is_folder(args.record)
    t0 = time.perf_counter()
    if args.cluster:
        if targets is not None:
            raise UsageError("--record is not available with --cluster: simulate the matches to record locally")
        from ..ladder.cluster import simulate_ray
        try:
            ms, summary = [], simulate_ray(args.variant, matches, args.deals, args.seed, options, bots=args.bots,
                                           address=args.address, progress=not args.json)
        except LadderError as e:
            print(f"taash: error: {e}", file=sys.stderr)
            return 1
    else:
        # one file per match (a folder): each written as its match ends; one file for
        # all: written at the end, or with the finished matches on Ctrl-C
        done: list = []

        def finished(k, m):
            if folder:
                _write_records([_match_file(args.record, k)], [m], options)
            done.append(m)      # once written: a Ctrl-C during the write counts it not
        try:
            from ..simulation import simulate
            ms, summary = simulate(v, matches, args.deals, args.seed, options, progress=not args.json,
                                   bots=args.bots, keep=targets is not None, on_match=finished)
        except KeyboardInterrupt:
            if targets is not None and done:
                if not folder:
                    _write_records(targets, done, options)
                print(f"taash: {len(done)} finished match{'es' if len(done) != 1 else ''} recorded in "
                      f"{args.record}", file=sys.stderr)
            raise
    dt = time.perf_counter() - t0
    if targets is not None and not folder:
        _write_records(targets, ms, options)
    if targets is not None and folder:
        targets = [_match_file(args.record, i) for i in range(len(ms))]
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table
    con = Console()
    t = Table(title=f"{v.title}: {summary['deals']} deal{'s' if summary['deals'] != 1 else ''}, "
                    f"{_bots_title(summary['bots'])}, seed {args.seed}")
    by_side = v.score_unit == "side" and v.sides < v.players   # the match scores sides
    unit = "side" if by_side else "seat"
    for col in ("match", "seed", "deals", "over", f"score (per {unit})", f"winners ({unit}s)"):
        t.add_column(col)
    for i, m in enumerate(summary["matches"]):
        over = {"rule": "yes", "deal limit": "deal limit"}.get(m["ended_by"], "no")
        score, winners = (_per_side(v, m["score"], m["winners"]) if by_side else (m["score"], m["winners"]))
        t.add_row(str(i + 1), str(m["seed"]), str(m["deals"]), over,
                  " ".join(map(str, score)), " ".join(map(str, winners)) or "-")
    con.print(t)
    if by_side:
        con.print("sides: " + ", ".join(
            f"{k} = seats {' '.join(str(s) for s in range(v.players) if v.side_of[s] == k)}"
            for k in range(v.sides)))
    rate = summary["contracts_made_rate"]
    con.print(f"contracts made: {summary['contracts_made']} of {summary['deals'] - summary['thrown_in']}"
              f" ({rate:.1%})" if rate is not None else "no contract played")
    if any(summary["faults"]):
        con.print("faults (default actions applied) per seat: " + " ".join(map(str, summary["faults"])))
        for seat, text in enumerate(summary["first_faults"]):
            if text is not None:
                con.print(f"  seat {seat} ({summary['bots'][seat]}), first fault: {text}", highlight=False,
                          markup=False, soft_wrap=True)
    n = summary["deals"]
    con.print(f"{n} deal{'s' if n != 1 else ''} in {dt:.2f} s")
    if targets is not None:
        names = [str(t) for t in targets]
        con.print((f"record written to {names[0]}" if len(ms) == 1 else
                   f"{len(ms)} records written to {names[0]}") if len(names) == 1 else
                  f"{len(names)} records written: {names[0]} ... {names[-1]}")
    return 0


def _per_side(v, score: list, winners: list) -> tuple[list, list]:
    """A match's score and winners per seat (a seat shows its side's) as per side: each
    side's score (that of its first seat) and the sides that won, in order."""
    first = [v.side_of.index(k) for k in range(v.sides)]
    return [score[s] for s in first], sorted({v.side_of[s] for s in winners})


def _bots_title(names) -> str:
    if len(set(names)) == 1:
        return f"{names[0]} bots"
    return "bots " + ", ".join(names)


def _is_folder(path: str) -> bool:
    """--record names a folder (a trailing / or an existing folder): one file per match."""
    return path.endswith(("/", os.sep)) or Path(path).is_dir()


def _match_file(folder, k: int) -> Path:
    """The record file of match ``k`` (0-based) in a --record folder: match-1.json, ..."""
    return Path(folder) / f"match-{k + 1}.json"


def _record_targets(path: str, count: int) -> list[Path]:
    """Where the records of ``count`` matches go: FILE, holding them all (one record, or
    a set of records for several: docs/records.md); inside a folder given with a trailing
    / (made when the records are written, if its parent exists) or an existing folder, one
    file per match, match-1.json, ... Raises UsageError if the place cannot be written."""
    if not path:
        raise UsageError("--record needs a file name")
    p = Path(path)
    if _is_folder(path):
        folder = p
        targets = [_match_file(folder, i) for i in range(count)]
        where = folder if folder.exists() else folder.parent    # a folder to make: its parent
    else:
        folder = where = p.parent
        targets = [p]
    if not where.is_dir():
        raise UsageError(f"cannot write records in {folder}: no such folder")
    if not os.access(where, os.W_OK):
        raise UsageError(f"cannot write records in {folder}: permission denied")
    return targets


def _write_records(targets, matches, options):
    """Write the record of each match to its target, or all of them as one set of records
    when there is one target for several matches."""

    def own(m, p):
        rec = m.record(options)
        if Path(rec["variant"]).is_absolute():  # a file of the user's: named from the record's folder
            rec["variant"] = os.path.relpath(rec["variant"], p.resolve().parent)
        return rec
    if len(targets) == 1 and len(matches) != 1:
        files = [(targets[0], record_set([own(m, targets[0]) for m in matches]))]
    else:
        files = [(p, own(m, p)) for m, p in zip(matches, targets)]
    for p, data in files:
        tmp = p.with_name(p.name + ".tmp")
        try:
            p.parent.mkdir(exist_ok=True)   # a folder named with a trailing / (checked: its parent is)
            tmp.write_text(json.dumps(data, indent=1))
            tmp.replace(p)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise UsageError(f"cannot write the record {p}: {e.strerror or e}") from None
        except BaseException:       # Ctrl-C: no half-written file is left
            tmp.unlink(missing_ok=True)
            raise


def cmd_replay(args) -> int:
    """Replay a record, or each record of a set in turn (docs/records.md)."""
    data = read_record(args.record)
    recs = records_of(data)
    base = Path(args.record).resolve().parent
    if args.seat is None:
        if args.at is not None or args.deal is not None or args.match is not None:
            raise UsageError("--at, --deal and --match say where to look from --seat: give --seat N")
    else:
        return _print_observation(args, recs, base)
    ms = []
    for k, rec in enumerate(recs):  # every match replayed before any output
        try:
            ms.append(replay(rec, base=base))
        except RecordError as e:
            if recs[0] is data:
                raise
            raise RecordError(f"record {k + 1} of the set: {e}", e.deal, e.index, e.action, e.legal) from None
    if args.json:
        out = replay_json(ms[0]) if recs[0] is data else {"matches": [replay_json(m) for m in ms]}
        print(json.dumps(out, indent=2))
        return 0
    for k, (rec, m) in enumerate(zip(recs, ms)):
        if recs[0] is not data:
            print(f"{'' if k == 0 else chr(10)}match {k + 1} of {len(ms)}:")
        _print_replay(rec, m, base)
    return 0


def _named(rec: dict, base: Path) -> str:
    """The record's variant as the user named it: a shipped name; a file's absolute path (a
    path a record of `simulate` gives relative to its own folder, ``base``, made absolute);
    or, in an arena's record of a sent file (``variant_copy``: the arena's copy, which is
    what replays), the file's name as its sender gave it."""
    variant = rec["variant"]
    if variant in shipped_variants() or Path(variant).is_absolute() or rec.get("variant_copy"):
        return variant
    return str((base / variant).resolve())


def _print_observation(args, recs, base) -> int:
    """`taash replay REC --seat N [--match M] [--deal D] [--at K]`: seat N's observation
    before action K of deal D of match M (from 1, from 1, from 0), as JSON."""
    match = 1 if args.match is None else args.match
    if not 1 <= match <= len(recs):
        raise UsageError(f"--match takes 1..{len(recs)}: the file holds {len(recs)} record"
                         f"{'s' if len(recs) != 1 else ''}")
    obs = observation_at(recs[match - 1], args.seat, 1 if args.deal is None else args.deal, args.at, base=base)
    print(json.dumps(obs, indent=2, ensure_ascii=False))
    return 0


def _verdicts_by_deal(rec) -> dict[int, list[dict]]:
    """An arena record's verdicts (``taash.arena.verdicts``, docs/protocol.md) per deal index;
    entries that are not in that shape are left out (the record is a file: any JSON)."""
    arena = rec.get("arena")
    found = arena.get("verdicts") if isinstance(arena, dict) else None
    out: dict[int, list[dict]] = {}
    for v in found if isinstance(found, list) else ():
        if isinstance(v, dict) and type(v.get("deal")) is int and isinstance(v.get("kind"), str):
            out.setdefault(v["deal"], []).append(v)
    return out


def _verdict_line(v: dict) -> str:
    parts = [f"  verdict {v['kind']}"]
    if type(v.get("seat")) is int:
        parts.append(f"seat {v['seat']}")
    if type(v.get("index")) is int:
        parts.append(f"at action {v['index']}")
    if isinstance(v.get("request_id"), str):
        parts.append(f"({v['request_id']})")
    line = " ".join(parts)
    if isinstance(v.get("applied"), str):
        line += f": applied {v['applied']}"
    return line


def _by_tricks(v) -> bool:
    """Whether a variant's deals are told by tricks: its contract counts tricks
    (Variant.target_unit, or a `made` rule that counts only tricks), or its cards have no
    points."""
    return v.target_unit == "tricks" or made_units(v) == {"tricks"} or not v.total


def _decided_by(v, st, units) -> str:
    """What the declarer's side took in the finished deal ``st``, in what the variant's
    `made` rule counts (``units``: scoring.made_units): "150 points", "7 tricks", or both
    ("11 points and 4 tricks") when it reads both; the target's unit first (card points
    when the rule counts neither)."""
    side = st.side[st.declarer]
    took = {"points": f"{st.side_points[side]} points", "tricks": f"{st.side_tricks[side]} trick{'' if st.side_tricks[side] == 1 else 's'}"}
    units = units or {v.target_unit or "points"}
    first = v.target_unit if v.target_unit in units else sorted(units)[0]
    return " and ".join(took[u] for u in [first, *sorted(units - {first})])


def _taken(v, r: dict) -> str:
    """What each seat took in a deal (``r``: State.result()): its tricks in a game told by
    tricks (`_by_tricks`), its card points in one whose cards have points, or both."""
    tricks = [sum(1 for t in r["tricks"] if t["winner"] == s) for s in range(v.players)]
    parts = ([f"tricks per seat {tricks}"] if _by_tricks(v) else []) + (
        [f"points per seat {r['points']}"] if v.total else [])
    return ", ".join(parts) or f"points per seat {r['points']}"


def _print_replay(rec, m, base: Path) -> None:
    v = m.v
    print(f"{v.title} ({_named(rec, base)}), seed {m.seed}: {len(m.deals)} deals")
    verdicts = _verdicts_by_deal(rec)
    units, target_read, by_names = made_units(v), reads_target(v), made_decided_by_names(v)
    for i, st in enumerate(m.deals):
        r = st.result()
        shown = "".join(f"; {k} {json.dumps(x)}" for k, x in r.get("variables", {}).items())  # public ones
        taken = r.get("taken_over")
        if r.get("void"):   # a declaration's `redeal` (its seat and action: the deal's last)
            seat, act = st.history[-1]
            print(f"deal {i + 1}: dealer {r['dealer']}: void (seat {seat} called {act.text}); "
                  f"nothing scored{shown}")
        elif r["declarer"] is None and taken:   # a declaration left the deal without a contract
            print(f"deal {i + 1}: dealer {r['dealer']}: no contract (seat {taken['seat']} declared "
                  f"{taken['by']}), trump {r['trump'] or '-'}; "
                  f"score change {r['score_change']}{shown}")
        elif r["declarer"] is None and "bids" in r:   # each seat bid its own tricks
            tricks = [sum(1 for t in r["tricks"] if t["winner"] == seat) for seat in range(v.players)]
            print(f"deal {i + 1}: dealer {r['dealer']}, trump {r['trump'] or '-'}: bids {r['bids']}, "
                  f"tricks {tricks}; score change {r['score_change']}{shown}")
        elif r["declarer"] is None and not v.has_contract:   # a game played without contracts
            print(f"deal {i + 1}: dealer {r['dealer']}, trump {r['trump'] or '-'}: {_taken(v, r)}; "
                  f"score change {r['score_change']}{shown}")
        elif r["declarer"] is None:
            print(f"deal {i + 1}: dealer {r['dealer']}: everybody passed; thrown in{shown}")
        else:
            bid = f" bid {r['bid']}" if v.has_auction else ""   # no auction: no bid
            who = (f"declarer {r['declarer']}{bid}" if not taken else
                   f"declarer {r['declarer']} (took over the contract from "
                   f"{'nobody' if taken['from'] is None else 'seat ' + str(taken['from'])} by {taken['by']})")
            whose = "the declarer" if v.partnership == "individual" else "declarer's side"
            per_seat = f"; {_taken(v, r)}" if _by_tricks(v) else ""
            target = f", target {r['target']}" if target_read else ""   # one no rule reads: none
            # a `made` rule of the file's own named values: what it counts is not card points
            took = "" if by_names else f"took {_decided_by(v, st, units)}, "
            print(f"deal {i + 1}: dealer {r['dealer']}, {who}, "
                  f"trump {r['trump'] or '-'}{target}: {whose} "
                  f"{took}{'made' if r['made'] else 'failed'}{per_seat}; "
                  f"score change {r['score_change']}{shown}")
        for verdict in verdicts.get(i, ()):     # an arena record's: what the bots did wrong
            print(_verdict_line(verdict))
    s = m.summary()
    over = {"rule": "over", "deal limit": "stopped at the deal limit (no winner)"}.get(s["ended_by"], "not over")
    print(f"match: score {s['score']}, {over}"
          + (f", winners {s['winners']}" if s["winners"] else ""))


def cmd_rules(args) -> int:
    """The rulebook of a variant; with ``--diff [BASE]`` only what differs from BASE, by
    default from the variant's own parent (its ``extends:``)."""
    v = load_variant(shipped_path(args.variant), parse_set(args.set) or None)
    if args.diff is True:
        print(diff(v, load_variant(_parent_of(v))), end="")
    elif args.diff:
        print(diff(v, load_variant(shipped_path(args.diff))), end="")
    else:
        print(render(v), end="")
    return 0


def _parent_of(v) -> str:
    """The path of the file that ``v``'s own file extends. Raises UsageError if it extends none."""
    try:  # the file has just loaded: it is valid YAML
        own = yaml.safe_load(Path(v.path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        own = None
    parent = own.get("extends") if isinstance(own, dict) else None
    if not isinstance(parent, str):
        raise UsageError(f"--diff: {v.ref} extends no variant: give the variant to compare with, --diff BASE")
    return str(resolve_name(parent, Path(v.path).parent))


def cmd_variants(args) -> int:
    names = shipped_variants()
    if args.titles:
        width = max(len(n) for n in names)
        for name in names:
            try:
                title = load_variant(name).title
            except VariantError:
                title = "(does not load: taash check it)"
            print(f"{name:{width}}  {title}")
    else:
        for name in names:
            print(name)
    return 0


def add_commands(sub) -> None:
    """Register `taash check|simulate|replay|rules|variants` on the subparsers of `taash`."""
    c = sub.add_parser("check", help="validate variant files (FILE:LINE:COL errors)")
    c.add_argument("paths", nargs="+", metavar="PATH", help="variant files or shipped names")
    c.add_argument("--kernel", action="store_true",
                   help="also say whether the compiled kernel (pip install 'taash[fast]') can play each file that "
                        "loads, or why not (nothing is compiled)")
    c.set_defaults(fn=cmd_check)
    s = sub.add_parser("simulate", help="play bots (random by default) and print the results")
    s.add_argument("variant", metavar="VARIANT", help="shipped name (29, 28, house/29-hidden-trump) or a YAML path")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--matches", type=int, metavar="M", help="full matches to play (default 1)")
    g.add_argument("--deals", type=int, metavar="N", help="deals to play (matches as needed)")
    s.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first match (default 0)")
    s.add_argument("--bots", type=bots_list, metavar="A,B,...",
                   help=f"a bot per seat: {registry.known()} or NAME=package.module:factory (default: all random)")
    s.add_argument("--set", action="append", metavar="KEY=VALUE", help="set a variant option")
    s.add_argument("--json", action="store_true", help="print the results as JSON")
    s.add_argument("--record", metavar="FILE", help="write the record(s) of the matches")
    s.add_argument("--cluster", choices=["ray"], help="play the matches as Ray tasks (docs/cluster.md; "
                   "pip install 'taash[ray]'): the same summary as a local run")
    s.add_argument("--address", metavar="ADDR", help="with --cluster ray: the cluster's head (host:port, auto); "
                   "default: a local Ray started for the run")
    s.set_defaults(fn=cmd_simulate)
    r = sub.add_parser("replay", help="replay a record and print what happened")
    r.add_argument("record", metavar="RECORD.json")
    r.add_argument("--json", action="store_true", help="print the documented JSON result")
    r.add_argument("--seat", type=int, metavar="N",
                   help="print instead what seat N observes (JSON, as proto/taash/arena/v1/"
                        "observation.schema.json), by default at the end of the first deal")
    r.add_argument("--deal", type=int, metavar="D", help="with --seat: in deal D (from 1, as the replay counts)")
    r.add_argument("--at", type=int, metavar="K",
                   help="with --seat: before action K of the deal (its index in the record's actions, "
                        "from 0: K actions applied)")
    r.add_argument("--match", type=int, metavar="M", help="with --seat: in match M of a set of records (from 1)")
    r.set_defaults(fn=cmd_replay)
    rl = sub.add_parser("rules", help="print a variant as a readable rulebook (Markdown)")
    rl.add_argument("variant", metavar="VARIANT", help="shipped name or a YAML path")
    rl.add_argument("--diff", metavar="BASE", nargs="?", const=True,
                    help="show only what differs from BASE (default: the variant's parent, its extends:)")
    rl.add_argument("--set", action="append", metavar="KEY=VALUE", help="set a variant option")
    rl.set_defaults(fn=cmd_rules)
    v = sub.add_parser("variants", help="list the shipped variants")
    v.add_argument("--titles", action="store_true", help="with their titles")
    v.set_defaults(fn=cmd_variants)
