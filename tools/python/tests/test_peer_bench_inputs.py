"""tools/peer_bench.py with several and integer inputs (the transformer zoo):
the shared inputs, how each engine gets them, and the worker's peak memory.
Engines other than onnxruntime are not needed."""
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import numpy as np

from mace_converter.api import TensorSpec
from mace_converter.config import load_config
from mace_converter.progress import REPO, UserError
from mace_tools.peer_bench import inputs, mace_engine, worker
from mace_tools.peer_bench.children import run_child
from mace_tools.peer_bench.prepare import PreparedModel, pnnx_input_shapes

SEED = 7767517
BERT_TYPES = {"input_ids": "int64", "attention_mask": "int64"}


def zoo_model(name):
    config = load_config(REPO / "models" / f"{name}.yml")
    return next(iter(config.models.values()))


def embedding_model(path: Path, vocabulary: int = 10, width: int = 3) -> np.ndarray:
    """ids (int64) -> Gather(table) * mask (int64, cast): the shape of a BERT
    front end. Returns the table."""
    from onnx import TensorProto, helper, numpy_helper
    table = np.random.default_rng(3).standard_normal((vocabulary, width)).astype(np.float32)
    axes = numpy_helper.from_array(np.array([2], dtype=np.int64), "axes")
    nodes = [helper.make_node("Gather", ["table", "ids"], ["embedded"]),
             helper.make_node("Cast", ["mask"], ["mask_f"], to=TensorProto.FLOAT),
             helper.make_node("Unsqueeze", ["mask_f", "axes"], ["mask_3d"]),
             helper.make_node("Mul", ["embedded", "mask_3d"], ["out"])]
    graph = helper.make_graph(
        nodes, "embed",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 4]),
         helper.make_tensor_value_info("mask", TensorProto.INT64, [1, 4])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 4, width])],
        [numpy_helper.from_array(table, "table"), axes])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path.write_bytes(model.SerializeToString())
    return table


class DrawTest(unittest.TestCase):
    def test_bert_gets_token_ids_in_its_vocabulary_and_a_mask_of_ones(self):
        drawn = inputs.draw_inputs(zoo_model("bert_torch"), BERT_TYPES, SEED)
        self.assertEqual([name for name, _, _ in drawn], ["input_ids", "attention_mask"])
        ids, mask = drawn[0][1], drawn[1][1]
        self.assertEqual((ids.dtype, ids.shape, mask.dtype, mask.shape),
                         (np.dtype("int64"), (1, 128), np.dtype("int64"), (1, 128)))
        self.assertGreaterEqual(ids.min(), 0)
        self.assertLess(ids.max(), 30522)
        self.assertGreater(ids.max(), 1000)   # the whole vocabulary, not [0, 2)
        self.assertTrue(np.all(mask == 1))
        self.assertIn("integers in [0, 30522)", drawn[0][2])
        self.assertIn("all 1", drawn[1][2])
        again = inputs.draw_inputs(zoo_model("bert_torch"), BERT_TYPES, SEED)
        np.testing.assert_array_equal(again[0][1], ids)
        other = inputs.draw_inputs(zoo_model("bert_torch"), BERT_TYPES, SEED + 1)
        self.assertFalse(np.array_equal(other[0][1], ids))

    def test_a_single_float_input_is_drawn_as_before(self):
        model = zoo_model("mobilenet_v2")
        spec = model.inputs[0]
        drawn = inputs.draw_inputs(model, {spec.name: "float32"}, SEED)
        low, high = spec.value_range
        expected = np.random.default_rng(SEED).uniform(low, high, size=spec.shape)
        np.testing.assert_array_equal(drawn[0][1], expected.astype(np.float32))
        self.assertEqual(drawn[0][1].dtype, np.float32)

    def test_the_deployment_file_type_stands_in_for_a_missing_graph_type(self):
        drawn = inputs.draw_inputs(zoo_model("bert_tf"), {}, SEED)
        self.assertEqual([array.dtype for _, array, _ in drawn],
                         [np.dtype("int64"), np.dtype("int64")])


class OnnxTypesTest(unittest.TestCase):
    def test_graph_input_types_leave_out_weights(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "m.onnx"
            embedding_model(path)
            self.assertEqual(inputs.onnx_input_types(path), {"ids": "int64", "mask": "int64"})

    def test_an_unsupported_input_type_is_a_clear_error(self):
        from onnx import TensorProto, helper
        graph = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])], "half",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [2])])
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "half.onnx"
            path.write_bytes(helper.make_model(graph).SerializeToString())
            with self.assertRaisesRegex(UserError, "input x has ONNX element type 10"):
                inputs.onnx_input_types(path)


