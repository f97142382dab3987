"""`run --validate_layers` (and `run --validate` when an output fails): finds
the first op, in the engine's execution order, whose output diverges from
the source framework's tensor of the same name.

The engine hands out any tensor an op produces as an extra output
(mace_run --output_node); onnxruntime runs a copy of the ONNX model in
which every intermediate value is a graph output. The converter keeps the
ONNX names of most tensors; the tensors of fused and folded ops exist on
one side only and are skipped, as are those whose shapes cannot be mapped
from the engine's layout to the source's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from mace_converter import run, validate
from mace_converter.config import DeploymentConfig, ModelConfig
from mace_converter.conversion import ModelArtifacts
from mace_converter.progress import UserError, say


_SHOWN = 8     # source-only tensors named in the report


@dataclass(frozen=True)
class EngineTensor:
    """A float output of an engine op."""
    name: str
    op_name: str
    op_type: str
    op_index: int       # the op's place in execution order


@dataclass
class SourceTensors:
    values: dict[str, np.ndarray]
    producers: dict[str, tuple[str, str]]      # tensor -> (node name, op type)


@dataclass
class LayerReport:
    compared: list[tuple[EngineTensor, validate.Comparison]] = field(default_factory=list)
    no_source: int = 0          # engine tensors the source model has no tensor of that name for
    source_only: list[str] = field(default_factory=list)    # and the reverse
    unmapped: list[str] = field(default_factory=list)    # on both sides, not compared
    producers: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def first_divergence(self) -> Optional[tuple[EngineTensor, validate.Comparison]]:
        return next(((t, c) for t, c in self.compared if not c.passed), None)


def engine_tensors(graph: Path) -> list[EngineTensor]:
    """The float outputs of the top graph's ops, in execution order."""
    from mace_tools import proto
    pb = proto.load()
    net = pb.NetDef()
    net.ParseFromString(graph.read_bytes())
    tensors = []
    for index, op in enumerate(net.op):
        for k, name in enumerate(op.output):
            dtype = op.output_type[k] if k < len(op.output_type) else net.data_type
            if dtype == pb.DT_FLOAT:
                tensors.append(EngineTensor(name, op.name, op.type, index))
    return tensors


def onnx_tensors(model_file: Path, inputs: dict[str, np.ndarray]) -> SourceTensors:
    """onnxruntime's values of the float tensors that nodes of the model's
    top graph produce, from a copy of the model in which they are all graph
    outputs."""
    try:
        import onnx
        import onnxruntime as ort
    except ImportError as error:
        raise UserError(f"per-layer validation of ONNX models needs onnx and onnxruntime: "
                        f"{error}") from None
    model = onnx.load(str(model_file))
    producers = {}
    for index, node in enumerate(model.graph.node):
        for name in node.output:
            if name:
                producers[name] = (node.name or f"#{index} {node.op_type}", node.op_type)
    try:
        # Types help onnxruntime; a value without one is left to it to infer.
        inferred = onnx.shape_inference.infer_shapes(model)
        known = {v.name: v for v in inferred.graph.value_info}
    except Exception:   # noqa: BLE001 (any failure only loses the hints)
        known = {}
    present = {output.name for output in model.graph.output}
    for name in producers:
        if name in present:
            continue
        info = known.get(name)
        if info is not None and info.type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
            continue
        model.graph.output.append(info if info is not None else onnx.ValueInfoProto(name=name))
    options = ort.SessionOptions()
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(model.SerializeToString(), sess_options=options,
                                       providers=["CPUExecutionProvider"])
        fetched = [output.name for output in session.get_outputs() if output.name in producers]
        results = session.run(fetched, validate.onnx_feed(session, inputs))
    except Exception as error:   # noqa: BLE001 (onnxruntime raises its own types)
        raise UserError(f"onnxruntime cannot run {model_file.name} with its intermediate "
                        f"values as outputs: {error}") from None
    values = {name: np.asarray(value) for name, value in zip(fetched, results)
              if np.asarray(value).dtype == np.float32}
    return SourceTensors(values, producers)


def in_source_layout(engine: np.ndarray, source_shape: tuple[int, ...]) -> Optional[np.ndarray]:
    """An engine tensor laid out as the source's tensor of `source_shape`:
    as it is, NCHW <-> NHWC for 4-D tensors, or with unit dimensions
    dropped or added; None when none of these fit."""
    if engine.shape == source_shape:
        return engine
    if engine.ndim == 4 and len(source_shape) == 4:
        for permutation in ((0, 2, 3, 1), (0, 3, 1, 2)):
            moved = engine.transpose(permutation)
            if moved.shape == source_shape:
                return moved
    if [d for d in engine.shape if d != 1] == [d for d in source_shape if d != 1]:
        return engine.reshape(source_shape)
    return None


