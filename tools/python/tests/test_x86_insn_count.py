"""tools/x86_insn_count.sh: the plugin counting x86-64 code under
qemu-x86_64 with an AVX2 + FMA CPU model, which must hide AVX-512 from cpuid,
and the report. The whole-model runs are the tool itself (minutes)."""
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from mace_tools import qemu_insn_count, x86_insn_count

# The iterations come from argv[1]; the loop body is exactly three
# instructions, one of them an FMA on ymm registers. It prints which of
# AVX2, FMA and AVX-512F cpuid reports.
LOOP_SOURCE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  __builtin_cpu_init();
  printf("avx2=%d fma=%d avx512f=%d\n", __builtin_cpu_supports("avx2") != 0,
         __builtin_cpu_supports("fma") != 0, __builtin_cpu_supports("avx512f") != 0);
  long n = argc > 1 ? atol(argv[1]) : 0;
  if (n <= 0) return 0;
  __asm__ volatile("vxorps %%ymm0, %%ymm0, %%ymm0\n"
                   "1:\n  vfmadd231ps %%ymm0, %%ymm0, %%ymm1\n  subq $1, %0\n  jne 1b\n"
                   : "+r"(n) : : "xmm0", "xmm1", "cc");
  return 0;
}
"""


@unittest.skipUnless(shutil.which("gcc") and shutil.which("qemu-x86_64"),
                     "needs gcc and qemu-x86_64")
class PluginTest(unittest.TestCase):
    def test_counts_avx2_code_on_a_cpu_model_without_avx512(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            plugin = qemu_insn_count.build_plugin(tmp / "libinsn_count.so")
            (tmp / "loop.c").write_text(LOOP_SOURCE)
            program = tmp / "loop"
            subprocess.run(["gcc", "-O1", "-static", "-o", str(program), str(tmp / "loop.c")],
                           check=True)

            def executed(iterations: int, option: str = "") -> int:
                result = subprocess.run(["qemu-x86_64", "-cpu", x86_insn_count.DEFAULT_CPU, "-d",
                                         "plugin", "-plugin", str(plugin) + option,
                                         str(program), str(iterations)],
                                        capture_output=True, text=True, check=True)
                self.assertIn("avx2=1 fma=1 avx512f=0", result.stdout)
                count = qemu_insn_count.parse_count(result.stdout + result.stderr)
                self.assertIsNotNone(count, result.stderr)
                if option:
                    symbols = dict(qemu_insn_count.parse_symbols(result.stderr))
                    self.assertGreater(symbols.get("main", 0), 3 * iterations)
                return count

            # Same digit count, so atol's own instructions cancel out (glibc's
            # strtol takes two more for an 8 or a 9).
            base = executed(1000)
            self.assertEqual(executed(3000) - base, 3 * 2000)
            self.assertEqual(executed(5000, ",symbols=10") - base, 3 * 4000)


class ReportTest(unittest.TestCase):
    def test_rows_ratios_and_functions(self):
        rows = [x86_insn_count.Row("m", "mace", 600_000_000, 150_000_000,
                                   [("BkConvTile<6, 2, 1, false, true>", 74.25)]),
                x86_insn_count.Row("m", "ort", 600_000_000, 120_000_000),
                x86_insn_count.Row("m", "ncnn", 600_000_000, 200_000_000)]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.md"
            x86_insn_count.write_report(rows, path, "tools/x86_insn_count.sh --models m", 90.0,
                                        "Haswell")
            text = path.read_text()
        self.assertIn("| m | MACE | 600 | 150.0 | 4.00 |  |", text)
        self.assertIn("| m | ORT | 600 | 120.0 | 5.00 | 1.25x |", text)
        self.assertIn("| m | ncnn | 600 | 200.0 | 3.00 | 0.75x |", text)
        self.assertIn("`qemu-x86_64 -cpu Haswell`", text)
        self.assertIn("- m: `BkConvTile<6, 2, 1, false, true>` 74.2%", text)

    def test_only_a_full_run_rewrites_the_checked_in_report(self):
        models, engines = x86_insn_count.DEFAULT_MODELS, list(x86_insn_count.ENGINES)
        self.assertEqual(x86_insn_count.default_report(models, engines, "Haswell"),
                         x86_insn_count.FULL_REPORT)
        for partial in ((models[:1], engines, "Haswell"), (models, ["mace"], "Haswell"),
                        (models, engines, "EPYC-Rome")):
            with self.subTest(partial=partial):
                report = x86_insn_count.default_report(*partial)
                self.assertEqual(report, x86_insn_count.PARTIAL_REPORT)
                self.assertEqual(report.relative_to(qemu_insn_count.REPO).parts[0], "build")

    def test_unknown_names_are_refused(self):
        with self.assertRaises(SystemExit):
            x86_insn_count.names("mobilenet_v1,lenet", x86_insn_count.DEFAULT_MODELS, "model")
        self.assertEqual(x86_insn_count.names("resnet18,,resnet18",
                                              x86_insn_count.DEFAULT_MODELS, "model"),
                         ["resnet18"])


if __name__ == "__main__":
    unittest.main()
