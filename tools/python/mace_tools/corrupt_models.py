"""Structured corruptions of a model, its weights, its input and mace_run's
flags, each run through mace_run and classified.

The base model is MobileNet v2 (1.0) built by mace_tools.mobilenet_v2 at a
small input size (64x64 by default, for speed: the graph, the 52 conv layers
and the 13.95 MB weights blob are those of the 224x224 model), with the
weights checksum the converter writes. Case i is made by its own random
generator seeded from (seed, i), so any case can be rerun alone.

Classes:
  error    non-zero exit with a message on stderr (the wanted answer for a
           corrupt model)
  legit    exit 0 and the output equals the unmutated model's (within
           tolerance), or the mutation is one that may change the output
           (a different input, say)
  crash    killed by a signal, a sanitizer report, or a non-zero exit with
           nothing said
  hang     no exit within the timeout
  silent   exit 0 although the output differs from the unmutated model's
           and the mutation should not have changed it (a silent accept)
"""
from __future__ import annotations

import dataclasses
import io
import os
import random
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import numpy as np

from mace_tools import mobilenet_v2, proto

mace_pb2 = proto.load()

CLASSES = ("error", "legit", "crash", "hang", "silent")
BAD_CLASSES = ("crash", "hang", "silent")
INT_EXTREMES = [0, -1, 1, 2, 3, 7, 64, 2**31 - 1, -2**31, 2**32, 2**62, 2**63 - 1, -2**63,
                2**63 - 64, 1 << 40]
SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                   "runtime error:", "ThreadSanitizer", "MemorySanitizer")


@dataclasses.dataclass
class Base:
    """The unmutated model, input and flags."""
    pb: bytes
    data: bytes
    npy: bytes
    input_shape: list[int]
    output_shape: list[int]


@dataclasses.dataclass
class Case:
    index: int
    family: str
    what: str
    pb: bytes
    data: bytes
    npy: bytes
    flags: list[str]
    may_change_output: bool = False
    # Files replaced by other kinds of path (a directory, a missing file).
    model_path: str | None = None
    input_path: str | None = None


@dataclasses.dataclass
class Result:
    case: Case
    verdict: str
    returncode: int | None
    seconds: float
    message: str


def make_base(size: int = 64, seed: int = 7) -> Base:
    from mace_converter.crc32c import crc32c  # pylint: disable=import-outside-toplevel
    net, _ = mobilenet_v2.build(seed=seed, size=size)
    net.net.weights_crc32c = crc32c(bytes(net._blob))  # pylint: disable=protected-access
    image = np.random.default_rng(seed).uniform(-1, 1, (1, 3, size, size)).astype(np.float32)
    buffer = io.BytesIO()
    np.save(buffer, image)
    return Base(pb=net.net.SerializeToString(), data=bytes(net._blob),  # pylint: disable=protected-access
                npy=buffer.getvalue(), input_shape=[1, 3, size, size], output_shape=[1, 1000])


# --- mutations ------------------------------------------------------------------------------

def _flip_bits(blob: bytes, rng: random.Random, count: int, start: int = 0) -> bytes:
    out = bytearray(blob)
    for _ in range(count):
        position = rng.randrange(start, len(out))
        out[position] ^= 1 << rng.randrange(8)
    return bytes(out)


def _int_value(rng: random.Random) -> int:
    return rng.choice(INT_EXTREMES + [rng.randrange(-5, 300)])


ACTIVATIONS = [b"NOOP", b"RELU", b"RELU6", b"TANH", b"SIGMOID"]


def _only(arg, field: str, value) -> bool:
    """Gives `arg` the one value `value` in `field`, clearing the others;
    returns whether the argument had a value in that field before."""
    had = len(getattr(arg, field)) > 0 if field in ("ints", "floats") else arg.HasField(field)
    for other in ("i", "f", "s", "ints", "floats", "strings"):
        arg.ClearField(other)
    if field in ("ints", "floats"):
        getattr(arg, field).extend(value)
    else:
        setattr(arg, field, value)
    return had


