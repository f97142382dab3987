"""The dynamic int8 columns of tools/peer_bench.py (--dynamic-int8): int8
linear layers with activations quantized at run time, no calibration.
MACE converts the zoo model through a derived deployment file with
dynamic_quantize: 1; onnxruntime runs quantize_dynamic's model of the same
ONNX file.

    python -m mace_tools.peer_bench.dynamic SOURCE.onnx TARGET.onnx

runs quantize_dynamic in its own process, so that the benchmark process
never imports onnxruntime.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from mace_converter.config import DeploymentConfig, ModelConfig
from mace_tools.peer_bench import mace_engine
from mace_tools.peer_bench.children import quantizer_main

# The op types quantize_dynamic rewrites for the ORT dyn int8 column: the
# MatMuls (with a constant weight, its default in dynamic mode) and the
# Gathers of constant tables, as MACE quantizes its linear layers and
# embedding tables. Its default list would also quantize the patch
# embedding Conv of ViT and Whisper (ConvInteger), which MACE keeps float.
ORT_OP_TYPES = ("MatMul", "Gather")
# quantize_dynamic's settings for the ORT dyn int8 column, as the notes say.
ORT_SETTINGS = ("op_types_to_quantize=['MatMul', 'Gather'] with constant weights only, "
                "weight_type=QInt8, per_channel=True, reduce_range=False; activations "
                "quantized to uint8 per tensor at run time by DynamicQuantizeLinear")
MACE_SETTINGS = ("the zoo model's deployment file with dynamic_quantize: 1 (in --work-dir, "
                 "<model>/mace_dq/): every FullyConnected with a constant weight gets int8 "
                 "weights, one scale per output feature, and quantizes each input row to "
                 "uint8 with its own scale and zero point at run time, and a Gather of a "
                 "constant table of 65,536 values or more reads int8 rows; the other ops "
                 "stay float")


def dynamic_deployment(config: DeploymentConfig, model: ModelConfig, onnx: Path,
                       target: Path) -> Path:
    """A deployment file for the dynamic int8 twin of `model`: its own
    library name, the ONNX file by absolute path, dynamic_quantize: 1."""
    return mace_engine.derive_deployment(config, model, onnx, {"dynamic_quantize": 1},
                                         target, "peer_dq", "--dynamic-int8")


def quantize_ort(source: Path, target: Path) -> None:
    """onnxruntime's quantize_dynamic of `source` into `target` with the
    settings of ORT_SETTINGS."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target.parent.mkdir(parents=True, exist_ok=True)
    quantize_dynamic(str(source), str(target), op_types_to_quantize=list(ORT_OP_TYPES),
                     per_channel=True, reduce_range=False, weight_type=QuantType.QInt8)


def main(argv: Sequence[str]) -> int:
    return quantizer_main(argv, 2, __doc__.strip().splitlines()[-4],
                          lambda source, target: quantize_ort(Path(source), Path(target)),
                          "quantize_dynamic")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
