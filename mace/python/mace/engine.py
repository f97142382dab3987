"""The ctypes binding of mace_c.h behind mace.Engine."""
from __future__ import annotations

import ctypes
import json
import math
import operator
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

import numpy as np

if TYPE_CHECKING:
    from mace.control import Cancellation, Context

_STATUS = {1: "INVALID_ARGS", 2: "OUT_OF_RESOURCES", 3: "UNSUPPORTED", 4: "RUNTIME_ERROR",
           5: "CANCELLED", 6: "DEADLINE_EXCEEDED"}
_DEVICES = {"cpu": 0, "gpu": 2, "hexagon": 3, "dsp": 3}
# The values of MaceCDataType (mace_c.h). bool is one byte per element, 0 or 1.
_DTYPES = {0: np.dtype(np.float32), 1: np.dtype(np.int32), 2: np.dtype(np.uint8),
           3: np.dtype(np.int64), 4: np.dtype(np.bool_)}
_CODES = {dtype: code for code, dtype in _DTYPES.items()}
_GPU_DATA_TYPES = {"fp16_fp32": 0, "fp32_fp32": 1}
# The integer arguments of Engine and the values the C API takes for them.
_DAY_MS = 24 * 3600 * 1000
_INT_RANGES = {"threads": (-1, 256), "affinity": (0, 2), "dsp_timeout_ms": (0, _DAY_MS),
               "sequential_group": (-1, 2**31 - 1),
               "timeout_us": (0, 2**63 - 1)}


class MaceError(RuntimeError):
    """A failed engine call: `status` is the MaceStatus name
    ("INVALID_ARGS", ...), the message names the problem."""

    def __init__(self, status: str, message: str):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


def library_path() -> Path:
    """Where libmace.so is loaded from."""
    env = os.environ.get("MACE_LIBRARY")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent
    beside = here / "libmace.so"
    if beside.exists():
        return beside
    return here.parents[2] / "bazel-bin" / "mace" / "libmace" / "libmace.so"


_lib = None
_lib_lock = threading.Lock()


def _library() -> ctypes.CDLL:
    global _lib
    with _lib_lock:
        if _lib is None:
            path = library_path()
            try:
                lib = ctypes.CDLL(str(path))
            except OSError as error:
                raise MaceError("UNSUPPORTED", f"cannot load {path}: {error}; build it with "
                                "`bazel build //mace/libmace:libmace.so` or set "
                                "MACE_LIBRARY") from None
            _declare(lib)
            _lib = lib
        return _lib


def _declare(lib: ctypes.CDLL) -> None:
    p, c_int, size_t = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
    int64_p = ctypes.POINTER(ctypes.c_int64)
    signatures = {
        "mace_c_version": ([], ctypes.c_char_p),
        "mace_c_last_error": ([], ctypes.c_char_p),
        "mace_c_config_create": ([c_int, ctypes.POINTER(p)], c_int),
        "mace_c_config_destroy": ([p], None),
        "mace_c_config_set_cpu_threads": ([p, c_int, c_int], c_int),
        "mace_c_config_set_gpu_hints": ([p, c_int, c_int], c_int),
        "mace_c_config_set_gpu_data_type": ([p, c_int], c_int),
        "mace_c_config_set_opencl_device_fallback": ([p, c_int], c_int),
        "mace_c_config_set_opencl_cache_file": ([p, ctypes.c_char_p], c_int),
        "mace_c_config_set_cpu_kernel_family": ([p, ctypes.c_char_p], c_int),
        "mace_c_config_set_hexagon_options": ([p, ctypes.c_char_p, ctypes.c_char_p,
                                               ctypes.c_int64], c_int),
        "mace_c_engine_create_from_files": ([ctypes.c_char_p, ctypes.c_char_p, p,
                                             ctypes.POINTER(p)], c_int),
        "mace_c_engine_create_from_buffers": ([p, size_t, p, size_t, p, ctypes.POINTER(p)],
                                              c_int),
        "mace_c_engine_destroy": ([p], None),
        "mace_c_engine_input_count": ([p, ctypes.POINTER(size_t)], c_int),
        "mace_c_engine_input_name": ([p, size_t, ctypes.POINTER(ctypes.c_char_p)], c_int),
        "mace_c_engine_input_shape": ([p, ctypes.c_char_p, ctypes.POINTER(int64_p),
                                       ctypes.POINTER(size_t)], c_int),
        "mace_c_engine_input_max_shape": ([p, ctypes.c_char_p, ctypes.POINTER(int64_p),
                                           ctypes.POINTER(size_t)], c_int),
        "mace_c_engine_replans": ([p, int64_p], c_int),
        "mace_c_engine_reset_state": ([p], c_int),
        "mace_c_engine_output_count": ([p, ctypes.POINTER(size_t)], c_int),
        "mace_c_engine_output_name": ([p, size_t, ctypes.POINTER(ctypes.c_char_p)], c_int),
        "mace_c_engine_set_input": ([p, ctypes.c_char_p, c_int, int64_p, size_t, p, size_t],
                                    c_int),
        "mace_c_engine_run": ([p], c_int),
        "mace_c_engine_run_with_options": ([p, ctypes.c_int64, p], c_int),
        "mace_c_context_create": ([c_int, c_int, ctypes.POINTER(p)], c_int),
        "mace_c_context_destroy": ([p], None),
        "mace_c_context_num_threads": ([p, ctypes.POINTER(c_int)], c_int),
        "mace_c_config_set_context": ([p, p], c_int),
        "mace_c_config_set_sequential_group": ([p, c_int], c_int),
        "mace_c_context_arena_bytes": ([p, int64_p], c_int),
        "mace_c_cancellation_create": ([ctypes.POINTER(p)], c_int),
        "mace_c_cancellation_destroy": ([p], None),
        "mace_c_cancellation_cancel": ([p], c_int),
        "mace_c_cancellation_reset": ([p], c_int),
        "mace_c_engine_get_output": ([p, ctypes.c_char_p, ctypes.POINTER(c_int),
                                      ctypes.POINTER(int64_p), ctypes.POINTER(size_t),
                                      ctypes.POINTER(p), ctypes.POINTER(size_t)], c_int),
        "mace_c_engine_memory_report_json": ([p, ctypes.POINTER(ctypes.c_char_p)], c_int),
    }
    for name, (args, result) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = args
        function.restype = result


