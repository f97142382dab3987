"""The Python runtime module (mace/python/mace, ctypes over the C API in
libmace.so): the small model of test/c_api_model_gen.cc run in-process and
compared with mace_run's output, every error path, several threads, and the
Hexagon options on its uint8 model (on the emulated DSP where it is built).

Needs the host mace_run, libmace.so and the c_api_model files, which
`bazel test //...` builds (MACE_RUN points into that bazel-bin).
"""
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from pathlib import Path

import numpy as np

from tests.test_mace_run_cli import MACE_RUN

BAZEL_BIN = MACE_RUN.parents[2]
REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "mace" / "python"))
import mace  # noqa: E402  (the path above)

GRAPH = BAZEL_BIN / "test" / "c_api_model.pb"
WEIGHTS = BAZEL_BIN / "test" / "c_api_model.data"
LIBRARY = BAZEL_BIN / "mace" / "libmace" / "libmace.so"
DSP_GRAPH = BAZEL_BIN / "test" / "c_api_dsp_model.pb"
DSP_WEIGHTS = BAZEL_BIN / "test" / "c_api_dsp_model.data"
DSP_IMAGE = BAZEL_BIN / "mace" / "dsp" / "dsp_runtime.elf"
# The same model with a dynamic input: x [1, 2, 3, 3], up to [1, 2, 8, 8].
DYNAMIC_GRAPH = BAZEL_BIN / "test" / "c_api_dynamic_model.pb"
DYNAMIC_WEIGHTS = BAZEL_BIN / "test" / "c_api_dynamic_model.data"
# int64 ids -> twice = ids + ids (int64), bool mask -> mask_out (bool).
TYPED_GRAPH = BAZEL_BIN / "test" / "c_api_typed_model.pb"
TYPED_WEIGHTS = BAZEL_BIN / "test" / "c_api_typed_model.data"
# x [4] times scale [1] -> scaled [4].
SCALAR_GRAPH = BAZEL_BIN / "test" / "c_api_scalar_model.pb"
SCALAR_WEIGHTS = BAZEL_BIN / "test" / "c_api_scalar_model.data"
READY = all(p.exists() for p in (MACE_RUN, GRAPH, WEIGHTS, LIBRARY, DSP_GRAPH, DSP_WEIGHTS,
                                 DYNAMIC_GRAPH, DYNAMIC_WEIGHTS, TYPED_GRAPH, TYPED_WEIGHTS,
                                 SCALAR_GRAPH, SCALAR_WEIGHTS))


