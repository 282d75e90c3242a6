"""The games' drive (`Driving`, a part of `hosting.Arena`): `run_game` plays one match
through the engine's `Playout`, driven by callbacks, not by a task of its own: a decision
that settles applies its action and opens the next one from that callback (`drive`), so
the next request is queued for its seat's stream with no task woken in between;
`run_game` only awaits the game's end. A deal's end waits for its journal entry
(`_committed`); the game's end writes its record."""

from __future__ import annotations

import asyncio
import logging
import traceback

from taash.interpreter import Match
from taash.interpreter.playout import Playout

from ..pb import messages_pb2 as pb
from ..store import compact_json
from . import persist
from .game import Game, TimeControl

log = logging.getLogger("taash.arena")

# a deal's result as DealEnded.result_json: compact JSON, the json module's text, written
# by orjson (a DecisionRequest's observation is State.observation_json, the same form)
result_json = compact_json
# Finished games remembered to tell a late answer STALE_REQUEST (rather than UNKNOWN).
FINISHED_KEPT = 2_000
INT32_MIN, INT32_MAX = -2**31, 2**31 - 1     # the range of the protocol's scores


class Driving:
    """Games from start to record. Uses the arena's ``games``, ``finished``, ``tasks``,
    ``defaults``, ``salt``, ``stopping``, ``store`` and ``writer``."""

    def drive(self, game: Game, answer=None, start: bool = False) -> None:
        """Play ``game`` on from here: apply ``answer`` (or deal the first deal, with
        ``start``), then open each next decision until one must wait for its bot; at the
        end of the playout, ``game.done`` is set. Nothing once ``game.done`` is done (the
        game was stopped or failed)."""
        while not game.done.done():
            at = game.playout.start() if start else game.playout.send(answer)
            start = False
            if game.held is not None:   # a deal ended: on once its journal entry is written
                game.next_at = at
                return
            if at is None:
                game.done.set_result(None)
                return
            p = self.ask(game, *at)
            if p.result is None:
                return          # waits for its bot: the wake goes on from there
            answer = self.close_decision(p)

    def _committed(self, game: Game) -> None:
        """The journal entry of the deal that ended is written (or its write failed,
        logged): the events held since go out, and the game goes on with its next
        decision (`drive`). Nothing if the game ended meanwhile (its end released them).
        With a `deal_break` and a next deal, the events up to the DealEnded go out, and
        the rest (the next deal's) once the break is over (`_after_break`)."""
        held = game.held
        if (self.deal_break is not None and held is not None and game.next_at is not None
                and game.done is not None and not game.done.done()):
            end = next((k for k, (ev, _) in enumerate(held)
                        if type(ev) is not bytes and ev.WhichOneof("event") == "deal_ended"), None)
            if end is not None:
                game.held = held[:end + 1]
                self.release(game)
                game.held = held[end + 1:]      # events published meanwhile join them
                game.pause = asyncio.ensure_future(self._after_break(game, held[end][0].deal_ended.deal))
                return
        self._go_on(game)

    async def _after_break(self, game: Game, deal: int) -> None:
        """Await `deal_break` for ``game``'s ended ``deal``, then go on (`_go_on`)."""
        try:
            await self.deal_break(game.id, deal)
        except asyncio.CancelledError:
            raise
        except Exception as e:     # the break's own failure ends the break, not the game
            log.info("game %s: the break after deal %s failed: %s", game.id, deal, e)
        game.pause = None
        self._go_on(game)

    def _go_on(self, game: Game) -> None:
        """The game goes on after a deal's end (`_committed`, or after its break)."""
        if not self.release(game) or game.done is None or game.done.done():
            return
        try:
            at, game.next_at = game.next_at, None
            if at is None:
                game.done.set_result(None)
                return
            p = self.ask(game, *at)
            if p.result is None:
                return
            self.drive(game, self.close_decision(p))
        except Exception as e:
            fail_game(game, e)

    def _abandon(self, game: Game) -> None:
        """The game stops where it is (the arena is stopping, or the game failed): its
        open decision is closed as cancelled, the game loop ends."""
        if game.timer is not None:
            game.timer.cancel()
            game.timer = None
        if game.pause is not None:
            game.pause.cancel()
            game.pause = None
        p = game.asking
        if p is not None and not p.closed:
            self.forget(p, "cancelled" if p.result is None else p.how)
        if game.playout is not None:
            game.playout.close()

    async def run_game(self, variant, seed: int, bots: list[str], tc: TimeControl | None = None,
                       max_deals: int = 0, deals: list[dict] | None = None, game_id: str | None = None,
                       ref: str | None = None, named: str | None = None) -> dict:
        """Play one match of ``variant`` (a loaded Variant) with bot ``bots[s]`` in seat s
        and record it. ``deals``: optional per-deal {"hands", "widow", "dealer"} as in a
        record (else the seed deals). ``named``: the name the caller gave a variant it sent
        as text (the record names the variant so, the arena's copy as ``variant_copy``).
        Returns the GameResult fields as a dict: game_id, seed, bots, deals, score,
        winners, complete, faults, record (path), error."""
        tc = tc or self.defaults
        if len(bots) != variant.players:
            raise ValueError(f"{variant.name} needs {variant.players} bots, got {len(bots)}")
        game_id = game_id or await self.store_call(self.store.new_game_id)
        options = dict(getattr(variant, "options", {}) or {})
        game = Game(game_id, variant, ref or variant.ref, options, seed, bots, tc)
        game.named = named
        self.games[game_id] = game
        for s in range(variant.players):
            self.seat_conn(game, s)
        self.publish(game, pb.GameEvent(game_started=pb.GameStarted(
            variant=game.ref, options_json=game.options_json, bots=bots, time_control=tc.to_pb(),
            sides=variant.side_of if variant.partnership == "fixed" else ())),
            to_bots=False)
        m = game.match = Match(variant, seed, salt=self.salt)
        persist.journal_start(self.store, game, max_deals, run=self.writer.submit)
        error = None
        playing = {}        # the deal being played: "st", "dlog"
        text = variant.deck.text
        publish = self.publish

        def deal_started(st):
            d = st.deal_number
            game.deal, game.actions_in_deal = d, 0
            dlog = {"actions": [], "t_ms": [], "by_default": []}
            game.deal_log.append(dlog)
            playing["st"], playing["dlog"], playing["tricks"] = st, dlog, 0
            game.st = st
            publish(game, pb.GameEvent(deal_started=pb.DealStarted(deal=d, dealer=st.dealer)))
            self.send_views(game, st)

        def action_taken(st, s, action, by_default):
            dlog = playing["dlog"]
            game.actions_in_deal += 1
            dlog["actions"].append(action)
            dlog["t_ms"].append(game.t_ms())
            if by_default:
                dlog["by_default"].append(len(dlog["actions"]) - 1)
            msg = pb.GameEvent()
            ev = msg.action         # filled in place (GameEvent(action=...) would copy it)
            ev.deal, ev.seat, ev.action = game.deal, s, st.public_action(s, action, None)
            if st.to_act >= 0:
                ev.to_act = st.to_act
            if by_default:
                ev.by_default = True
            if len(st.tricks) > playing["tricks"]:   # this play completed a trick
                playing["tricks"] = n = len(st.tricks)
                ev.trick.number, ev.trick.winner, ev.trick.points = n, st.tricks[-1][2], st.trick_points_of(n - 1)
            publish(game, msg)
            if st.to_act >= 0:      # the deal goes on (its end shows every hand)
                self.send_views(game, st)

        def deal_ended(st):
            # Kept if the arena dies: the deal's journal entry is written on the store's
            # thread, and nobody is told the deal ended before it is committed: from
            # here the game's events wait (game.held), and the game goes on from
            # `_committed`, called on the loop once the write is done.
            playing["st"] = None
            game.held = []
            self.publish_counted(game)
            written = persist.journal_deal(self.store, game, st, playing["dlog"], run=self.store_submit)
            # the deal's cards as its record holds them (Match.record)
            publish(game, pb.GameEvent(deal_ended=pb.DealEnded(
                deal=game.deal, hands=[pb.Cards(cards=[text[c] for c in h]) for h in st.dealt],
                widow=[text[c] for c in st.widow], result_json=result_json(st.result()))))
            if written is None:     # written here (the store's thread is gone: the arena stops)
                loop.call_soon(self._committed, game)
            else:
                written.add_done_callback(lambda _: loop.call_soon_threadsafe(self._committed, game))

        loop = asyncio.get_running_loop()
        log.info("game %s: %s seed %s, bots %s", game_id, game.ref, seed, ",".join(bots))
        game.playout = Playout(m, max_deals=max_deals or None, deals=deals, on_deal_start=deal_started,
                               on_action=action_taken, on_deal_end=deal_ended)
        game.done = asyncio.get_running_loop().create_future()
        try:
            self.drive(game, start=True)
            await game.done
        except asyncio.CancelledError:
            error = (self.stop_words if self.stopping else
                     "stopped before its end: the call that started it went away")
            if not self.stopping:   # the caller went away: nobody to tell
                raise
        except Exception as e:  # an engine or arena bug: the game ends, recorded as it was
            error = f"{type(e).__name__}: {e}"
            log.error("game %s failed:\n%s", game_id, traceback.format_exc())
        finally:
            self._abandon(game)
            result = await self._finish(game, playing["dlog"] if playing.get("st") is not None else None,
                                        error)
        return result

    async def _finish(self, game: Game, unfinished: dict | None, error: str | None) -> dict:
        m = game.match
        self.publish_counted(game)
        result, record = persist.record_of(game, unfinished, error)
        result = await self.store_call(persist.write, self.store, game.ref, result, record)
        self.release(game)     # after the record (and so any journal entry before it) is written
        if any(not INT32_MIN <= x <= INT32_MAX for x in result["score"]):
            # the wire's scores are 32-bit (GameEnded, GameResult); the record replays to the true ones
            too = "a score passes the protocol's 32-bit integers: `taash replay` of the record gives the scores"
            result["error"] = f"{result['error']}; {too}" if result["error"] else too
            result["score"] = []
        try:
            self.publish(game, pb.GameEvent(game_ended=pb.GameEnded(
                complete=m.over, score=result["score"], winners=result["winners"], seed=game.seed,
                deals=len(m.deals), record=result["record"])))
        finally:        # whatever happens, the game is no longer running (its spectators told)
            game.feed.close()
            self.games.pop(game.id, None)
        self.finished[game.id] = ",".join(game.bots)
        if len(self.finished) > FINISHED_KEPT:
            for k in list(self.finished)[:FINISHED_KEPT // 2]:
                del self.finished[k]
        for seat in game.seats:
            c = seat.conn
            if c is not None:
                c.seats -= 1
                c.games.discard(game.id)
                if c.held:
                    c.flush()
        log.info("game %s %s: score %s, winners %s, %d verdicts", game.id,
                 f"cut short ({error})" if error else "over",
                 result["score"], result["winners"], len(game.verdicts))
        return result

    def spawn(self, coro) -> asyncio.Task:
        """Run a game coroutine as a task owned by the arena (it outlives the RPC that
        started it; `stop` cancels it and its record is saved as cut short)."""
        t = asyncio.ensure_future(coro)
        self.tasks.add(t)
        t.add_done_callback(self.tasks.discard)
        return t


def fail_game(game: Game, e: BaseException) -> None:
    """End ``game`` with the error ``e`` (an engine or arena bug, raised while driving
    it from a callback): `Arena.run_game` records it."""
    if game.done is not None and not game.done.done():
        game.done.set_exception(e)
    else:
        log.error("game %s: error after its end: %r", game.id, e)
