"""A bot for the batched-events test, run as a process of its own:

    python -m tests.helpers.event_bot --name N --token T --server ADDR --out FILE [--batch]

It plays the first legal action (the Python SDK, Hello.batch_events if --batch) and
writes to FILE after every game: the public events it saw (serialized, hex, in order),
how many ServerMessages of each kind it received and how many events came inside
decisions."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from arena.sdk import Bot, BotClient


class Recorder(Bot):
    def __init__(self, out: Path):
        self.out = out
        self.events: list[str] = []
        self.ended = 0
        self.client = None

    def decide(self, observation, legal_actions, game):
        return legal_actions[0]

    def on_event(self, game, event):
        self.events.append(event.SerializeToString().hex())

    def on_game_end(self, game, ended):
        self.ended += 1
        self.save()

    def save(self):
        c = self.client
        data = {"events": self.events, "games_ended": self.ended, "messages": dict(c.received),
                "in_decisions": c.events_in_decisions}
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
    a = ap.parse_args()
    bot = Recorder(Path(a.out))
    client = BotClient(bot, a.token, a.name, a.server, threads=False, batch_events=a.batch)
    bot.client = client
    asyncio.run(client.run())


if __name__ == "__main__":
    main()
