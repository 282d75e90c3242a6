"""The variant of a RunMatches call, as a hostile or careless caller sends it: a text that
is slow to check does not stop the games in play, one past the arena's time limit is
killed and refused, and a name is a shipped variant or a file of DATA/variants/, never a
file of the host (whose content no error quotes). A real arena process, real clients."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import grpc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taash.interpreter.loader import VARIANTS_DIR
from tests.helpers.arena_util import Server

BASE = (VARIANTS_DIR / "28.yaml").read_text()
SECRET = "taash-test-secret-3b1f"       # in the arena's environment and in host files


def slow_text(defines: int = 200, parts: int = 400) -> str:
    """The 28 with ``defines`` named expressions of ``parts`` `true`s joined by `and`:
    each is past the DSL's 40 parts in one expression, a problem each, and the text
    takes seconds to check (each rule is parsed in full)."""
    rule = " and ".join(["true"] * parts)
    return BASE + "define:\n" + "".join(f"  d{i}: {rule}\n" for i in range(defines))


def saver(folder: Path):
    """A loader's ``save``: writes a sent text to a file of ``folder`` named by its hash."""
    def save(text):
        path = folder / f"v{abs(hash(text))}.yaml"
        path.write_text(text)
        return path
    return save


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def refused(server, **kw) -> str:
    """A RunMatches that must end INVALID_ARGUMENT; its details."""
    from taash.arena.pb import arena_pb2 as apb, arena_pb2_grpc
    req = apb.MatchRequest(**{"bots": ["r"] * 4, "max_deals": 1, **kw})
    with grpc.insecure_channel(server.addr) as ch:
        with pytest.raises(grpc.RpcError) as e:
            list(arena_pb2_grpc.ArenaStub(ch).RunMatches(
                req, metadata=[("authorization", f"Bearer {server.admin}")], timeout=120))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value
    return e.value.details()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("TAASH_TEST_SECRET", SECRET)      # the arena's environment holds a secret
    try:
        s = Server(tmp_path_factory.mktemp("loading") / "data")
    finally:
        mp.undo()
    s.bot("random", "r", s.token("r"))
    s.wait_connected(["r"])
    yield s
    s.stop()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the check's process in /proc")
def test_a_slow_sent_variant_does_not_stop_the_games(server):
    # the slow text's check runs in a process of its own: a game begun while it runs
    # plays to its end before the check is done (loaded on the event loop, as it was,
    # no game could take a step until the check ended)
    order, details = [], []

    def slow_call():
        details.append(refused(server, variant="slow.yaml", variant_yaml=slow_text()))
        order.append("slow")

    t = threading.Thread(target=slow_call)
    t.start()
    while len(descendants(server.proc.pid)) < 2 and t.is_alive():    # the forkserver, then its child
        time.sleep(0.01)
    [g] = server.run_matches("28", ["r"] * 4, seed=3, max_deals=1)
    order.append("game")
    t.join(120)
    assert g.error == "" and g.deals == 1
    assert order == ["game", "slow"]
    # 200 defines, one problem each: the first 10 are formatted, 190 counted
    text = details[0]
    assert text.startswith("slow.yaml:") and "define.d0: more than 40 parts in one expression" in text
    assert text.splitlines()[-1] == "slow.yaml: error: and 190 more problems (the first 10 are listed)"
    assert len(text) <= 4000


def test_a_sent_variant_past_the_time_limit_is_killed_and_refused(tmp_path):
    s = Server(tmp_path / "data", "--variant-load-ms", "300")
    try:
        s.bot("random", "r", s.token("r"))
        s.wait_connected(["r"])
        text = refused(s, variant="slow.yaml", variant_yaml=slow_text())
        assert text == ("slow.yaml: the variant was not loaded within 0.3 s (the arena's limit for a sent "
                        "variant): make it smaller")
        # no check is left running (only the forkserver stays below the arena), nothing kept
        kids = {pid: cmdline(pid) for pid in descendants(s.proc.pid)}
        assert all("forkserver" in c or "resource_tracker" in c for c in kids.values()), kids
        assert not list((s.data / "variants").glob("*")) if (s.data / "variants").is_dir() else True
        # and the arena plays on: a small text is checked, kept and played
        [g] = s.run_matches("28", ["r"] * 4, seed=1, max_deals=1)
        assert g.error == ""
    finally:
        s.stop()


