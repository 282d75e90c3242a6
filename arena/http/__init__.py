"""The SmartBots 29 HTTP protocol (docs/http-bots.md) in both directions.

- `taash.arena.http.translate`: the translation, both ways, as pure functions (observation ->
  request, answer -> action, request -> State, action -> answer).
- `taash.arena.http.bridge`: `taash bot http URL`, an outside HTTP bot seated in the arena.
- `taash.arena.http.serve`: `taash serve http --bot NAME`, a taash bot served over HTTP.

See docs/http-bots.md.
"""
