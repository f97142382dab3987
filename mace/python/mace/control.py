"""The shared context and the cancellation flag of mace_c.h: what the
engines of one pipeline share, and what stops a run (docs/how-to/pipelines.md)."""
from __future__ import annotations

import ctypes

from mace.engine import MaceError, _check, _integer, _library


class Context:
    """One CPU thread pool for every Engine given this context (`threads`
    -1 for one per core the `affinity` policy allows). Engines keep it
    alive, so it may be closed while they run."""

    def __init__(self, threads: int = -1, affinity: int = 0):
        threads = _integer("threads", threads)
        affinity = _integer("affinity", affinity)
        handle = ctypes.c_void_p()
        _check(_library().mace_c_context_create(threads, affinity, ctypes.byref(handle)))
        self._handle = handle

    @property
    def handle(self) -> ctypes.c_void_p:
        if self._handle is None:
            raise MaceError("INVALID_ARGS", "the context is closed")
        return self._handle

    @property
    def threads(self) -> int:
        count = ctypes.c_int()
        _check(_library().mace_c_context_num_threads(self.handle, ctypes.byref(count)))
        return count.value

    @property
    def arena_bytes(self) -> int:
        """Bytes of the CPU arena the context's engines share."""
        count = ctypes.c_int64()
        _check(_library().mace_c_context_arena_bytes(self.handle, ctypes.byref(count)))
        return count.value

    def close(self) -> None:
        if self._handle is not None:
            _library().mace_c_context_destroy(self._handle)
            self._handle = None

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None:
            self.close()


class Cancellation:
    """A flag that stops the runs given it (Engine.run(cancellation=...))
    when any thread calls cancel(); it stays set until reset()."""

    def __init__(self):
        handle = ctypes.c_void_p()
        _check(_library().mace_c_cancellation_create(ctypes.byref(handle)))
        self._handle = handle

    @property
    def handle(self) -> ctypes.c_void_p:
        if self._handle is None:
            raise MaceError("INVALID_ARGS", "the cancellation flag is closed")
        return self._handle

    def cancel(self) -> None:
        _check(_library().mace_c_cancellation_cancel(self.handle))

    def reset(self) -> None:
        _check(_library().mace_c_cancellation_reset(self.handle))

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None:
            _library().mace_c_cancellation_destroy(self._handle)
            self._handle = None