def test_a_sent_variant_of_thousands_of_problems_is_refused_with_the_first_of_them(server):
    # 8,000 unknown keys after the 28's text: 8,000 problems, each at its own line
    lines = len(BASE.splitlines())
    text = refused(server, variant="keys.yaml", variant_yaml=BASE + "".join(f"k{i}: {i}\n" for i in range(8000)))
    first = text.splitlines()[0]
    assert first.startswith(f"keys.yaml:{lines + 1}:1: error: k0: unknown key 'k0'")
    assert text.splitlines()[-1] == "keys.yaml: error: and 7990 more problems (the first 10 are listed)"
    # 50,000 lines: past the arena's 20,000 lines, refused at the first line too many
    text = refused(server, variant="long.yaml", variant_yaml=BASE + "# x\n" * 50_000)
    assert text.splitlines() == [f"long.yaml:20001:1: error: the file has {lines + 50_000} lines; at most 20000",
                                 "    # x", "    ^"]      # the line of the caller's own text
    # a megabyte of `[`: past the 64 levels of nesting at the 64th (column 3 + 64)
    text = refused(server, variant="deep.yaml", variant_yaml="a: " + "[" * ((1 << 20) - 4))
    assert text.splitlines()[0] == "deep.yaml:1:67: error: the file nests more than 64 levels of mappings and lists"
    assert text.splitlines()[1] == "    a: " + "[" * (120 - 7) + "..."     # the quoted line cut to 120 characters


@pytest.mark.parametrize("name", ["/proc/self/environ", "../../../../proc/self/environ", "/etc/passwd",
                                  "../host.yaml", "29/../../host", "x" * 5000])
def test_a_name_that_is_no_variant_of_the_arena_is_refused_unread(server, name):
    host = server.data.parent / "host.yaml"
    host.write_text(f'extends: "28"\nname: "{SECRET}"\nplayers: {SECRET}\n')
    text = refused(server, variant=name)
    assert SECRET not in text and "PATH=" not in text
    assert text.startswith(f"no variant named {name[:100]!r}")
    assert text.endswith("(`taash arena match FILE.yaml ...` sends it)")   # the command's own form
    assert len(text) < 400


def test_a_link_out_of_the_variants_folder_is_refused(server):
    host = server.data.parent / "host-linked.yaml"
    host.write_text(f'extends: "28"\nname: "{SECRET}"\n')
    folder = server.data / "variants"
    folder.mkdir(exist_ok=True)
    (folder / "linked.yaml").symlink_to(host)
    text = refused(server, variant="linked")
    assert text.startswith("no variant named 'linked'") and SECRET not in text


def test_a_file_of_the_variants_folder_is_played_by_name_and_its_errors_quote_no_line(server):
    folder = server.data / "variants"
    folder.mkdir(exist_ok=True)
    (folder / "mine.yaml").write_text('extends: "28"\nname: mine-28\n')
    [g] = server.run_matches("mine", ["r"] * 4, seed=2, max_deals=1)
    assert g.error == "" and g.deals == 1
    [g] = server.run_matches("mine.yaml", ["r"] * 4, seed=2, max_deals=1)
    assert g.error == ""
    # the file changed: the next call plays it as it is now
    (folder / "mine.yaml").write_text('extends: "28"\nname: mine-28\nplayers: 3\n')
    text = refused(server, variant="mine")
    assert "mine:3:10: error: fixed partnerships need an even number of players, not 3" in text
    # (the value 3 is at column 10); the flow inherited from 28 (two packets of 4) no longer
    # fits: it is told at the line that broke it, naming the shipped file by its name, not
    # by a path of the arena's host
    assert ("mine:3:10: error: the flow deals 8 cards to each of 3 players (24), but the deck has 32 "
            "(with `flow` inherited from 28.yaml:21)") in text
    # a bad file of the folder: located, the line itself not quoted
    (folder / "bad.yaml").write_text(f'extends: "28"\nname: bad\nauction: {{min_bid: foo}}  # {SECRET}\n')
    text = refused(server, variant="bad")
    assert text == 'bad:3:20: error: auction.min_bid: "foo" should be a whole number'
    assert SECRET not in text


