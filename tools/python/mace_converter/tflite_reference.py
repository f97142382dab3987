"""The LiteRT interpreter (the `ai-edge-litert` package, pinned in
tools/requirements.txt) as the reference of TFLite models, for
`converter.py run --validate` and the TFLite frontend tests."""
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
        runner.set_tensor(detail["index"], np.asarray(value).astype(detail["dtype"]))
    runner.invoke()
    produced = {_canonical(d["name"]): d["index"] for d in runner.get_output_details()}
    produced.update({_canonical(d["name"]): d["index"] for d in runner.get_tensor_details()
                     if _canonical(d["name"]) not in produced})
    results = {}
    for key in outputs:
        index = produced.get(_canonical(key))
        if index is None:
            raise UserError(f"{path.name}: LiteRT has no tensor '{key}'")
        results[key] = np.asarray(runner.get_tensor(index)).copy()
    return name, results
