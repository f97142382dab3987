"""Self-attention whose Q, K and V are projections of one input converts to
one FullyConnected with the three weights concatenated, read three times by
the Attention op in the packed layout; attention the packed layout cannot
take keeps three projections. Every form matches ONNX Runtime."""
from __future__ import annotations

import unittest

import numpy as np
from onnx import helper

from tests.converter_front.helpers import check_against_ort, initializer, make_model, rng

S, E, HEADS = 6, 32, 4


def node(op: str, inputs: list[str], output: str, **attrs):
    return helper.make_node(op, inputs, [output], **attrs)


def self_attention(batch: int = 1, biases: str = "qkv", v_width: int = E,
                   kv_source: str = "x", extra_reader: bool = False):
    """x [batch, S, E] projected to Q, K and V (a bias Add on the letters in
    `biases`), split into heads the PyTorch exporter's way, attention and
    the heads merged; K and V from `kv_source`."""
    depth, v_depth = E // HEADS, v_width // HEADS
    inits = [initializer("split", np.array([batch, S, HEADS, depth], np.int64)),
             initializer("split_v", np.array([batch, S, HEADS, v_depth], np.int64)),
             initializer("merge", np.array([batch, S, v_width], np.int64)),
             initializer("scale", np.array(depth ** 0.5, np.float32))]
    nodes = []
    for i, (name, source, width) in enumerate((("q", "x", E), ("k", kv_source, E),
                                               ("v", kv_source, v_width))):
        inits.append(initializer(f"w{name}", rng(10 + i).normal(0, 0.3, (E, width))
                                 .astype(np.float32)))
        nodes.append(node("MatMul", [source, f"w{name}"], f"{name}_mm"))
        projected = f"{name}_mm"
        if name in biases:
            inits.append(initializer(f"b{name}", rng(20 + i).normal(0, 0.5, width)
                                     .astype(np.float32)))
            nodes.append(node("Add", [f"{name}_mm", f"b{name}"], f"{name}_p"))
            projected = f"{name}_p"
        nodes.append(node("Reshape", [projected, "split_v" if name == "v" else "split"],
                          f"{name}0"))
    nodes += [node("Transpose", ["q0"], "q", perm=[0, 2, 1, 3]),
              node("Transpose", ["k0"], "kt", perm=[0, 2, 3, 1]),
              node("Transpose", ["v0"], "v", perm=[0, 2, 1, 3]),
              node("MatMul", ["q", "kt"], "s0"), node("Div", ["s0", "scale"], "s1"),
              node("Softmax", ["s1"], "p", axis=-1),
              node("MatMul", ["p", "v"], "c0"), node("Transpose", ["c0"], "c", perm=[0, 2, 1, 3]),
              node("Reshape", ["c", "merge"], "y")]
    inputs = {"x": [batch, S, E]}
    if kv_source != "x":
        inputs[kv_source] = [batch, S, E]
    outputs = {"y": None}
    if extra_reader:
        outputs["k_mm"] = None
    return make_model(nodes, inputs, outputs, inits), inputs


class PackQkvTest(unittest.TestCase):
    def convert(self, built):
        model, inputs = built
        converted = check_against_ort(self, model, inputs)
        return converted, [op.type for op in converted.net_def.op]

    def test_packs_one_projection(self):
        for label, biases in (("every bias", "qkv"), ("no K bias", "qv"), ("no bias", "")):
            with self.subTest(label):
                converted, types = self.convert(self_attention(biases=biases))
                self.assertIn("packed the Q, K and V projections of 1 Attention op(s) into one "
                              "FullyConnected each", converted.log)
                self.assertEqual(types.count("FullyConnected"), 1, types)
                fc = next(op for op in converted.net_def.op if op.type == "FullyConnected")
                attention = next(op for op in converted.net_def.op if op.type == "Attention")
                self.assertEqual(list(attention.input[:3]), [fc.output[0]] * 3)
                layouts = next(a for a in attention.arg if a.name == "layouts")
                self.assertEqual(list(layouts.ints), [3, 3, 3, 1])

    def test_attention_the_layout_cannot_take_keeps_three_projections(self):
        cases = {
            # K and V from another tensor (cross-attention).
            "cross attention": self_attention(kv_source="memory"),
            # V narrower than Q and K.
            "V of another width": self_attention(v_width=E // 2),
            # Two images: the projections' rows are not one sequence.
            "batch of two": self_attention(batch=2),
            # K's product is also a graph output.
            "K read elsewhere": self_attention(extra_reader=True),
        }
        for label, built in cases.items():
            with self.subTest(label):
                converted, types = self.convert(built)
                self.assertFalse(any("packed the Q, K and V" in line for line in converted.log),
                                 converted.log)
                self.assertIn("Attention", types)
                self.assertEqual(types.count("FullyConnected"), 3, types)


if __name__ == "__main__":
    unittest.main()