def _mutate_arg(arg, rng: random.Random) -> tuple[str, bool]:
    """Mutates one argument. The flag says whether the result can be a valid
    model that computes something else: a new value in the argument's own
    field (other pads, another activation) is a different model, not a
    corrupt one, so a changed output is then legitimate."""
    choice = rng.randrange(6)
    if choice == 0 and arg.ints:
        k = rng.randrange(len(arg.ints))
        arg.ints[k] = _int_value(rng)
        return f"arg {arg.name}.ints[{k}] = {arg.ints[k]}", True
    if choice == 1:
        value = _int_value(rng)
        return f"arg {arg.name} = int {value}", _only(arg, "i", value)
    if choice == 2:
        value = rng.choice([float("nan"), float("inf"), -1.0, 0.0, 1e30])
        return f"arg {arg.name} = float {value}", _only(arg, "f", value)
    if choice == 3:
        value = rng.choice(ACTIVATIONS + [b"", b"\xff\xfe", b"NOOP" * 100])
        had_s = _only(arg, "s", value)
        return f"arg {arg.name} = string {value[:12]!r}", had_s and value in ACTIVATIONS
    if choice == 4:
        name = bytearray(arg.name.encode())
        if name:
            name[rng.randrange(len(name))] = rng.randrange(32, 127)
        renamed = name.decode("ascii", "replace")
        same = renamed == arg.name
        arg.name = renamed
        return f"arg renamed to {arg.name!r}", same
    values = [_int_value(rng) for _ in range(rng.choice([0, 1, 3, 5, 9]))]
    return f"arg {arg.name} = ints {values}", _only(arg, "ints", values) and len(values) > 0


def _tensor_names(net) -> list[str]:
    names = [info.name for info in net.input_info] + [t.name for t in net.tensors]
    for op in net.op:
        names.extend(op.output)
    return names


def _field_mutation(net, rng: random.Random) -> tuple[str, bool]:
    """One mutation of the graph; the flag as in _mutate_arg."""
    ops = list(net.op)
    op = rng.choice(ops)
    if rng.randrange(24) <= 3:
        if not op.arg:
            op.arg.add().name = "padding"
        what, may_change = _mutate_arg(rng.choice(list(op.arg)), rng)
        return f"op {op.name}: {what}", may_change
    return _structure_mutation(net, ops, op, rng), False


