"""The written model: aligned weights, declared shapes and types, stable
bytes, and the options that change what is written (Winograd marks,
obfuscation, half-precision weights)."""
import unittest

import numpy as np
from onnx import helper

from mace_converter.numpy_runner import run
from mace_converter.serialize import WEIGHT_ALIGNMENT, mace_pb2
from tests.converter_front.helpers import (check_against_ort, convert_model, initializer,
                                           make_model, random_feeds, rng)

INPUTS = {"x": [1, 3, 8, 8]}


def _model():
    r = rng(50)
    inits = [initializer("w3", r.standard_normal((4, 3, 3, 3)).astype(np.float32)),
             initializer("b3", r.standard_normal(4).astype(np.float32)),
             initializer("w1", r.standard_normal((5, 4, 1, 1)).astype(np.float32)),
             initializer("ws", r.standard_normal((5, 5, 3, 3)).astype(np.float32)),
             initializer("fc", r.standard_normal((7, 5)).astype(np.float32))]
    nodes = [helper.make_node("Conv", ["x", "w3", "b3"], ["c3"], pads=[1, 1, 1, 1], name="c3"),
             helper.make_node("Relu", ["c3"], ["r"], name="relu"),
             helper.make_node("Conv", ["r", "w1"], ["c1"], name="c1"),
             helper.make_node("Conv", ["c1", "ws"], ["cs"], strides=[2, 2], name="cs"),
             helper.make_node("GlobalAveragePool", ["cs"], ["g"], name="gap"),
             helper.make_node("Flatten", ["g"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "fc"], ["logits"], transB=1, name="fc"),
             helper.make_node("ArgMax", ["logits"], ["label"], axis=1, name="argmax")]
    model = make_model(nodes, INPUTS, {"logits": None}, inits)
    model.graph.output.append(helper.make_tensor_value_info("label", 7, None))
    return model


class SerializeTest(unittest.TestCase):
    def test_weights_are_aligned_and_shapes_declared(self):
        converted = convert_model(_model(), INPUTS, ["logits", "label"])
        net, blob = converted.net_def, converted.weights
        pb = mace_pb2()
        end = 0
        for tensor in net.tensors:
            self.assertEqual(tensor.offset % WEIGHT_ALIGNMENT, 0, tensor.name)
            self.assertGreaterEqual(tensor.offset, end)
            self.assertEqual(tensor.data_size, int(np.prod(tensor.dims)))
            end = tensor.offset + 4 * tensor.data_size
        self.assertEqual(end, len(blob))
        for op in net.op:
            self.assertEqual(len(op.output_shape), len(op.output), op.name)
            self.assertTrue(all(len(s.dims) for s in op.output_shape), op.name)
        self.assertEqual(net.op[-1].output_type[0], pb.DT_INT32)
        self.assertEqual([list(i.dims) for i in net.input_info], [[1, 3, 8, 8]])
        self.assertEqual(net.input_info[0].data_format, 2)
        self.assertEqual([o.name for o in net.output_info], ["logits", "label"])
        self.assertEqual(net.output_info[1].data_type, pb.DT_INT32)
        feeds = random_feeds(INPUTS)
        got = run(net, blob, feeds)
        np.testing.assert_array_equal(got["label"].reshape(-1), got["logits"].argmax(axis=1))

    def test_output_is_deterministic(self):
        first = convert_model(_model(), INPUTS, ["logits"])
        second = convert_model(_model(), INPUTS, ["logits"])
        self.assertEqual(first.net_def.SerializeToString(), second.net_def.SerializeToString())
        self.assertEqual(first.weights, second.weights)

    def test_winograd_marks_only_3x3_stride_1(self):
        converted = convert_model(_model(), INPUTS, ["logits"], winograd=4)
        marked = {op.name: {a.name: a.i for a in op.arg}.get("winograd") for op in
                  converted.net_def.op if op.type == "Conv2D"}
        self.assertEqual(marked, {"c3": 4, "c1": None, "cs": None})

    def test_obfuscation_keeps_io_names_and_results(self):
        model = _model()
        model.graph.output.pop()
        plain = check_against_ort(self, model, INPUTS)
        hidden = check_against_ort(self, model, INPUTS, obfuscate=True)
        names = {n for op in hidden.net_def.op for n in list(op.input) + list(op.output)}
        names |= {op.name for op in hidden.net_def.op} | {t.name for t in hidden.net_def.tensors}
        for secret in ("c3", "relu", "b3", "ws", "fc", "r", "gap"):
            self.assertNotIn(secret, names)
        self.assertIn("x", names)
        self.assertIn("logits", names)
        self.assertEqual(plain.weights, hidden.weights)

    def test_gpu_models_keep_float32_weights(self):
        # The GPU kernels upload float32 weights into half or float images
        # at engine creation, so no runtime gets a float16 weights file.
        pb = mace_pb2()
        plain = convert_model(_model(), INPUTS, ["logits"])
        for runtime in ("gpu", "cpu+gpu"):
            for data_type in ("fp16_fp32", "fp32_fp32"):
                with self.subTest(runtime=runtime, data_type=data_type):
                    model = convert_model(_model(), INPUTS, ["logits"], runtime=runtime,
                                          data_type=data_type)
                    self.assertEqual(model.net_def.data_type, pb.DT_FLOAT)
                    self.assertTrue(all(t.data_type == pb.DT_FLOAT
                                        for t in model.net_def.tensors))
                    self.assertEqual(model.weights, plain.weights)
                    if data_type == "fp16_fp32":
                        self.assertTrue(any("half images" in line for line in model.log),
                                        model.log)


if __name__ == "__main__":
    unittest.main()
