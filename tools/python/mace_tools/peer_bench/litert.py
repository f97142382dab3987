"""LiteRT as a peer: the zoo's ONNX file, constant-folded by onnxruntime and
converted by onnx2tf to a float32 .tflite, run by the LiteRT interpreter
with its default XNNPACK delegate.

onnx2tf writes TensorFlow's channels-last layout: an input or output of rank
3 or more has its channel axis moved to the end. The worker feeds each
input in that layout (once, before the runs) and moves the output's last
axis back to position 1 when that gives the ONNX output's shape.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

# onnx2tf checks its conversion on this file of 20 128x128 RGB images when it
# finds it in its working directory, and downloads it otherwise; a seeded
# random one keeps the conversion offline.
CHECK_IMAGES = "calibration_image_sample_data_20x128x128x3_float32.npy"
OUTPUT_DIRECTORY = "onnx2tf"
# onnx2tf rewrites the ONNX file it is given, so it converts a copy under
# this name.
SOURCE_NAME = "model.onnx"


def model_path(out: Path) -> Path:
    """Where onnx2tf writes the float32 model converted under `out`."""
    return out / OUTPUT_DIRECTORY / f"{Path(SOURCE_NAME).stem}_float32.tflite"


def write_source(onnx: Path, out: Path) -> Path:
    """The ONNX file onnx2tf converts: the model after onnxruntime's basic
    graph optimizations (constant folding, so that shape arithmetic such as
    ShuffleNet's channel-shuffle Reshape targets become constants, which
    onnx2tf needs), with every shape inferred. Standard ONNX ops only."""
    import onnx as onnx_lib
    import onnxruntime as ort
    copy = out / SOURCE_NAME
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(copy)
    ort.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])
    onnx_lib.save(onnx_lib.shape_inference.infer_shapes(onnx_lib.load(str(copy))), str(copy))
    return copy


def write_check_images(out: Path, seed: int) -> Path:
    path = out / CHECK_IMAGES
    if not path.exists():
        images = np.random.default_rng(seed).random((20, 128, 128, 3), dtype=np.float32)
        np.save(path, images)
    return path


def convert_command(onnx: Path, out: Path) -> list[str]:
    """onnx2tf's command line (its console script, run by this Python so
    that the project's virtualenv is used); run it with `out` as the working
    directory."""
    script = "import sys, onnx2tf; sys.argv[0] = 'onnx2tf'; sys.exit(onnx2tf.main())"
    return [sys.executable, "-c", script, "-i", str(onnx), "-o", str(out / OUTPUT_DIRECTORY)]


def channels_last(array: np.ndarray) -> np.ndarray:
    """NCHW (or NCW, NCDHW) to the layout onnx2tf gives the input."""
    if array.ndim < 3:
        return array
    return np.ascontiguousarray(np.moveaxis(array, 1, -1))


def to_onnx_layout(array: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """The output in the ONNX model's shape: as it is, or with its last axis
    moved to position 1. Raises ValueError when neither fits."""
    wanted = tuple(int(d) for d in shape)
    if not wanted or array.shape == wanted:
        return array
    if array.ndim >= 3:
        moved = np.moveaxis(array, -1, 1)
        if moved.shape == wanted:
            return np.ascontiguousarray(moved)
    raise ValueError(f"LiteRT output shape {list(array.shape)} is not the ONNX output's "
                     f"{list(wanted)}, in either layout")


def load(model: str, feeds: dict[str, np.ndarray], threads: int,
         output_shape: Sequence[int]) -> Callable[[], np.ndarray]:
    """The interpreter with the feeds set; onnx2tf names the inputs
    inputs_0, inputs_1, ... in the ONNX graph's order, which is the order of
    `feeds`."""
    from ai_edge_litert.interpreter import Interpreter
    interpreter = Interpreter(model_path=model, num_threads=threads)
    interpreter.allocate_tensors()
    details = sorted(interpreter.get_input_details(), key=lambda d: input_position(d["name"]))
    if len(details) != len(feeds):
        raise RuntimeError(f"the .tflite has {len(details)} inputs, the model {len(feeds)}")
    for detail, (name, array) in zip(details, feeds.items()):
        value = channels_last(array).astype(detail["dtype"], copy=False)
        if tuple(value.shape) != tuple(detail["shape"]):
            raise RuntimeError(f"input {name}: the .tflite takes {list(detail['shape'])}, "
                               f"the feed is {list(value.shape)} channels-last")
        interpreter.set_tensor(detail["index"], value)
    output = interpreter.get_output_details()[0]["index"]

    def run() -> np.ndarray:
        interpreter.invoke()
        return to_onnx_layout(interpreter.get_tensor(output), output_shape)
    return run


def input_position(name: str) -> int:
    """inputs_3 -> 3; a name without an index counts as 0 (the sort is stable)."""
    tail = name.rsplit("_", 1)[-1].split(":")[0]
    return int(tail) if tail.isdigit() else 0
