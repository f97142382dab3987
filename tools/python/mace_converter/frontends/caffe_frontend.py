"""Caffe frontend: a .prototxt (network) plus a .caffemodel (weights), read
through the converter's own schema (caffe.proto), into the IR.

Caffe layers often compute in place (top == bottom). The IR names each
version of a blob separately; `blobs` maps a Caffe blob name to its current
IR tensor, and the last version of each requested output is renamed back to
the Caffe name at the end.
"""
from __future__ import annotations

import re

from pathlib import Path
from typing import Any, Optional

import numpy as np

from mace_converter import protos
from mace_converter.api import ConversionError, ConvertOptions
from mace_converter.frontends.node import Node
from mace_converter.ir import Graph

# Layers whose second bottom is the sequence-continuation indicator "cont".
RECURRENT_LAYERS = ("LSTM", "RNN")


def blob_array(blob: Any) -> np.ndarray:
    data = np.array(blob.data if len(blob.data) else blob.double_data, dtype=np.float32)
    if blob.HasField("shape"):
        shape = [int(d) for d in blob.shape.dim]
    else:   # legacy 4D blob; layers reshape it to what they need
        shape = [blob.num, blob.channels, blob.height, blob.width]
    if int(np.prod(shape)) != data.size:
        raise ValueError(f"a weight blob has shape {shape} but {data.size} values")
    return data.reshape(shape)


class CaffeLayer(Node):
    def __init__(self, importer: "CaffeImporter", layer: Any, index: int):
        inputs = [importer.blobs.get(name, name) for name in layer.bottom]
        super().__init__(importer.graph, layer.type, layer.name, index, inputs, [],
                         {}, {}, {}, framework="Caffe")
        self.layer = layer
        self.importer = importer
        self.weights = importer.weights.get(layer.name, [])

    def blob(self, index: int, what: str) -> np.ndarray:
        if index >= len(self.weights):
            raise self.fail(f"the weight file has no {what} (blob {index}) for this layer")
        return self.weights[index]

    def finish(self, op_type: str, inputs: list[str], args: dict | None = None,
               top: int = 0) -> str:
        """Emits the layer's op writing a fresh version of top `top`."""
        name = self.layer.top[top]
        out = self.graph.unique_name(name)
        self.emit(op_type, inputs, args, outputs=[out])
        self.importer.blobs[name] = out
        return out


def load_caffe(prototxt: Path, caffemodel: Optional[Path]) -> tuple[Any, dict[str, list]]:
    """(NetParameter of the prototxt, weight arrays by layer name)."""
    from google.protobuf import text_format
    schema = protos.load("caffe")
    net = schema.NetParameter()
    try:
        text = Path(prototxt).read_text(errors="replace")
        text_format.Parse(text, net, allow_unknown_field=True)
    except OSError as error:
        raise ConversionError(f"cannot read {prototxt}: {error}") from error
    except text_format.ParseError as error:
        # protobuf's message quotes the line; name only where and what kind
        # of token was expected, so no file's contents reach the message.
        expected = re.search(r"Expected [a-z ]+", str(error))
        raise ConversionError(f"{prototxt} is not a Caffe prototxt: line {error.GetLine()}, "
                              f"column {error.GetColumn()}"
                              + (f": {expected.group(0).strip()}" if expected else "")
                              ) from None
    if not net.layer and "layers" in text:
        raise ConversionError(f"{prototxt} uses Caffe's old V1 'layers' format; upgrade it "
                              "with Caffe's upgrade_net_proto_text first")
    weights = schema.NetParameter()
    try:
        weights.ParseFromString(Path(caffemodel).read_bytes() if caffemodel else b"")
    except Exception as error:
        raise ConversionError(f"{caffemodel} is not a Caffe weight file: {error}") from error
    arrays: dict[str, list[np.ndarray]] = {}
    for layer in weights.layer:
        if layer.blobs:
            try:
                arrays[layer.name] = [blob_array(b) for b in layer.blobs]
            except ValueError as error:
                raise ConversionError(f"Caffe layer '{layer.name}' in {caffemodel}: "
                                      f"{error}") from error
    return net, arrays


