"""Misbehaving in-process bots for the ladder's fault tests (tests/ladder/test_ladder_faults.py),
loaded by spec, e.g. ``--bots hang=tests.helpers.ladder_bots:hang,random``.

- ``hang``: never returns from ``decide`` (sleeps for an hour);
- ``spin``: never returns either, busy in pure Python, and swallows ``Exception``;
- ``broken_factory``: its factory raises;
- ``raises``: its ``decide`` raises at every decision.
"""

import time


class Hang:
    def decide(self, observation, legal):
        time.sleep(3600)
        return legal[0]


class Spin:
    def decide(self, observation, legal):
        while True:
            try:
                sum(range(1000))
            except Exception:       # a bot's own catch-all must not swallow the time limit
                pass


class Raises:
    def decide(self, observation, legal):
        raise ValueError("this bot is broken")


def hang(variant):
    return Hang()


def spin(variant):
    return Spin()


def raises(variant):
    return Raises()


def broken_factory(variant):
    raise RuntimeError(f"cannot build a bot for {variant.name}")


def no_agent(variant):
    """A factory that returns nothing (no agent)."""
    return None
