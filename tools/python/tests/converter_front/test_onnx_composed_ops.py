"""ONNX ops the converter composes of existing engine ops:
NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, EyeLike,
ConstantOfShape, Range, OneHot, the Hann, Hamming and Blackman windows,
AffineGrid,
ReverseSequence, MaxUnpool, BitwiseNot, BitShift, BitwiseAnd, BitwiseOr, BitwiseXor
(int32 to uint64 in the engine's int32 Bitwise op),
Pad in wrap mode,
BatchNormalization in training mode and Div of integers. Each is checked against ONNX's reference implementation
on the numpy runner and through the engine (mace_run); a run-time value
that gives another length than the declared one is refused by the engine."""
from __future__ import annotations

import subprocess
import tempfile
import unittest
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from mace_converter.api import ConversionError
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import convert_model, ort_run, rng
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN

F, I64, I32, U8 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32, TensorProto.UINT8


def _model(node, inputs, outputs, opset=18):
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _nll_cases():
    x, target = [3, 5, 2], [3, 2]
    inputs = [("x", F, x), ("t", I64, target)]
    for reduction in ("none", "sum", "mean"):
        for weighted in (False, True):
            for ignore in (None, 1):
                attrs = {"reduction": reduction}
                if ignore is not None:
                    attrs["ignore_index"] = ignore
                names = ["x", "t"] + (["w"] if weighted else [])
                ins = inputs + ([("w", F, [5])] if weighted else [])
                out = target if reduction == "none" else []
                yield _model(helper.make_node("NegativeLogLikelihoodLoss", names, ["y"], **attrs),
                             ins, [("y", F, out)])
                yield _model(helper.make_node("SoftmaxCrossEntropyLoss", names, ["y", "p"],
                                              **attrs), ins, [("y", F, out), ("p", F, x)])


def _feeds(model, seed):
    generator = rng(seed)
    feeds = {}
    for info in model.graph.input:
        shape = [d.dim_value for d in info.type.tensor_type.shape.dim]
        elem = info.type.tensor_type.elem_type
        if info.name == "t":
            feeds["t"] = generator.integers(0, 5, shape).astype(np.int64)
        elif elem == F:
            feeds[info.name] = generator.uniform(-2, 2, shape).astype(np.float32)
        else:
            feeds[info.name] = generator.integers(0, 4, shape).astype(
                helper.tensor_dtype_to_np_dtype(elem))
    return feeds


def _mace_run_status(converted, feeds) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        graph, weights = directory / "model.pb", directory / "model.data"
        graph.write_bytes(converted.net_def.SerializeToString())
        weights.write_bytes(converted.weights)
        for spec in converted.inputs:
            np.save(directory / f"in_{spec.name}.npy", feeds[spec.name].reshape(spec.shape))
        command = [str(MACE_RUN), f"--model_file={graph}", f"--model_data_file={weights}",
                   "--input_node=" + ",".join(s.name for s in converted.inputs),
                   "--input_shape=" + ":".join(",".join(map(str, s.shape))
                                               for s in converted.inputs),
                   "--output_node=" + ",".join(s.name for s in converted.outputs),
                   f"--input_file={directory / 'in'}", f"--output_file={directory / 'out'}"]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)


