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


def families(net, cpu_fp16: bool = False) -> set[str]:
    return kernel_families.net_families(net, cpu_fp16) & set(kernel_families.OPTIONAL)


def variants(net) -> set[str]:
    return kernel_families.net_families(net) & set(kernel_families.VARIANTS)


class KernelFamiliesTest(unittest.TestCase):
    def test_winograd_only_for_3x3_stride_1_dilation_1_where_allowed(self):
        self.assertEqual(families(conv_net(3)), {"winograd", "blocked"})
        self.assertEqual(families(conv_net(3, winograd=0)), {"blocked"})
        self.assertEqual(families(conv_net(3, stride=2)), {"blocked"})
        self.assertEqual(families(conv_net(3, dilation=2)), {"blocked"})
        self.assertEqual(families(conv_net(1)), {"blocked"})

    def test_a_computed_filter_may_be_3x3(self):
        net = NetBuilder("n")
        net.add_input("x", [1, 8, 16, 16])
        net.add_input("w", [8, 8, 3, 3])
        net.add_op("Conv2D", ["x", "w"], "y", strides=[1, 1], winograd=2)
        self.assertIn("winograd", families(net.net))

    def test_depthwise_uint8_and_fp16(self):
        self.assertEqual(families(conv_net(3, 2, op_type="DepthwiseConv2d")),
                         {"depthwise", "blocked"})
        self.assertEqual(families(conv_net(3, 2, group=8)),
                         {"depthwise", "blocked"})
        self.assertEqual(families(conv_net(1, T=2)), {"uint8", "blocked"})
        net = NetBuilder("n")
        net.add_input("x", [1, 4])
        net.add_op("Quantize", ["x"], "q")
        self.assertEqual(families(net.net), {"uint8"})
        self.assertEqual(families(net.net, cpu_fp16=True), {"uint8", "fp16"})

    def test_subgraphs_count(self):
        outer = NetBuilder("outer")
        outer.net.subgraphs.append(conv_net(3, 2, op_type="DepthwiseConv2d"))
        self.assertEqual(families(outer.net), {"depthwise", "blocked"})

    def test_neon_variants_from_the_fused_activations(self):
        self.assertEqual(variants(conv_net(1)), {"gemm_unclamped"})
        self.assertEqual(variants(conv_net(1, activation="RELU")), {"gemm_lower_clamp"})
        # Both bounds: the variant every build links.
        self.assertEqual(variants(conv_net(1, activation="RELU6")), set())
        self.assertEqual(variants(conv_net(1, activation="RELUX", activation_max_limit=3.0)),
                         set())
        self.assertEqual(
            variants(conv_net(1, activation="RELUX", activation_max_limit=float("inf"))),
            {"gemm_lower_clamp"})
        # Applied by a pass of its own: the kernel stores unclamped.
        self.assertEqual(variants(conv_net(1, activation="TANH")), {"gemm_unclamped"})
        self.assertEqual(variants(conv_net(3, 2, op_type="DepthwiseConv2d", activation="RELU6")),
                         set())
        self.assertEqual(variants(conv_net(3, 2, group=8, activation="HARDSWISH")),
                         {"depthwise_hardswish"})
        # A grouped Conv2D counts for both kernels.
        self.assertEqual(variants(conv_net(3, 2, group=8, activation="RELU")),
                         {"depthwise_lower_clamp", "gemm_lower_clamp"})
        self.assertEqual(variants(conv_net(3, 2, op_type="DepthwiseConv2d")),
                         {"depthwise_unclamped"})
        # Ops that run the GEMM with their activation (if any) applied apart.
        net = NetBuilder("n")
        net.add_input("x", [1, 4, 8])
        net.add_op("LSTM", ["x"], "y", activation="RELU")
        self.assertEqual(variants(net.net), {"gemm_unclamped"})
        # Integer kernels have no such variants.
        self.assertEqual(variants(conv_net(1, T=2)), set())
        net = NetBuilder("n")
        net.add_input("x", [1, 4])
        net.add_op("Activation", ["x"], "y", activation="RELU")
        self.assertEqual(variants(net.net), {"gemm_lower_clamp", "depthwise_lower_clamp"})

    def test_neon_eltwise_operations_from_the_op_type(self):
        def eltwise(**args):
            net = NetBuilder("n")
            net.add_input("x", [1, 4])
            net.add_op("Eltwise", ["x", "x"], "y", **args)
            return variants(net.net)
        self.assertEqual(eltwise(type=0), {"eltwise_sum"})
        self.assertEqual(eltwise(type=0, coeff=[1.0, 1.0]), {"eltwise_sum"})
        self.assertEqual(eltwise(type=0, coeff=[0.5, 2.0]), {"eltwise_weighted_sum"})
        for code, name in ((1, "sub"), (2, "prod"), (3, "div"), (4, "min"), (5, "max"),
                           (6, "neg"), (7, "abs"), (8, "sqr_diff")):
            self.assertEqual(eltwise(type=code), {"eltwise_" + name})
        # POW has no NEON row; integer Eltwise runs the uint8 kernels.
        self.assertEqual(eltwise(type=9), set())
        self.assertEqual(eltwise(type=0, T=2), set())

    def test_each_abi_links_what_it_runs_by_default(self):
        every = set(kernel_families.OPTIONAL)
        neon = set(kernel_families.VARIANTS)
        self.assertEqual(kernel_families.for_abi(every, "host"),
                         {"gemm", "rows", "depthwise", "winograd", "blocked", "uint8"} | neon)
        self.assertEqual(kernel_families.for_abi(every, "arm64-v8a"),
                         {"gemm", "rows", "depthwise", "winograd", "uint8", "fp16"})
        self.assertEqual(kernel_families.for_abi(every | neon, "armeabi-v7a"),
                         {"gemm", "rows", "depthwise", "winograd", "uint8"} | neon)
        self.assertEqual(kernel_families.for_abi(set(), "host"), {"gemm", "rows"} | neon)
        self.assertEqual(kernel_families.for_abi({"gemm_unclamped"}, "arm64-v8a"),
                         {"gemm", "rows", "gemm_unclamped"})

    def test_flags_name_the_families_left_out(self):
        self.assertEqual(kernel_families.define_flags({"gemm", "rows", "depthwise"}),
                         ["--define=mace_cpu_kernels_winograd=off",
                          "--define=mace_cpu_kernels_blocked=off",
                          "--define=mace_cpu_kernels_uint8=off",
                          "--define=mace_cpu_kernels_fp16=off",
                          "--define=mace_integer_kernels=off",
                          "--define=mace_neon_gemm_unclamped=off",
                          "--define=mace_neon_gemm_lower_clamp=off",
                          "--define=mace_neon_depthwise_unclamped=off",
                          "--define=mace_neon_depthwise_lower_clamp=off",
                          "--define=mace_neon_depthwise_hardswish=off"] +
                         [f"--define=mace_neon_eltwise_{op}=off" for op in (
                             "sum", "weighted_sum", "sub", "prod", "div", "min", "max", "neg",
                             "abs", "sqr_diff")])
        every = set(kernel_families.OPTIONAL) | set(kernel_families.VARIANTS)
        self.assertEqual(kernel_families.define_flags(kernel_families.for_abi(every, "arm64-v8a")),
                         ["--define=mace_cpu_kernels_blocked=off"])
        self.assertEqual(kernel_families.define_flags(
            kernel_families.for_abi(every - {"gemm_lower_clamp", "depthwise_hardswish"},
                                    "arm64-v8a")),
            ["--define=mace_cpu_kernels_blocked=off", "--define=mace_neon_gemm_lower_clamp=off",
             "--define=mace_neon_depthwise_hardswish=off"])
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
        neon = build.split("NEON_KERNEL_VARIANTS = [", 1)[1].split("]", 1)[0]
        self.assertEqual([name.strip().strip('",') for name in neon.split() if name.strip()],
                         list(kernel_families.VARIANTS))
        variants_header = (REPO / "mace/ops/arm/linked_variants.h").read_text()
        for variant in kernel_families.VARIANTS:
            self.assertIn(f'":omit_neon_{variant}": ["MACE_NEON_{variant.upper()}=0"]', build)
            self.assertIn(f"#ifndef MACE_NEON_{variant.upper()}\n", variants_header)
        # The suite's step that leaves every variant out.
        suite = (REPO / "tools/test.sh").read_text()
        listed = suite.split("for variant in ", 1)[1].split("; do", 1)[0].replace("\\", " ")
        self.assertEqual(listed.split(), list(kernel_families.VARIANTS))

    def test_record_round_trip_and_refusals(self):
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            every = set(kernel_families.OPTIONAL) | set(kernel_families.VARIANTS)
            self.assertEqual(kernel_families.read(directory), every)
            kernel_families.write(directory, {"winograd", "depthwise", "gemm", "gemm_unclamped"})
            self.assertEqual(kernel_families.read(directory),
                             {"winograd", "depthwise", "gemm_unclamped"})
            # A record of families only: every variant.
            (directory / kernel_families.VARIANTS_FILE_NAME).unlink()
            self.assertEqual(kernel_families.read(directory),
                             {"winograd", "depthwise"} | set(kernel_families.VARIANTS))
            (directory / kernel_families.VARIANTS_FILE_NAME).write_text("gemm_sideways\n")
            with self.assertRaisesRegex(UserError, "unknown NEON kernel variants gemm_sideways"):
                kernel_families.read(directory)
            (directory / kernel_families.FILE_NAME).write_text("winograd\nsparse\n")
            with self.assertRaisesRegex(UserError, "unknown kernel families sparse"):
                kernel_families.read(directory)


if __name__ == "__main__":
    unittest.main()
