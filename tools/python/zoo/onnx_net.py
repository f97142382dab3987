"""A small ONNX graph builder for the model zoo: layers as PyTorch's exporter
writes them (Conv, BatchNormalization, Clip, Gemm, Shape arithmetic ...),
with deterministic seeded weights."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 8   # fixed so the bytes do not depend on the installed onnx


class OnnxNet:
    def __init__(self, name: str, seed: int, input_shape: Sequence[int]):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.input_shape = list(input_shape)
        self._counts: dict[str, int] = {}
        self.channels: dict[str, int] = {"input": input_shape[1]}

    # ---- plumbing --------------------------------------------------------
    def unique(self, kind: str) -> str:
        self._counts[kind] = self._counts.get(kind, 0) + 1
        return f"{kind}_{self._counts[kind]}"

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(self, op_type: str, inputs: Sequence[str], channels: Optional[int] = None,
             outputs: int = 1, **attrs) -> str | list[str]:
        name = self.unique(op_type.lower())
        outs = [name if i == 0 else f"{name}_out{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, name=name, **attrs))
        if channels is not None:
            for out in outs:
                self.channels[out] = channels
        return outs[0] if outputs == 1 else outs

    # ---- layers ----------------------------------------------------------
    def conv(self, x: str, out_c: int, kernel: int | Sequence[int], stride: int = 1,
             pad: int | Sequence[int] = 0, groups: int = 1, dilation: int = 1,
             bias: bool = False, gain: float = 2.0) -> str:
        in_c = self.channels[x]
        kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
        ph, pw = (pad, pad) if isinstance(pad, int) else pad
        fan_in = in_c // groups * kh * kw
        name = self.unique("conv")
        weight = self.rng.standard_normal((out_c, in_c // groups, kh, kw)) * np.sqrt(gain / fan_in)
        inputs = [x, self.const(name + ".weight", weight.astype(np.float32))]
        if bias:
            inputs.append(self.const(name + ".bias",
                                     (self.rng.standard_normal(out_c) * 0.05).astype(np.float32)))
        self.nodes.append(helper.make_node(
            "Conv", inputs, [name], name=name, kernel_shape=[kh, kw], strides=[stride, stride],
            pads=[ph, pw, ph, pw], group=groups, dilations=[dilation, dilation]))
        self.channels[name] = out_c
        return name

    def bn(self, x: str, gamma: tuple[float, float] = (0.8, 1.2), eps: float = 1e-5) -> str:
        c = self.channels[x]
        name = self.unique("bn")
        params = [self.rng.uniform(*gamma, c), self.rng.normal(0.0, 0.1, c),
                  self.rng.normal(0.0, 0.1, c), self.rng.uniform(0.8, 1.2, c)]
        inputs = [x] + [self.const(f"{name}.{kind}", p.astype(np.float32))
                        for kind, p in zip(("weight", "bias", "running_mean", "running_var"),
                                           params)]
        self.nodes.append(helper.make_node("BatchNormalization", inputs, [name], name=name,
                                           epsilon=eps))
        self.channels[name] = c
        return name

    def relu(self, x: str) -> str:
        return self.node("Relu", [x], self.channels[x])

    def relu6(self, x: str) -> str:
        if "clip.min" not in {i.name for i in self.inits}:
            self.const("clip.min", np.array(0.0, np.float32))
            self.const("clip.max", np.array(6.0, np.float32))
        return self.node("Clip", [x, "clip.min", "clip.max"], self.channels[x])

    def conv_bn(self, x: str, out_c: int, kernel, stride: int = 1, pad=0, groups: int = 1,
                dilation: int = 1, act: Optional[str] = "relu", eps: float = 1e-5,
                gamma: tuple[float, float] = (0.8, 1.2)) -> str:
        y = self.bn(self.conv(x, out_c, kernel, stride, pad, groups, dilation), gamma, eps)
        if act == "relu":
            return self.relu(y)
        if act == "relu6":
            return self.relu6(y)
        return y

    def add(self, a: str, b: str) -> str:
        return self.node("Add", [a, b], self.channels[a])

    def concat(self, inputs: Sequence[str]) -> str:
        return self.node("Concat", list(inputs), sum(self.channels[i] for i in inputs), axis=1)

    def max_pool(self, x: str, kernel: int, stride: int, pad: int = 0, ceil: int = 0) -> str:
        return self.node("MaxPool", [x], self.channels[x], kernel_shape=[kernel, kernel],
                         strides=[stride, stride], pads=[pad] * 4, ceil_mode=ceil)

    def avg_pool(self, x: str, kernel: int, stride: int, pad: int = 0) -> str:
        return self.node("AveragePool", [x], self.channels[x], kernel_shape=[kernel, kernel],
                         strides=[stride, stride], pads=[pad] * 4, count_include_pad=1)

    def flatten_torch_style(self, x: str) -> str:
        """x.view(x.size(0), -1) as the PyTorch exporter writes it."""
        shape = self.node("Shape", [x])
        index = self.const(self.unique("idx"), np.array(0, np.int64))
        batch = self.node("Gather", [shape, index], axis=0)
        axes = self.const(self.unique("axes"), np.array([0], np.int64))
        batch = self.node("Unsqueeze", [batch, axes])
        minus_one = self.const(self.unique("minus_one"), np.array([-1], np.int64))
        target = self.node("Concat", [batch, minus_one], axis=0)
        return self.node("Reshape", [x, target], self.channels[x])

    def classifier(self, x: str, classes: int, softmax: bool = False, dropout: bool = False,
                   torch_flatten: bool = False) -> str:
        pooled = self.node("GlobalAveragePool", [x], self.channels[x])
        flat = self.flatten_torch_style(pooled) if torch_flatten else \
            self.node("Flatten", [pooled], self.channels[x], axis=1)
        if dropout:
            flat = self.node("Dropout", [flat], self.channels[x])
        in_c = self.channels[x]
        name = self.unique("fc")
        weight = self.rng.standard_normal((classes, in_c)) * np.sqrt(1.0 / in_c)
        bias = self.rng.standard_normal(classes) * 0.05
        logits = self.node("Gemm", [flat, self.const(name + ".weight", weight.astype(np.float32)),
                                    self.const(name + ".bias", bias.astype(np.float32))],
                           classes, transB=1)
        return self.node("Softmax", [logits], classes, axis=1) if softmax else logits

    # ---- output ----------------------------------------------------------
    def model(self, output: str, output_shape: Sequence[int]) -> onnx.ModelProto:
        """The finished model; its input is "input" and its output "output"."""
        for node in self.nodes:
            for i, name in enumerate(node.output):
                if name == output:
                    node.output[i] = "output"
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, self.input_shape)],
            [helper.make_tensor_value_info("output", TensorProto.FLOAT, list(output_shape))],
            self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="mace-zoo", producer_version="1")
        model.ir_version = IR_VERSION
        return model
