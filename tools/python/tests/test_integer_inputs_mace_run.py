"""Random integer inputs: a BERT-style ONNX model whose int64 token ids feed
an embedding (Gather) and whose int64 attention mask scales its rows goes
through `converter.py run`, `run --validate` and `benchmark` and through
mace_run alone, with random inputs drawn as whole numbers within
input_ranges, or within the defaults without them. Needs the host mace_run
(MACE_RUN, default bazel-bin/mace/tools/mace_run).
"""
from __future__ import annotations

import subprocess
import unittest
from pathlib import Path

import numpy as np

from mace_converter import conversion
from mace_converter.config import load_config
from tests.onnx_cli import OnnxCliFixture, serialized
from tests.test_mace_run_cli import MACE_RUN

VOCAB = 50
TOKENS = 6
SEED = 43


def embedding_onnx() -> bytes:
    """input_ids int64 [1, 6] -> Gather(table [50, 8]); attention_mask int64
    [1, 6] -> Cast -> Unsqueeze; their product -> MatMul [8, 4] -> y."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(SEED)
    weights = [numpy_helper.from_array(rng.standard_normal((VOCAB, 8)).astype(np.float32),
                                       "table"),
               numpy_helper.from_array(rng.standard_normal((8, 4)).astype(np.float32), "proj"),
               numpy_helper.from_array(np.array([2], np.int64), "axes")]
    node = helper.make_node
    nodes = [node("Gather", ["table", "input_ids"], ["emb"], axis=0, name="embedding"),
             node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT, name="cast"),
             node("Unsqueeze", ["maskf", "axes"], ["mask3"], name="unsqueeze"),
             node("Mul", ["emb", "mask3"], ["masked"], name="apply_mask"),
             node("MatMul", ["masked", "proj"], ["y"], name="project")]
    graph = helper.make_graph(
        nodes, "embedding",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, TOKENS]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, TOKENS])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, TOKENS, 4])], weights)
    return serialized(graph)


class IntegerInputsTest(OnnxCliFixture):
    @classmethod
    def setUpClass(cls):
        cls.start()
        cls.model = cls.dir / "embedding.onnx"
        cls.model.write_bytes(embedding_onnx())
        cls.ranged = cls.write_config("ranged", f'input_ranges: ["0,{VOCAB}", "1,2"]')
        cls.plain = cls.write_config("plain", "")
        for config in (cls.ranged, cls.plain):
            status, text = cls.cli("convert", config)
            assert status == 0, text

    @classmethod
    def write_config(cls, name: str, extra: str) -> Path:
        return cls.deployment(name, "bert", cls.model, f"""\
            input_tensors: input_ids,attention_mask
            input_shapes: 1,{TOKENS}:1,{TOKENS}
            output_tensors: y
            output_shapes: 1,{TOKENS},4
            {extra}
            """)

    def fed(self, config: Path) -> dict[str, np.ndarray]:
        """The input files `run` gave mace_run."""
        run_dir = conversion.work_dir(load_config(config)) / "run" / "bert" / "host-cpu"
        return {name: np.load(run_dir / f"input_{name}.npy")
                for name in ("input_ids", "attention_mask")}

    def test_token_ids_cover_the_vocabulary_and_validation_passes(self):
        status, text = self.cli("run", self.ranged, "--validate")
        self.assertEqual(status, 0, text)
        self.assertIn(f"input_ids int64 integers in [0, {VOCAB}), attention_mask int64 all 1",
                      text)
        self.assertRegex(text, r"y: cosine 1\.0+ \(>= 0.999\).*PASS")
        fed = self.fed(self.ranged)
        self.assertEqual(fed["input_ids"].dtype, np.int64)
        self.assertTrue(((fed["input_ids"] >= 0) & (fed["input_ids"] < VOCAB)).all())
        self.assertGreater(len(np.unique(fed["input_ids"])), 2)
        np.testing.assert_array_equal(fed["attention_mask"], np.ones((1, TOKENS), np.int64))

    def test_integer_inputs_without_ranges_take_the_defaults(self):
        status, text = self.cli("run", self.plain, "--validate")
        self.assertEqual(status, 0, text)
        self.assertIn("input_ids int64 integers in [0, 2), attention_mask int64 all 1", text)
        fed = self.fed(self.plain)
        self.assertEqual(set(np.unique(fed["input_ids"])), {0, 1})
        self.assertTrue((fed["attention_mask"] == 1).all())

    def test_validation_files_are_fed_in_the_input_types(self):
        rng = np.random.default_rng(SEED + 1)
        ids = rng.integers(0, VOCAB, (1, TOKENS), dtype=np.int64)
        np.save(self.dir / "ids.npy", ids)
        # Raw float32 of whole numbers for the mask: 1 1 1 0 0 0.
        np.repeat(np.float32([1, 0]), 3).tofile(self.dir / "mask.raw")
        config = self.write_config("files", f"validation_inputs_data: [{self.dir / 'ids.npy'}, "
                                            f"{self.dir / 'mask.raw'}]")
        status, text = self.cli("convert", config)
        self.assertEqual(status, 0, text)
        status, text = self.cli("run", config, "--validate")
        self.assertEqual(status, 0, text)
        self.assertRegex(text, r"y: cosine 1\.0+ \(>= 0.999\).*PASS")
        fed = self.fed(config)
        np.testing.assert_array_equal(fed["input_ids"], ids)
        np.testing.assert_array_equal(fed["attention_mask"], [[1, 1, 1, 0, 0, 0]])
        self.assertEqual(fed["attention_mask"].dtype, np.int64)
        np.float32([0.5] * TOKENS).tofile(self.dir / "mask.raw")
        status, text = self.cli("run", config)
        self.assertEqual(status, 1)
        self.assertIn("validation input mask.raw holds values that are not whole numbers, "
                      "for an input of type int64", text)

    def test_benchmark_runs_on_integer_inputs(self):
        status, text = self.cli("benchmark", self.ranged, "--round=2")
        self.assertEqual(status, 0, text)
        self.assertIn("Gather", text)

    def mace_run(self, *flags: str) -> subprocess.CompletedProcess:
        config = load_config(self.ranged)
        artifacts = conversion.load_artifacts(config, config.models["bert"])
        return subprocess.run(
            [str(MACE_RUN), f"--model_file={artifacts.pb}",
             f"--model_data_file={artifacts.data}", f"--output_file={self.dir / 'out'}",
             *flags], capture_output=True, text=True, timeout=300)

    def test_mace_run_draws_integers_in_the_model_types(self):
        done = self.mace_run()
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("input input_ids (int64): integers in [0, 2)", done.stdout)
        self.assertIn("input attention_mask (int64): all 1", done.stdout)
        self.assertTrue(np.isfinite(np.load(self.dir / "out_y.npy")).all())
        done = self.mace_run("--input_node=input_ids,attention_mask",
                             f"--input_shape=1,{TOKENS}:1,{TOKENS}",
                             f"--input_range=0,{VOCAB}:0,2")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"input input_ids (int64): integers in [0, {VOCAB})", done.stdout)
        self.assertIn("input attention_mask (int64): integers in [0, 2)", done.stdout)

    def test_mace_run_refuses_a_range_without_whole_numbers(self):
        done = self.mace_run("--input_range=0.25,0.75")
        self.assertEqual(done.returncode, 1)
        self.assertIn("input 'attention_mask' is int64 but its range [0.25, 0.75) holds no "
                      "whole number of that type", done.stderr)


if __name__ == "__main__":
    unittest.main()
