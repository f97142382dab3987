"""The table of hostile and careless calls of tests/test_api_hostile.py: each
case names one call sequence over the Python module (`mace.Engine`) or over
the C API (libmace.so through ctypes) and what it must end in, a MaceError
of a given status whose message holds a given fragment, or a correct result.

The models are test/c_api_model_gen.cc's: `scalar` (x [4] and scale [1] ->
scaled = x * scale) and `typed` (ids [4] int64, mask [4] bool).
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable, Optional

import numpy as np


@dataclass(frozen=True)
class Case:
    """One call sequence. `status` set: it must raise MaceError of that
    status with `fragment` in its message. `status` None: it must return
    (got, want) arrays that are equal."""
    name: str
    surface: str          # "python" or "c"
    body: Callable[["Context"], object]
    status: Optional[str] = None
    fragment: str = ""


class Context:
    """What a case runs against: the mace package, its library and the
    model files."""

    def __init__(self, mace: ModuleType, models: dict[str, tuple[Path, Path]]):
        self.mace = mace
        self.engine_module = mace.engine
        self.lib = mace.engine._library()
        self.models = models
        rng = np.random.default_rng(7767517)
        self.x = rng.standard_normal(4).astype(np.float32)
        self.x2 = rng.standard_normal(4).astype(np.float32)
        self.scale = np.array([1.5], np.float32)

    # ---- the Python module ------------------------------------------------
    def engine(self, model: str = "scalar", **options):
        graph, weights = self.models[model]
        return self.mace.Engine(graph, weights, **options)

    def run(self, **inputs) -> dict:
        return self.engine().run(inputs)

    # ---- the C API ----------------------------------------------------------
    def check(self, code: int) -> None:
        """Raises the module's MaceError for a failed C call."""
        self.engine_module._check(code)

    def config(self) -> ctypes.c_void_p:
        config = ctypes.c_void_p()
        self.check(self.lib.mace_c_config_create(0, ctypes.byref(config)))
        return config

    def c_engine(self, model: str = "scalar") -> ctypes.c_void_p:
        graph, weights = self.models[model]
        config = self.config()
        handle = ctypes.c_void_p()
        try:
            self.check(self.lib.mace_c_engine_create_from_files(
                str(graph).encode(), str(weights).encode(), config, ctypes.byref(handle)))
        finally:
            self.lib.mace_c_config_destroy(config)
        return handle

    def set_input(self, handle, name: bytes, array: np.ndarray, rank: Optional[int] = None,
                  size: Optional[int] = None, code: int = 0) -> None:
        array = np.ascontiguousarray(array)
        dims = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        self.check(self.lib.mace_c_engine_set_input(
            handle, name, code, dims, array.ndim if rank is None else rank,
            array.ctypes.data_as(ctypes.c_void_p), array.nbytes if size is None else size))

    def c_run(self, handle) -> None:
        self.check(self.lib.mace_c_engine_run(handle))

    def c_output(self, handle, name: bytes = b"scaled") -> np.ndarray:
        dims = ctypes.POINTER(ctypes.c_int64)()
        rank, size = ctypes.c_size_t(), ctypes.c_size_t()
        data = ctypes.c_void_p()
        self.check(self.lib.mace_c_engine_get_output(handle, name, None, ctypes.byref(dims),
                                                     ctypes.byref(rank), ctypes.byref(data),
                                                     ctypes.byref(size)))
        out = np.empty([dims[i] for i in range(rank.value)], np.float32)
        ctypes.memmove(out.ctypes.data, data.value, min(out.nbytes, size.value))
        return out


BAD = "INVALID_ARGS"


