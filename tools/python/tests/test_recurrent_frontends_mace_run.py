"""TensorFlow's BlockLSTM, BlockLSTMV2 and GRUBlockCell, converted and run
by the C++ engine through mace_run, match TensorFlow itself: the graphs of
six fused LSTMs (one step and seven, batch 1 and 3, peepholes, forget_bias,
cell clips, a short seq_len_max) and two GRU cells of
converter_front/test_tensorflow_reference.py; and Caffe's LSTM and RNN
layers (with and without expose_hidden, one step and more) match the numpy
Caffe reference.

Needs the host mace_run binary (MACE_RUN, as tools/test.sh sets it) and
TensorFlow (tools/requirements-tf.txt).
"""
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_converter.api import ConvertOptions, TensorSpec
from mace_converter.convert import convert
from tests.converter_front import test_caffe_recurrent as caffe
from tests.converter_front import test_tensorflow_reference as reference
from tests.converter_front.helpers import cosine, rng
from tests.test_exported_models_mace_run import run_converted
from tests.test_mace_run_cli import MACE_RUN


class RecurrentFrontendsOnEngineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")
        if reference.tf is None:
            raise AssertionError(f"TensorFlow cannot be imported ({reference.TF_IMPORT_ERROR})")

    def _check(self, graph: reference.Graph, op_type: str, count: int) -> None:
        feeds = {name: rng(60 + i).uniform(-1, 1, shape).astype(np.float32)
                 for i, (name, shape) in enumerate(graph.inputs.items())}
        outputs = list(graph.outputs)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{graph.name}.pb"
            graph.write(path)
            expected = reference.run_in_tensorflow(path, feeds, outputs)
            converted = convert(ConvertOptions(
                "tensorflow", path, None,
                [TensorSpec(name, shape) for name, shape in graph.inputs.items()],
                [TensorSpec(name, []) for name in outputs]))
            ops = [op.type for op in converted.net_def.op]
            self.assertEqual(ops.count(op_type), count)
            got = run_converted(self, converted, feeds)
        for name in outputs:
            with self.subTest(output=name):
                want = expected[name]
                self.assertEqual(list(got[name].shape), list(want.shape))
                np.testing.assert_allclose(got[name], want, rtol=1e-4, atol=1e-5)
                self.assertGreater(cosine(got[name], want), reference.CONVERTED_MIN_COSINE)

    def _graph(self, name: str) -> reference.Graph:
        return next(graph for graph in reference.GRAPHS if graph.name == name)

    def test_block_lstms_match_tensorflow(self):
        self._check(self._graph("block_lstm"), "LSTM", len(reference.BLOCK_LSTMS))

    def test_gru_block_cells_match_tensorflow(self):
        self._check(self._graph("gru_cell"), "GRU", len(reference.GRU_CELLS))

    def test_caffe_layers_match_the_caffe_reference(self):
        feeds = caffe.net_feeds(90)
        with tempfile.TemporaryDirectory() as tmp:
            prototxt, weights = caffe.write_net(Path(tmp))
            expected = caffe.net_reference(weights, feeds)
            got = run_converted(self, caffe.convert_net(prototxt, weights), feeds)
        for name in caffe.net_outputs():
            with self.subTest(output=name):
                self.assertEqual(list(got[name].shape), list(expected[name].shape))
                np.testing.assert_allclose(got[name], expected[name], rtol=1e-4, atol=1e-5)

if __name__ == "__main__":
    unittest.main()
