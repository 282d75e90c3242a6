"""The store's one thread (`StoreThread`, a part of `hosting.Arena`): the arena's writes
(journal entries, records, new game ids) run off the event loop, in order, on the
executor ``writer``."""

from __future__ import annotations

import asyncio


class StoreThread:
    """Calls on the store's thread (the arena's ``writer``, a ThreadPoolExecutor of one)."""

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
