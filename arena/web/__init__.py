"""The arena's and the ladder's web pages (docs/web.md): `taash web`, `taash ladder report`.

`app.make_app` builds the read-only aiohttp application; `data` reads the ladder store
and the arena's records (no copy of results of its own); `live.LiveHub` follows the
arena's public event stream (`Watch`); `report.write_report` writes one static page.
"""
