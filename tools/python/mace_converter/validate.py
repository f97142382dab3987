"""`run --validate`: runs the source framework on the inputs MACE ran on and
compares each output (cosine similarity, SQNR, max absolute error).

References: onnxruntime for ONNX; for TensorFlow, TensorFlow itself when it
is installed, else the numpy implementation of the TensorFlow ops
(mace_converter.tf_reference), else the numpy interpreter of the converted
model; for Caffe, the numpy implementation of the Caffe layers
(mace_converter.caffe_reference), since Caffe cannot be installed here.
"""
from __future__ import annotations

import dataclasses
import importlib
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from mace_converter import conversion, layout, run
from mace_converter.config import DeploymentConfig, ModelConfig
from mace_converter.conversion import ModelArtifacts
from mace_converter.progress import UserError, say

# Minimum cosine similarity: float computation is held to 0.999 on every
# device (the GPU with fp32_fp32 storage too); half-precision data types,
# fp16_fp32 storage on the GPU among them, to 0.995; uint8 models to 0.98.
COSINE_THRESHOLDS = {"float": 0.999, "half": 0.995, "uint8": 0.98}


def cosine_threshold(device: str, data_type: str) -> float:
    if data_type == "uint8" or device == "dsp":
        return COSINE_THRESHOLDS["uint8"]
    if data_type.startswith(("fp16", "bf16")):
        return COSINE_THRESHOLDS["half"]
    return COSINE_THRESHOLDS["float"]


@dataclass
class Comparison:
    name: str
    cosine: float
    sqnr_db: float
    max_abs_error: float
    threshold: float

    @property
    def passed(self) -> bool:
        return self.cosine >= self.threshold

    def line(self) -> str:
        sqnr = "inf" if math.isinf(self.sqnr_db) else f"{self.sqnr_db:.1f}"
        verdict = "PASS" if self.passed else "FAIL"
        return (f"{self.name}: cosine {self.cosine:.6f} (>= {self.threshold}), SQNR {sqnr} dB, "
                f"max abs error {self.max_abs_error:.3g}  {verdict}")


def compare(name: str, actual: np.ndarray, expected: np.ndarray,
            threshold: float) -> Comparison:
    if actual.size != expected.size:
        raise UserError(f"output {name}: MACE gives {actual.size} values, the reference "
                        f"{expected.size}")
    a = actual.astype(np.float64).reshape(-1)
    e = expected.astype(np.float64).reshape(-1)
    error = a - e
    norms = float(np.linalg.norm(a) * np.linalg.norm(e))
    if norms == 0.0:
        cosine = 1.0 if not error.any() else 0.0
    else:
        cosine = float(a @ e / norms)
    noise = float(error @ error)
    signal = float(e @ e)
    sqnr = math.inf if noise == 0.0 else (10 * math.log10(signal / noise) if signal > 0
                                          else -math.inf)
    max_abs = float(np.abs(error).max()) if error.size else 0.0
    if not np.isfinite(a).all():
        cosine = -1.0
    return Comparison(name, cosine, sqnr, max_abs, threshold)


def reference_outputs(model: ModelConfig, artifacts: ModelArtifacts,
                      inputs: dict[str, np.ndarray]) -> tuple[str, dict[str, np.ndarray]]:
    """(what computed them, outputs keyed by the deployment file's names);
    `inputs` are keyed by the deployment file's names, in its layout."""
    runner: Callable = {"onnx": _onnx, "tensorflow": _tensorflow,
                        "caffe": _caffe, "tflite": _tflite}[model.platform]
    # A uint8 .npy given for a uint8 input (quantize_uint8_io) stands for
    # the float values it quantizes.
    return runner(model, artifacts, run.float_inputs(artifacts, inputs))


