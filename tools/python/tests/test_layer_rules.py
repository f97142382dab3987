"""The kernel layer's structural rules (mace_tools.layer_rules): the rule
engine on small sources, then the tree itself."""
from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

from mace_tools import layer_rules


class LayerRulesTest(unittest.TestCase):
    def _violations(self, text: str) -> list[str]:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            drivers = repo / layer_rules.CPU_DRIVERS
            drivers.mkdir(parents=True)
            (drivers / "driver.cc").write_text(text)
            return [v.rule for v in layer_rules.isa_violations(repo)]

    def test_each_rule_fires(self):
        cases = {
            "#if defined(__aarch64__)\n": "ISA preprocessor test",
            "#ifdef __AVX2__\n": "ISA preprocessor test",
            "#include <arm_neon.h>\n": "intrinsic header",
            "#include <immintrin.h>\n": "intrinsic header",
            "  acc = _mm256_fmadd_ps(a, b, acc);\n": "intrinsic",
            "  float32x4_t v = x;\n": "ISA vector type",
            "  __m512 v;\n": "ISA vector type",
            "  asm volatile(\"prfm pldl1keep, [%0]\" :: \"r\"(p));\n": "inline asm",
            "  arm::SgemmTile(a, b, c);\n": "per-ISA call",
            "  x86::Avx2Pack(a);\n": "per-ISA call",
        }
        for text, rule in cases.items():
            with self.subTest(text=text):
                self.assertIn(rule, self._violations(text))

    def test_neutral_code_passes(self):
        text = ("// arm::Sgemm is reached through the table (a comment)\n"
                "/* #if __aarch64__ in a block comment\n   _mm256_add_ps( */\n"
                "#if MACE_CPU_TESTING\n"
                "const KernelTable* table = ActiveKernelTable();\n"
                "float devarm = x86_count;  // names that merely contain arm or x86\n"
                "int vmax = std::max(a, b);\n"
                "#endif\n")
        self.assertEqual(self._violations(text), [])

    def test_getenv_readers_skip_tests(self):
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            (repo / "mace" / "utils").mkdir(parents=True)
            (repo / "mace" / "utils" / "overrides.cc").write_text('std::getenv("EXAMPLE_SETTING");\n')
            (repo / "mace" / "utils" / "overrides_test.cc").write_text('getenv("EXAMPLE_SETTING");\n')
            (repo / "mace" / "utils" / "quiet.cc").write_text('// getenv("EXAMPLE_SETTING")\n')
            self.assertEqual(layer_rules.getenv_files(repo), ["mace/utils/overrides.cc"])

    def test_feature_probes_only_in_cpu_features(self):
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            (repo / "mace" / "ops" / "x86").mkdir(parents=True)
            (repo / "mace" / "runtimes" / "cpu").mkdir(parents=True)
            kernel = repo / "mace" / "ops" / "x86" / "kernel.cc"
            kernel.write_text('// __builtin_cpu_supports("avx512bw") in a comment\n'
                              'bool HasVbmi() { return __builtin_cpu_supports("avx512vbmi"); }\n'
                              '#include <cpuid.h>\n'
                              '  __get_cpuid_count(7, 0, &a, &b, &c, &d);\n'
                              '  return getauxval(AT_HWCAP) & kDot;\n'
                              'int64_t CpuidCacheBytes(unsigned ebx, unsigned ecx);\n')
            (repo / "mace" / "runtimes" / "cpu" / "cpu_features.cc").write_text(
                '#include <cpuid.h>\n__cpuid(0, a, b, c, d);\n')
            found = layer_rules.feature_probe_violations(repo)
            self.assertEqual([(v.path, v.line) for v in found],
                             [("mace/ops/x86/kernel.cc", line) for line in (2, 3, 4, 5)])

    def test_function_comparisons_only_where_listed(self):
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            (repo / "mace" / "ops" / "cpu").mkdir(parents=True)
            (repo / "mace" / "ops" / "cpu" / "driver.cc").write_text(
                "if (run == arm::NeonGemmRun) {}\n"
                "if (handler != &NullHandler) {}\n"
                "if (&DefaultRun == run) {}\n"
                "if (type == DataType::kFloat || status != MaceStatus::MACE_SUCCESS) {}\n"
                "if (mode == kWholePlanes || count != Count(x) || dt == DT_FLOAT) {}\n"
                "// if (run == arm::NeonGemmRun) in a comment\n")
            (repo / "mace" / "ops" / "cpu" / "driver_test.cc").write_text(
                "EXPECT_TRUE(table.gemm == x86::Avx2Gemm);\n")
            found = layer_rules.function_compare_violations(repo)
            self.assertEqual([v.line for v in found], [1, 2, 3])

    def test_tree_compares_functions_only_where_listed(self):
        found = layer_rules.function_compare_violations()
        self.assertEqual(found, [], "\n".join(map(str, found)))
        for path in layer_rules.FUNCTION_COMPARE_FILES:
            text = (layer_rules.REPO / path).read_text()
            self.assertTrue(any(layer_rules.FUNCTION_COMPARE.search(layer_rules._code(line))
                                for line in text.splitlines()),
                            f"{path} compares no function now; remove it from the list")

    def test_size_compiled_files_read_no_elements(self):
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            ops = repo / "mace" / "ops"
            (ops / "common").mkdir(parents=True)
            (repo / ".bazelrc").write_text(
                "build --per_file_copt=^mace/.*@-Werror\n"
                "build --per_file_copt=^mace/ops/[^/]*\\.cc$,^mace/ops/common/.*,-_test\\.cc$,"
                "-^mace/ops/pad\\.cc$@-Os\n")
            (ops / "front.cc").write_text(
                "OP_CHECK(input->dim_size() == 4, \"rank\");\n"
                "const float* x = input->data<float>();\n"
                "std::memcpy(out, in, bytes);\n"
                "// input->data<float>() in a comment\n")
            (ops / "common" / "helper.cc").write_text("auto* y = output->mutable_data<int>();\n")
            (ops / "pad.cc").write_text("const float* x = input->data<float>();\n")
            (ops / "front_test.cc").write_text("const float* x = input->data<float>();\n")
            found = layer_rules.size_compiled_element_access(repo)
            self.assertEqual(sorted((v.path, v.line) for v in found),
                             [("mace/ops/common/helper.cc", 1), ("mace/ops/front.cc", 2),
                              ("mace/ops/front.cc", 3)])

    def test_tree_size_compiles_no_element_loop(self):
        found = layer_rules.size_compiled_element_access()
        self.assertEqual(found, [], "\n".join(map(str, found)))
        bazelrc = (layer_rules.REPO / ".bazelrc").read_text()
        self.assertTrue(layer_rules.size_compiled("mace/ops/conv_2d.cc", bazelrc))
        self.assertFalse(layer_rules.size_compiled("mace/ops/pad.cc", bazelrc))
        self.assertFalse(layer_rules.size_compiled("mace/ops/cpu/conv_2d_cpu.cc", bazelrc))

    def test_tree_probes_features_in_one_place(self):
        found = layer_rules.feature_probe_violations()
        self.assertEqual(found, [], "\n".join(map(str, found)))

    def test_pending_list_only_shrinks(self):
        drivers = layer_rules.CPU_DRIVERS
        pending = frozenset({f"{drivers}/old_driver.cc", f"{drivers}/clean_driver.cc"})
        stray = layer_rules.Violation(f"{drivers}/new_driver.cc", 3, "intrinsic",
                                      "_mm256_add_ps(a, b)")
        listed = layer_rules.Violation(f"{drivers}/old_driver.cc", 1, "intrinsic",
                                       "_mm256_add_ps(a, b)")
        problems = layer_rules.layering_problems([stray, listed], pending)
        self.assertIn(str(stray), problems)
        self.assertNotIn(str(listed), problems)
        # A pending file with no violation left is reported as ISA-free.
        self.assertIn(f"{drivers}/clean_driver.cc: ISA-free now; remove it from PENDING_ISA_FILES",
                      problems)
        self.assertEqual(len(problems), 2)

    def test_no_driver_is_pending(self):
        self.assertEqual(layer_rules.PENDING_ISA_FILES, frozenset())

    def test_cpu_drivers_are_isa_free_but_the_pending_ones(self):
        problems = layer_rules.layering_problems(layer_rules.isa_violations())
        self.assertEqual(problems, [], "\n".join(problems[:40]))

    def test_environment_read_in_few_files(self):
        readers = layer_rules.getenv_files()
        self.assertLessEqual(len(readers), layer_rules.MAX_GETENV_FILES, readers)


if __name__ == "__main__":
    unittest.main()
