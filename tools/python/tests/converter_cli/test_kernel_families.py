"""model_specific_library: which CPU kernel families the converter finds in
the converted models (mace_converter/kernel_families.py), which each ABI
links, and the Bazel flags that leave the rest out."""
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_converter import kernel_families
from mace_converter.progress import REPO, UserError
from mace_tools.builder import NetBuilder


def conv_net(kernel: int, stride: int = 1, dilation: int = 1, op_type: str = "Conv2D",
             winograd: int = 4, **args):
    net = NetBuilder("n")
    net.add_input("x", [1, 8, 16, 16])
    net.add_weight("w", np.zeros((8, 8, kernel, kernel), np.float32))
    net.add_op(op_type, ["x", "w"], "y", strides=[stride, stride],
               dilations=[dilation, dilation], winograd=winograd, **args)
    return net.net


class KernelFamiliesTest(unittest.TestCase):
    def test_winograd_only_for_3x3_stride_1_dilation_1_where_allowed(self):
        self.assertEqual(kernel_families.net_families(conv_net(3)), {"winograd", "blocked"})
        self.assertEqual(kernel_families.net_families(conv_net(3, winograd=0)), {"blocked"})
        self.assertEqual(kernel_families.net_families(conv_net(3, stride=2)), {"blocked"})
        self.assertEqual(kernel_families.net_families(conv_net(3, dilation=2)), {"blocked"})
        self.assertEqual(kernel_families.net_families(conv_net(1)), {"blocked"})

    def test_a_computed_filter_may_be_3x3(self):
        net = NetBuilder("n")
        net.add_input("x", [1, 8, 16, 16])
        net.add_input("w", [8, 8, 3, 3])
        net.add_op("Conv2D", ["x", "w"], "y", strides=[1, 1], winograd=2)
        self.assertIn("winograd", kernel_families.net_families(net.net))

    def test_depthwise_uint8_and_fp16(self):
        self.assertEqual(kernel_families.net_families(conv_net(3, 2, op_type="DepthwiseConv2d")),
                         {"depthwise", "blocked"})
        self.assertEqual(kernel_families.net_families(conv_net(3, 2, group=8)),
                         {"depthwise", "blocked"})
        self.assertEqual(kernel_families.net_families(conv_net(1, T=2)), {"uint8", "blocked"})
        net = NetBuilder("n")
        net.add_input("x", [1, 4])
        net.add_op("Quantize", ["x"], "q")
        self.assertEqual(kernel_families.net_families(net.net), {"uint8"})
        self.assertEqual(kernel_families.net_families(net.net, cpu_fp16=True), {"uint8", "fp16"})

    def test_subgraphs_count(self):
        outer = NetBuilder("outer")
        outer.net.subgraphs.append(conv_net(3, 2, op_type="DepthwiseConv2d"))
        self.assertEqual(kernel_families.net_families(outer.net), {"depthwise", "blocked"})

    def test_each_abi_links_what_it_runs_by_default(self):
        every = set(kernel_families.OPTIONAL)
        self.assertEqual(kernel_families.for_abi(every, "host"),
                         {"gemm", "rows", "depthwise", "winograd", "blocked", "uint8"})
        self.assertEqual(kernel_families.for_abi(every, "arm64-v8a"),
                         {"gemm", "rows", "depthwise", "winograd", "uint8", "fp16"})
        self.assertEqual(kernel_families.for_abi(every, "armeabi-v7a"),
                         {"gemm", "rows", "depthwise", "winograd", "uint8"})
        self.assertEqual(kernel_families.for_abi(set(), "host"), {"gemm", "rows"})

    def test_flags_name_the_families_left_out(self):
        self.assertEqual(kernel_families.define_flags({"gemm", "rows", "depthwise"}),
                         ["--define=mace_cpu_kernels_winograd=off",
                          "--define=mace_cpu_kernels_blocked=off",
                          "--define=mace_cpu_kernels_uint8=off",
                          "--define=mace_cpu_kernels_fp16=off",
                          "--define=mace_integer_kernels=off"])
        self.assertEqual(kernel_families.define_flags(
            kernel_families.for_abi(set(kernel_families.OPTIONAL), "arm64-v8a")),
            ["--define=mace_cpu_kernels_blocked=off"])
        self.assertIn('define_values = {"mace_integer_kernels": "off"}',
                      (REPO / "mace/ops/BUILD.bazel").read_text())

    def test_the_lists_match_the_build_and_the_engine(self):
        build = (REPO / "mace/ops/BUILD.bazel").read_text()
        header = (REPO / "mace/ops/cpu/kernel_table.h").read_text()
        for family in kernel_families.ALWAYS + kernel_families.OPTIONAL:
            self.assertIn(f'    "{family}": "', build)
            self.assertIn(f"  X({family}, ", header)
        optional = build.split("OPTIONAL_CPU_KERNEL_FAMILIES = [", 1)[1].split("]", 1)[0]
        self.assertEqual([name.strip().strip('",') for name in optional.split() if name.strip()],
                         list(kernel_families.OPTIONAL))

    def test_record_round_trip_and_refusals(self):
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            self.assertEqual(kernel_families.read(directory), set(kernel_families.OPTIONAL))
            kernel_families.write(directory, {"winograd", "depthwise", "gemm"})
            self.assertEqual(kernel_families.read(directory), {"winograd", "depthwise"})
            (directory / kernel_families.FILE_NAME).write_text("winograd\nsparse\n")
            with self.assertRaisesRegex(UserError, "unknown kernel families sparse"):
                kernel_families.read(directory)


if __name__ == "__main__":
    unittest.main()