def float_io_twin(config: DeploymentConfig, model: ModelConfig) -> tuple[ModelConfig,
                                                                         ModelArtifacts]:
    """A quantize_uint8_io model converted again without it, from the same
    activation ranges: the same uint8 graph, with float inputs and outputs
    and the engine's Quantize and Dequantize ops at its edges."""
    settings = model.quantize
    assert settings is not None
    ranges = conversion.work_dir(config) / "models" / f"{model.name}.ranges"
    range_file = settings.range_file
    if range_file is None and ranges.exists():
        range_file = str(ranges.resolve())     # what calibration wrote: no second run
    twin = dataclasses.replace(
        model, name=f"{model.name}_float_io",
        quantize=dataclasses.replace(settings, uint8_io=False, range_file=range_file))
    return twin, conversion.convert_models(config, [twin])[twin.name]


def check_float_io_twin(config: DeploymentConfig, model: ModelConfig, artifacts: ModelArtifacts,
                        abi: str, device: str, inputs: dict[str, np.ndarray],
                        result: "run.RunResult", cache: dict) -> list[str]:
    """For a model with uint8 inputs or outputs (quantize_uint8_io): runs its
    float-io twin (converted once per model and kept in `cache`) on the
    same inputs, dequantized where they are uint8 files, and compares the
    outputs bit for bit. Returns the failures."""
    quantized_inputs, quantized_outputs = run.uint8_io(artifacts)
    if not quantized_inputs and not quantized_outputs:
        say("    quantize_uint8_io: no graph input or output borders a uint8 op; the model "
            "exchanges float only")
        return []
    if "float_io_twin" not in cache:
        say("    float-io twin: the same model converted with quantize_uint8_io: 0 from the "
            "same ranges, run on the same inputs")
        cache["float_io_twin"] = float_io_twin(config, model)
    twin, twin_artifacts = cache["float_io_twin"]
    twin_result = run.run_model(config, twin, twin_artifacts, abi, device,
                                run.float_inputs(artifacts, inputs), run.RunOptions(),
                                echo=False)
    return same_as_float_io_twin(model, result, twin_result, quantized_outputs)


def same_as_float_io_twin(model: ModelConfig, result: "run.RunResult",
                          twin_result: "run.RunResult",
                          quantized: dict[str, "run.Uint8Io"]) -> list[str]:
    """Each output of the uint8-io model against the float-io twin's on the
    same inputs: a uint8 output's bytes must equal the twin's float output
    quantized again with the same scale and zero point (quantizing a
    dequantized uint8 value gives it back exactly), and its dequantized
    values the twin's bit for bit; a float output must equal the twin's bit
    for bit. Returns the failures."""
    failures = []
    for spec in model.outputs:
        mine, twin = result.outputs[spec.name], twin_result.outputs[spec.name]
        same = mine.shape == twin.shape and mine.dtype == twin.dtype and \
            mine.tobytes() == twin.tobytes()
        what = "float values"
        if spec.name in quantized and same:
            raw = result.uint8_outputs[spec.name]
            requantized, _ = run.quantize_uint8(twin, quantized[spec.name])
            same = np.array_equal(raw, requantized)
            what = "uint8 bytes and dequantized values"
        if same:
            say(f"    {spec.name}: {what} bit-identical to the float-io twin's (its own "
                "Quantize and Dequantize ops at the edges)  PASS")
            continue
        differ = int(np.count_nonzero(mine.reshape(-1) != twin.reshape(-1))) \
            if mine.size == twin.size else mine.size
        say(f"    {spec.name}: {differ} of {twin.size} values differ from the float-io "
            "twin's  FAIL")
        failures.append(f"{model.name}/{spec.name} (vs float-io twin)")
    return failures


def _onnx(model: ModelConfig, artifacts: ModelArtifacts, inputs: dict[str, np.ndarray]):
    ort = _optional("onnxruntime", "validating ONNX models")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(artifacts.model_file), sess_options=options,
                                   providers=["CPUExecutionProvider"])
    names = [spec.name for spec in model.outputs]
    results = session.run(names, onnx_feed(session, inputs))
    return f"onnxruntime {ort.__version__}", dict(zip(names, results))


