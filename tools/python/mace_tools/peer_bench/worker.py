"""One peer engine in its own process: load the model, one warm-up run,
then timed runs; writes the output tensor (.npy) and the timings (.json).

    python -m mace_tools.peer_bench.worker ENGINE --model M [--weights W]
        --input in.npy --input-name NAME --output-name NAME --threads N
        --rounds R --output out.npy --result result.json

ENGINE is ort, ncnn, ncnn_default, mnn, or reference (onnxruntime with graph
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

Runner = Callable[[], np.ndarray]


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


def load_ort(args: argparse.Namespace, image: np.ndarray, optimize: bool) -> Runner:
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    feed = {args.input_name: image}
    outputs = [args.output_name]
    return lambda: session.run(outputs, feed)[0]


def load_ncnn(args: argparse.Namespace, image: np.ndarray, fp32: bool) -> Runner:
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
    if net.load_param(args.model) != 0 or net.load_model(args.weights) != 0:
        raise RuntimeError(f"ncnn cannot load {args.model} / {args.weights}")
    if image.ndim != 4 or image.shape[0] != 1:
        raise RuntimeError(f"ncnn takes one image (C, H, W); the input is {list(image.shape)}")
    mat = ncnn.Mat(np.ascontiguousarray(image[0]))

    def run() -> np.ndarray:
        # An extractor keeps the blobs it computed, so each run needs a new one.
        extractor = net.create_extractor()
        extractor.input(args.input_name, mat)
        status, out = extractor.extract(args.output_name)
        if status != 0:
            raise RuntimeError(f"ncnn extract({args.output_name}) returned {status}")
        return np.array(out)
    return run


def load_mnn(args: argparse.Namespace, image: np.ndarray) -> Runner:
    import MNN
    expr = MNN.expr
    # "normal" is fp32 on CPUs without fp16 arithmetic; "low" would allow fp16/bf16.
    config = {"backend": "CPU", "numThread": args.threads, "precision": "normal"}
    runtime = MNN.nn.create_runtime_manager((config,))
    module = MNN.nn.load_module_from_file(args.model, [args.input_name], [args.output_name],
                                          runtime_manager=runtime)
    value = expr.const(image, list(image.shape), expr.NCHW)

    def run() -> np.ndarray:
        out = module.forward([value])[0]
        return np.array(expr.convert(out, expr.NCHW).read())
    return run


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    image = np.load(args.input).astype(np.float32)
    try:
        loader = _loader(args.engine)
    except ImportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 3
    base_kib = memory_kib("VmRSS")
    try:
        start = time.perf_counter()
        run = loader(args, image)
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
        return lambda args, image: load_ort(args, image, optimize=engine == "ort")
    if engine in ("ncnn", "ncnn_default"):
        import ncnn  # noqa: F401
        return lambda args, image: load_ncnn(args, image, fp32=engine == "ncnn")
    if engine == "mnn":
        import MNN  # noqa: F401
        return load_mnn
    raise ImportError(f"unknown engine {engine}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine", choices=["ort", "ncnn", "ncnn_default", "mnn", "reference"])
    parser.add_argument("--model", required=True)
    parser.add_argument("--weights", default="")
    parser.add_argument("--input", required=True)
    parser.add_argument("--input-name", required=True)
    parser.add_argument("--output-name", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--output", required=True)
    parser.add_argument("--result", required=True)
    return parser


if __name__ == "__main__":
    sys.exit(main())
