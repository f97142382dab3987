"""The shared inputs every engine gets: one array per model input, drawn as
`tools/converter.py run` draws them (mace_converter.input_values): floats
uniform in the deployment file's input_ranges, int32 and int64 inputs whole
numbers in it (token ids in [0, vocab), masks of ones), in the element type
the ONNX graph declares. Written as one .npy file per input and handed to
the worker as NAME=PATH."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from mace_converter import input_values
from mace_converter.config import ModelConfig
from mace_converter.progress import UserError

# ONNX TensorProto element types the benchmark feeds -> numpy type names.
_ONNX_TYPES = {1: "float32", 6: "int32", 7: "int64", 9: "bool"}


@dataclass
class ModelInput:
    name: str
    dtype: str
    file: Path
    described: str


def onnx_input_types(onnx_path: Path) -> dict[str, str]:
    """Graph input name -> numpy type name, without reading the weights."""
    import onnx
    graph = onnx.load(str(onnx_path), load_external_data=False).graph
    weights = {tensor.name for tensor in graph.initializer}
    types = {}
    for value in graph.input:
        if value.name in weights:
            continue
        code = value.type.tensor_type.elem_type
        if code not in _ONNX_TYPES:
            raise UserError(f"{onnx_path.name}: input {value.name} has ONNX element type "
                            f"{code}; the benchmark feeds float32, int32, int64 and bool")
        types[value.name] = _ONNX_TYPES[code]
    return types


def draw_inputs(model: ModelConfig, types: dict[str, str],
                seed: int) -> list[tuple[str, np.ndarray, str]]:
    """(name, array, description) per input of the deployment file, from one
    generator seeded with `seed`, in the inputs' order. A single float input
    gets rng.uniform(low, high) as float32."""
    rng = np.random.default_rng(seed)
    drawn = []
    for spec in model.inputs:
        dtype = types.get(spec.name) or spec.data_type or "float32"
        array, described = input_values.draw(rng, spec, dtype, model.input_ranges_given)
        drawn.append((spec.name, array, described))
    return drawn


def write_inputs(drawn: Sequence[tuple[str, np.ndarray, str]],
                 directory: Path) -> list[ModelInput]:
    """input.npy for the first input, input1.npy, ... for the others."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for index, (name, array, described) in enumerate(drawn):
        path = directory / ("input.npy" if index == 0 else f"input{index}.npy")
        np.save(path, array)
        written.append(ModelInput(name=name, dtype=str(array.dtype), file=path,
                                  described=described))
    return written


def feed_arguments(names: Sequence[str], inputs: Sequence[ModelInput]) -> list[str]:
    """The worker's --input NAME=PATH flags, the engine's own input `names`
    paired with the inputs in order."""
    if len(names) != len(inputs):
        raise ValueError(f"{len(names)} input names for {len(inputs)} inputs")
    flags = []
    for name, model_input in zip(names, inputs):
        flags += ["--input", f"{name}={model_input.file}"]
    return flags


def parse_feed(text: str) -> tuple[str, Path]:
    """NAME=PATH; the name may itself hold '=', the path is after the last."""
    name, separator, path = text.rpartition("=")
    if not separator or not name or not path:
        raise ValueError(f"--input {text!r} is not NAME=PATH")
    return name, Path(path)


def load_feed(path: Path) -> np.ndarray:
    """An input file as the engines take it: integers and bools as they are,
    floats as float32."""
    array = np.load(path)
    return array if array.dtype.kind in "iub" else array.astype(np.float32)


def describe(inputs: Sequence[ModelInput]) -> str:
    return "; ".join(model_input.described for model_input in inputs)


def describe_types(inputs: Sequence[ModelInput]) -> str:
    """'input_ids int64, attention_mask int64'."""
    return ", ".join(f"{model_input.name} {model_input.dtype}" for model_input in inputs)