# onnxruntime's type names of the inputs a model may take from the tools.
_ORT_TYPES = {"tensor(float)": np.float32, "tensor(int32)": np.int32,
              "tensor(int64)": np.int64, "tensor(bool)": np.bool_}


def onnx_feed(session, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`inputs` in the types the ONNX model declares (an int64 model input
    that input_data_types makes int32 for the app is fed as int64)."""
    declared = {each.name: _ORT_TYPES.get(each.type) for each in session.get_inputs()}
    return {name: value.astype(declared[name]) if declared.get(name) is not None else value
            for name, value in inputs.items()}


def _tensorflow(model: ModelConfig, artifacts: ModelArtifacts, inputs: dict[str, np.ndarray]):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")    # no C++ start-up notes on stderr
    try:
        tf = importlib.import_module("tensorflow")
    except ImportError:
        return _tensorflow_in_numpy(model, artifacts, inputs)
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(Path(artifacts.model_file).read_bytes())
    with tf.Graph().as_default() as graph:
        tf.graph_util.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=graph) as session:
            feed = {_tf_name(name): value for name, value in inputs.items()}
            names = [spec.name for spec in model.outputs]
            results = session.run([_tf_name(name) for name in names], feed_dict=feed)
    return f"TensorFlow {tf.__version__}", dict(zip(names, results))


def _tensorflow_in_numpy(model: ModelConfig, artifacts: ModelArtifacts,
                         inputs: dict[str, np.ndarray]):
    try:
        reference = importlib.import_module("mace_converter.tf_reference")
    except ImportError:
        return _numpy_runner(model, artifacts, inputs,
                             "numpy interpreter of the converted model (neither TensorFlow nor "
                             "its numpy reference is available, so this checks the engine, not "
                             "the conversion)")
    names = [spec.name for spec in model.outputs]
    results = reference.run_tensorflow(artifacts.model_file, inputs, names)
    return ("numpy implementation of the TensorFlow ops (TensorFlow is not installed)",
            {name: np.asarray(results[name]) for name in names})


def _caffe(model: ModelConfig, artifacts: ModelArtifacts, inputs: dict[str, np.ndarray]):
    reference = _frontend_module("mace_converter.caffe_reference", "validating Caffe models")
    names = [spec.name for spec in model.outputs]
    results = reference.run_caffe(artifacts.model_file, artifacts.weight_file, inputs, names)
    return "numpy implementation of the Caffe layers", {n: np.asarray(results[n]) for n in names}


def _tflite(model: ModelConfig, artifacts: ModelArtifacts, inputs: dict[str, np.ndarray]):
    reference = _frontend_module("mace_converter.tflite_reference", "validating TFLite models")
    return reference.run_litert(Path(artifacts.model_file), inputs,
                                [spec.name for spec in model.outputs])


def _numpy_runner(model: ModelConfig, artifacts: ModelArtifacts,
                  inputs: dict[str, np.ndarray], description: str):
    module = _frontend_module("mace_converter.numpy_runner", "validating without the "
                                                             "source framework")
    from mace_tools import proto
    net = proto.load().NetDef()
    net.ParseFromString(artifacts.pb.read_bytes())
    engine_inputs = layout.to_engine(inputs, artifacts.source_inputs, artifacts.engine_inputs)
    engine_outputs = module.run(net, artifacts.data.read_bytes(), engine_inputs)
    outputs = {spec.name: np.asarray(engine_outputs[spec.name])
               for spec in artifacts.engine_outputs}
    return description, layout.to_source(outputs, artifacts.source_outputs,
                                         artifacts.engine_outputs)


def _tf_name(name: str) -> str:
    return name if ":" in name else name + ":0"


def _optional(module: str, purpose: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"{purpose} needs the Python package {module}, which is not "
                        "installed in the virtualenv (.venv)") from None


def _frontend_module(module: str, purpose: str):
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise UserError(f"{purpose} needs {module}, which cannot be loaded: {error}") from None
