"""An ONNX graph builder for the transformer zoo: encoder layers in the two
shapes exporters write them, with deterministic seeded weights.

- "torch" (PyTorch's exporter): LayerNorm as ReduceMean, Sub, Pow, Sqrt and
  Div; GELU as Erf; attention as MatMul, Transpose and Softmax with an Add
  mask.
- "tf" (tf2onnx from Keras): LayerNorm through tf.nn.batch_normalization
  (Sqrt, Reciprocal, x * s + (beta - mean * s)); GELU as its tanh
  approximation; attention as Einsum with a Where mask.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from zoo.onnx_net import IR_VERSION, OPSET

FORMS = ("torch", "tf")


class TransformerNet:
    def __init__(self, name: str, seed: int, form: str):
        if form not in FORMS:
            raise ValueError(f"form must be one of {FORMS}, got {form!r}")
        self.name, self.form = name, form
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self._counts: dict[str, int] = {}

    # ---- plumbing --------------------------------------------------------
    def unique(self, kind: str) -> str:
        self._counts[kind] = self._counts.get(kind, 0) + 1
        return f"{kind}_{self._counts[kind]}"

    def const(self, kind: str, value) -> str:
        name = self.unique(kind)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def scalar(self, value: float) -> str:
        return self.const("c", np.array(value, np.float32))

    def ints(self, values: Sequence[int]) -> str:
        return self.const("shape", np.array(values, np.int64))

    def node(self, op_type: str, inputs: Sequence[str], **attrs) -> str:
        name = self.unique(op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [name], name=name, **attrs))
        return name

    def add_input(self, name: str, elem: int, shape: Sequence[int]) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, elem, list(shape)))
        return name

    def weight(self, shape: Sequence[int], scale: float) -> str:
        return self.const("w", (self.rng.standard_normal(shape) * scale).astype(np.float32))

    # ---- layers ----------------------------------------------------------
    def linear(self, x: str, n_in: int, n_out: int) -> str:
        y = self.node("MatMul", [x, self.weight((n_in, n_out), 1 / math.sqrt(n_in))])
        return self.node("Add", [y, self.weight((n_out,), 0.02)])

    def layer_norm(self, x: str, hidden: int, eps: float = 1e-5) -> str:
        gamma = self.const("gamma", self.rng.uniform(0.8, 1.2, hidden).astype(np.float32))
        beta = self.const("beta", (self.rng.standard_normal(hidden) * 0.05).astype(np.float32))
        mean = self.node("ReduceMean", [x], axes=[-1])
        diff = self.node("Sub", [x, mean])
        if self.form == "torch":
            var = self.node("ReduceMean", [self.node("Pow", [diff, self.scalar(2.0)])], axes=[-1])
            root = self.node("Sqrt", [self.node("Add", [var, self.scalar(eps)])])
            normed = self.node("Div", [diff, root])
            return self.node("Add", [self.node("Mul", [normed, gamma]), beta])
        var = self.node("ReduceMean", [self.node("Mul", [diff, diff])], axes=[-1])
        inverse = self.node("Reciprocal",
                            [self.node("Sqrt", [self.node("Add", [var, self.scalar(eps)])])])
        scale = self.node("Mul", [inverse, gamma])
        shift = self.node("Sub", [beta, self.node("Mul", [mean, scale])])
        return self.node("Add", [self.node("Mul", [x, scale]), shift])

    def gelu(self, x: str) -> str:
        if self.form == "torch":
            inner = self.node("Erf", [self.node("Div", [x, self.scalar(math.sqrt(2.0))])])
            both = self.node("Mul", [x, self.node("Add", [inner, self.scalar(1.0)])])
            return self.node("Mul", [both, self.scalar(0.5)])
        cube = self.node("Pow", [x, self.scalar(3.0)])
        inner = self.node("Add", [x, self.node("Mul", [cube, self.scalar(0.044715)])])
        tanh = self.node("Tanh", [self.node("Mul", [inner, self.scalar(math.sqrt(2 / math.pi))])])
        half = self.node("Mul", [x, self.scalar(0.5)])
        return self.node("Mul", [half, self.node("Add", [tanh, self.scalar(1.0)])])

    def attention(self, x: str, seq: int, hidden: int, heads: int,
                  mask: Optional[str] = None) -> str:
        """Self-attention; `mask` is an additive [1, 1, 1, S] float mask in
        the torch form and a [1, 1, 1, S] bool mask in the tf form."""
        depth = hidden // heads
        split = self.ints([1, seq, heads, depth])
        q, k, v = (self.node("Reshape", [self.linear(x, hidden, hidden), split])
                   for _ in range(3))
        if self.form == "torch":
            q = self.node("Transpose", [q], perm=[0, 2, 1, 3])
            k = self.node("Transpose", [k], perm=[0, 2, 3, 1])
            v = self.node("Transpose", [v], perm=[0, 2, 1, 3])
            scores = self.node("Div", [self.node("MatMul", [q, k]),
                                       self.scalar(math.sqrt(depth))])
            if mask is not None:
                scores = self.node("Add", [scores, mask])
            probs = self.node("Softmax", [scores], axis=-1)
            context = self.node("Transpose", [self.node("MatMul", [probs, v])],
                                perm=[0, 2, 1, 3])
        else:
            scores = self.node("Einsum", [q, k], equation="bqnd,bknd->bnqk")
            scores = self.node("Mul", [scores, self.scalar(1 / math.sqrt(depth))])
            if mask is not None:
                scores = self.node("Where", [mask, scores, self.scalar(-1e9)])
            probs = self.node("Softmax", [scores], axis=-1)
            context = self.node("Einsum", [probs, v], equation="bnqk,bknd->bqnd")
        merged = self.node("Reshape", [context, self.ints([1, seq, hidden])])
        return self.linear(merged, hidden, hidden)

    def feed_forward(self, x: str, hidden: int, inner: int) -> str:
        return self.linear(self.gelu(self.linear(x, hidden, inner)), inner, hidden)

    def post_norm_layer(self, x: str, seq: int, hidden: int, heads: int, inner: int,
                        mask: Optional[str], eps: float) -> str:
        """BERT's layer: the residual sums are normalized."""
        x = self.layer_norm(self.node("Add", [x, self.attention(x, seq, hidden, heads, mask)]),
                            hidden, eps)
        return self.layer_norm(self.node("Add", [x, self.feed_forward(x, hidden, inner)]),
                               hidden, eps)

    def pre_norm_layer(self, x: str, seq: int, hidden: int, heads: int, inner: int,
                       eps: float) -> str:
        """ViT's and Whisper's layer: each branch reads a normalized input."""
        x = self.node("Add", [x, self.attention(self.layer_norm(x, hidden, eps), seq, hidden,
                                                heads)])
        return self.node("Add", [x, self.feed_forward(self.layer_norm(x, hidden, eps), hidden,
                                                      inner)])

    # ---- output ----------------------------------------------------------
    def model(self, output: str, name: str, shape: Sequence[int]) -> onnx.ModelProto:
        for node in self.nodes:
            for i, out in enumerate(node.output):
                if out == output:
                    node.output[i] = name
        graph = helper.make_graph(
            self.nodes, self.name, self.inputs,
            [helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="mace-zoo", producer_version="1")
        model.ir_version = IR_VERSION
        return model
