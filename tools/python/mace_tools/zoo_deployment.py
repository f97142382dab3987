"""Deployment files for the model zoo's image classifiers, written by tools
and tests that convert zoo models on the fly: each model is one ONNX file
with an NCHW input named `input` and a 1000-class output named `output`."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import yaml


def write_zoo_onnx(name: str, size: int, directory: Path, file_name: str = "") -> Path:
    """The zoo model `name` (classic or modern) at `size` x `size` input,
    serialized into `directory`; returns the file."""
    from zoo import classic, modern

    make = getattr(classic, name, None) or getattr(modern, name)
    path = directory / (file_name or f"{name}.onnx")
    path.write_bytes(make(size=size).SerializeToString())
    return path


def classifier_model(model: Path, size: int, runtime: str = "cpu",
                     input_ranges: str = "", **keys: Any) -> dict[str, Any]:
    """One `models:` entry for a zoo classifier saved at `model`. `keys` adds
    further model keys (data_type, calibration_inputs, ...)."""
    subgraph: dict[str, Any] = {
        "input_tensors": "input",
        "input_shapes": f"1,3,{size},{size}",
        "output_tensors": "output",
        "output_shapes": "1,1000",
    }
    if input_ranges:
        subgraph["input_ranges"] = input_ranges
    entry: dict[str, Any] = {
        "platform": "onnx",
        "model_file_path": str(model),
        "model_sha256_checksum": hashlib.sha256(model.read_bytes()).hexdigest(),
        "subgraphs": [subgraph],
        "runtime": runtime,
    }
    entry.update(keys)
    return entry


def write_deployment(path: Path, library: str, models: dict[str, dict[str, Any]]) -> Path:
    """A host, proto-format deployment file for `models` (name -> entry)."""
    document = {"library_name": library, "target_abis": ["host"], "build_type": "proto",
                "models": models}
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path
