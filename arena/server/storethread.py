"""The store's threads (`StoreThread`, a part of `hosting.Arena`): the arena's writes
(journal entries, records, new game ids) run off the event loop, in order, on the
executor ``writer``; reads for clients (MyStanding) on another, ``reader``, with the
store's reading connection, so that no read ever waits in front of a game's journal."""

from __future__ import annotations

import asyncio


class StoreThread:
    """Calls on the store's threads: the arena's ``writer`` and ``reader``, each a
    ThreadPoolExecutor of one."""

    def store_submit(self, fn, *args):
        """Run ``fn(*args)`` on the store's thread: its concurrent Future; None once that
        thread is shut down (the arena stopping), when it is run here."""
        try:
            return self.writer.submit(fn, *args)
        except RuntimeError:        # cannot schedule new futures after shutdown
            fn(*args)
            return None

    async def store_call(self, fn, *args):
        """Run a store method off the event loop, on the arena's one store thread (the
        store's writes keep their order); returns its result, raises its error."""
        return await asyncio.get_running_loop().run_in_executor(self.writer, fn, *args)

    async def store_read(self, fn, *args):
        """Run ``fn(*args)``, a read of the store on its reading connection (Store.games_of),
        on the reader's thread: never queued behind or in front of the writes."""
        return await asyncio.get_running_loop().run_in_executor(self.reader, fn, *args)
