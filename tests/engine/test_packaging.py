"""taash as an installed package: one import name, `taash`; grammar/, variants/ and proto/
ship inside the wheel as package data; the core install is the engine alone.

Fast: `find_variant` on shipped names, house names, paths and unknown names, and the
pyproject package list. Slow (`-m slow`): build a wheel from a copy of the checkout,
install it into a new virtualenv outside the checkout (dependencies from PyPI or pip's
cache) and use `taash` and `import taash` there from a directory outside the
checkout. Self-contained: no conftest or helpers of tests/.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from taash.interpreter import VariantError, find_variant, load_variant, shipped_variants

REPO = Path(__file__).resolve().parents[2]

# A user's house rule and the same with one mistake (`scor` for `score`): line 5 is
# "  ends: max(score) >= 6 or min(scor) <= -6", the value starts at column 9 and
# "max(score) >= 6 or min(" is 23 characters, so `scor` is at column 32.
MINE = '# bids start at 16\nextends: "29"\nname: my-29\ntitle: Twenty-nine from 16\nauction:\n  min_bid: 16\n'
TYPO = ('extends: "29"\nname: my-29-to-6\ntitle: Twenty-nine to 6 either way\nmatch:\n'
        "  ends: max(score) >= 6 or min(scor) <= -6\n")


# -- find_variant (fast) -------------------------------------------------------------------------

def test_find_variant_shipped_names_are_the_checkouts_files():
    # the tests run under the editable install: the checkout's own variants/ folder
    assert find_variant("29") == REPO / "variants" / "29.yaml"
    assert find_variant("304-solo") == REPO / "variants" / "304-solo.yaml"
    assert find_variant("29.yaml") == REPO / "variants" / "29.yaml"


def test_find_variant_house_name():
    assert find_variant("house/29-double") == REPO / "variants" / "house" / "29-double.yaml"


def test_find_variant_path_absolute_and_relative(tmp_path, monkeypatch):
    p = tmp_path / "mine.yaml"
    p.write_text(MINE)
    assert find_variant(p) == p.resolve()
    assert find_variant(str(p)) == p.resolve()
    monkeypatch.chdir(tmp_path)
    assert find_variant("mine.yaml") == p.resolve()
    with pytest.raises(VariantError):  # a bare name is a shipped name or a file's whole name
        find_variant("mine")


def test_user_file_extends_a_shipped_name_from_anywhere(tmp_path, monkeypatch):
    (tmp_path / "deep").mkdir()
    p = tmp_path / "deep" / "mine.yaml"
    p.write_text(MINE)
    monkeypatch.chdir(tmp_path)
    v = load_variant("deep/mine.yaml")
    assert v.ref == str(p.resolve())  # a user's file is named by its path in records
    assert load_variant("29").ref == "29"
    assert load_variant("house/29-double").ref == "house/29-double"


@pytest.mark.parametrize("name, close", [("304solo", "'304-solo'"), ("29-double", "'house/29-double'"),
                                         ("house/29-doble", "'house/29-double'")])
def test_find_variant_unknown_name_suggests(name, close):
    with pytest.raises(VariantError) as e:
        find_variant(name)
    (pr,) = e.value.problems
    assert (pr.file, pr.line) == (name, 0)
    assert pr.message.startswith(f"no variant named {name!r}: no such file, nor a shipped variant; did you mean ")
    assert close in pr.message


def test_find_variant_unknown_name_far_from_all_lists_them():
    with pytest.raises(VariantError) as e:
        find_variant("zzzz")
    msg = e.value.problems[0].message
    assert "did you mean" not in msg
    assert "(the shipped variants: 28, 29, 304, 304-solo, 56, call-break, court-piece, house/" in msg


def test_find_variant_directory_is_not_a_variant(tmp_path):
    with pytest.raises(VariantError) as e:
        find_variant(tmp_path)
    assert e.value.problems[0].message == "not a file"


def test_pyproject_lists_every_package():
    """Every folder of interpreter/, arena/, learn/ and kernel/ with an __init__.py is in
    [tool.setuptools] packages as taash.* (setuptools does not find them when they are
    listed), and the repository's top-level folders map to taash.*."""
    conf = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(conf["packages"])
    for top in ("interpreter", "arena", "learn", "kernel"):
        for init in (REPO / top).rglob("__init__.py"):
            pkg = ".".join(("taash",) + init.parent.relative_to(REPO).parts)
            assert pkg in listed, f"{pkg} is missing from [tool.setuptools] packages"
    assert conf["package-dir"] == {"taash": "taash", "taash.interpreter": "interpreter", "taash.arena": "arena",
                                   "taash.learn": "learn", "taash.kernel": "kernel",
                                   "taash.grammar": "grammar", "taash.variants": "variants", "taash.proto": "proto",
                                   "taash.docs": "docs"}
    assert all(p == "taash" or p.startswith("taash.") for p in listed)


