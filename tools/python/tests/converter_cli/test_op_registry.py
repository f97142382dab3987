"""model_specific_library: the registry the converter generates from the
converted models' op types (mace_converter/op_registry.py), the Bazel targets
of the build, and the deployment key."""
import copy
import tempfile
import unittest
from pathlib import Path

import yaml

from mace_converter import build, op_registry
from mace_converter.config import load_config
from mace_converter.progress import REPO
from tests.converter_cli.test_config import BASE

TEST_REGISTRY = REPO / "mace" / "libmace" / "testing" / "op_set_test_registry.cc"


class OpRegistryTest(unittest.TestCase):
    def test_every_op_type_maps_to_its_register_function_and_library(self):
        known = op_registry.registrations()
        self.assertEqual(known["Conv2D"], op_registry.Registration("RegisterConv2D", "conv_2d"))
        # One function registers several types.
        self.assertEqual(known["TopK"], op_registry.Registration("RegisterAxisOps", "axis_ops"))
        for registration in known.values():
            self.assertTrue((REPO / "mace" / "ops" / f"{registration.library}.cc").exists())

    def test_select_keeps_converters_first_and_skips_unknown_types(self):
        chosen = op_registry.select({"Softmax", "Conv2D", "MyCustomOp", "Conv2D"})
        self.assertEqual([r.function for r in chosen],
                         ["RegisterCpuConverters", "RegisterConv2D", "RegisterSoftmax"])

    def test_control_flow_only_when_a_model_has_it(self):
        for op_type in ("If", "Loop", "Scan"):
            chosen = op_registry.select({"Softmax", op_type})
            self.assertEqual([r.function for r in chosen],
                             ["RegisterCpuConverters", "RegisterControlFlow", "RegisterSoftmax"])
            files = op_registry.render("flow", chosen, "//mace/libmace:engine_cpu")
            self.assertIn("      RegisterControlFlow,\n", files["registry.cc"])
            # The core is in every engine: no op library for it.
            self.assertNotIn('"//mace/ops:op_"', files["BUILD.bazel"])
            self.assertIn('"//mace/ops:op_softmax",', files["BUILD.bazel"])
        self.assertNotIn("RegisterControlFlow",
                         [r.function for r in op_registry.select({"Softmax"})])

    def test_the_engine_test_registry_is_what_the_generator_writes(self):
        files = op_registry.render("op_set_test",
                                   op_registry.select({"Eltwise", "Activation"}),
                                   "//mace/libmace:engine_cpu")
        self.assertEqual(files["registry.cc"], TEST_REGISTRY.read_text())
        self.assertIn('"//mace/ops:op_eltwise",', files["BUILD.bazel"])
        self.assertNotIn("op_softmax", files["BUILD.bazel"])
        self.assertIn('return "op_set_test";', files["registry.cc"])
        self.assertIn('engine = "//mace/libmace:engine_cpu"', files["BUILD.bazel"])
        self.assertIn("    c_api = True,\n", files["BUILD.bazel"])
        without = op_registry.render("op_set_test", op_registry.select({"Eltwise"}),
                                     "//mace/libmace:engine_cpu", c_api=False)
        self.assertIn("    c_api = False,\n", without["BUILD.bazel"])

    def test_graph_op_types_include_subgraphs(self):
        from mace_tools import proto
        net = proto.load().NetDef()
        net.op.add(type="If", name="branch")
        inner = net.subgraphs.add()
        inner.op.add(type="Softmax", name="s")
        inner.subgraphs.add().op.add(type="Gather", name="g")
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "net.pb"
            path.write_bytes(net.SerializeToString())
            self.assertEqual(op_registry.graph_op_types(path), {"If", "Softmax", "Gather"})
        self.assertEqual(op_registry.control_flow_types(), {"If", "Loop", "Scan"})


class BuildFlagsTest(unittest.TestCase):
    def config(self, **changes):
        document = copy.deepcopy(BASE)
        runtime = changes.pop("runtime", None)
        if runtime:
            document["models"]["net"]["runtime"] = runtime
        document.update(changes)
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "deploy.yml"
            path.write_text(yaml.safe_dump(document, sort_keys=False))
            return load_config(path)

    def test_cpu_models_build_without_other_runtimes(self):
        self.assertEqual(build.library_target(self.config()), "//mace/codegen/cpu:libmace")
        self.assertEqual(build.mace_run_target(self.config()), "//mace/codegen/cpu:mace_run")
        for runtime in ("gpu", "cpu+gpu"):
            config = self.config(runtime=runtime)
            self.assertEqual(build.library_target(config), "//mace/codegen:libmace")
            self.assertEqual(build.mace_run_target(config), build.MACE_RUN)
        self.assertEqual(build.library_target(self.config(build_type="code")),
                         "//mace/codegen/cpu:libmace_code")

    def test_model_specific_library_builds_the_generated_package(self):
        config = self.config(model_specific_library=1)
        self.assertTrue(config.model_specific_library)
        self.assertEqual(build.library_target(config), "//mace/codegen/op_registry:libmace")
        self.assertEqual(build.mace_run_target(config), "//mace/codegen/op_registry:mace_run")
        self.assertFalse(self.config().model_specific_library)


if __name__ == "__main__":
    unittest.main()
