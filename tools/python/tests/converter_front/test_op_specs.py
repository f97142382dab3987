"""The op specs (mace_converter/op_specs.py) against the engine: every op
type the C++ code registers has a spec with a shape rule, a numpy
reference (or a reason in the short list below) and a docs section, and
the DSP and uint8 traits match the engine's."""
from __future__ import annotations

import re
import unittest
from pathlib import Path
from unittest import mock

from mace_converter import dsp_ops, op_specs
from mace_converter.ir import FLOAT32, UINT8, Graph
from mace_converter.numpy_ops import KERNELS
from mace_converter.op_registry import function_bodies, registered_types
from mace_converter.progress import REPO
from mace_converter.quantize.graph_pass import UINT8_KERNELS, Uint8Kernel
from mace_converter.shape_inference import RULES
from mace_tools import dsp_op_list

# Ops without a numpy reference; each spec's `no_numpy` says why.
NO_NUMPY = {"Assign", "Dequantize", "If", "Loop", "Quantize", "Scan"}


def engine_op_types(repo: Path = REPO) -> set[str]:
    """Op types registered by the Register<Op> functions that
    mace/ops/registry.cc calls, plus the control-flow ops the core runs
    once the registry calls RegisterControlFlow (mace/core/control_flow.cc)."""
    listing = function_bodies((repo / "mace/ops/registry.cc").read_text(),
                              r"MaceStatus (RegisterAllOps)\(OpRegistry\* \w+\)")
    listed = set(re.findall(r"\b(Register\w+)\s*,", listing["RegisterAllOps"]))
    control_flow = "RegisterControlFlow" in listed
    listed.discard("RegisterControlFlow")
    found: dict[str, str] = {}
    for path in (repo / "mace/ops").rglob("*.cc"):
        if not path.name.endswith("_test.cc"):
            found.update(function_bodies(path.read_text(),
                                         r"MaceStatus (Register\w+)\(OpRegistry\*\s*\w+\)"))
    missing = listed - set(found)
    if missing:
        raise ValueError(f"registry.cc calls {sorted(missing)}, not defined in mace/ops")
    types = set()
    for name in listed:
        types |= registered_types(found[name], name)
    control = function_bodies((repo / "mace/core/control_flow.cc").read_text(),
                              r"bool (IsControlFlowOp)\(const std::string& \w+\)")
    if control_flow:
        types |= set(re.findall(r'== "(\w+)"', control["IsControlFlowOp"]))
    return types


def dsp_types(repo: Path = REPO) -> tuple[set[str], set[str]]:
    """The op types the Hexagon executor translates to a DSP kernel, and the
    ones it runs as a rename: mace/dsp/ops.inc, which the executor includes."""
    ops = dsp_op_list.parse((repo / "mace/dsp/ops.inc").read_text())
    return set(ops.kernels), set(ops.renames)


def slug(heading: str) -> str:
    """The anchor a markdown renderer gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def doc_sections(page: Path) -> dict[str, str]:
    """Each section's text by the anchor of its heading."""
    sections, anchor = {}, None
    for line in page.read_text().splitlines():
        heading = re.match(r"#+ (.*)", line)
        if heading:
            anchor = slug(heading.group(1))
            sections[anchor] = ""
        elif anchor is not None:
            sections[anchor] += line + "\n"
    return sections


class EngineParseTest(unittest.TestCase):
    def test_reads_both_call_forms_and_refuses_a_computed_type(self):
        body = function_bodies(
            'MaceStatus RegisterX(OpRegistry* r) {\n  // r->Register("Old", ...)\n'
            '  MACE_RETURN_IF_ERROR(r->Register(\n "A", DeviceType::CPU, DT_FLOAT, NewA));\n'
            '  return RegisterOp<B>(r, "B", DeviceType::CPU, DT_FLOAT); }\n'
            'MaceStatus RegisterY(OpRegistry* r) { return r->Register(kName, x); }',
            r"MaceStatus (Register\w+)\(OpRegistry\*\s*\w+\)")
        self.assertEqual(registered_types(body["RegisterX"], "RegisterX"), {"A", "B"})
        with self.assertRaises(ValueError):
            registered_types(body["RegisterY"], "RegisterY")

    def test_finds_the_engine_ops(self):
        types = engine_op_types()
        self.assertTrue({"Conv2D", "MaxPool3D", "QuantizeLinear", "Loop", "Quantize"} <= types)
        self.assertEqual(dsp_types()[1], {"Reshape", "Squeeze", "Identity"})


