"""The LiteRT interpreter (the `ai-edge-litert` package, pinned in
tools/requirements.txt) as the reference of TFLite models, for
`converter.py run --validate` and the TFLite frontend tests. Inputs and
outputs are real values: an int8 or uint8 input is quantized with its scale
and zero point before LiteRT reads it, and such an output dequantized."""
from __future__ import annotations

import importlib
import warnings
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from mace_converter.progress import UserError


def _canonical(name: str) -> str:
    return name[:-2] if name.endswith(":0") else name


def interpreter(path: Path, threads: int = 1, preserve: bool = False) -> tuple[Any, str]:
    """(a LiteRT Interpreter of `path` with tensors allocated, its name)."""
    try:
        litert = importlib.import_module("ai_edge_litert.interpreter")
        version = importlib.import_module("importlib.metadata").version("ai-edge-litert")
    except ImportError:
        raise UserError("validating TFLite models needs the Python package ai-edge-litert "
                        "(LiteRT), which is not installed in the virtualenv (.venv); "
                        "pip install -r tools/requirements.txt") from None
    # preserve: keep every intermediate tensor readable after invoke() (for
    # outputs the deployment file takes from inside the model; LiteRT warns
    # that it costs memory, which one validation run can spend).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        runner = litert.Interpreter(model_path=str(path), num_threads=threads,
                                    experimental_preserve_all_tensors=preserve)
    runner.allocate_tensors()
    return runner, f"LiteRT {version}"


def run_litert(path: Path, inputs: Mapping[str, np.ndarray], outputs: Sequence[str]
               ) -> tuple[str, dict[str, np.ndarray]]:
    """Runs the model on `inputs` (by tensor name, ':0' optional); returns
    (what ran it, the tensors named `outputs`)."""
    runner, name = interpreter(path)
    model_outputs = {_canonical(d["name"]) for d in runner.get_output_details()}
    if any(_canonical(key) not in model_outputs for key in outputs):
        runner, name = interpreter(path, preserve=True)
    details = {_canonical(d["name"]): d for d in runner.get_input_details()}
    for key, value in inputs.items():
        detail = details.get(_canonical(key))
        if detail is None:
            raise UserError(f"{path.name}: '{key}' is not an input of the TFLite model; its "
                            f"inputs are {sorted(details)}")
        if list(np.shape(value)) != [int(d) for d in detail["shape"]]:
            # A model exported with open dimensions, at the deployment file's shape.
            runner.resize_tensor_input(detail["index"], list(np.shape(value)))
            runner.allocate_tensors()
    for key, value in inputs.items():
        detail = details[_canonical(key)]
        runner.set_tensor(detail["index"], _to_model(np.asarray(value), detail))
    runner.invoke()
    produced = {_canonical(d["name"]): d["index"] for d in runner.get_output_details()}
    produced.update({_canonical(d["name"]): d["index"] for d in runner.get_tensor_details()
                     if _canonical(d["name"]) not in produced})
    results = {}
    for key in outputs:
        index = produced.get(_canonical(key))
        if index is None:
            raise UserError(f"{path.name}: LiteRT has no tensor '{key}'")
        detail = next((d for d in runner.get_output_details() if d["index"] == index), None)
        value = np.asarray(runner.get_tensor(index)).copy()
        results[key] = _from_model(value, detail) if detail is not None else value
    return name, results


def run_litert_calls(path: Path, calls: Sequence[Mapping[str, np.ndarray]],
                     outputs: Sequence[str]) -> list[dict[str, np.ndarray]]:
    """Runs consecutive invocations on one interpreter, so that the model's
    resource variables carry over from one call to the next (a streaming
    model); the tensors named `outputs` after each call, quantized ones as
    the real values they stand for."""
    runner, _ = interpreter(path)
    produced = {_canonical(d["name"]): d for d in runner.get_output_details()}
    if any(_canonical(key) not in produced for key in outputs):
        runner, _ = interpreter(path, preserve=True)
        produced = {_canonical(d["name"]): d for d in runner.get_tensor_details()}
    inputs = {_canonical(d["name"]): d for d in runner.get_input_details()}
    missing = [key for key in outputs if _canonical(key) not in produced]
    if missing:
        raise UserError(f"{path.name}: LiteRT has no tensors {missing}")
    results = []
    for feeds in calls:
        for key, value in feeds.items():
            detail = inputs[_canonical(key)]
            runner.set_tensor(detail["index"], _to_model(np.asarray(value), detail))
        runner.invoke()
        results.append({key: _from_model(np.asarray(runner.get_tensor(
            produced[_canonical(key)]["index"])).copy(), produced[_canonical(key)])
            for key in outputs})
    return results


def _quantized(detail: dict) -> bool:
    scale, _ = detail.get("quantization", (0.0, 0))
    return np.dtype(detail["dtype"]) in (np.int8, np.uint8) and scale > 0


def _to_model(value: np.ndarray, detail: dict) -> np.ndarray:
    """An input as the model takes it: real values quantized for an int8 or
    uint8 input (round half away from zero, as LiteRT quantizes)."""
    if not _quantized(detail) or value.dtype.kind in "iu":
        return value.astype(detail["dtype"])
    scale, zero_point = detail["quantization"]
    info = np.iinfo(detail["dtype"])
    scaled = value.astype(np.float64) / scale
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5) + zero_point
    return np.clip(rounded, info.min, info.max).astype(detail["dtype"])


def _from_model(value: np.ndarray, detail: dict) -> np.ndarray:
    """An output as the converted model gives it: the real values of an
    int8 or uint8 output."""
    if not _quantized(detail):
        return value
    scale, zero_point = detail["quantization"]
    return ((value.astype(np.float32) - np.float32(zero_point)) * np.float32(scale))
