"""TFLite frontend: reads a .tflite model (tflite_model.py) into the IR.

TFLite images are NHWC, as TensorFlow's are, so the frontend keeps the
TensorFlow frontend's layout tracker (tensorflow_frontend.py): each tensor is
"tf" (as the model has it) or "nchw" (a 4D NHWC tensor stored transposed);
convolutions and pooling produce "nchw", element-wise ops keep the layout,
and inputs and outputs stay NHWC as the app sees them. Resource variables
become state tensors (tflite_variables.py). Constant weights in
compact forms (float16 or int8 behind DEQUANTIZE, sparse behind DENSIFY) are
expanded to float32 at conversion (tflite_weights.py). Ops whose fused
activation is set get an Activation after them, which the fuse_activation
transform folds back into the op where the engine can.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from mace_converter.api import ConversionError, ConvertOptions
from mace_converter.frontends import (tflite_model, tflite_quant, tflite_variables,
                                      tflite_weights)
from mace_converter.frontends.node import Node
from mace_converter.frontends.tensorflow_frontend import TfImporter, TfNode, canonical
from mace_converter.ir import Graph
from mace_converter.numpy_ops.tensor import MAX, MIN
from mace_converter.transforms.fold_constants import fold_constants

# ActivationFunctionType -> engine activation. RELU_N1_TO_1 (2) is
# min(max(x, -1), 1). LiteRT's kernels apply only these three; they compute
# an op marked TANH (4) or SIGN_BIT (5) without any activation, so such a
# model means one thing by its schema and another when it runs: refused.
_FUSED = {1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6"}
_FUSED_NAMES = {4: "TANH", 5: "SIGN_BIT"}


class TfliteNode(TfNode):
    """A TFLite operator with access to the layout tracker."""

    def __init__(self, importer: "TfliteImporter", op: tflite_model.Operator):
        names = importer.names
        inputs = [names[i] if i >= 0 else "" for i in op.inputs]
        outputs = [names[i] for i in op.outputs]
        Node.__init__(self, importer.graph, op.op_type, outputs[0] if outputs else "",
                      op.index, inputs, outputs, {}, importer.values, importer.ir_consts,
                      framework="TFLite")
        self.importer = importer
        self.options = op.options
        self.op = op
        self.model = importer.model

    def where(self) -> str:
        return (f"TFLite {self.op_type} operator {self.index} (output '{self.name}') in "
                f"{self.graph.source}")

    def option(self, getter: str, default: Any = None) -> Any:
        if self.options is None or not hasattr(self.options, getter):
            return default
        return getattr(self.options, getter)()

    def kept(self, index: int) -> str:
        """Input `index` as an IR tensor in the layout it has (constants added)."""
        if self.layout(index) == "nchw":
            return self.inputs[index]
        return self.tf(index)

    def out_shape(self, index: int = 0) -> tuple[int, ...]:
        """The output's shape as the model declares it."""
        return self.model.tensors[self.op.outputs[index]].shape

    def produce_fused(self, op_type: str, inputs: list[str], args: Optional[dict] = None,
                      layout: str = "tf") -> None:
        """The op, then its fused activation (FusedActivationFunction)."""
        fused = int(self.option("FusedActivationFunction", 0))
        if fused == 0:
            self.produce(op_type, inputs, args, layout)
            return
        if fused not in _FUSED:
            name = _FUSED_NAMES.get(fused, str(fused))
            raise self.fail(f"fused activation {name} is not supported: LiteRT computes the op "
                            "without it, against the model's own schema")
        raw = self.emit(op_type, inputs, args).outputs[0]
        self.activate(raw, _FUSED[fused], layout)

    def activate(self, source: str, kind: str, layout: str) -> None:
        """This node's output: engine activation `kind` of `source`."""
        if kind == "RELU_N1_TO_1":
            low = self.emit("Eltwise", [source], {"type": MAX, "scalar_input": -1.0}).outputs[0]
            self.produce("Eltwise", [low], {"type": MIN, "scalar_input": 1.0}, layout)
            return
        self.produce("Activation", [source], {"activation": kind}, layout)