def compare_layers(tensors: list[EngineTensor], engine_values: dict[str, np.ndarray],
                   source: SourceTensors, threshold: float) -> LayerReport:
    report = LayerReport(producers=source.producers)
    engine_names = {tensor.name for tensor in tensors}
    report.source_only = sorted(name for name in source.values if name not in engine_names)
    for tensor in tensors:
        expected = source.values.get(tensor.name)
        actual = engine_values.get(tensor.name)
        if expected is None:
            report.no_source += 1
            continue
        if actual is None:
            report.unmapped.append(f"{tensor.name} (its mace_run output file name is another "
                                   "tensor's)")
            continue
        mapped = in_source_layout(actual, expected.shape)
        if mapped is None:
            report.unmapped.append(f"{tensor.name} (engine shape {list(actual.shape)}, source "
                                   f"{list(expected.shape)})")
            continue
        report.compared.append((tensor, validate.compare(tensor.name, mapped, expected,
                                                         threshold)))
    return report


def check(config: DeploymentConfig, model: ModelConfig, artifacts: ModelArtifacts, abi: str,
          device: str, inputs: dict[str, np.ndarray], threshold: float,
          cache: dict) -> Optional[LayerReport]:
    """Runs the engine with its intermediates as outputs and the source
    model with its own, compares them and prints the first divergence.
    None when the model or device has no per-layer comparison."""
    if model.platform != "onnx":
        say(f"    per-layer: for ONNX models only; {model.name} is {model.platform}")
        return None
    if device == "dsp":
        say("    per-layer: the DSP runs the graph as a whole and hands out no intermediate "
            "tensors")
        return None
    tensors = engine_tensors(run.model_files(config, model, artifacts)[0])
    outputs = {spec.name for spec in artifacts.engine_outputs}
    names = _unique_file_names([t.name for t in tensors if t.name not in outputs], outputs)
    try:
        if "layers" not in cache:
            cache["layers"] = onnx_tensors(artifacts.model_file,
                                           run.float_inputs(artifacts, inputs))
        source: SourceTensors = cache["layers"]
        names = [name for name in names if name in source.values]
        result = run.run_model(config, model, artifacts, abi, device, inputs, run.RunOptions(),
                               echo=False, intermediates=names)
    except UserError as error:
        say(f"    per-layer: not compared: {error}")
        return None
    report = compare_layers(tensors, result.intermediates, source, threshold)
    for line in describe(report, threshold):
        say(f"    {line}")
    return report


def describe(report: LayerReport, threshold: float) -> list[str]:
    lines = [f"per-layer: compared {len(report.compared)} op output(s) with the source "
             "model's tensors of the same name"]
    if report.no_source:
        lines.append(f"per-layer: skipped {report.no_source} engine op output(s) with no float "
                     "source tensor of that name (ops the converter added or split)")
    if report.source_only:
        shown = ", ".join(report.source_only[:_SHOWN])
        more = len(report.source_only) - _SHOWN
        lines.append(f"per-layer: skipped {len(report.source_only)} source tensor(s) with no "
                     f"engine tensor of that name (fused or folded ops): {shown}"
                     + (f" and {more} more" if more > 0 else ""))
    if report.unmapped:
        lines.append(f"per-layer: skipped {len(report.unmapped)} tensor(s) on both sides: "
                     + ", ".join(report.unmapped))
    first = report.first_divergence
    if first is None:
        lines.append(f"per-layer: no compared op output diverges (cosine >= {threshold})")
        return lines
    tensor, comparison = first
    node, node_type = report.producers.get(tensor.name, ("?", "?"))
    lines.append(f"first diverging op: #{tensor.op_index} {tensor.op_type} '{tensor.op_name}' "
                 f"(source node '{node}', {node_type}), output '{tensor.name}': cosine "
                 f"{comparison.cosine:.6f} (>= {threshold}), max abs error "
                 f"{comparison.max_abs_error:.3g}")
    return lines


def _unique_file_names(names: list[str], outputs: set[str]) -> list[str]:
    """`names` without those whose mace_run output files would collide with
    another's or an output's."""
    files: dict[str, list[str]] = {}
    for name in [*names, *outputs]:
        files.setdefault(run.safe_name(name), []).append(name)
    return [name for name in names if len(files[run.safe_name(name)]) == 1]