def test_a_ladder_variant_file_of_its_own_is_sent_as_text(server, tmp_path):
    # the arena plays only shipped names and DATA/variants/ by name: a ladder run on a file
    # of its own machine sends the file's text, its `extends:` chain merged
    from taash.arena.ladder.arena_runner import ArenaRunner
    from taash.arena.ladder.schedule import GameSpec
    (tmp_path / "base.yaml").write_text('extends: "28"\nname: ladder-base\n')
    (tmp_path / "mine.yaml").write_text('extends: base.yaml\nname: ladder-28\n')
    runner = ArenaRunner(server.addr, server.admin, str(tmp_path / "mine.yaml"))
    try:
        g = runner.play(GameSpec("r00000/r/s1", "r00000/r/s1", 0, 7, ("r",) * 4, 1))
    finally:
        runner.close()
    assert g.deals == 1 and g.record["arena"]["game_id"] == g.arena_game
    # the record names the file as the runner did; the arena's copy beside it (docs/records.md)
    assert g.record["variant"] == str(tmp_path / "mine.yaml")
    kept = (Path(g.record_path).parent / g.record["variant_copy"]).resolve()
    assert kept.parent == (server.data / "variants").resolve() and "ladder-28" in kept.read_text()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["..", ".", "mine", "mine.yaml", "linked", "sub", "/", "etc", "passwd", "",
                                 "29", "house", "proc", "self", "environ", "\0", "x.yml"]), max_size=6),
       st.booleans())
def test_a_name_is_shipped_or_a_file_inside_the_variants_folder(tmp_path_factory, parts, absolute):
    from taash.arena.server.loading import Refused, VariantLoader
    from taash.interpreter import shipped_variants
    root = tmp_path_factory.getbasetemp() / "names"
    folder = root / "data" / "variants"
    if not folder.is_dir():
        (folder / "sub").mkdir(parents=True)
        (folder / "mine.yaml").write_text('extends: "28"\n')
        (folder / "sub" / "mine.yaml").write_text('extends: "28"\n')
        (root / "outside.yaml").write_text("secret: 1\n")
        (folder / "linked.yaml").symlink_to(root / "outside.yaml")
        (folder / "sub" / "up.yaml").symlink_to(folder / "mine.yaml")      # a link that stays inside
    name = ("/" if absolute else "") + "/".join(parts)
    try:
        got = VariantLoader(folder).path_of(name)
    except Refused as e:
        assert str(e).startswith("no variant named ") and "secret" not in str(e)
        return
    if isinstance(got, str):
        assert got == name and got in shipped_variants()
    else:
        assert got.is_file() and got.is_relative_to(folder.resolve())


def test_sent_texts_wait_their_turn_in_a_bounded_queue(tmp_path):
    # one check at a time, one waiting: of three texts sent at once, the third is refused
    # at once (Busy: RESOURCE_EXHAUSTED on the wire), the two others are checked in turn
    from taash.arena.server.loading import Busy, VariantLoader

    async def go():
        loader = VariantLoader(tmp_path / "variants", max_loads=1, max_waiting=1)

        save = saver(tmp_path)
        return await asyncio.gather(*(loader.by_text(f'extends: "28"\n# text {i}\n', f"mine{i}.yaml", None, save)
                                      for i in range(3)), return_exceptions=True)

    first, second, third = asyncio.run(go())
    assert not isinstance(first, Exception) and not isinstance(second, Exception), (first, second)
    assert isinstance(third, Busy)
    assert str(third) == ("mine2.yaml: the arena is checking 2 sent variants already (at most 1 at once "
                          "and 1 waiting): send it again later")