class OpSpecsTest(unittest.TestCase):
    specs = op_specs.all_specs()

    def test_every_engine_op_has_a_spec_and_every_spec_is_an_engine_op(self):
        engine = engine_op_types()
        self.assertEqual(sorted(engine - set(self.specs)), [], "engine ops without a spec")
        self.assertEqual(sorted(set(self.specs) - engine), [], "specs of no engine op")

    def test_every_spec_has_a_shape_rule(self):
        self.assertEqual(sorted(t for t, s in self.specs.items() if s.shape_rule is None), [])

    def test_every_spec_has_a_numpy_kernel_or_an_exemption(self):
        exempt = {t for t, s in self.specs.items() if s.numpy_kernel is None}
        self.assertEqual(exempt, NO_NUMPY)
        for op_type in NO_NUMPY:
            self.assertTrue(self.specs[op_type].no_numpy, f"{op_type}: no reason given")
        self.assertEqual([t for t, s in self.specs.items() if s.no_numpy and s.numpy_kernel], [])

    def test_every_spec_names_a_docs_section_that_documents_it(self):
        for op_type, spec in self.specs.items():
            page, _, anchor = spec.docs.partition("#")
            path = REPO / "docs" / "reference" / page
            self.assertTrue(page.startswith(("ops.md", "ops/")) and path.is_file(),
                            f"{op_type}: {spec.docs} is not an ops page")
            sections = doc_sections(path)
            self.assertIn(anchor, sections, f"{op_type}: no section #{anchor} in {page}")
            named = (re.search(rf"\b{op_type}\b", sections[anchor])
                     or op_type.lower() in anchor.split("-"))
            self.assertTrue(named, f"{op_type}: section {spec.docs} does not name it")

    def test_dsp_traits_match_the_hexagon_executor(self):
        kernels, renames = dsp_types()
        self.assertEqual(set(dsp_ops.DSP_OPS), kernels)
        self.assertEqual(set(dsp_ops.RENAMES), renames)

    def test_uint8_and_dsp_ops_have_specs(self):
        for op_type in [*UINT8_KERNELS, *dsp_ops.DSP_OPS, *dsp_ops.RENAMES]:
            self.assertIn(op_type, self.specs)
        self.assertIs(UINT8_KERNELS["Conv2D"], self.specs["Conv2D"].uint8)
        self.assertIs(KERNELS["Conv2D"], self.specs["Conv2D"].numpy_kernel)
        self.assertIs(RULES["Conv2D"], self.specs["Conv2D"].shape_rule)


    def test_quantize_and_dequantize_keep_the_shape_and_set_the_type(self):
        graph = Graph("q")
        graph.add_input("x", [1, 3, 4, 4])
        quantized = graph.add_op("Quantize", ["x"]).outputs[0]
        restored = graph.add_op("Dequantize", [quantized]).outputs[0]
        self.assertEqual([(graph.tensor(n).shape, graph.tensor(n).dtype)
                          for n in (quantized, restored)],
                         [((1, 3, 4, 4), UINT8), ((1, 3, 4, 4), FLOAT32)])

class SpecFieldTest(unittest.TestCase):
    def test_attaching_to_an_op_without_a_spec_fails(self):
        with self.assertRaisesRegex(KeyError, "no OpSpec for engine op type NoSuchOp"):
            op_specs.attach("shape_rule", "NoSuchOp")(lambda op, shapes, graph: [])
        with self.assertRaises(KeyError):
            UINT8_KERNELS["NoSuchOp"] = Uint8Kernel()

    def test_patching_a_view_changes_the_spec_and_restores_it(self):
        before = dict(UINT8_KERNELS)
        with mock.patch.dict(UINT8_KERNELS, {"Unary": Uint8Kernel()}):
            self.assertEqual(op_specs.SPECS["Unary"].uint8, Uint8Kernel())
            del UINT8_KERNELS["Conv2D"]
            self.assertIsNone(op_specs.SPECS["Conv2D"].uint8)
        self.assertEqual(dict(UINT8_KERNELS), before)
        self.assertIsNone(op_specs.SPECS["Unary"].uint8)


if __name__ == "__main__":
    unittest.main()
