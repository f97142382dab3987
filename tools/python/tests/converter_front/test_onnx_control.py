"""ONNX If with a condition known at conversion: the taken branch is
inlined. A computed condition, and a Loop, become engine ops running
subgraphs (the engine's side is test/control_flow_test.cc and
tests/test_control_flow_mace_run.py)."""
import unittest
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.convert import convert

from tests.converter_front.helpers import (check_against_ort, convert_model, initializer,
                                           make_model)


def _branch(name, nodes, output, inits=()):
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(output,
                                                                              TensorProto.FLOAT,
                                                                              None)],
                             list(inits))


def _if_model(cond_nodes, cond_inits, then_nodes, else_nodes, outputs=("y",)):
    then_graph = _branch("then", then_nodes, "then_out")
    else_graph = _branch("else", else_nodes, "else_out")
    node = helper.make_node("If", ["cond"], ["if_out"], name="choose",
                            then_branch=then_graph, else_branch=else_graph)
    tail = helper.make_node("Add", ["if_out", "x"], ["y"])
    return make_model(list(cond_nodes) + [node, tail], {"x": [2, 3]}, {o: None for o in outputs},
                      list(cond_inits), 13)


class IfTest(unittest.TestCase):
    def test_constant_condition_takes_each_branch(self):
        then_nodes = [helper.make_node("Relu", ["x"], ["then_out"])]
        else_nodes = [helper.make_node("Sigmoid", ["x"], ["else_out"])]
        for value in (True, False):
            with self.subTest(value=value):
                model = _if_model([], [initializer("cond", np.array(value))], then_nodes,
                                  else_nodes)
                converted = check_against_ort(self, model, {"x": [2, 3]})
                types = [op.type for op in converted.net_def.op]
                self.assertEqual(types[0], "Activation")
                self.assertNotIn("If", types)

    def test_condition_folded_from_the_input_shape(self):
        """cond = (Shape(x)[1] == 3), as exporters write a check of the
        sample rate or of a dimension."""
        cond_nodes = [helper.make_node("Shape", ["x"], ["shape"]),
                      helper.make_node("Gather", ["shape", "one"], ["dim"], axis=0),
                      helper.make_node("Equal", ["dim", "three"], ["cond"])]
        inits = [initializer("one", np.array(1, np.int64)),
                 initializer("three", np.array(3, np.int64))]
        then_nodes = [helper.make_node("Mul", ["x", "two"], ["then_out"])]
        then_graph = _branch("then", then_nodes, "then_out",
                             [initializer("two", np.full([1], 2, np.float32))])
        else_graph = _branch("else", [helper.make_node("Neg", ["x"], ["else_out"])], "else_out")
        node = helper.make_node("If", ["cond"], ["if_out"], then_branch=then_graph,
                                else_branch=else_graph)
        tail = helper.make_node("Add", ["if_out", "x"], ["y"])
        model = make_model(cond_nodes + [node, tail], {"x": [2, 3]}, {"y": None}, inits, 13)
        check_against_ort(self, model, {"x": [2, 3]})

    def test_branch_of_constants_and_nested_if(self):
        inner = helper.make_node(
            "If", ["inner_cond"], ["then_out"],
            then_branch=_branch("a", [helper.make_node(
                "Constant", [], ["a_out"], value=helper.make_tensor(
                    "v", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0]))], "a_out"),
            else_branch=_branch("b", [helper.make_node("Relu", ["x"], ["b_out"])], "b_out"))
        then_nodes = [helper.make_node("Not", ["cond"], ["inner_cond"]), inner]
        else_nodes = [helper.make_node("Tanh", ["x"], ["else_out"])]
        for value in (True, False):
            with self.subTest(value=value):
                model = _if_model([], [initializer("cond", np.array(value))], then_nodes,
                                  else_nodes)
                check_against_ort(self, model, {"x": [2, 3]})

    def test_computed_condition_becomes_an_engine_if_with_two_subgraphs(self):
        model = _if_model([], [], [helper.make_node("Relu", ["x"], ["then_out"])],
                          [helper.make_node("Neg", ["x"], ["else_out"])])
        model.graph.input.append(helper.make_tensor_value_info("cond", TensorProto.BOOL, [1]))
        converted = convert_model(model, {"x": [2, 3], "cond": [1]}, ["y"])
        net = converted.net_def
        ifs = [op for op in net.op if op.type == "If"]
        self.assertEqual(len(ifs), 1)
        # The condition, then x: the branches read x, so the op passes it.
        self.assertEqual(list(ifs[0].input), ["cond", "x"])
        args = {arg.name: arg.i for arg in ifs[0].arg}
        self.assertEqual(sorted(args.values()), [0, 1])
        self.assertEqual(len(net.subgraphs), 2)
        types = {args["then_branch"]: "Activation", args["else_branch"]: "Eltwise"}
        for index, sub in enumerate(net.subgraphs):
            self.assertEqual(len(sub.input_info), 1)
            self.assertEqual(list(sub.input_info[0].dims), [2, 3])
            self.assertEqual(len(sub.output_info), 1)
            self.assertEqual(len(sub.subgraphs), 0)
            self.assertIn(types[index], [op.type for op in sub.op])

    def test_node_tests_with_a_graph_input_condition(self):
        """ONNX's own If node tests feed the condition as a graph input: the
        tensor one converts, the optional and sequence ones are refused."""
        import onnx
        node_tests = Path(onnx.__file__).parent / "backend" / "test" / "data" / "node"
        for name, refusal in (("test_if", None), ("test_if_opt", "Optional"),
                              ("test_if_seq", "sequence")):
            with self.subTest(name=name):
                path = node_tests / name / "model.onnx"
                model = onnx.load(str(path))
                inputs = {i.name: [max(d.dim_value, 1) for d in i.type.tensor_type.shape.dim]
                          for i in model.graph.input}
                options = ConvertOptions(
                    platform="onnx", model_file=path, weight_file=None,
                    inputs=[TensorSpec(n, s, data_format="NONE") for n, s in inputs.items()],
                    outputs=[TensorSpec(o.name, []) for o in model.graph.output])
                if refusal is None:
                    converted = convert(options)
                    self.assertEqual([op.type for op in converted.net_def.op], ["If"])
                    self.assertEqual(len(converted.net_def.subgraphs), 2)
                else:
                    with self.assertRaisesRegex(ConversionError, refusal):
                        convert(options)


