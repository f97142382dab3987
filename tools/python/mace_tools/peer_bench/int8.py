"""The uint8 columns of tools/peer_bench.py (--uint8): one fixed calibration
set per model, MACE's post-training quantization of the zoo model through a
derived deployment file, and onnxruntime's quantize_static of the same ONNX
file (QDQ, per-channel int8 weights, uint8 activations) on the same inputs.

    python -m mace_tools.peer_bench.int8 SOURCE.onnx TARGET.onnx CALIBRATION_DIR INPUT_NAME

runs quantize_static in its own process, so that the benchmark process never
imports onnxruntime.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import numpy as np
import yaml

from mace_converter.api import TensorSpec
from mace_converter.config import DeploymentConfig, ModelConfig

CALIBRATION_COUNT = 8
# quantize_static's settings for the ORT QDQ column, as the notes say.
ORT_SETTINGS = "QDQ format, per-channel int8 weights, uint8 activations, MinMax calibration"
# Why there is no ncnn or MNN int8 column.
NO_PEER_INT8 = (
    "No ncnn int8 column: the ncnn wheel ships the runtime only; its offline quantizer "
    "(ncnn2table, ncnn2int8) is not in it, and pnnx does not quantize. No MNN int8 column: "
    "the MNN 3.6.1 wheel's mnnquant reads calibration images, or arrays as 'sequence' .txt "
    "inputs (one directory per sample); fed the shared set that way it aborted "
    "(std::length_error) on squeezenet1_1 with both KL and EMA, so it is not wired up.")


def calibration_set(spec: TensorSpec, seed: int,
                    count: int = CALIBRATION_COUNT) -> list[np.ndarray]:
    """`count` inputs uniform in the input's range, each from its own seed
    (seed + 1 + index), none equal to the timed input (seed)."""
    low, high = spec.value_range
    return [np.random.default_rng(seed + 1 + index).uniform(low, high, size=spec.shape)
            .astype(np.float32) for index in range(count)]


def write_calibration_set(samples: Sequence[np.ndarray], directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.npy"):
        stale.unlink()
    for index, sample in enumerate(samples):
        np.save(directory / f"{index:03d}.npy", sample)
    return directory


def uint8_deployment(config: DeploymentConfig, model: ModelConfig, onnx: Path,
                     calibration: Path, target: Path, range_method: str = "minmax") -> Path:
    """A deployment file for the uint8 twin of `model`: its own library name,
    the ONNX file by absolute path, quantize: 1 with `calibration`."""
    document = yaml.safe_load(config.path.read_text())
    entry = dict(document["models"][model.name])
    for key in ("data_type", "quantize_range_file"):
        entry.pop(key, None)
    entry.update({"model_file_path": str(onnx.resolve()), "quantize": 1,
                  "calibration_inputs": [str(calibration.resolve())],
                  "quantize_range_method": range_method})
    document.update({"library_name": f"{document['library_name']}_peer_uint8",
                     "models": {model.name: entry}})
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("# Made by tools/peer_bench.py --uint8 from "
                      f"{config.path.name}; rewritten on each run.\n"
                      + yaml.safe_dump(document, sort_keys=False))
    return target


def quantize_ort(source: Path, target: Path, calibration: Path, input_name: str) -> None:
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    files = sorted(calibration.glob("*.npy"))
    if not files:
        raise ValueError(f"{calibration} holds no .npy calibration inputs")

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.feeds = iter({input_name: np.load(path)} for path in files)

        def get_next(self):
            return next(self.feeds, None)

    target.parent.mkdir(parents=True, exist_ok=True)
    quantize_static(str(source), str(target), Reader(), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8)


def main(argv: Sequence[str]) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-4], file=sys.stderr)
        return 2
    source, target, calibration, input_name = argv
    try:
        quantize_ort(Path(source), Path(target), Path(calibration), input_name)
    except Exception as error:   # onnxruntime's own errors, in one line
        print(f"error: quantize_static: {' '.join(str(error).split())}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