class FeedTest(unittest.TestCase):
    def test_files_flags_and_loading_keep_integer_types(self):
        drawn = [("ids", np.array([[5, 9]], dtype=np.int64), "ids"),
                 ("x", np.array([[0.5, 1.5]], dtype=np.float64), "x")]
        with tempfile.TemporaryDirectory() as tmp:
            written = inputs.write_inputs(drawn, Path(tmp))
            self.assertEqual([m.file.name for m in written], ["input.npy", "input1.npy"])
            self.assertEqual([m.dtype for m in written], ["int64", "float64"])
            flags = inputs.feed_arguments(["in0", "in1"], written)
            self.assertEqual(flags, ["--input", f"in0={written[0].file}",
                                     "--input", f"in1={written[1].file}"])
            name, path = inputs.parse_feed(flags[1])
            self.assertEqual((name, inputs.load_feed(path).dtype), ("in0", np.dtype("int64")))
            self.assertEqual(inputs.load_feed(written[1].file).dtype, np.float32)
            with self.assertRaises(ValueError):
                inputs.feed_arguments(["in0"], written)
        self.assertEqual(inputs.parse_feed("a=b=/x.npy"), ("a=b", Path("/x.npy")))
        for bad in ("x.npy", "=x.npy", "name="):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                inputs.parse_feed(bad)

    def test_ncnn_and_mnn_forms(self):
        ids = np.arange(6, dtype=np.int64).reshape(1, 6)
        as_ncnn = worker.ncnn_array("in0", ids)
        self.assertEqual((as_ncnn.shape, as_ncnn.dtype), ((6,), np.float32))
        self.assertEqual(worker.ncnn_array("in0", np.zeros((1, 3, 4, 4))).shape, (3, 4, 4))
        for shape in ((6,), (2, 6), (1, 1, 1, 1, 1, 1)):
            with self.subTest(shape=shape), self.assertRaisesRegex(RuntimeError, "in0"):
                worker.ncnn_array("in0", np.zeros(shape))
        data, kind = worker.mnn_array(ids)
        self.assertEqual((data.dtype, kind), (np.int32, "int"))
        np.testing.assert_array_equal(data, ids)
        self.assertEqual(worker.mnn_array(np.zeros(3))[0].dtype, np.float32)

    def test_layers_ncnn_does_not_know_are_named(self):
        param = ("7767517\n5 6\nInput in0 0 1 in0\nInput in1 0 1 in1\n"
                 "Tensor.to cast 1 1 in1 m\nGemm g 1 1 in0 a\nTensor.to c2 1 1 a out0\n")
        self.assertEqual(worker.unknown_layers(param, lambda kind: kind in ("Input", "Gemm")),
                         ["Tensor.to"])
        self.assertEqual(worker.unknown_layers(param, lambda kind: True), [])

    def test_pnnx_shapes_name_integer_types(self):
        model = zoo_model("bert_torch")
        prepared = PreparedModel(
            name="bert_torch", config=None, model=model, onnx=Path("b.onnx"),
            input_name="input_ids", output_name="last_hidden_state",
            input_file=Path("input.npy"), directory=Path("."),
            inputs=[inputs.ModelInput("input_ids", "int64", Path("input.npy"), ""),
                    inputs.ModelInput("attention_mask", "int64", Path("input1.npy"), "")])
        self.assertEqual(pnnx_input_shapes(prepared), "[1,128]i64,[1,128]i64")
        self.assertEqual(prepared.ncnn_input_names(), ["in0", "in1"])
        vit = zoo_model("vit_tiny")
        prepared.model = vit
        prepared.inputs = [inputs.ModelInput("pixel_values", "float32", Path("i.npy"), "")]
        self.assertEqual(pnnx_input_shapes(prepared), "[1,3,224,224]")


class SplitSizesTest(unittest.TestCase):
    def test_sizes_are_measured_on_every_input(self):
        from onnx import TensorProto, helper, numpy_helper
        from mace_tools.peer_bench import onnx_split
        table = numpy_helper.from_array(np.ones((10, 6), dtype=np.float32), "table")
        nodes = [helper.make_node("Gather", ["table", "ids"], ["embedded"]),
                 helper.make_node("Add", ["embedded", "bias"], ["sum"]),
                 helper.make_node("Split", ["sum"], ["a", "b"], axis=2)]
        graph = helper.make_graph(
            nodes, "split",
            [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 4]),
             helper.make_tensor_value_info("bias", TensorProto.FLOAT, [1, 4, 6])],
            [helper.make_tensor_value_info("a", TensorProto.FLOAT, None),
             helper.make_tensor_value_info("b", TensorProto.FLOAT, None)], [table])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        ids = np.array([[1, 2, 3, 4]], dtype=np.int64)
        bias = np.zeros((1, 4, 6), dtype=np.float32)
        with self.assertRaisesRegex(ValueError, "1 input file"):
            onnx_split.make_explicit(model, [ids])
        self.assertEqual(onnx_split.make_explicit(model, [ids, bias]), 1)
        sizes = [numpy_helper.to_array(t).tolist() for t in model.graph.initializer
                 if t.name != "table"]
        self.assertEqual(sizes, [[3, 3]])