def _check(code: int) -> None:
    if code != 0:
        message = _library().mace_c_last_error().decode("utf-8", "replace")
        raise MaceError(_STATUS.get(code, f"status {code}"), message)


def _integer(name: str, value: object) -> int:
    """`value` as an int within the range the C API takes for `name`,
    checked before ctypes could wrap it."""
    low, high = _INT_RANGES[name]
    try:
        number = operator.index(value)
    except TypeError:
        raise MaceError("INVALID_ARGS", f"{name} must be an integer, not "
                        f"{type(value).__name__}") from None
    if not low <= number <= high:
        raise MaceError("INVALID_ARGS", f"{name} {number} is out of range: expected "
                        f"{low} to {high}")
    return number


def _text(name: str, value: object, path: bool = False) -> bytes:
    """A string argument as the bytes the C API reads up to their first NUL,
    so one inside the string is refused rather than cut off there."""
    if path and isinstance(value, (str, os.PathLike)):
        data = os.fsencode(value)
    elif isinstance(value, str):
        data = value.encode()
    else:
        raise MaceError("INVALID_ARGS", f"{name} must be a {'path' if path else 'string'}, "
                        f"not {type(value).__name__}")
    if b"\0" in data:
        raise MaceError("INVALID_ARGS", f"{name} {value!r} holds a NUL character")
    return data


def version() -> str:
    return _library().mace_c_version().decode()


