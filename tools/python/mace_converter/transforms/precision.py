"""Chooses how float weights are stored.

The CPU kernels read float32 weights in place and reject float16 ones
(mace/core/workspace.cc loads a DT_HALF weight as a float16 tensor, and the
CPU ops require float32). The GPU kernels read float32 weights too: they
rearrange them on the host and upload them at engine creation into images
of the storage the engine asks for (half or float). So the weights file
stays float32 for every runtime; fp16_fp32 on the GPU is a property of the
engine (MaceEngineConfig::SetGPUDataType), and one weights file serves
both devices of a cpu+gpu model.
"""
from __future__ import annotations

from mace_converter.api import ConversionError, ConvertOptions

DATA_TYPES = ("fp32_fp32", "fp16_fp32", "fp16_fp16", "bf16_fp32", "uint8")
RUNTIMES = ("cpu", "gpu", "dsp", "cpu+gpu")


def weight_dtype(options: ConvertOptions, log: list[str]) -> str:
    """"float32" or "float16" for the float weights of the model."""
    if options.data_type not in DATA_TYPES:
        raise ConversionError(f"data_type must be one of {', '.join(DATA_TYPES)}, "
                              f"got '{options.data_type}'")
    if options.runtime not in RUNTIMES:
        raise ConversionError(f"runtime must be one of {', '.join(RUNTIMES)}, "
                              f"got '{options.runtime}'")
    if options.data_type in ("fp32_fp32", "uint8"):
        # uint8: the quantization pass writes the uint8 ops' own weights; the
        # ops left in float keep float32 ones.
        return "float32"
    if options.data_type == "bf16_fp32":
        log.append("bf16_fp32: the model format has no bfloat16 type; weights stay float32")
        return "float32"
    if options.runtime in ("gpu", "cpu+gpu"):
        log.append(f"{options.data_type}: weights stay float32; the GPU converts them to "
                   "half images at engine creation (SetGPUDataType(FP16_FP32))")
        return "float32"
    if options.runtime == "cpu" and options.data_type == "fp16_fp16":
        log.append("fp16_fp16: weights stay float32 in the model; a CPU engine converts the "
                   "convolution and FullyConnected weights to half at engine creation "
                   "(SetCPUPrecision(FP16), ARMv8.2 CPUs; fp32 elsewhere)")
        return "float32"
    log.append(f"{options.data_type}: weights stay float32 because the CPU kernels of the "
               f"{options.runtime} runtime read float32 weights only")
    return "float32"