def expected(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """y = relu(W x + b) per pixel; idx = argmax over channels."""
    w = np.array([[1.0, 2.0], [-1.0, 0.5]], np.float32)
    b = np.array([0.5, -0.25], np.float32)
    y = np.maximum(np.einsum("oc,nchw->nohw", w, x) + b.reshape(1, 2, 1, 1), 0)
    return y, np.argmax(x, axis=1, keepdims=True).astype(np.int32)


@unittest.skipUnless(READY, f"build //mace/libmace:libmace.so and //test:c_api_model in "
                     f"{BAZEL_BIN}")
class PythonBindingTest(unittest.TestCase):
    def setUp(self):
        mace.engine._lib = None
        self.env = mace.engine.os.environ
        self.env["MACE_LIBRARY"] = str(LIBRARY)
        self.x = np.random.default_rng(5).standard_normal((1, 2, 3, 3)).astype(np.float32)

    def test_runs_and_matches_mace_run(self):
        with mace.Engine(GRAPH, WEIGHTS, threads=1) as engine:
            self.assertEqual(engine.input_names, ["x"])
            self.assertEqual(engine.output_names, ["y", "idx"])
            self.assertEqual(engine.input_shapes, {"x": (1, 2, 3, 3)})
            self.assertEqual(engine.input_max_shapes, {"x": (1, 2, 3, 3)})
            self.assertEqual(engine.dynamic_inputs, {})
            out = engine.run({"x": self.x})
            report = engine.memory_report()
            self.assertEqual(engine.replans, 0)
        self.assertEqual(report["replans"], 0)
        y, idx = expected(self.x)
        np.testing.assert_allclose(out["y"], y, rtol=1e-6, atol=1e-6)
        self.assertEqual(out["idx"].dtype, np.int32)
        np.testing.assert_array_equal(out["idx"], idx)
        self.assertEqual(report["memory_types"][0]["memory_type"], "CPU_BUFFER")
        self.assertGreaterEqual(report["naive_bytes"], report["arena_bytes"])
        with tempfile.TemporaryDirectory() as tmp:
            np.save(Path(tmp) / "in_x.npy", self.x)
            subprocess.run([str(MACE_RUN), f"--model_file={GRAPH}",
                            f"--model_data_file={WEIGHTS}", f"--input_file={tmp}/in",
                            f"--output_file={tmp}/out", "--omp_num_threads=1"],
                           check=True, capture_output=True)
            np.testing.assert_array_equal(np.load(Path(tmp) / "out_y.npy"), out["y"])
            np.testing.assert_array_equal(np.load(Path(tmp) / "out_idx.npy"), out["idx"])

    def test_dynamic_input(self):
        rng = np.random.default_rng(11)
        with mace.Engine(DYNAMIC_GRAPH, DYNAMIC_WEIGHTS, threads=1) as engine:
            self.assertEqual(engine.input_shapes, {"x": (1, 2, 3, 3)})
            self.assertEqual(engine.input_max_shapes, {"x": (1, 2, 8, 8)})
            self.assertEqual(engine.dynamic_inputs, {"x": [2, 3]})
            self.assertEqual(engine.replans, 0)
            # (size, re-plans after the run): the declared size plans nothing
            # new, a repeated size nothing more, every change of size once.
            for (h, w), replans in (((3, 3), 0), ((5, 2), 1), ((5, 2), 1), ((8, 8), 2),
                                    ((1, 1), 3), ((3, 3), 4)):
                x = rng.standard_normal((1, 2, h, w)).astype(np.float32)
                out = engine.run({"x": x})
                y, idx = expected(x)
                np.testing.assert_allclose(out["y"], y, rtol=1e-6, atol=1e-6)
                np.testing.assert_array_equal(out["idx"], idx)
                self.assertEqual(engine.replans, replans, (h, w))
            self.assertEqual(engine.memory_report()["replans"], 4)
            for shape in ((1, 2, 9, 3), (1, 2, 3, 0), (2, 2, 3, 3)):
                self.assert_error("INVALID_ARGS", "x", engine.run,
                                  {"x": np.zeros(shape, np.float32)})
            self.assert_error("INVALID_ARGS", "dynamic dimension 2 takes 1 to 8", engine.run,
                              {"x": np.zeros((1, 2, 9, 3), np.float32)})
            # Still runs after the refusals.
            x = rng.standard_normal((1, 2, 4, 7)).astype(np.float32)
            np.testing.assert_allclose(engine.run({"x": x})["y"], expected(x)[0],
                                       rtol=1e-6, atol=1e-6)
        self.assert_error("INVALID_ARGS", "the engine is closed", lambda: engine.replans)

    def test_from_bytes(self):
        engine = mace.Engine(GRAPH.read_bytes(), WEIGHTS.read_bytes())
        np.testing.assert_allclose(engine.run({"x": self.x})["y"], expected(self.x)[0],
                                   rtol=1e-6, atol=1e-6)
        engine.close()
        engine.close()  # twice is fine

    def assert_error(self, status: str, fragment: str, call, *args, **kwargs):
        with self.assertRaises(mace.MaceError) as caught:
            call(*args, **kwargs)
        self.assertEqual(caught.exception.status, status, str(caught.exception))
        self.assertIn(fragment, str(caught.exception))

    def test_errors(self):
        self.assert_error("INVALID_ARGS", "cannot open the model graph", mace.Engine,
                          "/nonexistent.pb", WEIGHTS)
        self.assert_error("INVALID_ARGS", "device 'npu' is not one of", mace.Engine, GRAPH,
                          WEIGHTS, device="npu")
        self.assert_error("INVALID_ARGS", "both as paths or both as bytes", mace.Engine,
                          GRAPH.read_bytes(), WEIGHTS)
        self.assert_error("INVALID_ARGS", "unknown CPU kernel family", mace.Engine, GRAPH,
                          WEIGHTS, cpu_kernel_family="sse9")
        self.assertRaises(mace.MaceError, mace.Engine, b"\x01\x02garbage", b"")
        engine = mace.Engine(GRAPH, WEIGHTS)
        self.assert_error("INVALID_ARGS", "dtype float64", engine.run,
                          {"x": self.x.astype(np.float64)})
        self.assert_error("INVALID_ARGS", "'z' is not an input", engine.run, {"z": self.x})
        self.assert_error("INVALID_ARGS", "shape", engine.run,
                          {"x": self.x.reshape(1, 3, 2, 3)})
        self.assert_error("INVALID_ARGS", "int32", engine.run,
                          {"x": self.x.astype(np.int32)})
        # Still usable after the errors.
        np.testing.assert_array_equal(engine.run({"x": self.x})["idx"], expected(self.x)[1])
        engine.close()
        self.assert_error("INVALID_ARGS", "the engine is closed", engine.run, {"x": self.x})
        self.assert_error("INVALID_ARGS", "the engine is closed", engine.memory_report)

    def test_int64_and_bool_inputs_and_outputs(self):
        with mace.Engine(TYPED_GRAPH, TYPED_WEIGHTS) as engine:
            ids = np.array([5, -(2 ** 24), 2 ** 24, 0], np.int64)
            mask = np.array([True, False, True, True])
            out = engine.run({"ids": ids, "mask": mask})
            self.assertEqual(out["twice"].dtype, np.int64)
            np.testing.assert_array_equal(out["twice"], 2 * ids)
            self.assertEqual(out["mask_out"].dtype, np.bool_)
            np.testing.assert_array_equal(out["mask_out"], mask)
            # float32 is still taken for an int64 input; the output keeps its type.
            out = engine.run({"ids": ids.astype(np.float32), "mask": mask})
            np.testing.assert_array_equal(out["twice"], 2 * ids)
            for bad in (2 ** 24 + 1, -(2 ** 24) - 1):
                self.assert_error("INVALID_ARGS", f"input 'ids' holds {bad}", engine.run,
                                  {"ids": np.array([0, bad, 0, 0], np.int64), "mask": mask})
            self.assert_error("INVALID_ARGS", "bool elements are 0 or 1", engine.run,
                              {"ids": ids, "mask": np.array([0, 3, 1, 0], np.uint8).view(np.bool_)})
            self.assert_error("INVALID_ARGS", "input 'ids' is int32 but the model expects int64",
                              engine.run, {"ids": ids.astype(np.int32), "mask": mask})

    def test_zero_dimensional_scalar_input(self):
        x = np.array([1.0, -2.0, 0.5, 4.0], np.float32)
        with mace.Engine(SCALAR_GRAPH, SCALAR_WEIGHTS) as engine:
            self.assertEqual(engine.input_shapes["scale"], (1,))
            for scale in (np.float32(2.5), np.array(2.5, np.float32), np.array([2.5], np.float32)):
                out = engine.run({"x": x, "scale": scale})
                np.testing.assert_array_equal(out["scaled"], x * np.float32(2.5))
            # A 0-d array stands for one element only, never for a whole input.
            self.assert_error("INVALID_ARGS", "'x'", engine.run,
                              {"x": np.array(1.0, np.float32), "scale": np.float32(2.0)})
            self.assert_error("INVALID_ARGS", "dtype float64", engine.run,
                              {"x": x, "scale": np.array(2.0)})

    def test_hexagon_options(self):
        # The uint8 model beside the test model; a stand-in emulator that
        # never answers shows the timeout reaching the DSP calls.
        with tempfile.TemporaryDirectory() as tmp:
            silent = Path(tmp) / "silent_emulator.sh"
            silent.write_text("#!/bin/sh\nexec sleep 20\n")
            silent.chmod(0o755)
            self.assert_error("UNSUPPORTED", "/nonexistent/dsp_runtime.elf", mace.Engine,
                              DSP_GRAPH, DSP_WEIGHTS, device="hexagon", dsp_emulator=silent,
                              dsp_image="/nonexistent/dsp_runtime.elf")
            self.assert_error("RUNTIME_ERROR", "no reply before the deadline (250 ms a call)",
                              mace.Engine, DSP_GRAPH, DSP_WEIGHTS, device="hexagon",
                              dsp_emulator=silent, dsp_image=DSP_GRAPH, dsp_timeout_ms=250)
        self.assert_error("INVALID_ARGS", "dsp_timeout_ms -1 is out of range", mace.Engine,
                          DSP_GRAPH, DSP_WEIGHTS, device="hexagon", dsp_timeout_ms=-1)

    @unittest.skipUnless(DSP_IMAGE.exists() and shutil.which("qemu-hexagon"),
                         "needs //mace/dsp:dsp_runtime and qemu-hexagon")
    def test_hexagon_equals_the_cpu_engine(self):
        x = np.random.default_rng(8).uniform(-2, 2, (1, 2, 3, 3)).astype(np.float32)
        with mace.Engine(DSP_GRAPH, DSP_WEIGHTS) as cpu:
            expected_y = cpu.run({"x": x})["y"]
        with mace.Engine(DSP_GRAPH, DSP_WEIGHTS, device="hexagon", dsp_image=DSP_IMAGE,
                         dsp_timeout_ms=60000) as dsp:
            y = dsp.run({"x": x})["y"]
        np.testing.assert_array_equal(y, expected_y)
        self.assertGreater(len(np.unique(y)), 3)

    def test_missing_library(self):
        mace.engine._lib = None
        self.env["MACE_LIBRARY"] = "/nonexistent/libmace.so"
        try:
            self.assert_error("UNSUPPORTED", "cannot load /nonexistent/libmace.so",
                              mace.Engine, GRAPH, WEIGHTS)
        finally:
            mace.engine._lib = None
            self.env["MACE_LIBRARY"] = str(LIBRARY)

    def test_threads(self):
        shared = mace.Engine(GRAPH, WEIGHTS, threads=1)
        failures = []

        def body(seed: int) -> None:
            own = mace.Engine(GRAPH, WEIGHTS, threads=1)
            rng = np.random.default_rng(seed)
            for _ in range(25):
                x = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
                for engine in (own, shared):
                    out = engine.run({"x": x})
                    if not np.allclose(out["y"], expected(x)[0], rtol=1e-6, atol=1e-6) or \
                            not np.array_equal(out["idx"], expected(x)[1]):
                        failures.append(seed)
            own.close()

        threads = [threading.Thread(target=body, args=(seed,)) for seed in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        shared.close()
        self.assertEqual(failures, [])


if __name__ == "__main__":
    unittest.main()