class ComposedOpsTest(unittest.TestCase):
    def check(self, model, feeds, engine=True):
        want = ReferenceEvaluator(model).run(None, feeds)
        outputs = [o.name for o in model.graph.output]
        shapes = {n: list(np.shape(v)) for n, v in feeds.items()}
        converted = convert_model(model, shapes, outputs)
        runs = [run(converted.net_def, converted.weights, feeds)]
        if engine:   # mace_run takes narrow integer inputs as float32
            narrow = (np.uint8, np.int8, np.uint16, np.int16)
            runs.append(run_converted(self, converted, {
                n: v.astype(np.float32) if v.dtype in narrow else v for n, v in feeds.items()}))
        for got in runs:
            for name, expected in zip(outputs, want):
                self.assertEqual(got[name].shape, expected.shape, name)
                np.testing.assert_allclose(got[name], expected, rtol=1e-5, atol=1e-6,
                                           err_msg=name)
        return converted

    def test_losses(self):
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing")
        for index, model in enumerate(_nll_cases()):
            with self.subTest(index=index, op=model.graph.node[0].op_type,
                              attrs=str(model.graph.node[0].attribute)):
                feeds = _feeds(model, index)
                if index % 4 >= 2:   # an ignored target, here 1
                    feeds["t"][0, 0] = 1
                self.check(model, feeds, engine=index % 3 == 0)

    def test_eye_like(self):
        for k, dtype in ((0, None), (1, I32), (-2, F)):
            attrs = {"k": k} if dtype is None else {"k": k, "dtype": dtype}
            model = _model(helper.make_node("EyeLike", ["x"], ["y"], **attrs),
                           [("x", F, [3, 4])], [("y", dtype or F, [3, 4])])
            self.check(model, {"x": np.zeros((3, 4), np.float32)}, engine=k == 1)

    def test_constant_of_shape_and_range_at_run_time(self):
        value = helper.make_tensor("v", F, [1], [2.5])
        model = _model(helper.make_node("ConstantOfShape", ["s"], ["y"], value=value),
                       [("s", I64, [2])], [("y", F, [3, 2])])
        self.check(model, {"s": np.array([3, 2], np.int64)})
        model = _model(helper.make_node("Range", ["a", "b", "d"], ["y"]),
                       [("a", F, []), ("b", F, []), ("d", F, [])], [("y", F, [4])])
        feeds = {"a": np.array(1.0, np.float32), "b": np.array(-0.9, np.float32),
                 "d": np.array(-0.5, np.float32)}
        converted = self.check(model, feeds)
        # Bounds that give 3 or 5 elements, not the planned 4, are refused.
        for limit in (-0.4, -1.1):
            feeds["b"] = np.array(limit, np.float32)
            result = _mace_run_status(converted, feeds)
            self.assertNotEqual(result.returncode, 0, f"limit {limit} ran")
            self.assertIn("INVALID_ARGS", result.stderr)
        # A declared shape with a 0 plans an empty output.
        empty = _model(helper.make_node("ConstantOfShape", ["s"], ["y"], value=value),
                       [("s", I64, [1])], [("y", F, [0])])
        self.check(empty, {"s": np.array([0], np.int64)})
        converted = convert_model(
            _model(helper.make_node("ConstantOfShape", ["s"], ["y"]), [("s", I64, [2])],
                   [("y", F, [3, 2])]), {"s": [2]}, ["y"])
        result = _mace_run_status(converted, {"s": np.array([2, 3], np.int64)})
        self.assertNotEqual(result.returncode, 0)

    def test_range_shape_from_an_elementwise_consumer(self):
        # Range's output has no declared shape; y = cos(range * s) + 1 does,
        # and the scalar operands pass it back. A [4] operand (which could
        # broadcast a [1] range up to [4]) does not.
        nodes = [helper.make_node("Range", ["a", "b", "d"], ["r"]),
                 helper.make_node("Mul", ["r", "s"], ["m"]),
                 helper.make_node("Cos", ["m"], ["c"]),
                 helper.make_node("Add", ["c", "one"], ["y"])]
        graph = helper.make_graph(
            nodes, "g", [helper.make_tensor_value_info(n, F, []) for n in "abds"] +
            [helper.make_tensor_value_info("one", F, [1])], [
                helper.make_tensor_value_info("y", F, [4])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        model.ir_version = 8
        feeds = {"a": np.array(0.0, np.float32), "b": np.array(4.0, np.float32),
                 "d": np.array(1.0, np.float32), "s": np.array(0.3, np.float32),
                 "one": np.ones([1], np.float32)}
        converted = self.check(model, feeds)
        feeds["b"] = np.array(5.0, np.float32)
        self.assertNotEqual(_mace_run_status(converted, feeds).returncode, 0)
        model.graph.input[4].type.tensor_type.shape.dim[0].dim_value = 4
        with self.assertRaises(ConversionError) as caught:
            convert_model(model, {n: [] for n in "abds"} | {"one": [4]}, ["y"])
        self.assertIn("the model must declare that shape", str(caught.exception))

    def test_one_hot(self):
        for axis in (-1, 0, 1):
            out = [2, 3]
            out.insert(axis % 3, 6)
            model = _model(helper.make_node("OneHot", ["i", "d", "v"], ["y"], axis=axis),
                           [("i", I64, [2, 3]), ("d", I64, []), ("v", F, [2])],
                           [("y", F, out)])
            feeds = {"i": np.array([[0, 5, -1], [-6, 2, 3]], np.int64),
                     "d": np.array(6, np.int64), "v": np.array([-1.0, 4.0], np.float32)}
            converted = self.check(model, feeds)
        feeds["d"] = np.array(5, np.int64)
        self.assertNotEqual(_mace_run_status(converted, feeds).returncode, 0)

    def test_windows(self):
        for op in ("HannWindow", "HammingWindow", "BlackmanWindow"):
            for periodic in (0, 1):
                model = _model(helper.make_node(op, ["n"], ["y"], periodic=periodic),
                               [("n", I64, [])], [("y", F, [7])], opset=17)
                converted = self.check(model, {"n": np.array(7, np.int64)})
        self.assertNotEqual(_mace_run_status(converted, {"n": np.array(6, np.int64)}).returncode,
                            0)

    def test_affine_grid(self):
        theta = rng(11).uniform(-1, 1, (2, 2, 3)).astype(np.float32)
        for align in (0, 1):
            model = _model(helper.make_node("AffineGrid", ["t", "s"], ["y"], align_corners=align),
                           [("t", F, [2, 2, 3]), ("s", I64, [4])], [("y", F, [2, 3, 5, 2])],
                           opset=20)
            feeds = {"t": theta, "s": np.array([2, 7, 3, 5], np.int64)}
            converted = self.check(model, feeds)
        feeds["s"] = np.array([2, 7, 5, 3], np.int64)   # 15 points too, in another shape
        self.assertNotEqual(_mace_run_status(converted, feeds).returncode, 0)
        size = helper.make_tensor("s", I64, [5], [1, 1, 2, 3, 4])
        model = _model(helper.make_node("AffineGrid", ["t", "s"], ["y"]),
                       [("t", F, [1, 3, 4])], [("y", F, [1, 2, 3, 4, 3])], opset=20)
        model.graph.initializer.append(size)
        self.check(model, {"t": rng(12).uniform(-1, 1, (1, 3, 4)).astype(np.float32)})

    def test_reverse_sequence(self):
        for time_axis, batch_axis, shape in ((0, 1, [4, 3, 2]), (1, 0, [3, 4])):
            model = _model(helper.make_node("ReverseSequence", ["x", "n"], ["y"],
                                            time_axis=time_axis, batch_axis=batch_axis),
                           [("x", F, shape), ("n", I64, [3])], [("y", F, shape)])
            self.check(model, {"x": rng(7).uniform(-1, 1, shape).astype(np.float32),
                               "n": np.array([1, 4, 2], np.int64)})

    def test_max_unpool(self):
        pool = _model(helper.make_node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2],
                                       strides=[2, 2]),
                      [("x", F, [1, 2, 4, 4])], [("p", F, [1, 2, 2, 2]), ("i", I64, [1, 2, 2, 2])])
        pooled, indices = ReferenceEvaluator(pool).run(None, {
            "x": rng(8).uniform(-1, 1, [1, 2, 4, 4]).astype(np.float32)})
        for out in (None, [1, 2, 5, 6]):
            names = ["p", "i"] + (["s"] if out else [])
            ins = [("p", F, [1, 2, 2, 2]), ("i", I64, [1, 2, 2, 2])] + \
                ([("s", I64, [4])] if out else [])
            model = _model(helper.make_node("MaxUnpool", names, ["y"], kernel_shape=[2, 2],
                                            strides=[2, 2]),
                           ins, [("y", F, out or [1, 2, 4, 4])])
            feeds = {"p": pooled, "i": indices}
            if out:
                feeds["s"] = np.array(out, np.int64)
            self.check(model, feeds)

    def test_bitwise_not(self):
        for elem, values in ((I32, [[0, -1, 5], [-7, 100, 16777215]]),
                             (U8, [[0, 255, 7], [128, 1, 254]])):
            x = np.array(values, helper.tensor_dtype_to_np_dtype(elem))
            model = _model(helper.make_node("BitwiseNot", ["x"], ["y"]),
                           [("x", elem, [2, 3])], [("y", elem, [2, 3])])
            self.check(model, {"x": x})

    def test_bit_shift(self):
        # Shifts out of the top wrap away (uint8 255 << 1 is 254, 200 << 7
        # is 0); x goes up to 2^24 - 1 for uint32 and uint64, and shifts
        # up to bits - 1 (ONNX's reference is numpy's shifts).
        for elem, bits, x in ((U8, 8, [0, 1, 255, 128, 200, 77]),
                              (TensorProto.UINT16, 16, [0, 1, 65535, 32768, 4097, 300]),
                              (TensorProto.UINT32, 32, [0, 1, 16777215, 65536, 4097, 3]),
                              (TensorProto.UINT64, 64, [0, 1, 16777215, 65536, 4097, 3])):
            kind = helper.tensor_dtype_to_np_dtype(elem)
            feeds = {"x": np.array(x, kind),
                     "s": np.array([3, 0, 1, bits - 1, 7, bits // 2], kind)}
            for direction in ("LEFT", "RIGHT"):
                with self.subTest(bits=bits, direction=direction):
                    model = _model(helper.make_node("BitShift", ["x", "s"], ["y"],
                                                    direction=direction),
                                   [("x", elem, [6]), ("s", elem, [6])], [("y", elem, [6])])
                    # mace_run reads no uint32 or uint64 files (the
                    # conformance run feeds those as float32).
                    self.check(model, feeds, engine=bits <= 16)
        # A shift of bits or more leaves nothing.
        model = _model(helper.make_node("BitShift", ["x", "s"], ["y"], direction="LEFT"),
                       [("x", U8, [3]), ("s", U8, [3])], [("y", U8, [3])])
        converted = convert_model(model, {"x": [3], "s": [3]}, ["y"])
        got = run(converted.net_def, converted.weights,
                  {"x": np.array([255, 1, 3], np.float32), "s": np.array([8, 9, 200], np.float32)})
        np.testing.assert_array_equal(got["y"], [0, 0, 0])

    def test_bitwise_and_or_xor(self):
        # Negative values (two's complement) and the ends of each type,
        # broadcast against a row.
        I8, I16, U16 = TensorProto.INT8, TensorProto.INT16, TensorProto.UINT16
        cases = ((I8, [[-128, 127, -1, 0, 85], [-86, 3, 64, -65, 1]], [-1, 0, 127, -128, 90]),
                 (U8, [[0, 255, 170, 85, 1], [128, 127, 3, 254, 77]], [255, 0, 85, 170, 200]),
                 (I16, [[-32768, 32767, -1, 0, 21845], [-300, 4097, -2, 1, 7]],
                  [-1, 32767, -32768, 255, -21846]),
                 (U16, [[0, 65535, 43690, 21845, 1], [32768, 300, 4097, 2, 7]],
                  [65535, 0, 21845, 43690, 511]))
        for elem, x, row in cases:
            kind = helper.tensor_dtype_to_np_dtype(elem)
            feeds = {"x": np.array(x, kind), "z": np.array(row, kind)}
            for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
                with self.subTest(elem=elem, op=op):
                    model = _model(helper.make_node(op, ["x", "z"], ["y"]),
                                   [("x", elem, [2, 5]), ("z", elem, [5])],
                                   [("y", elem, [2, 5])])
                    self.check(model, feeds)

    def test_bitwise_of_wide_integers(self):
        # int32 to uint64 run in the engine's int32 Bitwise op: values
        # beyond 2^24, which float32 would round, come out exact. A chain
        # (Xor with a constant, then Not) stays int32 inside the engine.
        self.assertTrue(MACE_RUN.exists(), f"{MACE_RUN} is missing")
        U32, U64 = TensorProto.UINT32, TensorProto.UINT64
        generator = rng(40)
        for elem, low, high in ((I32, -2 ** 31, 2 ** 31), (I64, -2 ** 31, 2 ** 31),
                                (U32, 0, 2 ** 31), (U64, 0, 2 ** 31)):
            kind = helper.tensor_dtype_to_np_dtype(elem)
            feeds = {"x": generator.integers(low, high, [3, 4]).astype(kind),
                     "z": generator.integers(low, high, [4]).astype(kind)}
            # The app exchanges int32 as int32, the others as int64.
            app = {n: v.astype(np.int32 if elem == I32 else np.int64) for n, v in feeds.items()}
            for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
                with self.subTest(elem=elem, op=op):
                    model = _model(helper.make_node(op, ["x", "z"], ["y"]),
                                   [("x", elem, [3, 4]), ("z", elem, [4])],
                                   [("y", elem, [3, 4])])
                    want = ReferenceEvaluator(model).run(None, feeds)[0]
                    converted = convert_model(model, {"x": [3, 4], "z": [4]}, ["y"])
                    for got in (run(converted.net_def, converted.weights, feeds)["y"],
                                run_converted(self, converted, app)["y"]):
                        np.testing.assert_array_equal(got.astype(np.int64),
                                                      want.astype(np.int64))
            if elem in (U32, U64):
                continue
            mask = helper.make_tensor("m", elem, [4], [2 ** 31 - 1, -1, 0x55555555, -2 ** 31])
            graph = helper.make_graph(
                [helper.make_node("BitwiseXor", ["x", "m"], ["t"]),
                 helper.make_node("BitwiseNot", ["t"], ["y"])], "g",
                [helper.make_tensor_value_info("x", elem, [3, 4])],
                [helper.make_tensor_value_info("y", elem, [3, 4])], [mask])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
            model.ir_version = 8
            want = ReferenceEvaluator(model).run(None, {"x": feeds["x"]})[0]
            converted = convert_model(model, {"x": [3, 4]}, ["y"])
            got = run_converted(self, converted, {"x": app["x"]})["y"]
            np.testing.assert_array_equal(got.astype(np.int64), want.astype(np.int64))

    def test_bitwise_of_wide_integers_refusals(self):
        U32 = TensorProto.UINT32

        def refused(nodes, inputs, outputs, initializers=()):
            graph = helper.make_graph(
                nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
                list(initializers))
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
            model.ir_version = 8
            with self.assertRaises(ConversionError) as caught:
                convert_model(model, {n: s for n, _, s in inputs}, [n for n, _, _ in outputs])
            return str(caught.exception)

        # ~x of a uint32 is beyond int32.
        self.assertIn("BitwiseNot of ONNX element type 12", refused(
            [helper.make_node("BitwiseNot", ["x"], ["y"])], [("x", U32, [2])],
            [("y", U32, [2])]))
        # An input that a float op reads too, a result that a float op reads.
        self.assertIn("also read by Add", refused(
            [helper.make_node("BitwiseAnd", ["x", "z"], ["t"]),
             helper.make_node("Add", ["x", "t"], ["y"])],
            [("x", I32, [2]), ("z", I32, [2])], [("y", I32, [2])]))
        self.assertIn("goes to Mul", refused(
            [helper.make_node("BitwiseOr", ["x", "z"], ["t"]),
             helper.make_node("Mul", ["t", "t"], ["y"])],
            [("x", I64, [2]), ("z", I64, [2])], [("y", I64, [2])]))
        # A constant int64 beyond int32.
        self.assertIn("beyond int32", refused(
            [helper.make_node("BitwiseAnd", ["x", "c"], ["y"])], [("x", I64, [2])],
            [("y", I64, [2])], [helper.make_tensor("c", I64, [2], [1, 2 ** 40])]))

    def test_batch_norm_training_mode(self):
        shape = [3, 4, 2, 5]
        stats = [(n, F, [4]) for n in ("s", "b", "m", "v")]
        model = _model(helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                                        ["y", "rm", "rv"], training_mode=1, momentum=0.8,
                                        epsilon=1e-3),
                       [("x", F, shape)] + stats,
                       [("y", F, shape), ("rm", F, [4]), ("rv", F, [4])], opset=15)
        generator = rng(10)
        feeds = {"x": generator.normal(1.5, 2.0, shape).astype(np.float32)}
        for name, low in (("s", -1.0), ("b", -1.0), ("m", -1.0), ("v", 0.5)):
            feeds[name] = generator.uniform(low, 2.0, [4]).astype(np.float32)
        self.check(model, feeds)

    def test_integer_division_truncates(self):
        a = np.array([[7, -7, 9, -9, 0], [16777215, -16777215, 5, 6, -1]], np.int32)
        b = np.array([[2, 2, -4, -4, 3], [7, 3, 5, -4, 2]], np.int32)
        model = _model(helper.make_node("Div", ["a", "b"], ["y"]),
                       [("a", I32, [2, 5]), ("b", I32, [2, 5])], [("y", I32, [2, 5])])
        want = np.trunc(a.astype(np.float64) / b).astype(np.int32)
        np.testing.assert_array_equal(ort_run(model, {"a": a, "b": b})[0], want)
        converted = convert_model(model, {"a": [2, 5], "b": [2, 5]}, ["y"])
        for got in (run(converted.net_def, converted.weights, {"a": a, "b": b})["y"],
                    run_converted(self, converted, {"a": a, "b": b})["y"]):
            np.testing.assert_array_equal(got, want)

    def test_wrap_pad(self):
        pads = helper.make_tensor("pads", I64, [6], [0, 7, 1, 0, 3, 2])
        model = _model(helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap"),
                       [("x", F, [2, 5, 3])], [("y", F, [2, 15, 6])], opset=19)
        model.graph.initializer.append(pads)
        self.check(model, {"x": rng(9).uniform(-1, 1, [2, 5, 3]).astype(np.float32)})


if __name__ == "__main__":
    unittest.main()
