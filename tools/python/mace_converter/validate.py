"""`run --validate`: runs the source framework on the inputs MACE ran on and
compares each output (cosine similarity, SQNR, max absolute error).

References: onnxruntime for ONNX; for TensorFlow, TensorFlow itself when it
is installed, else the numpy implementation of the TensorFlow ops
(mace_converter.tf_reference), else the numpy interpreter of the converted
model; for Caffe, the numpy implementation of the Caffe layers
(mace_converter.caffe_reference), since Caffe cannot be installed here.
"""
from __future__ import annotations

import importlib
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from mace_converter import layout
from mace_converter.config import ModelConfig
from mace_converter.conversion import ModelArtifacts
from mace_converter.progress import UserError

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
                        "caffe": _caffe}[model.platform]
    return runner(model, artifacts, inputs)


def _onnx(model: ModelConfig, artifacts: ModelArtifacts, inputs: dict[str, np.ndarray]):
    ort = _optional("onnxruntime", "validating ONNX models")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(artifacts.model_file), sess_options=options,
                                   providers=["CPUExecutionProvider"])
    names = [spec.name for spec in model.outputs]
    results = session.run(names, {name: value for name, value in inputs.items()})
    return f"onnxruntime {ort.__version__}", dict(zip(names, results))


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
