"""The built-in bots and the registry that names them (docs/bots.md):

- `registry`: every bot that `taash simulate --bots`, `taash ladder run --bots`, `taash
  bot NAME` and the main job seat by name, and `ArenaAgent` (a registered bot over the
  arena);
- `random`: uniform among the legal actions (`random`);
- `heuristic`: a generic hand estimate, cheap play (`heuristic`);
- `search`: determinized Monte Carlo search with the heuristic as its prior (`search`).

The SDK for bots of one's own is `taash.arena.sdk`.
"""
