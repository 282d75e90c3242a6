"""The compiled kernel beside the Python engine: random playouts of the play of the tricks
per second, and the time to compile each variant's kernel (docs/architecture.md, "One
truth, two speeds").

Usage: python bench/kernel.py [--positions P] [--playouts N] [--repeat R] [--decisions D]
                              [--no-search] [--no-compile] [--background] [VARIANT...]

For each variant (29, 56 and 304 by default): P deals are dealt from seeds and played at
random to the first lead of the play phase; from each, N/P random playouts to the end of
the deal (every action drawn uniformly from the legal ones) are timed

- on the kernel (``Kernel.playouts``: copies of the state's array, numba's generator),
- on the Python engine (``State.copy()``, then ``legal_ids``/``apply_id``, ``random.Random``),

each kernel run right after an engine run, so that both see the same machine load, and
the kernel/engine ratio printed as the median of the pairs (target on 29: >= 20). Times
are the process's CPU time (``time.process_time``: both run on one thread), so that the
other processes of a shared machine weigh less on the figures. For 29 also bench/ref29.py's
hand-written deals per second on the same machine: note that a ref29 deal is the whole
deal (the shuffle, the auction, the trump and the play), about twice the decisions of a
playout from the first lead, so its deals/s is the reference for the engine's full-deal
figure in bench/playouts.py, shown here for scale. Speeds are the best of R runs.

Then the search bot (arena/bots/search.py) and the ismcts bot (arena/bots/ismcts.py) at
50 ms a decision in the play phase three ways, decision by decision in turn at the same
positions (``--decisions`` of them, a few plays after the first lead, the seat to act
having a choice): ``kernel``, their worlds drawn and their rollouts played on the kernel
(``kernel=True``: made before the first decision; kernel/worlds.py), ``resample``, their
rollouts on the kernel but their worlds by the engine's ``resample`` (as before
kernel/worlds.py), and ``engine`` (``kernel=False``): the mean rollouts (search's
playouts, ismcts's iterations) and worlds a decision, the ratios kernel/engine for
rollouts and kernel/resample for worlds, and the decisions on which kernel and engine
chose alike. Wall-clock budgets, so the machine's load weighs on all three. Then each
bot at 50 ms a decision before the play (``--decisions`` positions of the auction, the
trump, an exchange: `before_play`), with the kernel (each rollout on the engine to the
first lead, on the kernel from there) and on the engine alone: the mean rollouts a
decision and their ratio.

With ``--background``, the search bot's default (``kernel=None``) from an empty cache
directory: 50 ms decisions in play, back to back, while a child process compiles the
kernel and this process then loads it (`taash.kernel.warm`), and 100 after: the
seconds until it is ready (the child's, the load's), and before and after it the
decisions, their mean rollouts and the slowest decision (ms).

Then, unless ``--no-compile``, the compile time of each variant's kernel, each in a fresh
process: cold (an empty cache directory: the source made and numba compiling) and cached
(the same directory again: numba loading its machine code); wall-clock seconds.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import ref29  # noqa: E402
from taash.interpreter import load_variant  # noqa: E402
from taash.kernel import available, kernel_for, why_not  # noqa: E402
from taash.kernel.positions import before_play, positions  # noqa: E402


def engine_playouts(states, each: int, seed: int) -> tuple[float, int]:
    """``each`` random playouts from each state on the Python engine: (seconds, actions)."""
    rng = random.Random(seed)
    actions = 0
    t0 = time.process_time()
    for st0 in states:
        for _ in range(each):
            st = st0.copy()
            while st.to_act >= 0:
                legal = st.legal_ids()
                st.apply_id(legal[rng.randrange(len(legal))])
                actions += 1
    return time.process_time() - t0, actions


def kernel_playouts(k, arrays, each: int, seed: int) -> float:
    """``each`` random playouts from each state's array on the kernel: seconds."""
    t0 = time.process_time()
    for i, S in enumerate(arrays):
        k.playouts(S, each, seed + i)
    return time.process_time() - t0


