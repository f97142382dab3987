"""tools/peer_bench.py --dynamic-int8 without a benchmark run: the command
line, the derived deployment file and its conversion, onnxruntime's
quantize_dynamic of a small model, how the engines are run and the dynamic
int8 table. Needs onnx and onnxruntime (tools/requirements.txt), no Bazel."""
import contextlib
import hashlib
import io
import os
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

from mace_converter.config import load_config
from mace_converter.progress import REPO
from mace_tools.peer_bench import dynamic, main, report
from mace_tools.peer_bench.options import (OPT_IN_ENGINES, QUANTIZED_ENGINES,
                                           TRANSFORMER_MODELS, parse_args)
from mace_tools.peer_bench.prepare import PreparedModel
from mace_tools.peer_bench.results import FAILED, WRONG, EngineRun
from tests.test_peer_bench import make_info, make_run, parse_quietly, sample_runs

TRANSFORMERS = ["--models", "transformers"]


class DynamicOptionsTest(unittest.TestCase):
    def test_dynamic_int8_adds_the_twins_of_mace_and_ort(self):
        options = parse_args([*TRANSFORMERS, "--engines", "ort,mace", "--dynamic-int8"])
        self.assertTrue(options.dynamic_int8)
        self.assertEqual(options.models, list(TRANSFORMER_MODELS))
        self.assertEqual(options.engines, ["mace", "ort", "mace_dq", "ort_dq"])
        # Only the transformers: never the full run that rewrites the checked-in report.
        self.assertEqual(options.report, Path("build/peer_bench/cpu_peers.md"))
        self.assertEqual(parse_args([*TRANSFORMERS, "--engines", "mace,mnn",
                                     "--dynamic-int8"]).engines, ["mace", "mnn", "mace_dq"])
        every = parse_args([*TRANSFORMERS, "--dynamic-int8"]).engines
        self.assertEqual(every[-2:], ["mace_dq", "ort_dq"])
        self.assertNotIn("mace_u8", every)

    def test_the_engines_are_opt_in(self):
        self.assertIn("mace_dq", OPT_IN_ENGINES)
        self.assertIn("ort_dq", OPT_IN_ENGINES)
        plain = parse_args(TRANSFORMERS)
        self.assertFalse(plain.dynamic_int8)
        self.assertFalse({"mace_dq", "ort_dq"} & set(plain.engines))
        self.assertEqual(set(QUANTIZED_ENGINES),
                         {"mace_u8", "ort_qdq", "mnn_int8", "mace_dq", "ort_dq"})

    def test_it_goes_with_uint8_and_a_prebuilt_runner(self):
        both = parse_args(["--models", "vit_tiny", "--engines", "mace,ort", "--uint8",
                           "--dynamic-int8"])
        self.assertEqual(both.engines, ["mace", "ort", "mace_u8", "ort_qdq", "mace_dq",
                                        "ort_dq"])
        # The op is in every mace_run: the models are only converted.
        prebuilt = parse_args([*TRANSFORMERS, "--dynamic-int8", "--mace-runner",
                               sys.executable])
        self.assertEqual(prebuilt.mace_runner, Path(sys.executable).absolute())

    def test_refused_combinations_say_why(self):
        cases = {
            ("--engines", "mace,mace_dq"): "need --dynamic-int8",
            ("--models", "vit_tiny", "--engines", "mace,ort_dq"): "need --dynamic-int8",
            ("--models", "vit_tiny", "--engines", "ort", "--dynamic-int8"):
                "keep mace in --engines",
            ("--dynamic-int8",): "use --models transformers",
            ("--models", "vit_tiny,resnet18", "--dynamic-int8"): "resnet18 has at most",
        }
        for argv, message in cases.items():
            with self.subTest(argv=argv), self.assertRaises(SystemExit) as raised:
                parse_quietly(list(argv))
            self.assertIn(message, str(raised.exception))
            self.assertTrue(str(raised.exception).startswith("error: "))

    def test_help_names_the_flag(self):
        output = io.StringIO()
        with contextlib.redirect_stdout(output), self.assertRaises(SystemExit):
            parse_args(["--help"])
        self.assertIn("--dynamic-int8", output.getvalue())