# -- an installed wheel (slow) -------------------------------------------------------------------

IGNORE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                                "node_modules", ".hypothesis", ".pytest_cache", "run-data", "arena-data")


def _run(argv, cwd, timeout=600, check=True):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONNOUSERSITE"] = "1"
    r = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=timeout)
    if check:
        assert r.returncode == 0, (argv, r.stdout, r.stderr)
    return r


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(wheel, venv, bin dir, site-packages, a working folder), all outside the checkout."""
    base = tmp_path_factory.mktemp("packaging").resolve()
    assert not base.is_relative_to(REPO)
    src = base / "src"
    shutil.copytree(REPO, src, ignore=IGNORE)  # a clean tree: no stale build/ of the checkout
    dist = base / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--disable-pip-version-check",
          "--wheel-dir", dist, src], cwd=base)
    (wheel,) = dist.glob("taash-*.whl")
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=base)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / ("python.exe" if os.name == "nt" else "python")
    _run([sys.executable, "-m", "pip", "--python", py, "install", "--quiet", "--disable-pip-version-check",
          wheel], cwd=base, timeout=900)
    site = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=base).stdout.strip()).resolve()
    work = base / "work"
    work.mkdir()
    (work / "mine.yaml").write_text(MINE)
    (work / "typo.yaml").write_text(TYPO)
    return wheel, venv, bindir, site, work


@pytest.mark.slow
def test_wheel_holds_every_module_and_the_data(installed):
    wheel = installed[0]
    zf = zipfile.ZipFile(wheel)
    names = set(zf.namelist())
    want = {"taash/" + p.relative_to(REPO).as_posix() for top in ("interpreter", "arena", "learn", "kernel")
            for p in (REPO / top).rglob("*.py") if "__pycache__" not in p.parts}
    want |= {"taash/" + p.relative_to(REPO).as_posix()
             for folder in ("grammar", "variants", "proto") for p in (REPO / folder).rglob("*") if p.is_file()}
    want |= {"taash/" + p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md")}
    want |= {"taash/" + p.relative_to(REPO).as_posix() for p in (REPO / "docs" / "examples").glob("*.yaml")}
    want.add("taash/__init__.py")
    assert {"taash/grammar/rules.lark", "taash/variants/house/56-cot.yaml", "taash/docs/learning.md",
            "taash/docs/examples/queen-hunt.yaml",
            "taash/proto/taash/arena/v1/arena.proto", "taash/proto/observation.schema.json"} <= want
    assert want <= names, sorted(want - names)
    # one top-level import name, nothing else beside it
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"taash"}
    (top_level,) = [n for n in names if n.endswith(".dist-info/top_level.txt")]
    assert zf.read(top_level).decode().split() == ["taash"]


@pytest.mark.slow
def test_installed_package_finds_its_package_data(installed):
    _, venv, bindir, site, work = installed
    py = bindir / ("python.exe" if os.name == "nt" else "python")
    r = _run([py, "-c", "import taash; print(taash.find_variant('304-solo'))"], cwd=work)
    printed = Path(r.stdout.strip())
    assert printed == site / "taash" / "variants" / "304-solo.yaml"
    assert printed.is_relative_to(venv) and not printed.is_relative_to(REPO)
    assert printed.read_bytes() == (REPO / "variants" / "304-solo.yaml").read_bytes()
    r = _run([py, "-c", "import taash, taash.interpreter.dsl as d; print(taash.__file__); "
                        "print(d.GRAMMAR_PATH); print(len(taash.shipped_variants()))"], cwd=work)
    mod, grammar, count = r.stdout.split("\n")[:3]
    assert Path(mod) == site / "taash" / "__init__.py"
    assert Path(grammar) == site / "taash" / "grammar" / "rules.lark"
    assert int(count) == len(shipped_variants())


@pytest.mark.slow
def test_core_install_is_the_engine_alone(installed):
    """The wheel installed without extras: the engine plays, no arena library came with it."""
    bindir, work = installed[2], installed[4]
    py = bindir / ("python.exe" if os.name == "nt" else "python")
    r = _run([py, "-c", "from taash import load_variant, State; st = State(load_variant('29'), seed=1); "
                        "print(st.phase, len(st.legal_actions()))"], cwd=work)
    assert r.stdout.split()[0] == "auction"
    for extra in ("grpc", "google.protobuf", "aiohttp", "openskill", "matplotlib", "jinja2", "ray",
                  "pettingzoo", "pyspiel", "gymnasium"):
        r = _run([py, "-c", f"import {extra}"], cwd=work, check=False)
        assert r.returncode != 0, f"{extra} came with the core install"


@pytest.mark.slow
def test_installed_check_of_a_users_file_that_extends_29(installed):
    bindir, work = installed[2], installed[4]
    taash = bindir / "taash"
    r = _run([taash, "check", "mine.yaml"], cwd=work)
    assert r.stdout == "mine.yaml: ok\n"
    r = _run([taash, "check", "typo.yaml"], cwd=work, check=False)
    assert r.returncode == 1, (r.stdout, r.stderr)
    first = r.stderr.splitlines()[0]
    # the file as it was given, as the "ok" line names it
    assert first == "typo.yaml:5:32: error: match.ends: unknown name 'scor' (did you mean 'score', of type list?)"


@pytest.mark.slow
def test_installed_simulate_29_and_replay_its_record(installed):
    bindir, work = installed[2], installed[4]
    taash = bindir / "taash"
    r = _run([taash, "simulate", "29", "--deals", "10"], cwd=work)
    assert "Twenty-nine: 10 deals, random bots, seed 0" in r.stdout
    assert "\n10 deals in " in r.stdout
    (work / "recs").mkdir()
    r = _run([taash, "simulate", "29", "--deals", "10", "--json", "--record", "recs/"], cwd=work)
    summary = json.loads(r.stdout)
    assert (summary["variant"], summary["deals"]) == ("29", 10)
    assert sum(m["deals"] for m in summary["matches"]) == 10
    first = summary["matches"][0]
    rec = json.loads((work / "recs" / "match-1.json").read_text())
    assert rec["variant"] == "29"  # a shipped name, so the record replays on any install
    r = _run([taash, "replay", "recs/match-1.json", "--json"], cwd=work)
    assert json.loads(r.stdout)["match"]["score"] == first["score"]


@pytest.mark.slow
def test_installed_variants_and_rules(installed):
    bindir, work = installed[2], installed[4]
    taash = bindir / "taash"
    r = _run([taash, "variants"], cwd=work)
    assert r.stdout.split() == shipped_variants()  # house/ ships too
    r = _run([taash, "rules", "mine.yaml", "--diff", "29"], cwd=work)
    head = r.stdout.splitlines()[0]
    assert "Twenty-nine from 16" in head and "differs from Twenty-nine" in head
    assert "16 to 29" in r.stdout and "15 to 29" in r.stdout  # mine, then 29's (docs/rules.md §29.4)


@pytest.mark.slow
def test_installed_proto_and_a_command_without_its_extra(installed):
    """The core install writes the wire contract (package data taash.proto); a command
    that needs the arena extra says so in one line, exit 2."""
    bindir, work = installed[2], installed[4]
    taash = bindir / "taash"
    _run([taash, "proto", "--out", "contract"], cwd=work)
    for rel in ("taash/arena/v1/arena.proto", "taash/arena/v1/messages.proto", "observation.schema.json"):
        assert (work / "contract" / rel).read_bytes() == (REPO / "proto" / rel).read_bytes()
    r = _run([taash, "arena", "serve", "--data", "d"], cwd=work, check=False)
    assert r.returncode == 2
    assert r.stderr == "taash arena serve: needs the arena extra: pip install 'taash[arena]'\n"
    # the ladder says so before it makes its database
    r = _run([taash, "ladder", "run", "--variant", "29", "--deals", "4"], cwd=work, check=False)
    assert r.returncode == 2
    assert r.stderr == "taash ladder run: needs the arena extra: pip install 'taash[arena]'\n"
    assert not (work / "arena-data").exists()


def _readme_commands(title: str) -> list[str]:
    """The `.venv/bin/taash` lines of the README's indented blocks under ``## title``."""
    text = (REPO / "README.md").read_text(encoding="utf-8").split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    return [ln.strip() for ln in text.splitlines() if ln.startswith("    .venv/bin/taash ")]


