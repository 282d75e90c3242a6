"""A bot for the web tests: the first legal action, after ``TAASH_SLOW_BOT_S`` seconds
(default 0.15), so that a browser sees a live game's cards appear one by one.
`taash bot slow=tests.helpers.slow_bot:make`."""

import os
import time


class Slow:
    def __init__(self, delay):
        self.delay = delay

    def decide(self, observation, legal):
        time.sleep(self.delay)
        return legal[0]


def make(variant, seed=0):
    return Slow(float(os.environ.get("TAASH_SLOW_BOT_S", "0.15")))