def _scaled(ctx: Context, x: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    got = ctx.engine().run({"x": x, "scale": scale})["scaled"]
    return got, x * np.float32(scale.reshape(-1)[0])


def _then_missing(ctx: Context, bad: dict) -> object:
    """A call refused on one input, then a call that omits the other."""
    engine = ctx.engine()
    try:
        engine.run({"x": ctx.x, **bad})
    except ctx.mace.MaceError:
        pass
    return engine.run({"scale": ctx.scale})


def _then_good(ctx: Context, bad: dict) -> tuple[np.ndarray, np.ndarray]:
    """A call refused on one input, then a good call with other values."""
    engine = ctx.engine()
    try:
        engine.run({"x": ctx.x, **bad})
    except ctx.mace.MaceError:
        pass
    return engine.run({"x": ctx.x2, "scale": ctx.scale})["scaled"], ctx.x2 * ctx.scale[0]


def _stale(ctx: Context) -> object:
    engine = ctx.engine()
    engine.run({"x": ctx.x, "scale": ctx.scale})
    return engine.run({"x": ctx.x2})


def _closed(ctx: Context) -> object:
    engine = ctx.engine()
    engine.close()
    return engine.run({"x": ctx.x, "scale": ctx.scale})


def _typed(ctx: Context, ids, mask) -> object:
    return ctx.engine("typed").run({"ids": ids, "mask": mask})


def _python_cases() -> list[Case]:
    x4 = np.arange(4, dtype=np.float32)
    s = np.array([2.0], np.float32)
    mask = np.ones(4, np.bool_)
    cases = [
        Case("run: both inputs", "python", lambda c: _scaled(c, c.x, c.scale)),
        Case("run: a 0-d array for the one-element input", "python",
             lambda c: _scaled(c, c.x, np.array(1.5, np.float32))),
        Case("run: a numpy scalar for the one-element input", "python",
             lambda c: _scaled(c, c.x, np.float32(-3.0))),
        Case("run: a strided view as input", "python",
             lambda c: _scaled(c, np.arange(8, dtype=np.float32)[::2], c.scale)),
        Case("run: NaN and inf values compute", "python",
             lambda c: _scaled(c, np.array([np.nan, np.inf, -np.inf, 0], np.float32),
                               c.scale)),
        Case("run: Path objects for the model", "python",
             lambda c: (c.mace.Engine(Path(c.models["scalar"][0]),
                                      Path(c.models["scalar"][1])).run(
                 {"x": x4, "scale": s})["scaled"], x4 * 2)),
        Case("run: threads=0 takes the default", "python",
             lambda c: (c.engine(threads=0).run({"x": x4, "scale": s})["scaled"], x4 * 2)),
        Case("run: one input missing", "python", lambda c: c.run(x=c.x), BAD,
             "input 'scale' is missing"),
        Case("run: a later call omits an input (no stale value)", "python", _stale, BAD,
             "input 'scale' is missing"),
        Case("run: no inputs", "python", lambda c: c.run(), BAD, "is missing"),
        Case("run: an unknown input besides the model's", "python",
             lambda c: c.run(x=c.x, scale=c.scale, bogus=c.x), BAD,
             "'bogus' is not an input of the model"),
        Case("run: None for the inputs", "python", lambda c: c.engine().run(None), BAD,
             "inputs must be a mapping"),
        Case("run: a list for the inputs", "python",
             lambda c: c.engine().run([("x", c.x)]), BAD, "inputs must be a mapping"),
        Case("run: a bytes input name", "python",
             lambda c: c.engine().run({b"x": c.x, "scale": c.scale}), BAD,
             "is not a string"),
        Case("run: an int input name", "python",
             lambda c: c.engine().run({0: c.x, "scale": c.scale}), BAD, "is not a string"),
        Case("run: NUL inside an input name", "python",
             lambda c: c.engine().run({"x\0junk": c.x, "scale": c.scale}), BAD,
             "holds a NUL character"),
        Case("run: NUL after an input name", "python",
             lambda c: c.engine().run({"x": c.x, "scale\0": c.scale}), BAD,
             "holds a NUL character"),
        Case("run: refused dtype, then a call omitting the other input", "python",
             lambda c: _then_missing(c, {"scale": c.scale.astype(np.float64)}), BAD,
             "input 'x' is missing"),
        Case("run: refused shape, then a call omitting the other input", "python",
             lambda c: _then_missing(c, {"scale": np.ones(2, np.float32)}), BAD,
             "input 'x' is missing"),
        Case("run: refused shape, then a good call", "python",
             lambda c: _then_good(c, {"scale": np.ones(2, np.float32)})),
        Case("run: refused dtype, then a good call", "python",
             lambda c: _then_good(c, {"scale": c.scale.astype(np.float16)})),
        Case("run: a 0-d array for a four-element input", "python",
             lambda c: c.run(x=np.float32(1.0), scale=c.scale), BAD, "shape"),
        Case("run: shape [1, 1] for shape [1]", "python",
             lambda c: c.run(x=c.x, scale=np.ones((1, 1), np.float32)), BAD, "shape"),
        Case("run: five elements for four", "python",
             lambda c: c.run(x=np.ones(5, np.float32), scale=c.scale), BAD, "shape"),
        Case("run: an empty input", "python",
             lambda c: c.run(x=np.ones(0, np.float32), scale=c.scale), BAD, "shape"),
        Case("run: a Python float (float64)", "python",
             lambda c: c.run(x=c.x, scale=2.0), BAD, "dtype float64"),
        Case("run: float16", "python",
             lambda c: c.run(x=c.x.astype(np.float16), scale=c.scale), BAD, "dtype float16"),
        Case("run: complex64", "python",
             lambda c: c.run(x=c.x.astype(np.complex64), scale=c.scale), BAD,
             "dtype complex64"),
        Case("run: an object array", "python",
             lambda c: c.run(x=np.array([object()] * 4), scale=c.scale), BAD, "dtype object"),
        Case("run: a ragged list", "python",
             lambda c: c.run(x=[[1.0], [1.0, 2.0]], scale=c.scale), BAD, "not an array"),
        Case("run: int32 into a float32 input", "python",
             lambda c: c.run(x=np.ones(4, np.int32), scale=c.scale), BAD,
             "is int32 but the model expects float32"),
        Case("run: after close", "python", _closed, BAD, "the engine is closed"),
        Case("run: typed model without its mask", "python",
             lambda c: c.engine("typed").run({"ids": np.zeros(4, np.int64)}), BAD,
             "input 'mask' is missing"),
        Case("run: typed model, bool holding 2", "python",
             lambda c: _typed(c, np.zeros(4, np.int64),
                              np.array([0, 2, 1, 0], np.uint8).view(np.bool_)), BAD,
             "bool elements are 0 or 1"),
        Case("run: typed model, int64 beyond 2^24", "python",
             lambda c: _typed(c, np.array([0, 2 ** 24 + 1, 0, 0], np.int64), mask), BAD,
             "holds 16777217"),
        Case("run: typed model, both inputs", "python",
             lambda c: (_typed(c, np.array([3, -4, 5, 2 ** 24], np.int64), mask)["twice"],
                        2 * np.array([3, -4, 5, 2 ** 24], np.int64))),
    ]
    integers = [("threads", 2 ** 32 + 1), ("threads", 2 ** 31), ("threads", -2),
                ("threads", 257), ("threads", -(2 ** 63)), ("affinity", 3),
                ("affinity", -1), ("affinity", 2 ** 32 + 1), ("dsp_timeout_ms", -1),
                ("dsp_timeout_ms", 2 ** 63), ("dsp_timeout_ms", 2 ** 64 + 5)]
    for option, value in integers:
        cases.append(Case(f"Engine: {option}={value}", "python",
                          lambda c, o=option, v=value: c.engine(**{o: v}), BAD,
                          f"{option} {value} is out of range"))
    for option, value in (("threads", 2.5), ("threads", "4"), ("affinity", None)):
        cases.append(Case(f"Engine: {option}={value!r}", "python",
                          lambda c, o=option, v=value: c.engine(**{o: v}), BAD,
                          f"{option} must be an integer"))
    strings = [("cpu_kernel_family", "auto\0evil"), ("opencl_cache_file", "/tmp/cache\0x"),
               ("dsp_emulator", "/bin/true\0x"), ("dsp_image", "/tmp/image\0x")]
    for option, value in strings:
        cases.append(Case(f"Engine: NUL in {option}", "python",
                          lambda c, o=option, v=value: c.engine(**{o: v}), BAD,
                          "holds a NUL character"))
    cases += [
        Case("Engine: NUL in the graph path", "python",
             lambda c: c.mace.Engine(str(c.models["scalar"][0]) + "\0.bak",
                                     c.models["scalar"][1]), BAD, "holds a NUL character"),
        Case("Engine: NUL in the weights path", "python",
             lambda c: c.mace.Engine(c.models["scalar"][0],
                                     str(c.models["scalar"][1]) + "\0.bak"), BAD,
             "holds a NUL character"),
        Case("Engine: cpu_kernel_family=None", "python",
             lambda c: c.engine(cpu_kernel_family=None), BAD, "must be a string"),
        Case("Engine: an int for the graph path", "python",
             lambda c: c.mace.Engine(3, c.models["scalar"][1]), BAD, "must be a path"),
        Case("Engine: device 'cpu\\0'", "python", lambda c: c.engine(device="cpu\0"), BAD,
             "is not one of"),
        Case("Engine: unknown gpu_data_type", "python",
             lambda c: c.engine(gpu_data_type="fp8"), BAD, "gpu_data_type"),
        Case("Engine: a graph path that does not exist", "python",
             lambda c: c.mace.Engine("/nonexistent.pb", c.models["scalar"][1]), BAD,
             "cannot open"),
        Case("Engine: empty graph bytes", "python", lambda c: c.mace.Engine(b"", b""), BAD,
             "empty"),
        Case("Engine: bytes graph with a path for weights", "python",
             lambda c: c.mace.Engine(b"\x08", c.models["scalar"][1]), BAD,
             "both as paths or both as bytes"),
    ]
    return cases


def _c_sequence(ctx: Context, steps: str) -> object:
    """Runs a sequence on the scalar model: X sets x, x sets x2, S sets
    scale, s sets a refused scale (wrong size), w sets an x of the wrong
    shape (taken, refused at run), R runs and o returns (got, want). Only
    the last step may raise."""
    handle = ctx.c_engine()
    x_value = ctx.x
    for index, step in enumerate(steps):
        try:
            if step == "X":
                ctx.set_input(handle, b"x", ctx.x)
                x_value = ctx.x
            elif step == "x":
                ctx.set_input(handle, b"x", ctx.x2)
                x_value = ctx.x2
            elif step == "S":
                ctx.set_input(handle, b"scale", ctx.scale)
            elif step == "s":
                ctx.set_input(handle, b"scale", ctx.scale, size=2)
            elif step == "w":
                ctx.set_input(handle, b"x", np.ones(2, np.float32))
            elif step == "R":
                ctx.c_run(handle)
            elif step == "o":
                return ctx.c_output(handle), x_value * ctx.scale[0]
        except ctx.mace.MaceError:
            if index == len(steps) - 1:
                raise
    return None


def _c_config_call(ctx: Context, function: str, *args) -> object:
    config = ctx.config()
    try:
        ctx.check(getattr(ctx.lib, function)(config, *args))
    finally:
        ctx.lib.mace_c_config_destroy(config)
    return None


def _c_set_input(ctx: Context, name=b"x", code: int = 0, rank: int = 1, with_dims: bool = True,
                 with_data: bool = True, size: int = 16, dim: int = 4) -> object:
    handle = ctx.c_engine()
    dims = (ctypes.c_int64 * 1)(dim)
    data = ctx.x.ctypes.data_as(ctypes.c_void_p)
    ctx.check(ctx.lib.mace_c_engine_set_input(handle, name, code, dims if with_dims else None,
                                              rank, data if with_data else None, size))
    return None


def _c_cases() -> list[Case]:
    cases = [
        Case("C: set both, run, read", "c", lambda c: _c_sequence(c, "XSRo")),
        Case("C: set, run, set again, run, read", "c", lambda c: _c_sequence(c, "XSRxSRo")),
        Case("C: run with nothing set", "c", lambda c: _c_sequence(c, "R"), BAD,
             "has not been set"),
        Case("C: a second run without inputs (no stale value)", "c",
             lambda c: _c_sequence(c, "XSRR"), BAD, "has not been set since the last run"),
        Case("C: a later run sets only x (no stale scale)", "c",
             lambda c: _c_sequence(c, "XSRxR"), BAD,
             "input 'scale' has not been set since the last run"),
        Case("C: a refused set_input drops x set before it", "c",
             lambda c: _c_sequence(c, "XsSR"), BAD,
             "input 'x' has not been set since the last run"),
        Case("C: a failed run drops its inputs", "c", lambda c: _c_sequence(c, "SwRXR"), BAD,
             "input 'scale' has not been set since the last run"),
        Case("C: a refused set_input, then all inputs again", "c",
             lambda c: _c_sequence(c, "XsxSRo")),
        Case("C: no output after a failed run", "c",
             lambda c: _c_sequence(c, "XSRSwRo"), BAD, "has not run successfully"),
        Case("C: set_input on a null engine", "c",
             lambda c: c.check(c.lib.mace_c_engine_set_input(None, b"x", 0, None, 0, None, 0)),
             BAD, "engine or name is null"),
        Case("C: set_input with a null name", "c", lambda c: _c_set_input(c, name=None), BAD,
             "engine or name is null"),
        Case("C: set_input with an unknown name", "c",
             lambda c: _c_set_input(c, name=b"nope"), BAD, "'nope' is not an input"),
        Case("C: set_input with data type 99", "c", lambda c: _c_set_input(c, code=99), BAD,
             "data type 99 is unknown"),
        Case("C: set_input with data type -1", "c", lambda c: _c_set_input(c, code=-1), BAD,
             "data type -1 is unknown"),
        Case("C: set_input with rank 1000 and one dim", "c",
             lambda c: _c_set_input(c, rank=1000), BAD, "has rank 1000"),
        Case("C: set_input with rank SIZE_MAX", "c",
             lambda c: _c_set_input(c, rank=2 ** 64 - 1), BAD, "has rank"),
        Case("C: set_input with rank 0", "c", lambda c: _c_set_input(c, rank=0, size=4), BAD,
             "has rank 0"),
        Case("C: set_input with null dims", "c", lambda c: _c_set_input(c, with_dims=False),
             BAD, "dims is null"),
        Case("C: set_input with null data", "c", lambda c: _c_set_input(c, with_data=False),
             BAD, "data is null"),
        Case("C: set_input with a size short by one", "c", lambda c: _c_set_input(c, size=15),
             BAD, "needs 16 bytes, got 15"),
        Case("C: set_input with SIZE_MAX bytes", "c",
             lambda c: _c_set_input(c, size=2 ** 64 - 1), BAD, "needs 16 bytes"),
        Case("C: set_input with a negative dim", "c", lambda c: _c_set_input(c, dim=-4), BAD,
             "negative or too large"),
        Case("C: set_input with a dim of 2^62", "c", lambda c: _c_set_input(c, dim=2 ** 62),
             BAD, "negative or too large"),
        Case("C: run on a null engine", "c", lambda c: c.check(c.lib.mace_c_engine_run(None)),
             BAD, "engine is null"),
        Case("C: get_output of an unknown name", "c",
             lambda c: c.c_output(c.c_engine(), b"nope"), BAD, "is not an output"),
        Case("C: input_name index SIZE_MAX", "c",
             lambda c: c.check(c.lib.mace_c_engine_input_name(
                 c.c_engine(), 2 ** 64 - 1, ctypes.byref(ctypes.c_char_p()))), BAD,
             "out of range"),
        Case("C: input_shape of a null name", "c",
             lambda c: c.check(c.lib.mace_c_engine_input_shape(
                 c.c_engine(), None, ctypes.byref(ctypes.POINTER(ctypes.c_int64)()),
                 ctypes.byref(ctypes.c_size_t()))), BAD, "null"),
        Case("C: config_create of device 1", "c",
             lambda c: c.check(c.lib.mace_c_config_create(1, ctypes.byref(ctypes.c_void_p()))),
             BAD, "device 1 is not"),
        Case("C: create_from_files with a null path", "c",
             lambda c: c.check(c.lib.mace_c_engine_create_from_files(
                 None, b"w", c.config(), ctypes.byref(ctypes.c_void_p()))), BAD,
             "a file path is null"),
        Case("C: create_from_buffers with null weights of 10 bytes", "c",
             lambda c: c.check(c.lib.mace_c_engine_create_from_buffers(
                 b"\x08", 1, None, 10, c.config(), ctypes.byref(ctypes.c_void_p()))), BAD,
             "weights is null"),
    ]
    configs = [("mace_c_config_set_cpu_threads", (257, 0), "num_threads 257"),
               ("mace_c_config_set_cpu_threads", (-2, 0), "num_threads -2"),
               ("mace_c_config_set_cpu_threads", (2 ** 31 - 1, 0), "num_threads 2147483647"),
               ("mace_c_config_set_cpu_threads", (-(2 ** 31), 0), "num_threads -2147483648"),
               ("mace_c_config_set_cpu_threads", (1, 3), "affinity 3"),
               ("mace_c_config_set_cpu_threads", (1, -1), "affinity -1"),
               ("mace_c_config_set_gpu_hints", (4, 0), "hints must be 0 to 3"),
               ("mace_c_config_set_gpu_hints", (0, -1), "hints must be 0 to 3"),
               ("mace_c_config_set_gpu_data_type", (2,), "data type 2"),
               ("mace_c_config_set_opencl_device_fallback", (2,), "allow 2 is not 0 or 1"),
               ("mace_c_config_set_opencl_device_fallback", (-1,), "allow -1 is not 0 or 1"),
               ("mace_c_config_set_hexagon_options", (None, None, -1), "timeout -1"),
               ("mace_c_config_set_hexagon_options", (None, None, 2 ** 63 - 1),
                "timeout 9223372036854775807")]
    for function, args, fragment in configs:
        cases.append(Case(f"C: {function.removeprefix('mace_c_config_')}{args}", "c",
                          lambda c, f=function, a=args: _c_config_call(c, f, *a), BAD,
                          fragment))
    return cases


def all_cases() -> list[Case]:
    return _python_cases() + _c_cases()