def tiny_linear_model(path: Path) -> None:
    """x [1, 4, 8] -> MatMul(w [8, 6]) + b -> y [1, 4, 6]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    generator = np.random.default_rng(5)
    weight = generator.normal(size=(8, 6)).astype(np.float32)
    bias = generator.normal(size=(6,)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["xw"], name="mm"),
         helper.make_node("Add", ["xw", "b"], ["y"], name="add")],
        "linear", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6])],
        [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
              str(path))


TINY_DEPLOYMENT = """\
library_name: tiny
target_abis: [host]
build_type: proto
embed_model_data: 0
models:
  tiny:
    platform: onnx
    model_file_path: tiny.onnx
    model_sha256_checksum: {checksum}
    subgraphs:
      - input_tensors: x
        input_shapes: 1,4,8
        output_tensors: y
        output_shapes: 1,4,6
    runtime: cpu
    data_type: fp32_fp32
"""


class DynamicDeploymentTest(unittest.TestCase):
    def test_the_zoo_file_gains_dynamic_quantize(self):
        config = load_config(REPO / "models" / "vit_tiny.yml")
        model = config.models["vit_tiny"]
        onnx = REPO / "build" / "zoo" / "vit_tiny.onnx"
        with tempfile.TemporaryDirectory() as tmp:
            path = dynamic.dynamic_deployment(config, model, onnx,
                                              Path(tmp) / "dq" / "vit_tiny_dq.yml")
            text = path.read_text()
            derived = load_config(path)
        self.assertIn("    dynamic_quantize: 1\n", text)
        self.assertTrue(text.startswith("# Made by tools/peer_bench.py --dynamic-int8 from "
                                        "vit_tiny.yml"))
        self.assertEqual(derived.library_name, "vit_tiny_peer_dq")
        twin = derived.models["vit_tiny"]
        self.assertTrue(twin.dynamic_quantize)
        self.assertFalse(model.dynamic_quantize)
        self.assertEqual((twin.runtime, twin.data_type, twin.quantize),
                         ("cpu", "fp32_fp32", None))
        self.assertEqual(twin.model_file_path, str(onnx.resolve()))
        self.assertEqual(twin.model_sha256_checksum, model.model_sha256_checksum)
        self.assertEqual([(s.name, s.shape) for s in twin.inputs],
                         [(s.name, s.shape) for s in model.inputs])

    def test_the_derived_file_converts_to_int8_linear_layers(self):
        from mace_converter import conversion
        from mace_converter.serialize import mace_pb2
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            tiny_linear_model(tmp / "tiny.onnx")
            checksum = hashlib.sha256((tmp / "tiny.onnx").read_bytes()).hexdigest()
            (tmp / "tiny.yml").write_text(TINY_DEPLOYMENT.format(checksum=checksum))
            config = load_config(tmp / "tiny.yml")
            path = dynamic.dynamic_deployment(config, config.models["tiny"], tmp / "tiny.onnx",
                                              tmp / "dq" / "tiny_dq.yml")
            derived = load_config(path)
            with mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(tmp / "build")}), \
                    contextlib.redirect_stdout(io.StringIO()):
                artifacts = conversion.convert_models(derived, list(derived.models.values()))
            net = mace_pb2().NetDef.FromString(artifacts["tiny"].pb.read_bytes())
        types = [op.type for op in net.op]
        self.assertIn("DynamicQuantizedFullyConnected", types)
        self.assertNotIn("FullyConnected", types)
        self.assertIn("tiny_peer_dq", str(artifacts["tiny"].pb))


class OrtDynamicTest(unittest.TestCase):
    def test_quantize_dynamic_rewrites_the_matmuls_only(self):
        import onnx
        import onnxruntime as ort
        with tempfile.TemporaryDirectory() as tmp:
            source, target = Path(tmp) / "m.onnx", Path(tmp) / "q" / "m.dq.onnx"
            tiny_linear_model(source)
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(dynamic.main([str(source), str(target)]), 0)
            kinds = [node.op_type for node in onnx.load(str(target)).graph.node]
            feeds = {"x": np.random.default_rng(2).uniform(-1, 1, (1, 4, 8)).astype(np.float32)}
            want = ort.InferenceSession(str(source)).run(None, feeds)[0]
            got = ort.InferenceSession(str(target)).run(None, feeds)[0]
        self.assertIn("MatMulInteger", kinds)
        self.assertIn("DynamicQuantizeLinear", kinds)
        self.assertNotIn("MatMul", kinds)
        cosine = float(np.dot(want.ravel(), got.ravel())
                       / np.linalg.norm(want) / np.linalg.norm(got))
        self.assertGreater(cosine, 0.999)

    def test_a_failure_is_one_line_and_usage_is_shown(self):
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors):
            self.assertEqual(dynamic.main(["/nonexistent/m.onnx", "/tmp/unused.onnx"]), 1)
            self.assertEqual(dynamic.main([]), 2)
        lines = errors.getvalue().splitlines()
        self.assertTrue(lines[0].startswith("error: quantize_dynamic: "))
        self.assertIn("python -m mace_tools.peer_bench.dynamic SOURCE.onnx TARGET.onnx",
                      lines[1])


class DynamicEnginesTest(unittest.TestCase):
    def prepared(self, directory: Path) -> PreparedModel:
        return PreparedModel(name="vit_tiny", config=None, model=None,
                             onnx=directory / "vit_tiny.onnx", input_name="pixel_values",
                             output_name="logits", input_file=directory / "input.npy",
                             directory=directory, ort_dq=directory / "ort_dq" / "m.onnx",
                             mace=mock.sentinel.mace, mace_dq=mock.sentinel.mace_dq)

    def test_ort_dq_runs_the_quantized_model_with_the_ort_worker(self):
        from mace_tools.peer_bench.inputs import ModelInput
        directory = Path("/tmp/w")
        model = self.prepared(directory)
        model.inputs = [ModelInput("pixel_values", "float32", directory / "input.npy", "")]
        command, _ = main.worker_command(model, "ort_dq", 2, 5, directory / "runs" / "x")
        self.assertEqual(command[3], "ort")
        self.assertEqual(command[command.index("--model") + 1], str(model.ort_dq))
        float_command, _ = main.worker_command(model, "ort", 2, 5, directory / "runs" / "x")
        self.assertEqual(float_command[float_command.index("--model") + 1], str(model.onnx))

    def test_mace_dq_runs_its_own_build(self):
        model = self.prepared(Path("/tmp/w"))
        options = parse_args([*TRANSFORMERS, "--dynamic-int8"])
        self.assertIs(main._mace_model(model, "mace_dq", options), mock.sentinel.mace_dq)
        self.assertIs(main._mace_model(model, "mace", options), mock.sentinel.mace)
        self.assertIn("mace_dq", main.MACE_ENGINES)

    def test_notes_give_the_settings(self):
        options = parse_args([*TRANSFORMERS, "--engines", "mace,ort", "--dynamic-int8"])
        info = make_info(engines=options.engines, models=options.models)
        text = "\n".join(main.notes(info, [], options))
        self.assertIn("quantize_dynamic (op_types_to_quantize=['MatMul', 'Gather']", text)
        self.assertIn("weight_type=QInt8, per_channel=True", text)
        self.assertIn("MACE dyn int8: the zoo model's deployment file with dynamic_quantize: 1",
                      text)
        self.assertNotIn("dyn int8", "\n".join(main.notes(info, [], parse_args(TRANSFORMERS))))


def dynamic_runs():
    return sample_runs() + [
        make_run("mace_dq", 3.0, cosine=0.99971), make_run("ort_dq", 4.0, cosine=0.99958),
        make_run("mace_dq", 1.0, threads=2, cosine=0.9997),
        EngineRun(model="m", engine="ort_dq", threads=2, status=FAILED,
                  error="quantize_dynamic failed (bad model); log: /tmp/x"),
        make_run("mace_dq", 9.0, model="n", status=WRONG, cosine=0.5, error="cosine 0.5"),
        make_run("mace", 3.0, model="n"), make_run("ort_dq", 2.0, model="n", cosine=0.999)]


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip("|").split("|")]


class DynamicReportTest(unittest.TestCase):
    info = staticmethod(lambda **changes: make_info(
        engines=["mace", "ort", "ncnn", "mnn", "ncnn_default", "mace_dq", "ort_dq"],
        **changes))

    def test_table_rows(self):
        table = report.dynamic_table(self.info(models=["m", "n"], threads=[1, 2]),
                                     dynamic_runs()).splitlines()
        self.assertEqual(cells(table[0]),
                         ["model", "threads", "MACE fp32 ms", "MACE dyn int8 ms",
                          "ORT dyn int8 ms", "MACE dyn int8 / ORT dyn int8",
                          "MACE dyn int8 / fp32", "MACE dyn int8 cosine",
                          "ORT dyn int8 cosine"])
        self.assertTrue(all(rule.endswith(":") for rule in cells(table[1])[1:]))
        self.assertEqual(cells(table[2]), ["m", "1", "6.00", "3.00", "4.00", "0.75x", "0.50x",
                                           "0.9997", "0.9996"])
        self.assertEqual(cells(table[3]), ["m", "2", "2.00", "1.00",
                                           "failed: quantize_dynamic failed (bad model)", "-",
                                           "0.50x", "0.9997", "-"])
        # A wrong output keeps its cosine but gives no ratio.
        self.assertEqual(cells(table[4]), ["n", "1", "3.00", "wrong output", "2.00", "-", "-",
                                           "0.5000", "0.9990"])
        self.assertEqual(cells(table[5]), ["n", "2", "failed", "failed", "failed", "-", "-",
                                           "-", "-"])

    def test_without_ort_the_table_has_mace_only(self):
        info = make_info(engines=["mace", "mace_dq"], threads=[1])
        table = report.dynamic_table(info, dynamic_runs()).splitlines()
        self.assertEqual(cells(table[0]), ["model", "threads", "MACE fp32 ms",
                                           "MACE dyn int8 ms", "MACE dyn int8 / fp32",
                                           "MACE dyn int8 cosine"])
        self.assertEqual(cells(table[2]), ["m", "1", "6.00", "3.00", "0.50x", "0.9997"])
        self.assertEqual(report.dynamic_summary(info, dynamic_runs()),
                         ["MACE dyn int8 / MACE fp32, geometric mean: 1 thread: 0.50x over "
                          "1 model."])

    def test_summary_is_a_geometric_mean_per_thread_count(self):
        runs = dynamic_runs() + [make_run("mace_dq", 1.0, model="n", threads=2),
                                 make_run("mace", 4.0, model="n", threads=2),
                                 make_run("ort_dq", 0.5, model="n", threads=2)]
        lines = report.dynamic_summary(self.info(models=["m", "n"]), runs)
        self.assertEqual(lines, [
            "MACE dyn int8 / ORT dyn int8, geometric mean: 1 thread: 0.75x over 1 model; "
            "2 threads: 2.00x over 1 model.",
            # sqrt(0.5 * 0.25)
            "MACE dyn int8 / MACE fp32, geometric mean: 1 thread: 0.50x over 1 model; "
            "2 threads: 0.35x over 2 models."])

    def test_the_float_table_and_the_report(self):
        info, runs = self.info(), dynamic_runs()
        self.assertEqual(report.latency_table(info, runs),
                         report.latency_table(make_info(), sample_runs()))
        text = report.markdown(info, runs)
        self.assertIn("## Dynamic int8 (median ms, lower is better)", text)
        self.assertIn(report.dynamic_table(info, runs), text)
        self.assertNotIn("## uint8", text)
        self.assertNotIn("## Dynamic int8", report.markdown(make_info(), sample_runs()))
        # The dyn int8 engines are no fp32 peers.
        row = {run.engine: run for run in runs if run.threads == 1 and run.model == "m"}
        self.assertEqual(report.fastest_peer(row), ("ort", 4.0))


if __name__ == "__main__":
    unittest.main()
