"""3-D MaxPool and AveragePool, converted to two 2-D Poolings (H x W, then
D) and compared with ONNX Runtime."""
import unittest

from onnx import helper

from tests.converter_front.helpers import check_against_ort, make_model


class Pool3dTest(unittest.TestCase):
    def test_against_onnxruntime(self):
        cases = [
            ("MaxPool", dict(kernel_shape=[2, 3, 2])),
            ("MaxPool", dict(kernel_shape=[3, 2, 2], strides=[2, 1, 2], pads=[1, 0, 1, 1, 1, 0],
                             dilations=[1, 2, 1])),
            ("MaxPool", dict(kernel_shape=[2, 2, 3], strides=[2, 2, 2], ceil_mode=1)),
            ("AveragePool", dict(kernel_shape=[3, 3, 2], pads=[1, 1, 0, 1, 0, 1])),
            ("AveragePool", dict(kernel_shape=[3, 2, 3], pads=[1, 1, 1, 1, 1, 1],
                                 count_include_pad=1, strides=[1, 2, 1])),
            ("AveragePool", dict(kernel_shape=[2, 2, 2], strides=[2, 2, 2], ceil_mode=1)),
            ("AveragePool", dict(kernel_shape=[3, 3, 3], auto_pad="SAME_UPPER")),
        ]
        for op_type, attrs in cases:
            with self.subTest(op=op_type, **{k: str(v) for k, v in attrs.items()}):
                model = make_model([helper.make_node(op_type, ["x"], ["y"], **attrs)],
                                   {"x": [2, 3, 5, 6, 7]}, {"y": None}, opset=19)
                converted = check_against_ort(self, model, {"x": [2, 3, 5, 6, 7]})
                self.assertEqual([op.type for op in converted.net_def.op],
                                 ["Reshape", "Pooling", "Reshape", "Pooling", "Reshape"])


if __name__ == "__main__":
    unittest.main()