def _loop_model(body_nodes, scan_shape, carried_out="h_out"):
    """Loop(m, "", h0) with body (i, c, h_in) -> (c, h_out, s); h0 is [2, 3]."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"])] + list(body_nodes), "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_in", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info(carried_out, TensorProto.FLOAT, None),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, None)])
    loop = helper.make_node("Loop", ["m", "", "h0"], ["h", "hs"], name="repeat", body=body)
    model = make_model([loop], {"h0": [2, 3], "x": [2, 3]}, {"h": None, "hs": scan_shape})
    model.graph.input.append(helper.make_tensor_value_info("m", TensorProto.INT64, []))
    return model


class LoopTest(unittest.TestCase):
    def test_loop_becomes_an_engine_loop_with_its_body(self):
        model = _loop_model([helper.make_node("Add", ["h_in", "x"], ["h_out"]),
                             helper.make_node("Identity", ["h_out"], ["s"])], [4, 2, 3])
        converted = convert_model(model, {"h0": [2, 3], "x": [2, 3], "m": []}, ["h", "hs"])
        loops = [op for op in converted.net_def.op if op.type == "Loop"]
        self.assertEqual(len(loops), 1)
        # M, no cond, the carried h0, then x that the body reads.
        self.assertEqual(list(loops[0].input), ["m", "", "h0", "x"])
        args = {arg.name: arg.i for arg in loops[0].arg}
        self.assertEqual((args["body"], args["loop_carried"]), (0, 1))
        self.assertEqual([list(s.dims) for s in loops[0].output_shape], [[2, 3], [4, 2, 3]])
        body = converted.net_def.subgraphs[0]
        self.assertEqual([list(i.dims) for i in body.input_info], [[], [], [2, 3], [2, 3]])
        self.assertEqual(len(body.output_info), 3)

    def test_scan_outputs_without_a_known_count_are_refused(self):
        model = _loop_model([helper.make_node("Add", ["h_in", "x"], ["h_out"]),
                             helper.make_node("Identity", ["h_out"], ["s"])], None)
        with self.assertRaisesRegex(ConversionError, "Loop node 'repeat'.*scan outputs but "
                                    "neither a declared output shape nor a constant trip"):
            convert_model(model, {"h0": [2, 3], "x": [2, 3], "m": []}, ["h", "hs"])

    def test_a_carried_value_that_changes_shape_is_refused(self):
        model = _loop_model([helper.make_node("Concat", ["h_in", "x"], ["h_out"], axis=0),
                             helper.make_node("Identity", ["h_in"], ["s"])], [4, 2, 3])
        with self.assertRaisesRegex(ConversionError, "Loop node 'repeat'.*enters the body as "
                                    r"\[2, 3\] but leaves it as \[4, 3\]"):
            convert_model(model, {"h0": [2, 3], "x": [2, 3], "m": []}, ["h", "hs"])


if __name__ == "__main__":
    unittest.main()