class NotesTest(unittest.TestCase):
    def test_integer_inputs_are_described_and_the_peers_named(self):
        from mace_tools.peer_bench import main
        from mace_tools.peer_bench.options import parse_args
        bert = SimpleNamespace(name="bert_torch", inputs=[
            inputs.ModelInput("input_ids", "int64", Path("a"), "input_ids int64 integers in "
                              "[0, 30522)"),
            inputs.ModelInput("attention_mask", "int64", Path("b"), "attention_mask int64 all 1")])
        vit = SimpleNamespace(name="vit_tiny", inputs=[
            inputs.ModelInput("pixel_values", "float32", Path("c"), "pixel_values in [-1, 1)")])
        options = parse_args(["--seed", "5"])
        notes = main.input_notes([bert, vit], ["mace", "ort", "ncnn", "mnn"], options)
        self.assertEqual(notes, [
            "bert_torch inputs, drawn as `tools/converter.py run` draws them (seed 5): "
            "input_ids int64 integers in [0, 30522); attention_mask int64 all 1.",
            "ncnn gets integer inputs (token ids, masks) as float blobs.",
            "MNN gets integer inputs as int32."])
        self.assertEqual(len(main.input_notes([bert], ["mace", "ort"], options)), 1)
        self.assertEqual(main.input_notes([vit], ["mace", "ncnn"], options), [])


class WorkerTest(unittest.TestCase):
    def test_ort_runs_two_integer_inputs_and_reports_its_peak_memory(self):
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            table = embedding_model(directory / "m.onnx")
            ids = np.array([[1, 7, 0, 9]], dtype=np.int64)
            mask = np.array([[1, 1, 0, 1]], dtype=np.int64)
            np.save(directory / "ids.npy", ids)
            np.save(directory / "mask.npy", mask)
            env = dict(os.environ, PYTHONPATH=str(REPO / "tools" / "python"))
            result = run_child([sys.executable, "-m", "mace_tools.peer_bench.worker", "ort",
                                "--model", str(directory / "m.onnx"),
                                "--input", f"ids={directory / 'ids.npy'}",
                                "--input", f"mask={directory / 'mask.npy'}",
                                "--output-name", "out", "--threads", "1", "--rounds", "3",
                                "--output", str(directory / "out.npy"),
                                "--result", str(directory / "out.json")],
                               env=env, timeout=120)
            self.assertEqual(result.returncode, 0, result.stderr)
            out = np.load(directory / "out.npy")
            np.testing.assert_allclose(out, table[ids] * mask[..., None], rtol=1e-6)
            numbers = json.loads((directory / "out.json").read_text())
            self.assertEqual(len(numbers["latencies_ms"]), 3)
            self.assertGreater(numbers["base_rss_kib"], 0)
            self.assertGreaterEqual(numbers["peak_rss_kib"], numbers["base_rss_kib"])
            self.assertGreater(result.peak_rss_kib, 0)
            # A missing input is onnxruntime's error, in one line.
            failed = run_child([sys.executable, "-m", "mace_tools.peer_bench.worker", "ort",
                                "--model", str(directory / "m.onnx"),
                                "--input", f"ids={directory / 'ids.npy'}",
                                "--output-name", "out", "--output", str(directory / "o.npy"),
                                "--result", str(directory / "o.json")],
                               env=env, timeout=120)
            self.assertEqual(failed.returncode, 1)
            self.assertIn("error: ort:", failed.last_line())
            self.assertIn("mask", failed.last_line())


class MaceInputsTest(unittest.TestCase):
    def test_integer_inputs_keep_their_type_and_others_are_float32(self):
        specs = [TensorSpec("input_ids", [1, 4], data_format="NONE"),
                 TensorSpec("x", [1, 4], data_format="NONE")]
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            artifacts = SimpleNamespace(pb=directory / "m.pb", data=directory / "m.data",
                                        source_inputs=specs, engine_inputs=specs,
                                        engine_outputs=specs[:1], source_outputs=specs[:1])
            config = SimpleNamespace(build_type="proto", path=directory / "m.yml")
            arrays = {"input_ids": np.array([[3, 1, 4, 1]], dtype=np.int64),
                      "x": np.array([[0.5, 1, 2, 3]], dtype=np.float64)}
            types = {"input_ids": "int64", "x": "uint8"}
            with mock.patch.object(mace_engine.conversion, "load_artifacts",
                                   return_value=artifacts), \
                    mock.patch.object(mace_engine.run, "input_types", return_value=types), \
                    mock.patch.object(mace_engine, "library_dir", return_value=directory):
                model = mace_engine.locate(config, SimpleNamespace(name="m"), arrays,
                                           directory / "mace", runner=Path(sys.executable))
                self.assertEqual(model.runner, Path(sys.executable))
                ids = np.load(directory / "mace" / "input_input_ids.npy")
                x = np.load(directory / "mace" / "input_x.npy")
                self.assertEqual((ids.dtype, x.dtype), (np.int64, np.float32))
                np.testing.assert_array_equal(ids, arrays["input_ids"])
                command = mace_engine.command(model, 2, 5, 1)
                self.assertIn("--input_node=input_ids,x", command)
                self.assertIn("--input_shape=1,4:1,4", command)
                with self.assertRaisesRegex(mace_engine.PrepareError, "no input values for x"):
                    mace_engine.locate(config, SimpleNamespace(name="m"),
                                       {"input_ids": arrays["input_ids"]}, directory / "mace",
                                       runner=Path(sys.executable))


if __name__ == "__main__":
    unittest.main()