def bot_playouts(v, bot: str, count: int, seed: int, budget_ms: float = 50) -> dict:
    """The ``bot`` (search or ismcts) at ``budget_ms`` a decision three ways, in turn at
    the same positions: its worlds and rollouts on the kernel (made before the first
    decision), its rollouts on the kernel and its worlds by the engine's ``resample``
    (``worlds_on_kernel`` False: the bots before kernel/worlds.py), and the engine alone.
    Returns {way: (mean rollouts a decision, mean worlds a decision)} with ways
    ``kernel``, ``resample``, ``engine``, and ``alike``: the decisions on which the first
    and the engine chose alike."""
    from taash.arena.bots.registry import resolve
    factory = resolve(bot).load()
    bots = {"kernel": factory(v, seed, budget_ms=budget_ms, kernel=True),
            "resample": factory(v, seed, budget_ms=budget_ms, kernel=True),
            "engine": factory(v, seed, budget_ms=budget_ms, kernel=False)}
    bots["resample"].worlds_on_kernel = False
    n = "playouts" if bot == "search" else "iterations"
    sts = positions(v, count, seed, later=True)
    bots["kernel"].decide_state(sts[0].copy(), sts[0].to_act)       # the kernel compiled or loaded
    sums = {way: [0, 0] for way in bots}
    alike = 0
    for st in sts:
        chose = {}
        for way, b in bots.items():
            chose[way] = b.decide_state(st, st.to_act)
            sums[way][0] += b.stats[n]
            sums[way][1] += b.stats["worlds"]
        alike += chose["kernel"] == chose["engine"]
    out = {way: (r / len(sts), w / len(sts)) for way, (r, w) in sums.items()}
    out["alike"] = alike
    return out


def bot_before_play(v, bot: str, count: int, seed: int, budget_ms: float = 50) -> tuple[float, float]:
    """The ``bot`` at ``budget_ms`` a decision before the play phase (`before_play`
    positions: a bid, the trump, an exchange), with the kernel (each rollout on it from
    the first lead) and on the engine alone, decision by decision in turn: the mean
    rollouts a decision of each."""
    from taash.arena.bots.registry import resolve
    factory = resolve(bot).load()
    on, off = factory(v, seed, budget_ms=budget_ms, kernel=True), factory(v, seed, budget_ms=budget_ms, kernel=False)
    n = "playouts" if bot == "search" else "iterations"
    sts = before_play(v, count, seed)
    on.decide_state(sts[0].copy(), sts[0].to_act)       # the kernel compiled or loaded
    got = [0, 0]
    for st in sts:
        for i, b in enumerate((on, off)):
            b.decide_state(st, st.to_act)
            got[i] += b.stats[n]
    return got[0] / len(sts), got[1] / len(sts)


def background(v, seed: int, budget_ms: float = 50) -> dict:
    """The search bot's default (``kernel=None``) from an empty cache directory: decisions
    at ``budget_ms`` in play, back to back over a few positions, until the kernel is
    ready (the child's cold compile, then the load) and 100 after. Figures: the
    seconds to ready, the decisions and mean rollouts a decision before and after, and
    the slowest decision of each (ms, wall-clock)."""
    from taash.arena.bots.search import search_bot
    from taash.kernel.warm import KernelUse
    sts = positions(v, 10, seed, later=True)
    with tempfile.TemporaryDirectory() as cache:
        bot = search_bot(v, seed, budget_ms=budget_ms)
        bot.kernels = KernelUse(v, None, Path(cache))
        figs = {"before": [], "after": []}
        t0 = time.perf_counter()
        i = ready_at = 0
        while len(figs["after"]) < 100:
            st = sts[i % len(sts)]
            i += 1
            d0 = time.perf_counter()
            bot.decide_state(st, st.to_act)
            ms = (time.perf_counter() - d0) * 1000
            figs["after" if bot.stats["kernel"] else "before"].append((ms, bot.stats["playouts"]))
            if bot.warming.done and not ready_at:
                ready_at = time.perf_counter() - t0
            if bot.warming.done and bot.warming.ready() is None:
                break
        w = bot.warming
    out = {"ready_s": ready_at, "child_s": w.child_seconds, "load_s": w.load_seconds, "reason": w.reason}
    for k, rows in figs.items():
        out[k] = (len(rows), sum(p for _, p in rows) / max(1, len(rows)), max((m for m, _ in rows), default=0))
    return out


def ref29_cpu(deals: int, seed: int) -> tuple[float, int]:
    """bench/ref29.py's ``deals`` deals: (CPU seconds, decisions)."""
    t0 = time.process_time()
    _, decisions = ref29.play_deals(deals, seed)
    return time.process_time() - t0, decisions