def _structure_mutation(net, ops, op, rng: random.Random) -> str:  # noqa: C901 (a field each)
    tensor = rng.choice(list(net.tensors))
    kind = rng.randrange(4, 24)
    if kind == 4:
        op.type = rng.choice(["Conv2D", "DepthwiseConv2d", "Eltwise", "Pooling", "Softmax",
                              "Reshape", "FullyConnected", "Concat", "BiasAdd", "NoSuchOp", ""])
        return f"op {op.name}: type = {op.type}"
    if kind == 5:
        k = rng.randrange(len(op.input))
        op.input[k] = rng.choice(_tensor_names(net) + ["missing"])
        return f"op {op.name}: input[{k}] = {op.input[k]}"
    if kind == 6:
        k = rng.randrange(len(op.output))
        op.output[k] = rng.choice(_tensor_names(net) + ["output", "input"])
        return f"op {op.name}: output[{k}] = {op.output[k]}"
    if kind == 7:
        i = rng.randrange(len(net.op))
        j = rng.randrange(len(net.op))
        a, b = mace_pb2.OperatorDef(), mace_pb2.OperatorDef()
        a.CopyFrom(net.op[i])
        b.CopyFrom(net.op[j])
        net.op[i].CopyFrom(b)
        net.op[j].CopyFrom(a)
        return f"ops {i} and {j} swapped"
    if kind == 8:
        i = rng.randrange(len(net.op))
        del net.op[i]
        return f"op {i} deleted"
    if kind == 9:
        copy = net.op.add()
        copy.CopyFrom(op)
        return f"op {op.name} duplicated at the end"
    if kind == 10:
        if rng.random() < 0.5 and tensor.dims:
            k = rng.randrange(len(tensor.dims))
            tensor.dims[k] = _int_value(rng)
            return f"tensor {tensor.name}: dims[{k}] = {tensor.dims[k]}"
        tensor.ClearField("dims")
        tensor.dims.extend([2**31 - 1, 2**31 - 1, 2**31 - 1, 4])
        return f"tensor {tensor.name}: dims whose product overflows"
    if kind == 11:
        tensor.data_type = rng.choice([0, 2, 3, 4, 5, 1])
        return f"tensor {tensor.name}: data_type = {tensor.data_type}"
    if kind == 12:
        other = rng.choice(list(net.tensors))
        tensor.offset = rng.choice([other.offset, tensor.offset + 64, tensor.offset - 64,
                                    _int_value(rng)])
        return f"tensor {tensor.name}: offset = {tensor.offset}"
    if kind == 13:
        tensor.data_size = rng.choice([tensor.data_size + 1, tensor.data_size - 1,
                                       _int_value(rng)])
        return f"tensor {tensor.name}: data_size = {tensor.data_size}"
    if kind == 14:
        info = rng.choice([net.input_info[0], net.output_info[0]])
        field = rng.randrange(3)
        if field == 0 and info.dims:
            k = rng.randrange(len(info.dims))
            info.dims[k] = _int_value(rng)
            return f"info {info.name}: dims[{k}] = {info.dims[k]}"
        if field == 1:
            info.data_type = rng.choice([0, 2, 3, 4, 5])
            return f"info {info.name}: data_type = {info.data_type}"
        info.data_format = rng.choice([0, 1, 3, 4, 99, -1])
        return f"info {info.name}: data_format = {info.data_format}"
    if kind == 15:
        shape = op.output_shape.add()
        shape.dims.extend(rng.choice([[1], [1, 3, 4, 4], [2**31, 2**31], [-1, 1],
                                      [1, 1000], [1, 32, 32, 32]]))
        return f"op {op.name}: output_shape {list(shape.dims)}"
    if kind == 16:
        op.output_type.append(rng.choice([0, 1, 2, 4, 5]))
        return f"op {op.name}: output_type {op.output_type[-1]}"
    if kind <= 19:
        # The offline memory plan: some ops get fixed arena offsets.
        chosen = rng.sample(ops, min(len(ops), rng.choice([1, 2, 4, 16, len(ops)])))
        values = []
        for target in chosen:
            target.ClearField("output_mem_offset")
            for _ in target.output:
                value = rng.choice([0, 64, 64 * rng.randrange(1 << 16), -1, -64, 2**63 - 64,
                                    1 << 40, 1 << 41, 3])
                target.output_mem_offset.append(value)
                values.append(value)
            if rng.random() < 0.1:
                target.output_mem_offset.append(0)
        return f"memory plan on {len(chosen)} op(s): offsets {values[:6]}"
    if kind == 20:
        net.data_type = rng.choice([0, 2, 3, 4, 5])
        return f"net data_type = {net.data_type}"
    if kind == 21:
        net.weights_crc32c ^= 1 << rng.randrange(32)
        return "weights_crc32c flipped"
    if kind == 22:
        op.device_type = rng.choice([-1, 1, 2, 3, 7, 2**31 - 1])
        return f"op {op.name}: device_type = {op.device_type}"
    info = op.quantize_info.add()
    info.scale = rng.choice([0.0, -1.0, float("nan")])
    return f"op {op.name}: quantize_info scale {info.scale}"


def _npy_mutation(npy: bytes, rng: random.Random) -> tuple[bytes, str, bool]:
    header_end = npy.index(b"\n") + 1
    kind = rng.randrange(5)
    if kind == 0:
        cut = rng.randrange(len(npy))
        return npy[:cut], f"input truncated to {cut} bytes", False
    if kind == 1:
        return _flip_bits(npy[:header_end], rng, rng.randint(1, 3)) + npy[header_end:], \
            "input header bit flips", False
    if kind == 2:
        array = np.load(io.BytesIO(npy))
        new = rng.choice([array.astype(np.float64), array.astype(np.int32),
                          array.reshape(1, 3, -1), array.reshape(-1)])
        out = io.BytesIO()
        np.save(out, new)
        return out.getvalue(), f"input saved as {new.dtype} {list(new.shape)}", False
    if kind == 3:
        return npy + b"\0" * rng.choice([1, 4, 64]), "input with trailing bytes", False
    return _flip_bits(npy, rng, rng.randint(1, 8), start=header_end), \
        "input values bit flips", True


