"""The SmartBots 29 HTTP protocol (protocols/bhoos-29.md) in both directions.

- `arena.http.translate`: the translation, both ways, as pure functions (observation ->
  request, answer -> action, request -> State, action -> answer).
- `arena.http.bridge`: `taash bot http URL`, an outside HTTP bot seated in the arena.
- `arena.http.serve`: `taash serve http --bot NAME`, a taash bot served over HTTP.

See docs/http-bots.md.
"""