def test_kept_variants_are_bounded_by_their_estimated_bytes():
    # sizes 3, 4 and 5 within 10: the third pushes the total to 12, so the least recently
    # used (a, 3) goes, leaving 9; reading b makes c the least recently used, and d (2)
    # pushes 11: c (5) goes, leaving b and d, 6; a value larger than the bound is not kept
    from taash.arena.server.loading import Kept
    kept = Kept(10)
    kept.put("a", "A", 3)
    kept.put("b", "B", 4)
    kept.put("c", "C", 5)
    assert "a" not in kept and kept.bytes == 9 and len(kept) == 2
    assert kept.get("b") == "B"
    kept.put("d", "D", 2)
    assert "c" not in kept and kept.get("d") == "D" and kept.get("b") == "B" and kept.bytes == 6
    kept.put("b", "B2", 1)      # again: its old size is given back first
    assert kept.get("b") == "B2" and kept.bytes == 3
    kept.put("huge", "H", 11)
    assert "huge" not in kept and kept.bytes == 3


def test_a_sent_text_is_built_from_the_checked_data_and_kept_within_the_cache_bytes(tmp_path):
    # two texts of the 28 with a comment of 100,000 bytes each: each is counted as
    # estimated_bytes(its 14 + 2 + 100,000 + 3 bytes) = 640 KiB + 100,019 (about 0.72 MiB), so a cache
    # of 1 MiB keeps one of them, the last built; the Variant the arena plays is the one the
    # file loads as (its rules' digest), named by the kept file's path
    from taash.arena.server.loading import VARIANT_BYTES, VariantLoader, estimated_bytes
    from taash.interpreter import load_variant
    texts = [f'extends: "28"\n# {"x" * 100_000} {i}\n' for i in range(2)]
    assert estimated_bytes(len(texts[0].encode())) == VARIANT_BYTES + 100_019

    async def go():
        loader = VariantLoader(tmp_path / "variants", cache_bytes=1 << 20)

        def save(text):
            path = tmp_path / f"v{texts.index(text)}.yaml"
            path.write_text(text)
            return path
        got = [await loader.by_text(t, f"mine{i}.yaml", None, save) for i, t in enumerate(texts)]
        return loader, got

    loader, (first, second) = asyncio.run(go())
    assert len(loader.loaded) == 1 and loader.loaded.bytes == estimated_bytes(100_019)
    (key,) = loader.loaded.items
    assert key[0] == str(tmp_path / "v1.yaml")
    assert second.path == tmp_path / "v1.yaml" and first.path == tmp_path / "v0.yaml"
    assert second.digest == load_variant(tmp_path / "v1.yaml").digest == first.digest   # comments are no rule
    assert second.players == 4


@pytest.mark.parametrize("after_s", [0.0, 1.0])
def test_a_check_whose_caller_goes_away_is_killed_and_gives_back_its_turn(tmp_path, after_s):
    # a call cancelled while its text's check starts (0 s) or runs (1 s: the slow text
    # takes seconds): once the cancellation is through, no check process is left, and the
    # one turn (max_loads=1) is free for the next text
    from taash.arena.server.loading import VariantLoader

    async def go():
        loader = VariantLoader(tmp_path / "variants", max_loads=1, max_waiting=0)

        save = saver(tmp_path)
        await loader.by_text('extends: "28"\n# warm\n', "warm.yaml", None, save)   # the forkserver is up
        before = set(descendants(os.getpid()))
        task = asyncio.ensure_future(loader.by_text(slow_text(), "slow.yaml", None, save))
        await asyncio.sleep(after_s)
        started = set(descendants(os.getpid())) - before
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        left = set(descendants(os.getpid())) - before
        nxt = await loader.by_text('extends: "28"\n# next\n', "next.yaml", None, save)
        return started, left, loader.checking, nxt

    started, left, checking, nxt = asyncio.run(go())
    assert after_s == 0 or started          # the slow check was running when its call went away
    assert left == set() and checking == 0 and nxt is not None