@pytest.mark.slow
def test_installed_readme_commands_run_as_written(installed):
    """The README's quick start and house-rule commands, pasted into a folder outside the
    checkout where `.venv` is the wheel's virtualenv and there is no variants/ or docs/
    folder: each exits 0."""
    _, venv, _, _, work = installed
    folder = work / "readme"
    folder.mkdir()
    (folder / ".venv").symlink_to(venv)
    # the README's own house rule file: the indented block of "Writing a house rule" that
    # starts with extends:, saved as my-29.yaml as the README says
    house = (REPO / "README.md").read_text(encoding="utf-8").split("\n## Writing a house rule\n", 1)[1]
    blocks = ["".join(ln[4:] + "\n" for ln in b.splitlines())
              for b in re.findall(r"(?m)(?:^    .*\n)+", house.split("\n## ", 1)[0])]
    (folder / "my-29.yaml").write_text(next(b for b in blocks if b.startswith("extends:")))
    lines = _readme_commands("Use") + _readme_commands("Writing a house rule")
    assert any("check variants/29.yaml" in ln for ln in lines)
    assert any("docs/examples/queen-hunt.yaml" in ln for ln in lines)
    for line in lines:
        r = _run(["bash", "-c", line], cwd=folder, check=False)
        assert r.returncode == 0, (line, r.stdout, r.stderr)


@pytest.mark.slow
def test_installed_docs(installed):
    bindir, work = installed[2], installed[4]
    taash = bindir / "taash"
    r = _run([taash, "docs"], cwd=work)
    names = {ln.split()[0] for ln in r.stdout.splitlines() if ln and not ln.startswith("`")}
    assert {"authoring", "engine", "protocol", "learning", "records", "rules", "examples/queen-hunt"} <= names
    r = _run([taash, "docs", "learning"], cwd=work)
    assert r.stdout == (REPO / "docs" / "learning.md").read_text(encoding="utf-8")
    r = _run([taash, "docs", "rules", "§29.7"], cwd=work)
    assert r.stdout.startswith("**29.7 Royals.**")
    r = _run([taash, "docs", "examples/queen-hunt", "--path"], cwd=work)
    assert Path(r.stdout.strip()).is_relative_to(venv := installed[1]) and venv.exists()
