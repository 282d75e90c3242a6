"""A bot for the batched-events test, run as a process of its own:

    python -m tests.helpers.event_bot --name N --token T --server ADDR --out FILE [--batch] [--lazy]
        [--unsendable-first]

It plays the first legal action (the Python SDK, Hello.batch_events if --batch,
lazy_observation if --lazy) and writes to FILE after every game: the public events it
saw (serialized, hex, in order), how many ServerMessages of each kind it received and how
many events came inside decisions, event batches and seat views, and per decision whether its observation agreed with
the request (its seat one of the bot's, its legal actions the request's). With
--unsendable-first its first answer is text protobuf cannot encode (a lone surrogate):
the SDK cannot send it, and that decision times out."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from taash.arena.sdk import Bot, BotClient


class Recorder(Bot):
    def __init__(self, out: Path, unsendable_first: bool = False):
        self.out = out
        self.unsendable = unsendable_first
        self.events: list[str] = []
        self.ended = 0
        self.client = None
        self.decisions = {"agree": 0, "disagree": 0, "types": []}

    def decide(self, observation, legal_actions, game):
        ok = observation["seat"] in game.seats and observation["legal_actions"] == legal_actions
        self.decisions["agree" if ok else "disagree"] += 1
        kind = type(observation).__name__
        if kind not in self.decisions["types"]:
            self.decisions["types"].append(kind)
        if self.unsendable:
            self.unsendable = False
            return "\ud800"
        return legal_actions[0]

    def on_event(self, game, event):
        self.events.append(event.SerializeToString().hex())

    def on_game_end(self, game, ended):
        self.ended += 1
        self.save()

    def save(self):
        c = self.client
        data = {"events": self.events, "games_ended": self.ended, "messages": dict(c.received),
                "in_decisions": c.events_in_decisions,
                "in_batches": c.events_in_batches, "in_views": c.events_in_views, "decisions": self.decisions}
        tmp = self.out.with_name(self.out.name + ".tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(self.out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--batch", action="store_true")
    ap.add_argument("--lazy", action="store_true")
    ap.add_argument("--unsendable-first", action="store_true")
    a = ap.parse_args()
    bot = Recorder(Path(a.out), a.unsendable_first)
    client = BotClient(bot, a.token, a.name, a.server, threads=False, batch_events=a.batch,
                       lazy_observation=a.lazy)
    bot.client = client
    asyncio.run(client.run())


if __name__ == "__main__":
    main()