class Engine:
    """One loaded model. `device` is "cpu", "gpu" or "hexagon"; `threads`
    the CPU threads (-1 for the default policy). An engine runs one call at
    a time (calls from several threads are serialized); use one engine per
    thread for parallel runs. `dsp_emulator`, `dsp_image` and
    `dsp_timeout_ms` are the Hexagon options of a "hexagon" engine (the
    qemu-hexagon binary, the DSP image, the deadline of each call to the
    DSP); None or 0 takes the default (docs/how-to/bindings.md). An engine given
    a `context` (mace.Context) uses its CPU thread pool instead of starting
    one; `threads` and `affinity` then have no effect, and
    `sequential_group` (>= 0) puts it in a group of engines that never run
    at the same time and share one arena region (docs/how-to/pipelines.md)."""

    def __init__(self, graph: os.PathLike | str | bytes, weights: os.PathLike | str | bytes,
                 device: str = "cpu", threads: int = -1, affinity: int = 0,
                 gpu_data_type: str = "fp16_fp32", opencl_device_fallback: bool = False,
                 opencl_cache_file: Optional[str] = None, cpu_kernel_family: str = "auto",
                 dsp_emulator: Optional[str] = None, dsp_image: Optional[str] = None,
                 dsp_timeout_ms: int = 0, context: Optional["Context"] = None,
                 sequential_group: int = -1):
        lib = _library()
        if device not in _DEVICES:
            raise MaceError("INVALID_ARGS", f"device '{device}' is not one of "
                            f"{', '.join(_DEVICES)}")
        if gpu_data_type not in _GPU_DATA_TYPES:
            raise MaceError("INVALID_ARGS", f"gpu_data_type '{gpu_data_type}' is not "
                            "fp16_fp32 or fp32_fp32")
        self._lock = threading.Lock()
        self._handle = None
        # Every argument is checked before the first native call.
        threads = _integer("threads", threads)
        affinity = _integer("affinity", affinity)
        dsp_timeout_ms = _integer("dsp_timeout_ms", dsp_timeout_ms)
        sequential_group = _integer("sequential_group", sequential_group)
        family = _text("cpu_kernel_family", cpu_kernel_family)
        cache = _text("opencl_cache_file", opencl_cache_file, path=True) \
            if opencl_cache_file else None
        emulator = _text("dsp_emulator", dsp_emulator, path=True) if dsp_emulator else None
        image = _text("dsp_image", dsp_image, path=True) if dsp_image else None
        from_bytes = isinstance(graph, bytes)
        if from_bytes != isinstance(weights, bytes):
            raise MaceError("INVALID_ARGS", "give the graph and the weights both as paths "
                            "or both as bytes")
        if not from_bytes:
            graph = _text("graph path", graph, path=True)
            weights = _text("weights path", weights, path=True)
        config = ctypes.c_void_p()
        _check(lib.mace_c_config_create(_DEVICES[device], ctypes.byref(config)))
        try:
            _check(lib.mace_c_config_set_cpu_threads(config, threads, affinity))
            if context is not None:
                _check(lib.mace_c_config_set_context(config, context.handle))
                _check(lib.mace_c_config_set_sequential_group(config, sequential_group))
            _check(lib.mace_c_config_set_gpu_data_type(config, _GPU_DATA_TYPES[gpu_data_type]))
            _check(lib.mace_c_config_set_opencl_device_fallback(config,
                                                                int(bool(opencl_device_fallback))))
            if cache:
                _check(lib.mace_c_config_set_opencl_cache_file(config, cache))
            _check(lib.mace_c_config_set_cpu_kernel_family(config, family))
            if emulator or image or dsp_timeout_ms:
                _check(lib.mace_c_config_set_hexagon_options(config, emulator, image,
                                                             dsp_timeout_ms))
            handle = ctypes.c_void_p()
            if from_bytes:
                _check(lib.mace_c_engine_create_from_buffers(graph, len(graph), weights or None,
                                                             len(weights), config,
                                                             ctypes.byref(handle)))
            else:
                _check(lib.mace_c_engine_create_from_files(graph, weights, config,
                                                           ctypes.byref(handle)))
        finally:
            lib.mace_c_config_destroy(config)
        self._handle = handle
        self.input_names = self._names(lib.mace_c_engine_input_count,
                                       lib.mace_c_engine_input_name)
        self.output_names = self._names(lib.mace_c_engine_output_count,
                                        lib.mace_c_engine_output_name)
        self.input_shapes = {name: self._input_shape(lib.mace_c_engine_input_shape, name)
                             for name in self.input_names}
        # The largest shape of each input: larger than input_shapes where a
        # dimension is dynamic (any size from 1 to this one runs).
        self.input_max_shapes = {
            name: self._input_shape(lib.mace_c_engine_input_max_shape, name)
            for name in self.input_names}

    # ---- model description ----------------------------------------------------
    def _names(self, count_fn, name_fn) -> list[str]:
        count = ctypes.c_size_t()
        _check(count_fn(self._handle, ctypes.byref(count)))
        names = []
        for index in range(count.value):
            name = ctypes.c_char_p()
            _check(name_fn(self._handle, index, ctypes.byref(name)))
            names.append(name.value.decode())
        return names

    def _input_shape(self, shape_fn, name: str) -> tuple[int, ...]:
        dims = ctypes.POINTER(ctypes.c_int64)()
        rank = ctypes.c_size_t()
        _check(shape_fn(self._handle, name.encode(), ctypes.byref(dims), ctypes.byref(rank)))
        return tuple(int(dims[i]) for i in range(rank.value))

    @property
    def dynamic_inputs(self) -> dict[str, list[int]]:
        """The inputs with dynamic dimensions, each with the indices of
        those dimensions."""
        result = {}
        for name in self.input_names:
            dims = [d for d, (planned, largest) in enumerate(
                zip(self.input_shapes[name], self.input_max_shapes[name])) if largest != planned]
            if dims:
                result[name] = dims
        return result

    # ---- running ------------------------------------------------------------
    def _live(self):
        if self._handle is None:
            raise MaceError("INVALID_ARGS", "the engine is closed")
        return self._handle

    def run(self, inputs: Mapping[str, np.ndarray], timeout_us: int = 0,
            cancellation: Optional["Cancellation"] = None) -> dict[str, np.ndarray]:
        """Runs the model on `inputs` (exactly the model's inputs, as
        float32, int32, int64, bool or uint8 arrays of the model's shapes; a
        dynamic dimension any size up to input_max_shapes; a 0-d array for
        an input of one element) and returns every output as a new array,
        in the type the model declares for it. An input declared int32,
        int64 or bool also takes float32; an integer beyond +-2^24 into a
        float32 model raises INVALID_ARGS. A missing or unknown input is
        INVALID_ARGS before anything reaches the engine; no value of an
        earlier call is ever reused. A run longer than `timeout_us`
        microseconds (0: no limit) raises DEADLINE_EXCEEDED, and one whose
        `cancellation` (mace.Cancellation) another thread cancels raises
        CANCELLED; the engine is ready for the next run."""
        timeout_us = _integer("timeout_us", timeout_us)
        flag = cancellation.handle if cancellation is not None else None
        arrays = self._arrays(inputs)
        lib = _library()
        with self._lock:
            handle = self._live()
            for name, array in arrays.items():
                dims = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
                _check(lib.mace_c_engine_set_input(
                    handle, name.encode(), _CODES[array.dtype], dims, array.ndim,
                    array.ctypes.data_as(ctypes.c_void_p) if array.nbytes else None,
                    array.nbytes))
            _check(lib.mace_c_engine_run_with_options(handle, timeout_us, flag))
            return {name: self._output(handle, name) for name in self.output_names}

    def _arrays(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The inputs of one run as contiguous arrays, every one checked."""
        if not isinstance(inputs, Mapping):
            raise MaceError("INVALID_ARGS", "inputs must be a mapping of input names to "
                            f"arrays, not {type(inputs).__name__}")
        for name in inputs:
            if not isinstance(name, str):
                raise MaceError("INVALID_ARGS", f"input name {name!r} is not a string")
            if "\0" in name:
                raise MaceError("INVALID_ARGS", f"input name {name!r} holds a NUL character")
            if name not in self.input_shapes:
                raise MaceError("INVALID_ARGS", f"'{name}' is not an input of the model; it "
                                f"takes {', '.join(self.input_names)}")
        missing = [name for name in self.input_names if name not in inputs]
        if missing:
            raise MaceError("INVALID_ARGS", f"input '{missing[0]}' is missing; every run "
                            f"takes all of {', '.join(self.input_names)}")
        arrays = {}
        for name in self.input_names:
            try:
                array = np.ascontiguousarray(inputs[name])
            except (TypeError, ValueError) as error:
                raise MaceError("INVALID_ARGS", f"input '{name}' is not an array: "
                                f"{error}") from None
            if array.dtype not in _CODES:
                raise MaceError("INVALID_ARGS", f"input '{name}' has dtype {array.dtype}; "
                                "MACE takes float32, int32, int64, bool or uint8")
            declared = self.input_shapes[name]
            if array.ndim == 0 and math.prod(declared) == 1:
                array = array.reshape(declared)
            arrays[name] = array
        return arrays

    @staticmethod
    def _output(handle, name: str) -> np.ndarray:
        code = ctypes.c_int()
        dims = ctypes.POINTER(ctypes.c_int64)()
        rank, size = ctypes.c_size_t(), ctypes.c_size_t()
        data = ctypes.c_void_p()
        _check(_library().mace_c_engine_get_output(handle, name.encode(), ctypes.byref(code),
                                                   ctypes.byref(dims), ctypes.byref(rank),
                                                   ctypes.byref(data), ctypes.byref(size)))
        shape = tuple(int(dims[i]) for i in range(rank.value))
        out = np.empty(shape, _DTYPES[code.value])
        if out.nbytes != size.value:
            raise MaceError("RUNTIME_ERROR", f"output '{name}' holds {size.value} bytes, "
                            f"not the {out.nbytes} of shape {list(shape)}")
        if out.nbytes:   # one copy, straight into the array the caller gets
            ctypes.memmove(out.ctypes.data, data.value, out.nbytes)
        return out

    @property
    def replans(self) -> int:
        """How many times the engine planned its memory again because a run
        brought new shapes of dynamic inputs."""
        with self._lock:
            count = ctypes.c_int64()
            _check(_library().mace_c_engine_replans(self._live(), ctypes.byref(count)))
            return int(count.value)

    def reset_state(self) -> None:
        """Gives every state tensor of a streaming model its initial value
        again (docs/how-to/streaming_state.md); nothing to do without one."""
        with self._lock:
            _check(_library().mace_c_engine_reset_state(self._live()))

    def memory_report(self) -> dict:
        """The memory plan: arena, weights, naive and lower-bound bytes,
        re-plans, and one entry per memory type."""
        with self._lock:
            text = ctypes.c_char_p()
            _check(_library().mace_c_engine_memory_report_json(self._live(),
                                                               ctypes.byref(text)))
            return json.loads(text.value.decode())

    # ---- lifetime -------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                _library().mace_c_engine_destroy(self._handle)
                self._handle = None

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None and _lib is not None:
            _lib.mace_c_engine_destroy(self._handle)
            self._handle = None
