"""BlockLSTM graphs the TensorFlow frontend refuses, each with a message
that names the node and the reason. (Graphs it converts are checked against
TensorFlow in test_tensorflow_reference.py and, on the engine, in
tests/test_tensorflow_recurrent_mace_run.py.)"""
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.convert import convert
from tests.converter_front import test_tensorflow_reference as reference
from tests.converter_front.helpers import rng

STEPS, BATCH, SIZE, HIDDEN = 4, 2, 3, 5


def _write(path: Path, read: tuple[int, ...], limit: int = STEPS, op: str = "BlockLSTM",
           w_shape=(SIZE + HIDDEN, 4 * HIDDEN)) -> None:
    tf, r = reference.tf, rng(70)

    def build() -> None:
        x = tf.compat.v1.placeholder(tf.float32, [STEPS, BATCH, SIZE], name="x")
        outputs = getattr(tf.raw_ops, op)(
            seq_len_max=np.int64(limit), x=x,
            cs_prev=np.zeros((BATCH, HIDDEN), np.float32),
            h_prev=np.zeros((BATCH, HIDDEN), np.float32),
            w=r.standard_normal(w_shape).astype(np.float32),
            wci=np.zeros(HIDDEN, np.float32), wcf=np.zeros(HIDDEN, np.float32),
            wco=np.zeros(HIDDEN, np.float32),
            b=np.zeros(4 * HIDDEN, np.float32), name="lstm")
        for index in read:
            tf.raw_ops.Identity(input=outputs[index], name=f"out{index}")
    with tf.Graph().as_default() as graph:
        build()
    path.write_bytes(graph.as_graph_def().SerializeToString())


class BlockLstmRefusalTest(unittest.TestCase):
    def setUp(self):
        if reference.tf is None:
            self.fail(f"TensorFlow cannot be imported ({reference.TF_IMPORT_ERROR})")
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def _refused(self, fragment: str, read: tuple[int, ...], **kwargs) -> None:
        path = Path(self.tmp.name) / "lstm.pb"
        _write(path, read, **kwargs)
        options = ConvertOptions("tensorflow", path, None, [TensorSpec("x", [STEPS, BATCH, SIZE])],
                                 [TensorSpec(f"out{i}", []) for i in read])
        with self.assertRaises(ConversionError) as caught:
            convert(options)
        message = str(caught.exception)
        self.assertIn("BlockLSTM", message)
        self.assertIn("'lstm'", message)
        self.assertIn(fragment, message)

    def test_gate_outputs_are_refused(self):
        self._refused("output(s) i, o are read by the graph", (6, 0, 3))
        self._refused("output(s) f, ci, co are read", (2, 4, 5), op="BlockLSTMV2")

    def test_cell_states_of_several_steps_are_refused(self):
        self._refused("cs is supported for one step only", (6, 1))

    def test_seq_len_max_out_of_range_is_refused(self):
        self._refused(f"seq_len_max {STEPS + 1} must lie in 1 to the {STEPS} steps", (6,),
                      limit=STEPS + 1)
        self._refused("seq_len_max 0 must lie in 1", (6,), limit=0)

    def test_gru_gate_outputs_are_refused(self):
        tf = reference.tf
        with tf.Graph().as_default() as graph:
            x = tf.compat.v1.placeholder(tf.float32, [BATCH, SIZE], name="x")
            outputs = tf.raw_ops.GRUBlockCell(
                x=x, h_prev=np.zeros((BATCH, HIDDEN), np.float32),
                w_ru=np.zeros((SIZE + HIDDEN, 2 * HIDDEN), np.float32),
                w_c=np.zeros((SIZE + HIDDEN, HIDDEN), np.float32),
                b_ru=np.zeros(2 * HIDDEN, np.float32), b_c=np.zeros(HIDDEN, np.float32),
                name="gru")
            tf.raw_ops.Identity(input=outputs[1], name="u")
        path = Path(self.tmp.name) / "gru.pb"
        path.write_bytes(graph.as_graph_def().SerializeToString())
        options = ConvertOptions("tensorflow", path, None, [TensorSpec("x", [BATCH, SIZE])],
                                 [TensorSpec("u", [])])
        with self.assertRaisesRegex(ConversionError, "GRUBlockCell node 'gru'.*output\\(s\\) u "
                                    "are read by the graph; only h is supported"):
            convert(options)

    def test_weights_that_do_not_fit_are_refused(self):
        self._refused("w has shape [9, 20], which does not fit input size 3", (6,),
                      w_shape=(SIZE + HIDDEN + 1, 4 * HIDDEN))


if __name__ == "__main__":
    unittest.main()
