"""The uint8 columns of tools/peer_bench.py (--uint8): one fixed calibration
set per model, MACE's post-training quantization of the zoo model through a
derived deployment file, onnxruntime's quantize_static of the same ONNX
file (QDQ, per-channel int8 weights, uint8 activations) on the same inputs,
and MNN's offline quantizer (mnnquant) on the same inputs written as 8-bit
images.

    python -m mace_tools.peer_bench.int8 SOURCE.onnx TARGET.onnx CALIBRATION_DIR INPUT_NAME

runs quantize_static in its own process, so that the benchmark process never
imports onnxruntime.
"""
from __future__ import annotations

import json
import struct
import sys
import zlib
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from mace_converter.api import TensorSpec
from mace_converter.config import DeploymentConfig, ModelConfig
from mace_tools.peer_bench import mace_engine
from mace_tools.peer_bench.children import quantizer_main

CALIBRATION_COUNT = 8
# Ops the ORT QDQ column leaves in float, as MACE's quantization does:
# quantize_static gives a Softmax output the fixed range [0, 1], which
# rounds MobileNet v1's 1000 near-uniform scores (about 0.001 each) to
# zero or one step (cosine 0.62 against the float model).
FLOAT_OP_TYPES = ("Softmax",)
# quantize_static's settings for the ORT QDQ column, as the notes say.
ORT_SETTINGS = ("QDQ format, per-channel int8 weights, uint8 activations, MinMax "
                "calibration, Softmax left in float as in MACE")
# mnnquant's activation range methods for the MNN int8 column, in the order
# tried: its default KL, then EMA (moving min/max) where KL fails (it crashed
# on shufflenet_v2_x1_0; EMA gave resnet18 a cosine of 0.72).
MNN_FEATURE_METHODS = ("KL", "EMA")
MNN_SETTINGS = ("mnnquant, KL activation ranges (EMA where KL fails), MAX_ABS per-channel "
                "int8 weights, calibrated on the shared inputs as 8-bit PNG images")
# Why there is no ncnn int8 column.
NO_NCNN_INT8 = (
    "No ncnn int8 column: the ncnn wheel ships the runtime only; its offline quantizer "
    "(ncnn2table, ncnn2int8) is not in it, and pnnx does not quantize.")


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
    return mace_engine.derive_deployment(
        config, model, onnx,
        {"quantize": 1, "calibration_inputs": [str(calibration.resolve())],
         "quantize_range_method": range_method},
        target, "peer_uint8", "--uint8", drop=("data_type", "quantize_range_file"))


def pixel_mapping(value_range: tuple[float, float]) -> tuple[float, float]:
    """mnnquant's (mean, normal) for inputs uniform in `value_range` written
    as 8-bit pixels: value = (pixel - mean) * normal, pixel 0 -> low and
    255 -> high."""
    low, high = float(value_range[0]), float(value_range[1])
    if not high > low:
        raise ValueError(f"input range [{low}, {high}] is empty")
    normal = (high - low) / 255.0
    return -low / normal, normal


def to_pixels(sample: np.ndarray, value_range: tuple[float, float]) -> np.ndarray:
    """An NCHW sample of one image with 1 or 3 channels as an HxWxC uint8
    image, each value rounded to the nearest of 256 levels over the range."""
    if sample.ndim != 4 or sample.shape[0] != 1 or sample.shape[1] not in (1, 3):
        raise ValueError(f"input shape {list(sample.shape)} is not one NCHW image with 1 or "
                         "3 channels")
    mean, normal = pixel_mapping(value_range)
    pixels = np.rint(sample[0].transpose(1, 2, 0).astype(np.float64) / normal + mean)
    return np.clip(pixels, 0, 255).astype(np.uint8)


def png_bytes(image: np.ndarray) -> bytes:
    """An HxWx1 or HxWx3 uint8 image as an uncompressed-filter PNG."""
    height, width, channels = image.shape
    if image.dtype != np.uint8 or channels not in (1, 3):
        raise ValueError("a PNG here is HxWx1 or HxWx3 uint8")
    rows = b"".join(b"\x00" + image[y].tobytes() for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    color = 2 if channels == 3 else 0
    header = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def write_calibration_images(samples: Sequence[np.ndarray], value_range: tuple[float, float],
                             directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.png"):
        stale.unlink()
    for index, sample in enumerate(samples):
        (directory / f"{index:03d}.png").write_bytes(png_bytes(to_pixels(sample,
                                                                          value_range)))
    return directory


def mnnquant_config(images: Path, spec: TensorSpec, count: int,
                    method: str = MNN_FEATURE_METHODS[0]) -> dict:
    """mnnquant's configuration for `count` images in `images` feeding the
    NCHW input `spec`, with activation ranges by `method`."""
    _, channels, height, width = spec.shape
    mean, normal = pixel_mapping(spec.value_range)
    return {"format": "RGB" if channels == 3 else "GRAY", "mean": [mean] * channels,
            "normal": [normal] * channels, "width": width, "height": height,
            "path": str(images.resolve()) + "/", "used_image_num": count,
            "feature_quantize_method": method, "weight_quantize_method": "MAX_ABS"}


def write_mnnquant_config(path: Path, images: Path, spec: TensorSpec, count: int,
                          method: str = MNN_FEATURE_METHODS[0]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(mnnquant_config(images, spec, count, method), indent=1) + "\n")
    return path


def quantize_ort(source: Path, target: Path, calibration: Path, input_name: str) -> None:
    files = sorted(calibration.glob("*.npy"))
    if not files:
        raise ValueError(f"{calibration} holds no .npy calibration inputs")
    quantize_qdq(source, target, ({input_name: np.load(path)} for path in files),
                 FLOAT_OP_TYPES)


def quantize_qdq(source: Path, target: Path, feeds: Iterable[dict[str, np.ndarray]],
                 float_op_types: Sequence[str] = ()) -> None:
    """onnxruntime's quantize_static of `source` into `target` with the
    QDQ format, per-channel int8 weights, uint8 activations and MinMax
    ranges, calibrated on `feeds` (input name -> array);
    ops of `float_op_types` are left unquantized."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.registry import QDQRegistry, QLinearOpsRegistry

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.feeds = iter(feeds)

        def get_next(self):
            return next(self.feeds, None)

    target.parent.mkdir(parents=True, exist_ok=True)
    quantize_static(str(source), str(target), Reader(), quant_format=QuantFormat.QDQ,
                    op_types_to_quantize=quantized_op_types(
                        [*QLinearOpsRegistry, *QDQRegistry], float_op_types),
                    per_channel=True, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8)


def quantized_op_types(registry: Iterable[str], float_op_types: Sequence[str]) -> list[str]:
    """The op types quantize_static quantizes when given none (its two
    registries, `registry`), less `float_op_types`."""
    return sorted(set(registry) - set(float_op_types))


def main(argv: Sequence[str]) -> int:
    return quantizer_main(
        argv, 4, __doc__.strip().splitlines()[-4],
        lambda source, target, calibration, input_name: quantize_ort(
            Path(source), Path(target), Path(calibration), input_name),
        "quantize_static")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