def in_test_phase(layer: Any) -> bool:
    """Whether a layer runs at inference (its include/exclude rules)."""
    if any(rule.HasField("phase") and rule.phase != 1 for rule in layer.include):
        return False
    return not any(rule.HasField("phase") and rule.phase == 1 for rule in layer.exclude)


class CaffeImporter:
    def __init__(self, options: ConvertOptions):
        self.options = options
        self.path = Path(options.model_file)
        self.net, self.weights = load_caffe(self.path, options.weight_file)
        self.graph = Graph(options.model_name, self.path.name)
        self.blobs: dict[str, str] = {}

    def _declared_inputs(self) -> dict[str, list[int]]:
        declared: dict[str, list[int]] = {}
        for i, name in enumerate(self.net.input):
            if i < len(self.net.input_shape):
                declared[name] = [int(d) for d in self.net.input_shape[i].dim]
            elif len(self.net.input_dim) >= 4 * (i + 1):
                declared[name] = [int(d) for d in self.net.input_dim[4 * i:4 * i + 4]]
            else:
                declared[name] = []
        for layer in self.net.layer:
            if layer.type == "Input":
                shapes = list(layer.input_param.shape)
                for i, top in enumerate(layer.top):
                    declared[top] = [int(d) for d in shapes[min(i, len(shapes) - 1)].dim] \
                        if shapes else []
        return declared

    def _add_inputs(self) -> None:
        declared = self._declared_inputs()
        specs = self.options.inputs or []
        if not specs:
            for name, shape in declared.items():
                if not shape:
                    raise ConversionError(f"input '{name}' of {self.path.name} has no shape; "
                                          "give it in the deployment file")
                self.graph.add_input(name, shape)
                self.blobs[name] = name
            return
        for spec in specs:
            if spec.name not in declared:
                raise ConversionError(f"input '{spec.name}' is not an input of "
                                      f"{self.path.name} (its inputs are "
                                      f"{', '.join(declared) or 'none'})")
            self.graph.add_input(spec.name, spec.shape, data_format=spec.data_format)
            self.blobs[spec.name] = spec.name

    def run(self) -> Graph:
        from mace_converter.frontends.caffe_layers import CONVERTERS
        self._add_inputs()
        consumed: set[str] = set()
        tops: list[str] = []
        for index, layer in enumerate(self.net.layer):
            if layer.type == "Input" or not in_test_phase(layer):
                continue
            node = CaffeLayer(self, layer, index)
            try:
                converter = CONVERTERS.get(layer.type)
                if converter is None:
                    raise node.fail(f"layer type {layer.type} is not supported by the MACE "
                                    "converter")
                for position, name in enumerate(layer.bottom):
                    # A recurrent layer's cont bottom may be left out of the
                    # inputs; its converter says what that means.
                    if position == 1 and layer.type in RECURRENT_LAYERS:
                        continue
                    if name not in self.blobs:
                        raise node.fail(f"bottom '{name}' is not produced by an earlier layer")
                converter(node)
            except ConversionError as error:
                if node.where() in str(error):
                    raise
                raise node.fail(str(error)) from error
            except Exception as error:
                raise node.fail(f"malformed layer: {type(error).__name__}: {error}") from error
            consumed.update(b for b in layer.bottom if b not in layer.top)
            tops.extend(t for t in layer.top if t not in tops)
        names = [spec.name for spec in self.options.outputs] or \
            [t for t in tops if t not in consumed]
        self._set_outputs(names)
        return self.graph

    def _set_outputs(self, names: list[str]) -> None:
        for name in names:
            if name not in self.blobs:
                raise ConversionError(f"output '{name}' is not a blob of {self.path.name}")
            current = self.blobs[name]
            if current != name:
                if name in self.graph.tensors:
                    self.graph.rename_tensor(name, self.graph.unique_name(name + "/in"))
                self.graph.rename_tensor(current, name)
                self.blobs[name] = name
        self.graph.outputs = list(names)
        for spec in self.options.outputs:
            self.graph.formats[spec.name] = spec.data_format


def load(options: ConvertOptions) -> Graph:
    return CaffeImporter(options).run()
