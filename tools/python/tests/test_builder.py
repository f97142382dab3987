"""Checks the model builder's file format: aligned weights, exact offsets."""
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_tools import builder


class BuilderTest(unittest.TestCase):
    def test_weights_are_aligned_and_round_trip(self):
        net = builder.NetBuilder("t")
        net.add_input("x", [1, 3, 4, 4])
        a = np.arange(5, dtype=np.float32)
        b = np.arange(7, dtype=np.int32)
        net.add_weight("a", a)
        net.add_weight("b", b)
        net.add_op("Conv2D", ["x", "a"], "y", strides=[2, 2], activation="RELU", alpha=0.5)
        with tempfile.TemporaryDirectory() as tmp:
            pb, data = Path(tmp) / "m.pb", Path(tmp) / "m.data"
            net.save(pb, data)
            parsed = builder.mace_pb2.NetDef()
            parsed.ParseFromString(pb.read_bytes())
            blob = data.read_bytes()
        tensors = {t.name: t for t in parsed.tensors}
        self.assertEqual(tensors["b"].offset % builder.WEIGHT_ALIGNMENT, 0)
        self.assertEqual(tensors["b"].data_type, builder.mace_pb2.DT_INT32)
        got = np.frombuffer(blob, "<i4", count=7, offset=tensors["b"].offset)
        np.testing.assert_array_equal(got, b)
        args = {arg.name: arg for arg in parsed.op[0].arg}
        self.assertEqual(list(args["strides"].ints), [2, 2])
        self.assertEqual(args["activation"].s, b"RELU")
        self.assertAlmostEqual(args["alpha"].f, 0.5)


if __name__ == "__main__":
    unittest.main()
