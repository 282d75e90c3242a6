"""The taash arena: bots play the engine's games, in process or over gRPC.

A folder per concern:

- `cli/`: the `taash` command line (nothing else imports it);
- `bots/`: the bot registry and the built-in bots (random, heuristic, search);
- `sdk.py`: the SDK for a bot of one's own, playing over the arena;
- `simulation.py`: matches played in process (`taash simulate`, the Ray runner);
- `server/`: the gRPC arena: the wire, hosting and the fault policy, events, persistence;
- `store/`: where the arena and the ladder keep their data (SQLite, PostgreSQL);
- `ladder/`: bots ranked over many deals (schedule, ratings, runners, Ray);
- `http/`: the SmartBots 29 HTTP protocol: the bridge and the served bot;
- `web/`: the read-only web pages;
- `pb/`: the Python code generated from proto/ (`proto_gen.py` makes it);
- `errors.py`: `ArenaError`, the root of the arena's errors;
- `children.py`: child processes that die with their parent;
- `gcpolicy.py`: how the arena's processes collect garbage.
"""