FLAG_CASES = [
    (["--input_shape=1,3,224,2147483648"], False), (["--input_shape=0,3,64,64"], False),
    (["--input_shape=1,3,64"], False), (["--input_shape=-1,3,64,64"], False),
    (["--input_shape=1,3,64,64,1"], False), (["--output_shape=1,999"], False),
    (["--output_shape=1,1000,1"], False), (["--input_node=nope"], False),
    (["--output_node=nope"], False), (["--output_node=conv_1/out"], False),
    (["--round=0"], False), (["--round=3"], False), (["--restart_round=2"], False),
    (["--omp_num_threads=1"], False), (["--omp_num_threads=2"], False),
    (["--omp_num_threads=100000"], False), (["--cpu_affinity_policy=9"], False),
    (["--memory_strategy=bogus"], False), (["--memory_strategy=naive"], False),
    (["--memory_strategy=min_cost_flow"], False), (["--plan_time_limit_ms=1"], False),
    (["--compare_strategies"], False), (["--memory_report"], False), (["--benchmark"], False),
    (["--verify_weights=false"], False), (["--device=GPU"], False), (["--device=nope"], False),
    (["--soak_rounds=2"], False), (["--unknown_flag=1"], False), (["positional"], False),
]


def make_case(base: Base, seed: int, index: int) -> Case:
    rng = random.Random(f"{seed}/{index}")
    family = rng.choices(["truncate_pb", "flip_pb", "truncate_data", "flip_data", "fields",
                          "fields", "fields", "fields", "input", "flags", "paths"])[0]
    case = Case(index, family, "", base.pb, base.data, base.npy, [])
    if family == "truncate_pb":
        cut = rng.randrange(len(base.pb))
        case.pb, case.what = base.pb[:cut], f"graph truncated to {cut} of {len(base.pb)} bytes"
    elif family == "flip_pb":
        count = rng.choice([1, 1, 2, 4, 16])
        case.pb, case.what = _flip_bits(base.pb, rng, count), f"{count} bit flip(s) in the graph"
    elif family == "truncate_data":
        cut = rng.choice([0, rng.randrange(len(base.data)), len(base.data) - 1])
        case.data, case.what = base.data[:cut], f"weights truncated to {cut} bytes"
    elif family == "flip_data":
        count = rng.choice([1, 2, 8])
        case.data, case.what = _flip_bits(base.data, rng, count), f"{count} bit flip(s) in weights"
        if rng.random() < 0.3:
            case.flags.append("--verify_weights=false")
            case.may_change_output = True
            case.what += " (verification off)"
    elif family == "fields":
        net = mace_pb2.NetDef()
        net.ParseFromString(base.pb)
        done = [_field_mutation(net, rng) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
        case.pb, case.what = net.SerializeToString(), "; ".join(what for what, _ in done)
        case.may_change_output = any(may_change for _, may_change in done)
    elif family == "input":
        case.npy, case.what, case.may_change_output = _npy_mutation(base.npy, rng)
    elif family == "flags":
        flags, case.may_change_output = rng.choice(FLAG_CASES)
        case.flags, case.what = list(flags), " ".join(flags)
    else:
        which = rng.randrange(4)
        if which == 0:
            case.model_path, case.what = "DIR", "a directory as --model_file"
        elif which == 1:
            case.input_path, case.what = "DIR", "a directory as --input_file"
        elif which == 2:
            case.model_path, case.what = "MISSING", "a missing --model_file"
        else:
            case.model_path, case.what = "EMPTY", "an empty --model_file"
    return case


# --- running --------------------------------------------------------------------------------

def _write_case(case: Case, base: Base, base_dir: Path, directory: Path) -> tuple[Path, Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)

    def place(name: str, blob: bytes, original: bytes) -> Path:
        if blob is original:
            return base_dir / name
        path = directory / name
        path.write_bytes(blob)
        return path

    pb = place("model.pb", case.pb, base.pb)
    data = place("model.data", case.data, base.data)
    npy = place("in_input.npy", case.npy, base.npy)
    for attr, default in (("model_path", pb), ("input_path", npy)):
        special = getattr(case, attr)
        if special is None:
            continue
        path = directory / f"{attr}_{special.lower()}"
        if special == "DIR":
            path.mkdir(exist_ok=True)
        elif special == "EMPTY":
            path.write_bytes(b"")
        if attr == "model_path":
            pb = path
        else:
            npy = path
    return pb, data, npy


def run_case(mace_run: Path, case: Case, base: Base, base_dir: Path, work: Path,
             reference: np.ndarray | None, timeout: float) -> Result:
    directory = work / f"case_{case.index:05d}"
    pb, data, npy = _write_case(case, base, base_dir, directory)
    shape = ",".join(map(str, base.input_shape))
    command = [str(mace_run), f"--model_file={pb}", f"--model_data_file={data}",
               "--input_node=input", f"--input_shape={shape}", "--output_node=output",
               "--output_shape=" + ",".join(map(str, base.output_shape)),
               f"--input_file={npy}", f"--output_file={directory / 'out'}",
               "--omp_num_threads=1", *case.flags]
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0:allocator_may_return_null=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, env=env,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Result(case, "hang", None, time.monotonic() - start, f"no exit in {timeout} s")
    seconds = time.monotonic() - start
    stderr = done.stderr.decode("utf-8", "replace")
    lines = [line for line in stderr.splitlines() if line.strip()]
    sanitizer = next((line for line in lines if any(m in line for m in SANITIZER_MARKS)), None)
    if done.returncode < 0 or sanitizer is not None:
        message = sanitizer or f"signal {-done.returncode}"
        return Result(case, "crash", done.returncode, seconds, message)
    if done.returncode != 0:
        if not lines:
            return Result(case, "crash", done.returncode, seconds, "non-zero exit, no message")
        message = next((line for line in lines if "rror" in line), lines[-1])
        return Result(case, "error", done.returncode, seconds, message.strip())
    out = directory / "out_output.npy"
    if case.may_change_output:
        return Result(case, "legit", 0, seconds, "ran (the mutation may change the output)")
    if reference is None:
        return Result(case, "legit", 0, seconds, "ran (no reference)")
    try:
        got = np.load(out)
    except (OSError, ValueError) as error:
        return Result(case, "silent", 0, seconds, f"exit 0 but no readable output: {error}")
    if got.shape != reference.shape or not np.allclose(got, reference, rtol=1e-4, atol=1e-6,
                                                       equal_nan=False):
        diff = (float(np.nanmax(np.abs(got - reference))) if got.shape == reference.shape
                else f"shape {list(got.shape)}")
        return Result(case, "silent", 0, seconds, f"exit 0, output differs (max |diff| {diff})")
    return Result(case, "legit", 0, seconds, "ran, output equals the unmutated model's")


def run_suite(mace_run: Path, count: int, seed: int, work: Path, timeout: float, jobs: int,
              size: int, only: list[int] | None = None,
              report: Callable[[Result], None] | None = None) -> list[Result]:
    """Generates and runs the cases; returns one Result per case."""
    if work.exists():
        shutil.rmtree(work)
    base_dir = work / "base"
    base_dir.mkdir(parents=True)
    base = make_base(size=size)
    (base_dir / "model.pb").write_bytes(base.pb)
    (base_dir / "model.data").write_bytes(base.data)
    (base_dir / "in_input.npy").write_bytes(base.npy)
    clean = run_case(mace_run, Case(-1, "none", "unmutated", base.pb, base.data, base.npy, []),
                     base, base_dir, work, None, timeout)
    if clean.verdict != "legit":
        raise RuntimeError(f"the unmutated model does not run: {clean.message}")
    reference = np.load(work / "case_-0001" / "out_output.npy")
    indices = only if only else list(range(count))

    def one(index: int) -> Result:
        # Made here, not up front: a mutated weights blob is 14 MB.
        case = make_case(base, seed, index)
        result = run_case(mace_run, case, base, base_dir, work, reference, timeout)
        result.case.pb = result.case.data = result.case.npy = b""
        if result.verdict not in BAD_CLASSES:
            shutil.rmtree(work / f"case_{case.index:05d}", ignore_errors=True)
        if report:
            report(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, indices))


def counts(results: list[Result]) -> dict[str, int]:
    tally = {name: 0 for name in CLASSES}
    for result in results:
        tally[result.verdict] += 1
    return tally


def by_family(results: list[Result]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for result in results:
        row = table.setdefault(result.case.family, {name: 0 for name in CLASSES})
        row[result.verdict] += 1
    return table

