"""HTTP bots of the SmartBots 29 protocol for the tests, written from docs/http-bots.md
alone (they import nothing of taash): stdlib HTTP/1.1 servers with keep-alive, one process
each.

    python -m tests.helpers.http_bot MODE [--port 0] [--every N]

prints ``listening on http://127.0.0.1:PORT`` and serves until killed. MODE:

- ``legal``: plays legally (docs/rules.md §29b) from the request alone, never reveals;
- ``reveal``: as legal, but asks for the reveal whenever void (the declarer too), without
  a card, and plays its duty in the second call;
- ``reveal-card``: as reveal, but the declarer reveals and plays in one answer;
- ``forms``: as legal, its answers with no Content-Type, ``Application/json``, a trailing
  newline, pretty-printed, floats (``16.0``), in turn;
- ``strict-ct``: as legal, but answers 500 to a request without
  ``Content-Type: application/json`` (as one public bot does);
- misbehaving on every N-th POST (``--every``, default 3), legal otherwise: ``slow``
  (sleeps 3 s), ``500``, ``nonjson``, ``nofield``, ``illegal`` (a card of its hand that
  does not follow suit when it can, else a card it does not hold), ``unknown`` (``ZZ``),
  ``badreveal`` (``revealTrump`` while it could follow suit), ``crash`` (the process
  exits at the N-th POST), ``huge`` (a legal answer padded to 8 MiB), ``redirect`` (302
  to ``/elsewhere``, whose GET answers a legal-looking ``{"bid": 0}``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ORDER = "J91TKQ87"      # strongest first


def strength(card):
    return ORDER.index(card[0])


def winning(played, leader_seat_order, trump, trump_counts):
    """Index of the winning card of ``played`` (led first)."""
    led = played[0][1]
    best = 0
    for i, c in enumerate(played):
        b = played[best]
        bt = trump_counts and b[1] == trump
        ct = trump_counts and c[1] == trump
        if ct and not bt:
            best = i
        elif c[1] == b[1] and strength(c) < strength(b) and (ct or c[1] == led):
            best = i
    return best


class Brain:
    def __init__(self, mode, every):
        self.mode, self.every = mode, every
        self.posts = 0
        self.lock = threading.Lock()

    def bid(self, r):
        me = r["playerId"]
        hist = r.get("bidHistory") or []
        st = r["bidState"]
        if len(hist) == 3 and all(b == 0 for _, b in hist):
            return 16                              # the dealer may not pass
        strong = sum(1 for c in r["cards"] if c[0] in "J9")
        if st["defenderId"] == me:
            if st["challengerBid"] == 0 and st["defenderBid"] == 0:
                return 16 if strong >= 1 else 0
            return st["challengerBid"] if st["challengerBid"] <= 16 + 2 * strong else 0
        top = max(st["defenderBid"], st["challengerBid"], 15)
        return top + 1 if top + 1 <= 16 + 2 * strong else 0

    def suit(self, r):
        counts = {}
        for c in r["cards"]:
            counts[c[1]] = counts.get(c[1], 0) + 1
        return max("SHDC", key=lambda s: counts.get(s, 0))

    def play(self, r):
        """(card, reveal) for this request."""
        me, hand, played = r["playerId"], r["cards"], r["played"]
        ids = r["playerIds"]
        trick_no = len(r["handsHistory"]) + 1
        trump, rev = r["trumpSuit"], r["trumpRevealed"]
        if not played:
            return hand[-1], False
        led = played[0][1]
        follow = [c for c in hand if c[1] == led]
        if follow:
            return follow[-1], False
        if rev and rev["playerId"] == me and rev["hand"] == trick_no:
            return self.duty(r), False
        if not rev and self.mode in ("reveal", "reveal-card"):
            declarer = trump is not False
            if declarer and self.mode == "reveal-card":
                r = dict(r, trumpRevealed={"hand": trick_no, "playerId": me})
                return self.duty(r), True
            return None, True
        return hand[-1], False

    def duty(self, r):
        """The revealer's card in the reveal trick (docs/rules.md §29b.6)."""
        me, hand, played, ids = r["playerId"], r["cards"], r["played"], r["playerIds"]
        trump = r["trumpSuit"]
        trumps = [c for c in hand if c[1] == trump]
        if not trumps:
            return hand[-1]
        w = winning(played, None, trump, True)
        my = ids.index(me)
        seat_w = (my - len(played) + w) % 4
        if played[w][1] == trump and seat_w % 2 != my % 2:
            higher = [c for c in trumps if strength(c) < strength(played[w])]
            if higher:
                return higher[-1]
        return trumps[-1]

    def answer(self, path, r):
        if path == "/bid":
            return {"bid": self.bid(r)}
        if path == "/chooseTrump":
            return {"suit": self.suit(r)}
        card, reveal = self.play(r)
        out = {}
        if reveal:
            out["revealTrump"] = True
        if card is not None:
            out["card"] = card
        return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"          # keep-alive
    brain: Brain = None

    def log_message(self, *a):
        pass

    def send(self, status, body: bytes, ctype="application/json"):
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/hi":
            self.send(200, b'{"value": "hello"}')
        elif self.path.startswith("/elsewhere/"):     # where `redirect` sends a bridge that follows
            self.send(200, b'{"bid": 0, "card": "JS", "suit": "S"}')
        else:
            self.send(404, b'{"error": "no such path"}')

    def do_POST(self):
        b = self.brain
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        with b.lock:
            b.posts += 1
            k = b.posts
        bad = b.mode not in ("legal", "reveal", "reveal-card", "forms", "strict-ct") and k % b.every == 0
        if b.mode == "strict-ct" and self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            return self.send(500, b"Internal Server Error", "text/plain")
        try:
            r = json.loads(raw)
        except ValueError:
            return self.send(400, b'{"error": "not JSON"}')
        out = b.answer(self.path, r)
        if bad:
            m = b.mode
            if m == "crash":
                os._exit(3)
            if m == "slow":
                time.sleep(3.0)
            elif m == "500":
                return self.send(500, b'{"error": "boom"}')
            elif m == "nonjson":
                return self.send(200, b"hello there", "text/plain")
            elif m == "nofield":
                return self.send(200, b'{"move": 1}')
            elif m == "huge":
                return self.send(200, json.dumps({**out, "pad": "x" * (8 << 20)}).encode())
            elif m == "redirect":
                self.send_response(302)
                self.send_header("Location", "/elsewhere" + self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            elif self.path == "/play" and r["played"]:
                led = r["played"][0][1]
                if m == "illegal":
                    can = any(c[1] == led for c in r["cards"])
                    other = [c for c in r["cards"] if c[1] != led]
                    seen = set(r["cards"]) | set(r["played"])
                    out = {"card": other[0] if can and other else
                           next(c + s for s in "SHDC" for c in ORDER if c + s not in seen)}
                elif m == "unknown":
                    out = {"card": "ZZ"}
                elif m == "badreveal" and any(c[1] == led for c in r["cards"]):
                    out = {"revealTrump": True}
        if b.mode == "forms":
            i = k % 5
            text = json.dumps(out)
            if i == 0:
                return self.send(200, text.encode(), None)
            if i == 1:
                return self.send(200, text.encode(), "Application/json")
            if i == 2:
                return self.send(200, (text + "\n").encode())
            if i == 3:
                return self.send(200, json.dumps(out, indent=4).encode(), "text/plain")
            if "bid" in out:
                out["bid"] = float(out["bid"])
            return self.send(200, json.dumps(out).encode())
        self.send(200, json.dumps(out).encode())


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("mode")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--every", type=int, default=3)
    a = ap.parse_args(argv)
    Handler.brain = Brain(a.mode, a.every)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    print(f"listening on http://127.0.0.1:{srv.server_address[1]}", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
