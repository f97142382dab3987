"""MACE from Python: load a converted model (.pb + .data) and run it.

    import numpy as np
    import mace

    with mace.Engine("model.pb", "model.data", threads=2) as engine:
        outputs = engine.run({"input": np.zeros(engine.input_shapes["input"], np.float32)})
        print(engine.memory_report()["arena_bytes"])

A thin binding (ctypes) over the C API in libmace.so (mace/public/mace_c.h):
every failure is a MaceError carrying the engine's status and message.
The library is found through MACE_LIBRARY, else next to this package, else
in the repository's bazel-bin.
"""
from mace.control import Cancellation, Context
from mace.engine import Engine, MaceError, library_path, version

__all__ = ["Cancellation", "Context", "Engine", "MaceError", "library_path", "version"]
