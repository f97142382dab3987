"""Models with uint8 inputs and outputs (`quantize: 1`, `quantize_uint8_io: 1`)
through mace_run and `converter.py run`, `run --validate` and `benchmark`:
the tool quantizes float inputs as the engine's Quantize op does, mace_run
writes the uint8 outputs, and they equal the float-io model's (the same
model converted with `quantize_uint8_io: 0`, whose engine quantizes and
dequantizes at the edges) bit for bit once dequantized.

The model is a small ONNX conv + relu + max pool + 1x1 conv, so that every
op is uint8 and both the graph input and output are uint8. Needs the host
mace_run (MACE_RUN, default bazel-bin/mace/tools/mace_run).
"""
from __future__ import annotations

import contextlib
import decimal
import hashlib
import io
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

from mace_converter import cli, conversion, package, run
from mace_converter.config import load_config
from mace_tools import proto
from tests.test_mace_run_cli import MACE_RUN

SHAPE = (1, 3, 8, 8)
OUT_SHAPE = (1, 4, 4, 4)
SEED = 31


def small_onnx() -> bytes:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(SEED)
    weights = {"w1": rng.standard_normal((8, 3, 3, 3)) * 0.4, "b1": rng.standard_normal(8) * 0.1,
               "w2": rng.standard_normal((4, 8, 1, 1)) * 0.4, "b2": rng.standard_normal(4) * 0.1}
    nodes = [helper.make_node("Conv", ["input", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1],
                              kernel_shape=[3, 3]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2", "b2"], ["output"], kernel_shape=[1, 1])]
    graph = helper.make_graph(
        nodes, "small", [helper.make_tensor_value_info("input", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, OUT_SHAPE)],
        [numpy_helper.from_array(v.astype(np.float32), k) for k, v in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def reference_quantize(x: float, scale: float, zero_point: int) -> tuple[int, bool]:
    """QuantizeValue written plainly: the double quotient, rounded half away
    from zero exactly (Decimal holds the double as it is); and whether the
    value was clamped."""
    quotient = float(np.float32(x)) / float(np.float32(scale))
    if quotient != quotient:
        return zero_point, False
    if abs(quotient) > 1000:     # infinities too: clamped whatever the zero point
        return (255 if quotient > 0 else 0), True
    value = zero_point + int(decimal.Decimal(quotient).quantize(
        decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))
    return min(255, max(0, value)), not 0 <= value <= 255


class QuantizeRuleTest(unittest.TestCase):
    def test_matches_the_engine_rule(self):
        rng = np.random.default_rng(SEED)
        for scale, zero_point in ((0.0078125, 128), (0.0280117746, 180), (0.1, 0), (3.7, 255)):
            quant = run.Uint8Io("x", float(np.float32(scale)), zero_point)
            s = np.float32(scale)
            # Random values over and beyond the range, whole and half
            # quotients and a float step either side of them, specials.
            steps = np.arange(-300, 300, dtype=np.float64)
            ties = np.concatenate([steps, steps + 0.5]).astype(np.float32) * s
            x = np.concatenate([
                rng.uniform(-400, 400, 500).astype(np.float32) * s, ties,
                np.nextafter(ties, np.float32(np.inf)), np.nextafter(ties, np.float32(-np.inf)),
                np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e30, -1e30, 1e-40],
                         dtype=np.float32)]).astype(np.float32)
            q, clamped = run.quantize_uint8(x, quant)
            expected = [reference_quantize(v, scale, zero_point) for v in x]
            self.assertEqual(q.dtype, np.uint8)
            np.testing.assert_array_equal(q, np.array([e[0] for e in expected], dtype=np.uint8))
            self.assertEqual(clamped, sum(e[1] for e in expected))
            self.assertGreater(clamped, 0)

    def test_quantizing_a_dequantized_value_gives_it_back(self):
        every = np.arange(256, dtype=np.uint8)
        for scale, zero_point in ((0.0078125, 128), (0.0280117746, 180), (1e-6, 3), (50.3, 0)):
            quant = run.Uint8Io("x", float(np.float32(scale)), zero_point)
            real = run.dequantize_uint8(every, quant)
            self.assertEqual(real.dtype, np.float32)
            np.testing.assert_array_equal(
                real, np.float32(scale) * (every.astype(np.float32) - np.float32(zero_point)))
            q, clamped = run.quantize_uint8(real, quant)
            np.testing.assert_array_equal(q, every)
            self.assertEqual(clamped, 0)


class Uint8IoFixture(unittest.TestCase):
    """The model converted twice in a temporary build directory: with
    quantize_uint8_io: 1 (u8.yml) and 0 (fl.yml, the float-io twin)."""

    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        cls.env = mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(cls.dir / "build"),
                                               "MACE_RUN": str(MACE_RUN)})
        cls.env.start()
        model = cls.dir / "small.onnx"
        model.write_bytes(small_onnx())
        rng = np.random.default_rng(SEED)
        for i in range(2):
            np.save(cls.dir / f"calib{i}.npy", rng.uniform(-1, 1, SHAPE).astype(np.float32))
        cls.sha = hashlib.sha256(model.read_bytes()).hexdigest()
        cls.u8 = cls.write_config("u8", 1)
        cls.twin = cls.write_config("fl", 0)
        for config in (cls.u8, cls.twin):
            cls.prepare(config)

    @classmethod
    def tearDownClass(cls):
        cls.env.stop()
        cls.tmp.cleanup()

    @classmethod
    def write_config(cls, name: str, uint8_io: int, extra: str = "") -> Path:
        path = cls.dir / f"{name}.yml"
        path.write_text(textwrap.dedent(f"""\
            library_name: lib_{name}
            target_abis: [host]
            build_type: proto
            models:
              small:
                platform: onnx
                model_file_path: {cls.dir / 'small.onnx'}
                model_sha256_checksum: {cls.sha}
                input_tensors: input
                input_shapes: {','.join(map(str, SHAPE))}
                output_tensors: output
                output_shapes: {','.join(map(str, OUT_SHAPE))}
                input_ranges: -1,1
                runtime: cpu
                quantize: 1
                quantize_uint8_io: {uint8_io}
                calibration_inputs: [calib0.npy, calib1.npy]
            """) + textwrap.indent(textwrap.dedent(extra), " " * 4))
        return path

    @classmethod
    def prepare(cls, config: Path) -> None:
        """convert, and the host mace_run where `build` would install it."""
        status, text = cls.cli(["convert", "--config", str(config)])
        assert status == 0, text
        runner = package.mace_run_path(load_config(config), "host")
        runner.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(MACE_RUN, runner)

    @staticmethod
    def cli(argv: list[str]) -> tuple[int, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(argv)
        return status, out.getvalue() + err.getvalue()

    def artifacts(self, config_path: Path):
        config = load_config(config_path)
        model = config.models["small"]
        return config, model, conversion.load_artifacts(config, model)

    def net(self, artifacts):
        net = proto.load().NetDef()
        net.ParseFromString(artifacts.pb.read_bytes())
        return net


class Uint8IoModelTest(Uint8IoFixture):
    def with_input_file(self, name: str, array: np.ndarray) -> Path:
        """A uint8-io deployment file whose validation input is `array`, prepared."""
        np.save(self.dir / f"{name}.npy", array)
        path = self.write_config(name, 1, f"validation_inputs_data: [{self.dir / name}.npy]\n")
        self.prepare(path)
        return path

    def test_the_model_exchanges_uint8(self):
        _, _, artifacts = self.artifacts(self.u8)
        pb = proto.load()
        net = self.net(artifacts)
        self.assertNotIn("Quantize", [op.type for op in net.op])
        self.assertNotIn("Dequantize", [op.type for op in net.op])
        self.assertEqual([i.data_type for i in net.input_info], [pb.DT_UINT8])
        self.assertEqual([i.data_type for i in net.output_info], [pb.DT_UINT8])
        inputs, outputs = run.uint8_io(artifacts)
        self.assertEqual((list(inputs), list(outputs)), (["input"], ["output"]))
        self.assertAlmostEqual(inputs["input"].scale, net.input_info[0].scale)
        twin = self.net(self.artifacts(self.twin)[2])
        self.assertEqual([op.type for op in twin.op][0], "Quantize")
        self.assertEqual([op.type for op in twin.op][-1], "Dequantize")

    def test_outputs_equal_the_float_io_models_bit_for_bit(self):
        rng = np.random.default_rng(SEED + 1)
        # A little beyond the calibrated range, so that some values clamp.
        x = {"input": rng.uniform(-1.1, 1.1, SHAPE).astype(np.float32)}
        config, model, artifacts = self.artifacts(self.u8)
        twin_config, twin_model, twin_artifacts = self.artifacts(self.twin)
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            mine = run.run_model(config, model, artifacts, "host", "cpu", x, run.RunOptions())
            twin = run.run_model(twin_config, twin_model, twin_artifacts, "host", "cpu", x,
                                 run.RunOptions())
        self.assertIn("input input: quantized by the tool to uint8", printed.getvalue())
        self.assertRegex(printed.getvalue(), r"note: input input: \d+ of 192 value\(s\) fall "
                                             r"outside what uint8 holds")
        # What was fed to mace_run: the engine's Quantize of the input.
        fed = np.load(next((self.dir / "build").rglob("lib_u8/run/small/host-cpu/input_input.npy")))
        quant_in, quant_out = run.uint8_io(artifacts)
        self.assertEqual(fed.dtype, np.uint8)
        np.testing.assert_array_equal(fed, run.quantize_uint8(x["input"], quant_in["input"])[0])
        raw = mine.uint8_outputs["output"]
        self.assertEqual((raw.dtype, raw.shape), (np.uint8, OUT_SHAPE))
        self.assertEqual(twin.outputs["output"].dtype, np.float32)
        self.assertEqual(mine.outputs["output"].tobytes(), twin.outputs["output"].tobytes())
        np.testing.assert_array_equal(
            raw, run.quantize_uint8(twin.outputs["output"], quant_out["output"])[0])
        self.assertGreater(len(np.unique(raw)), 8)

    def test_run_validate_passes_and_matches_the_twin(self):
        status, text = self.cli(["run", "--validate", "--config", str(self.u8)])
        self.assertEqual(status, 0, text)
        self.assertRegex(text, r"output: cosine 0\.9[89]\d* \(>= 0\.98\).*PASS")
        self.assertIn("output: uint8 bytes and dequantized values bit-identical to the "
                      "float-io twin's", text)
        self.assertIn("quantized by the tool to uint8 as the engine's Quantize op does", text)
        self.assertIn("output output: uint8 from mace_run, dequantized by the tool", text)
        self.assertNotIn("Traceback", text)

    def test_uint8_validation_file_is_fed_as_is(self):
        config, model, artifacts = self.artifacts(self.u8)
        quant_in, _ = run.uint8_io(artifacts)
        rng = np.random.default_rng(SEED + 2)
        x = rng.uniform(-1, 1, SHAPE).astype(np.float32)
        q = run.quantize_uint8(x, quant_in["input"])[0]
        path = self.with_input_file("u8_file", q)
        status, text = self.cli(["run", "--config", str(path)])
        self.assertEqual(status, 0, text)
        self.assertIn("input input: uint8 as given, fed as is", text)
        fed = np.load(next((self.dir / "build").rglob("lib_u8_file/run/small/host-cpu/"
                                                       "input_input.npy")))
        np.testing.assert_array_equal(fed, q)
        status, text = self.cli(["run", "--validate", "--config", str(path)])
        self.assertEqual(status, 0, text)
        self.assertRegex(text, r"output: cosine 0\.9[89]\d* \(>= 0\.98\).*PASS")
        self.assertIn("bit-identical to the float-io twin's", text)

    def test_benchmark_runs_the_uint8_model(self):
        status, text = self.cli(["benchmark", "--config", str(self.u8), "--round", "2"])
        self.assertEqual(status, 0, text)
        self.assertIn("quantized by the tool to uint8", text)
        self.assertRegex(text, r"Conv2D\s+2\s")

    def test_a_wrong_shape_uint8_file_is_a_clear_error(self):
        path = self.with_input_file("u8_short", np.zeros((1, 3, 8, 7), dtype=np.uint8))
        status, text = self.cli(["run", "--config", str(path)])
        self.assertEqual(status, 1, text)
        self.assertIn("u8_short.npy holds 168 values; the input shape [1, 3, 8, 8] needs 192", text)
        self.assertNotIn("Traceback", text)

    def test_a_missing_scale_is_a_clear_error(self):
        path = self.write_config("u8_noscale", 1)
        self.prepare(path)
        _, _, artifacts = self.artifacts(path)
        for field, value in (("scale", None), ("scale", -1.0), ("zero_point", 300)):
            with self.subTest(field=field, value=value):
                net = self.net(self.artifacts(self.u8)[2])
                if value is None:
                    net.output_info[0].ClearField(field)
                else:
                    setattr(net.output_info[0], field, value)
                # The converted model and the library's copy, which run uses.
                for pb in (self.dir / "build").rglob("small.pb"):
                    if "u8_noscale" in str(pb):
                        pb.write_bytes(net.SerializeToString())
                status, text = self.cli(["run", "--validate", "--config", str(path)])
                self.assertEqual(status, 1, text)
                self.assertIn("output 'output' is uint8 but", text)
                self.assertIn({None: "has no scale", -1.0: "has scale -1",
                               300: "zero point 300 is not in [0, 255]"}[value], text)
                self.assertNotIn("Traceback", text)


class MaceRunUint8Test(Uint8IoFixture):
    """mace_run itself on the uint8-io model: random uint8 inputs, a uint8
    input file, and uint8 output files."""

    def command(self, artifacts, prefix: Path, *extra: str) -> list[str]:
        return [str(MACE_RUN), f"--model_file={artifacts.pb}",
                f"--model_data_file={artifacts.data}", "--input_node=input",
                f"--input_shape={','.join(map(str, SHAPE))}", "--output_node=output",
                f"--output_shape={','.join(map(str, OUT_SHAPE))}",
                f"--output_file={prefix}", *extra]

    def test_random_inputs_are_uint8_and_outputs_are_written_as_uint8(self):
        _, _, artifacts = self.artifacts(self.u8)
        prefix = self.dir / "random"
        done = subprocess.run(self.command(artifacts, prefix), capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("input input (uint8): integers in [0, 256)", done.stdout)
        out = np.load(f"{prefix}_output.npy")
        self.assertEqual((out.dtype, out.shape), (np.uint8, OUT_SHAPE))
        self.assertGreater(len(np.unique(out)), 8)

    def test_a_uint8_input_file_gives_the_float_io_models_output(self):
        _, _, artifacts = self.artifacts(self.u8)
        _, _, twin = self.artifacts(self.twin)
        quant_in, quant_out = run.uint8_io(artifacts)
        rng = np.random.default_rng(SEED + 3)
        q = rng.integers(0, 256, SHAPE, dtype=np.uint8)
        np.save(self.dir / "q.npy", q)
        np.save(self.dir / "f.npy", run.dequantize_uint8(q, quant_in["input"]))
        outputs = []
        for model, name in ((artifacts, "q"), (twin, "f")):
            prefix = self.dir / f"out_{name}"
            done = subprocess.run(self.command(model, prefix,
                                               f"--input_file={self.dir / name}.npy"),
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            outputs.append(np.load(f"{prefix}_output.npy"))
        self.assertEqual((outputs[0].dtype, outputs[1].dtype), (np.uint8, np.float32))
        self.assertEqual(run.dequantize_uint8(outputs[0], quant_out["output"]).tobytes(),
                         outputs[1].tobytes())

    def test_a_float_file_for_a_uint8_input_is_refused(self):
        _, _, artifacts = self.artifacts(self.u8)
        np.save(self.dir / "float.npy", np.zeros(SHAPE, dtype=np.float32))
        done = subprocess.run(self.command(artifacts, self.dir / "x",
                                           f"--input_file={self.dir / 'float.npy'}"),
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 1)
        self.assertIn("input 'input' is float32 but the model expects uint8", done.stderr)


if __name__ == "__main__":
    unittest.main()