def compile_seconds(name: str, cache: str) -> float:
    """The time ``kernel_for`` takes for ``name`` in a fresh process with cache ``cache``."""
    code = ("import sys, time; from taash.interpreter import load_variant; from taash.kernel import kernel_for;"
            f"v = load_variant({name!r}); t0 = time.perf_counter(); k = kernel_for(v, {cache!r});"
            "print(time.perf_counter() - t0 if k else -1)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--playouts", type=int, default=4000, help="engine playouts per variant (the kernel runs 10x)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--decisions", type=int, default=30)
    ap.add_argument("--no-search", action="store_true")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--background", action="store_true",
                    help="the search bot's default: its kernel made in the background from an empty cache")
    ap.add_argument("variants", nargs="*")
    a = ap.parse_args(argv)
    if not available():
        print("numba is not installed: pip install 'taash[fast]'")
        return 1
    names = a.variants or ["29", "56", "304"]
    each = max(1, a.playouts // a.positions)
    print(f"python {sys.version.split()[0]}; playouts from the first lead of {a.positions} deals; "
          f"best of {a.repeat}")
    print(f"{'variant':24} {'engine playouts/s':>18} {'kernel playouts/s':>18} {'kernel/engine':>14} "
          f"{'engine actions/s':>17}")
    with tempfile.TemporaryDirectory() as warm:
        for name in names:
            v = load_variant(name)
            states = positions(v, a.positions, a.seed)
            k = kernel_for(v, warm)
            if k is None:
                edt, acts = min(engine_playouts(states, each, a.seed) for _ in range(a.repeat))
                eps = each * len(states) / edt
                print(f"{name:24} {eps:18.0f} {'-':>18} {'-':>14} {acts / edt:17.0f}   (kernel: {why_not(v)})")
                continue
            arrays = [k.state(st) for st in states]
            kernel_playouts(k, arrays[:1], 1, a.seed)          # compiled before it is timed
            runs, kruns, ratios = [], [], []
            for _ in range(a.repeat):   # pairs: the engine, then the kernel at once
                runs.append(engine_playouts(states, each, a.seed))
                kruns.append(kernel_playouts(k, arrays, each * 10, a.seed))
                ratios.append((each * 10 / kruns[-1]) / (each / runs[-1][0]))
            edt, acts = min(runs)
            eps = each * len(states) / edt
            kps = each * 10 * len(states) / min(kruns)
            ratio = sorted(ratios)[len(ratios) // 2]
            print(f"{name:24} {eps:18.0f} {kps:18.0f} {ratio:13.1f}x {acts / edt:17.0f}")
    if "29" in names:
        deals = 4000
        rdt, rdec = min(ref29_cpu(deals, a.seed) for _ in range(a.repeat))
        print(f"{'ref29 (hand-written)':24} {deals / rdt:18.0f} {'':>18} {'':>14} {rdec / rdt:17.0f}"
              "   (whole deals: shuffle, auction, trump, play)")
    compiled = [load_variant(name) for name in names if not why_not(load_variant(name))]
    if not a.no_search:
        for bot in ("search", "ismcts"):
            print(f"\n{bot + ' at 50 ms, in play':24} {'rollouts/decision':>36} {'worlds/decision':>29} "
                  f"{'alike':>7}")
            print(f"{'':24} {'kernel':>8} {'resample':>9} {'engine':>8} {'ratio':>7}   {'kernel':>8} "
                  f"{'resample':>9} {'ratio':>7}")
            for v in compiled:
                r = bot_playouts(v, bot, a.decisions, a.seed)
                (kr, kw), (rr, rw), (er, _) = r["kernel"], r["resample"], r["engine"]
                print(f"{v.name:24} {kr:8.0f} {rr:9.0f} {er:8.0f} {kr / er:6.1f}x   {kw:8.0f} {rw:9.0f} "
                      f"{kw / rw:6.1f}x {r['alike']:4d}/{a.decisions}")
            print(f"{bot + ' at 50 ms, before the play':32} {'rollouts/decision':>18}")
            print(f"{'':24} {'kernel':>8} {'engine':>8} {'ratio':>7}")
            for v in compiled:
                kr, er = bot_before_play(v, bot, a.decisions, a.seed)
                print(f"{v.name:24} {kr:8.0f} {er:8.0f} {kr / er:6.1f}x")
    if a.background:
        print(f"\n{'search, kernel made in the background (empty cache), 50 ms decisions in play':78}")
        print(f"{'variant':10} {'ready (s)':>10} {'child (s)':>10} {'load (s)':>9} {'decisions':>10} "
              f"{'rollouts':>9} {'slowest ms':>11} {'decisions':>10} {'rollouts':>9} {'slowest ms':>11}")
        print(f"{'':10} {'':>10} {'':>10} {'':>9} {'before':>10} {'before':>9} {'before':>11} {'after':>10} "
              f"{'after':>9} {'after':>11}")
        for v in compiled:
            b = background(v, a.seed)
            (nb, pb, mb), (na, pa, ma) = b["before"], b["after"]
            print(f"{v.name:10} {b['ready_s']:10.1f} {b['child_s']:10.1f} {b['load_s']:9.2f} {nb:10d} {pb:9.0f} "
                  f"{mb:11.0f} {na:10d} {pa:9.0f} {ma:11.0f}" + (f"   ({b['reason']})" if b["reason"] else ""))
    if not a.no_compile:
        print(f"\n{'variant':24} {'compile cold (s)':>17} {'cached (s)':>11}")
        for name in names:
            with tempfile.TemporaryDirectory() as cache:
                cold = compile_seconds(name, cache)
                hot = compile_seconds(name, cache)
            if cold < 0:
                print(f"{name:24} {'-':>17} {'-':>11}   (not compiled: {why_not(load_variant(name))})")
            else:
                print(f"{name:24} {cold:17.2f} {hot:11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
