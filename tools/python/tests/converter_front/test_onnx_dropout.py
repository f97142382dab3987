"""ONNX Dropout: an Identity when nothing can be dropped, the engine's
Dropout when the mask is wanted or ratio / training_mode come at run time
(it checks them on every run), refused when it would drop at random."""
import unittest

import numpy as np
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, initializer, rng


def _model(outputs, inputs=("x",), inits=()):
    graph_inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])]
    if "r" in inputs and not any(i.name == "r" for i in inits):
        graph_inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, []))
    if "t" in inputs and not any(i.name == "t" for i in inits):
        graph_inputs.append(helper.make_tensor_value_info("t", TensorProto.BOOL, []))
    graph_outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])]
    if "z" in outputs:
        graph_outputs.append(helper.make_tensor_value_info("z", TensorProto.BOOL, [3, 4]))
    graph = helper.make_graph([helper.make_node("Dropout", list(inputs), list(outputs))], "g",
                              graph_inputs, graph_outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


class DropoutTest(unittest.TestCase):
    def _check(self, model, feeds, op_type):
        shapes = {name: list(np.shape(v)) for name, v in feeds.items()}
        outputs = [o.name for o in model.graph.output]
        converted = convert_model(model, shapes, outputs)
        self.assertEqual([op.type for op in converted.net_def.op], [op_type])
        got = run(converted.net_def, converted.weights,
                  {n: np.asarray(v, np.float32).reshape(shapes[n]) for n, v in feeds.items()})
        for name, want in zip(outputs, ReferenceEvaluator(model).run(None, feeds)):
            np.testing.assert_array_equal(got[name], want.astype(np.float32))
        return converted

    def test_identity_and_mask(self):
        x = rng(50).standard_normal((3, 4)).astype(np.float32)
        self._check(_model(["y"]), {"x": x}, "Identity")
        self._check(_model(["y", "z"]), {"x": x}, "Dropout")

    def test_run_time_ratio_and_training_mode(self):
        x = rng(51).standard_normal((3, 4)).astype(np.float32)
        model = _model(["y", "z"], ("x", "r", "t"))
        feeds = {"x": x, "r": np.array(0.0, np.float32), "t": np.array(True)}
        converted = self._check(model, feeds, "Dropout")
        self.assertEqual(list(converted.net_def.op[0].input), ["x", "r", "t"])
        with self.assertRaisesRegex(ValueError, "drops at random"):
            run(converted.net_def, converted.weights,
                {"x": x, "r": np.array(0.5, np.float32), "t": np.array(1.0, np.float32)})

    def test_constant_training_mode_with_ratio_is_refused(self):
        model = _model(["y"], ("x", "r", "t"),
                       [initializer("r", np.array(0.5, np.float32)),
                        initializer("t", np.array(True))])
        with self.assertRaisesRegex(ConversionError, "drops values at random"):
            convert_model(model, {"x": [3, 4]}, ["y"])


if __name__ == "__main__":
    unittest.main()