class TfliteImporter(TfImporter):
    def __init__(self, options: ConvertOptions):
        self.start(options)
        self.model = tflite_model.read(self.path)
        self.names = self._tensor_names()
        self.by_name = {name: i for i, name in enumerate(self.names)}
        self.graph.reserve(self.names)
        self.variables = tflite_variables.Variables(self)
        # A complex tensor's real and imaginary IR tensors (tflite_signal.py).
        self.complex: dict[str, tuple[str, str]] = {}

    def _tensor_names(self) -> list[str]:
        """Unique names by tensor index: the model's name without a ':0'
        suffix, or 'tensor_N' where it has none."""
        names, seen = [], set()
        for tensor in self.model.tensors:
            name = canonical(tensor.name) or f"tensor_{tensor.index}"
            if name in seen:
                name = f"{name}#{tensor.index}"
            seen.add(name)
            names.append(name)
        return names

    def _index(self, name: str, kind: str) -> int:
        index = self.by_name.get(canonical(name))
        if index is None:
            known = [self.names[i] for i in (self.model.inputs if kind == "input"
                                             else self.model.outputs)]
            raise ConversionError(f"{kind} '{name}' is not a tensor of {self.path.name}; its "
                                  f"{kind}s are {known}")
        return index

    def run(self) -> Graph:
        from mace_converter.frontends.tflite_ops import CONVERTERS
        from mace_converter.frontends.tflite_signal import check_outputs, complex_converter
        produced = {out for op in self.model.operators for out in op.outputs}
        for index, tensor in enumerate(self.model.tensors):
            value = self.model.const(tensor)
            if value is None and 0 in tensor.shape and index not in produced and \
                    index not in self.model.inputs and tensor.dtype in tflite_model.DTYPES:
                # A constant of no elements has an empty buffer.
                value = np.zeros(tensor.shape, tflite_model.DTYPES[tensor.dtype])
            if value is not None:
                self.values[self.names[index]] = value
        self.weight_scales = tflite_quant.dequantize_constants(self.model, self.values,
                                                               self.names)
        for spec in self.options.inputs:
            index = self._index(spec.name, "input")
            tensor = self.model.tensors[index]
            quantized = tflite_quant.quantized_activation(tensor)
            if tensor.dtype not in (0, 2) and not quantized:
                raise ConversionError(f"input '{spec.name}' of {self.path.name} is "
                                      f"{tensor.type_name}; TFLite inputs must be float32, "
                                      "int32, or int8 or uint8 with a scale and zero point")
            self.graph.add_input(self.names[index], spec.shape or tensor.shape,
                                 data_format=spec.data_format)
            if quantized:
                self._round_input(index)
        if not self.options.outputs:
            raise ConversionError(f"name the output tensors of {self.path.name} in the "
                                  "deployment file")
        check_outputs(self, [self._index(spec.name, "output") for spec in self.options.outputs])
        for op in self._needed():
            node = TfliteNode(self, op)
            try:
                converter = complex_converter(node)
                if converter is None and self._fold(node):
                    continue
                converter = converter or CONVERTERS.get(node.op_type)
                if converter is None:
                    raise node.fail(f"op {node.op_type} is not supported by the MACE "
                                    "converter (see docs/how-to/tflite.md for the TFLite ops it "
                                    "converts)")
                self._convert(node, converter)
                if node.inputs and all(node.known(i) for i in range(len(node.inputs))
                                       if node.has_input(i)):
                    fold_constants(self.graph)   # shape arithmetic RANGE may read
            except ConversionError as error:
                if node.where() in str(error):
                    raise
                raise node.fail(str(error)) from error
            except Exception as error:
                raise node.fail(f"malformed operator: {type(error).__name__}: "
                                f"{error}") from error
        self._set_outputs()
        self.variables.finish()
        return self.graph

    def _round_input(self, index: int) -> None:
        """An int8 or uint8 input: the app feeds the real values its integers
        stand for; the model reads them rounded to the input's grid."""
        tensor, name = self.model.tensors[index], self.names[index]
        if tflite_quant.uint8_params(tensor) is None:
            raise ConversionError(f"input '{name}' of {self.path.name} is quantized per "
                                  "channel; per-tensor quantized inputs are supported")
        node = Node(self.graph, "QUANTIZE", name, -1, [name], [name + "/rounded"], {},
                    self.values, self.ir_consts, framework="TFLite")
        rounded = self.graph.unique_name(name + "/rounded")
        tflite_quant.round_output(node, name, rounded, tensor)
        self.names[index] = rounded

    def _needed(self) -> list[tflite_model.Operator]:
        """The operators the requested outputs depend on, in file order."""
        producer = {out: op for op in self.model.operators for out in op.outputs}
        inputs = {self.by_name[canonical(spec.name)] for spec in self.options.inputs}
        wanted = [self._index(spec.name, "output") for spec in self.options.outputs]
        seen: set[int] = set()
        # An assignment to a variable has no output, and is needed all the same.
        for op in self.model.operators:
            if op.op_type == "ASSIGN_VARIABLE":
                seen.add(op.index)
                wanted.extend(i for i in op.inputs if i >= 0)
        while wanted:
            tensor = wanted.pop()
            op = producer.get(tensor)
            if tensor in inputs or op is None or op.index in seen:
                continue
            seen.add(op.index)
            wanted.extend(i for i in op.inputs if i >= 0)
        for index in sorted(seen):
            op = self.model.operators[index]
            for i in op.inputs:
                if i >= 0 and i not in inputs and i not in producer and \
                        self.names[i] not in self.values:
                    raise ConversionError(f"{self.path.name}: TFLite {op.op_type} operator "
                                          f"{index} reads tensor {i} '{self.names[i]}', which "
                                          "is neither computed, constant nor a deployment "
                                          "file input")
        return [self.model.operators[i] for i in sorted(seen)]

    def _convert(self, node: TfliteNode, converter) -> None:
        """Runs the converter; outputs that are quantized activations are
        computed in float, then rounded to their grid (tflite_quant.py)."""
        rounded = {}
        for position in tflite_quant.needs_rounding(node, self.model):
            real = node.outputs[position]
            rounded[position] = real
            node.outputs[position] = self.graph.unique_name(real + "/real")
        converter(node)
        for position, real in rounded.items():
            source = node.outputs[position]
            tensor = self.model.tensors[node.op.outputs[position]]
            tflite_quant.round_output(node, source, real, tensor)
            self.layouts[real] = self.layouts.get(source, "tf")
            node.outputs[position] = real

    def _fold(self, node: TfliteNode) -> bool:
        """Evaluates an operator of constants: DEQUANTIZE and DENSIFY of
        weights, SHAPE of a known shape, RANGE of constants and integer
        arithmetic on known values (tflite_fold.py)."""
        op = node.op
        if node.op_type == "DENSIFY":
            tensor = self.model.tensors[op.inputs[0]]
            if tensor.sparsity is None or not node.is_const(0):
                raise node.fail("DENSIFY needs a constant sparse input")
            self.values[node.outputs[0]] = tflite_weights.densify(tensor, node.const(0))
            return True
        if node.op_type == "DEQUANTIZE" and node.is_const(0):
            tensor, value = self.model.tensors[op.inputs[0]], node.const(0)
            # Quantized integer constants hold their real values already.
            self.values[node.outputs[0]] = value if value.dtype == np.float32 else \
                tflite_weights.dequantize(tensor, value)
            return True
        if node.op_type == "SHAPE":
            kind = tflite_model.DTYPES.get(self.model.tensors[op.outputs[0]].dtype, np.int32)
            self.values[node.outputs[0]] = np.array(node.tf_shape(0), dtype=kind)
            return True
        if node.op_type == "RANGE" and all(node.known(i) for i in range(3)):
            start, limit, delta = (node.const(i).reshape(-1)[0] for i in range(3))
            self.values[node.outputs[0]] = np.arange(start, limit, delta,
                                                     dtype=node.const(0).dtype)
            return True
        from mace_converter.frontends.tflite_fold import evaluate
        results = evaluate(node)
        if results is None:
            return False
        for name, value in zip(node.outputs, results):
            self.values[name] = value
        return True


def load(options: ConvertOptions) -> Graph:
    return TfliteImporter(options).run()
