"""One peer engine in its own process: load the model, one warm-up run,
then timed runs; writes the output tensor (.npy) and the timings (.json).

    python -m mace_tools.peer_bench.worker ENGINE --model M [--weights W]
        --input NAME=in.npy [--input NAME=in1.npy ...] --output-name NAME
        --threads N --rounds R --output out.npy --result result.json

Each --input is one model input, by the engine's name for it; integer inputs
(token ids, masks) keep their type where the engine takes integers.

ENGINE is ort, ncnn, ncnn_default, mnn, litert (with --output-shape, the
ONNX output's shape), or reference (onnxruntime with graph
optimizations off, one thread, no timed runs: the outputs everyone is
checked against). Only this engine's package is imported.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from mace_tools.peer_bench.inputs import load_feed, parse_feed

Runner = Callable[[], np.ndarray]
Feeds = dict[str, np.ndarray]


def memory_kib(field: str) -> int:
    """VmRSS (now) or VmHWM (peak so far) of this process, in KiB; 0 where
    /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def load_ort(args: argparse.Namespace, feeds: Feeds, optimize: bool) -> Runner:
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    outputs = [args.output_name]
    return lambda: session.run(outputs, feeds)[0]


def load_ncnn(args: argparse.Namespace, feeds: Feeds, fp32: bool) -> Runner:
    import ncnn
    net = ncnn.Net()
    net.opt.num_threads = args.threads
    net.opt.use_vulkan_compute = False
    if fp32:
        # Same arithmetic as the other engines: no half or bfloat storage.
        for name in ("use_fp16_storage", "use_fp16_packed", "use_fp16_arithmetic",
                     "use_bf16_storage", "use_bf16_packed"):
            if hasattr(net.opt, name):
                setattr(net.opt, name, False)
    if net.load_param(args.model) != 0:
        unknown = unknown_layers(Path(args.model).read_text(),
                                 lambda kind: ncnn.layer_to_index(kind) >= 0)
        name = Path(args.model).name
        if unknown:
            raise RuntimeError(f"ncnn has no layer {', '.join(unknown)} (in pnnx's {name})")
        raise RuntimeError(f"ncnn cannot load {name}")
    if net.load_model(args.weights) != 0:
        raise RuntimeError(f"ncnn cannot load the weights {Path(args.weights).name}")
    mats = {name: ncnn.Mat(ncnn_array(name, array)) for name, array in feeds.items()}

    def run() -> np.ndarray:
        # An extractor keeps the blobs it computed, so each run needs a new one.
        extractor = net.create_extractor()
        for name, mat in mats.items():
            extractor.input(name, mat)
        status, out = extractor.extract(args.output_name)
        if status != 0:
            raise RuntimeError(f"ncnn extract({args.output_name}) returned {status}")
        return np.array(out)
    return run


def unknown_layers(param: str, known: Callable[[str], bool]) -> list[str]:
    """The layer types of an ncnn .param text (magic line, counts line, then
    one layer a line, its type first) that `known` rejects, in order."""
    kinds = [line.split()[0] for line in param.splitlines()[2:] if line.split()]
    return [kind for kind in dict.fromkeys(kinds) if not known(kind)]


def ncnn_array(name: str, array: np.ndarray) -> np.ndarray:
    """An input as ncnn takes it: without its batch of one (an image is C, H,
    W), at most four dimensions, in float32 (ncnn's blobs are float; its
    Embed layer reads token ids from them)."""
    if array.ndim < 2 or array.shape[0] != 1 or array.ndim > 5:
        raise RuntimeError(f"ncnn takes a batch of one with 1 to 4 more dimensions; input "
                           f"{name} is {list(array.shape)}")
    return np.ascontiguousarray(array[0], dtype=np.float32)


def mnn_array(array: np.ndarray) -> tuple[np.ndarray, str]:
    """An input as MNN takes it, and its MNN type name: MNN runs int64 graph
    inputs as int32 (its converter narrows them)."""
    if array.dtype.kind in "iub":
        return array.astype(np.int32), "int"
    return array.astype(np.float32), "float"


def load_mnn(args: argparse.Namespace, feeds: Feeds) -> Runner:
    import MNN
    expr = MNN.expr
    # "normal" is fp32 on CPUs without fp16 arithmetic; "low" would allow fp16/bf16.
    config = {"backend": "CPU", "numThread": args.threads, "precision": "normal"}
    runtime = MNN.nn.create_runtime_manager((config,))
    module = MNN.nn.load_module_from_file(args.model, list(feeds), [args.output_name],
                                          runtime_manager=runtime)
    values = []
    for array in feeds.values():
        data, kind = mnn_array(array)
        values.append(expr.const(data, list(data.shape), expr.NCHW, getattr(expr, kind)))

    def run() -> np.ndarray:
        out = module.forward(values)[0]
        return np.array(expr.convert(out, expr.NCHW).read())
    return run


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        feeds = dict(parse_feed(text) for text in args.input)
        feeds = {name: load_feed(path) for name, path in feeds.items()}
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        loader = _loader(args.engine)
    except ImportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 3
    base_kib = memory_kib("VmRSS")
    try:
        start = time.perf_counter()
        run = loader(args, feeds)
        init_ms = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        output = run()
        first_ms = (time.perf_counter() - start) * 1e3
        latencies = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            run()
            latencies.append((time.perf_counter() - start) * 1e3)
    except Exception as error:  # the engine's own errors, reported in one line
        text = " ".join(str(error).split()) or type(error).__name__
        print(f"error: {args.engine}: {text}", file=sys.stderr)
        return 1
    np.save(args.output, np.asarray(output, dtype=np.float32))
    Path(args.result).write_text(json.dumps({
        "init_ms": init_ms, "first_run_ms": first_ms, "latencies_ms": latencies,
        "base_rss_kib": base_kib, "peak_rss_kib": memory_kib("VmHWM")}) + "\n")
    return 0


def _loader(engine: str):
    """Imports the engine's package here, so a missing one is an ImportError."""
    if engine in ("ort", "reference"):
        import onnxruntime  # noqa: F401
        return lambda args, feeds: load_ort(args, feeds, optimize=engine == "ort")
    if engine in ("ncnn", "ncnn_default"):
        import ncnn  # noqa: F401
        return lambda args, feeds: load_ncnn(args, feeds, fp32=engine == "ncnn")
    if engine == "mnn":
        import MNN  # noqa: F401
        return load_mnn
    if engine == "litert":
        import ai_edge_litert  # noqa: F401
        from mace_tools.peer_bench import litert
        return lambda args, feeds: litert.load(args.model, feeds, args.threads,
                                               args.output_shape)
    raise ImportError(f"unknown engine {engine}")


def _shape(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a shape: {text!r}") from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine",
                        choices=["ort", "ncnn", "ncnn_default", "mnn", "litert", "reference"])
    parser.add_argument("--model", required=True)
    parser.add_argument("--weights", default="")
    parser.add_argument("--input", action="append", required=True, metavar="NAME=PATH",
                        help="one model input (repeat for each)")
    parser.add_argument("--output-name", required=True)
    parser.add_argument("--output-shape", type=_shape, default=[], metavar="D,D,...",
                        help="litert: the ONNX output's shape, to undo channels-last")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--output", required=True)
    parser.add_argument("--result", required=True)
    return parser


if __name__ == "__main__":
    sys.exit(main())
