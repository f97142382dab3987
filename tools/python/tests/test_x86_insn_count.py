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

# Reads one byte of each 64-byte line of the first argv[1] bytes of a
# line-aligned buffer, argv[2] times over, with no other memory access in
# the loop.
WALK_SOURCE = r"""
#include <stdlib.h>
static char buffer[1 << 20] __attribute__((aligned(64)));
int main(int argc, char** argv) {
  if (argc < 3) return 1;
  const long bytes = atol(argv[1]), passes = atol(argv[2]);
  const volatile char* p = buffer;
  int sum = 0;
  for (long pass = 0; pass < passes; ++pass) {
    for (long i = 0; i < bytes; i += 64) sum += p[i];
  }
  return sum;
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


@unittest.skipUnless(shutil.which("gcc") and shutil.which("qemu-x86_64"),
                     "needs gcc and qemu-x86_64")
class CacheModelTest(unittest.TestCase):
    """The plugin's cache model on a walk over a buffer: one pass more adds
    its lines to the accesses, and to the misses of each level it does not
    fit."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        tmp = Path(self.tmp.name)
        self.plugin = qemu_insn_count.build_plugin(tmp / "libinsn_count.so")
        (tmp / "walk.c").write_text(WALK_SOURCE)
        self.program = tmp / "walk"
        subprocess.run(["gcc", "-O1", "-static", "-o", str(self.program), str(tmp / "walk.c")],
                       check=True)

    def tearDown(self):
        self.tmp.cleanup()

    def counts(self, caches: str, kilobytes: int, passes: int) -> qemu_insn_count.CacheCounts:
        result = subprocess.run(["qemu-x86_64", "-d", "plugin", "-plugin",
                                 f"{self.plugin},{caches}", str(self.program),
                                 str(kilobytes * 1024), str(passes)],
                                capture_output=True, text=True)
        counts = qemu_insn_count.parse_caches(result.stdout + result.stderr)
        self.assertIsNotNone(counts, result.stderr)
        return counts

    def extra_pass(self, caches: str, kilobytes: int) -> tuple[int, int, int]:
        one, three = self.counts(caches, kilobytes, 1), self.counts(caches, kilobytes, 3)
        return tuple((b - a) // 2 for a, b in zip(one, three))

    def test_misses_per_level(self):
        caches = x86_insn_count.plugin_caches("32K:8,512K:8")
        # 16 KiB stay in L1d, 64 KiB in L2 only (each set of L1d sees 16
        # lines in turn and keeps 8), 1 MiB in neither.
        self.assertEqual(self.extra_pass(caches, 16), (256, 0, 0))
        self.assertEqual(self.extra_pass(caches, 64), (1024, 1024, 0))
        self.assertEqual(self.extra_pass(caches, 1024), (16384, 16384, 16384))

    def test_bad_geometry_is_refused(self):
        for caches in ("l1d=1000:8,l2=524288:8", "l1d=32768:8", "l1d=32768:0,l2=524288:8",
                       "l1d=49152:8,l2=524288:8"):
            with self.subTest(caches=caches):
                result = subprocess.run(["qemu-x86_64", "-d", "plugin", "-plugin",
                                         f"{self.plugin},{caches}", str(self.program), "64",
                                         "1"], capture_output=True, text=True)
                self.assertNotEqual(result.returncode, 0)
                self.assertIn("insn_count:", result.stderr)


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

    def test_cache_geometry_option(self):
        self.assertEqual(x86_insn_count.plugin_caches("32K:8,512K:8"),
                         "l1d=32768:8,l2=524288:8")
        self.assertEqual(x86_insn_count.plugin_caches("48K:12,1M:16"),
                         "l1d=49152:12,l2=1048576:16")
        for bad in ("32K:8", "32K:8,512K:8,32M:16", "32K,512K:8", "48K:8,1M:16", "32K:0,1M:16",
                    "32X:8,1M:16"):
            with self.subTest(bad=bad), self.assertRaises(SystemExit):
                x86_insn_count.plugin_caches(bad)

    def test_cache_table(self):
        rows = [x86_insn_count.Row("m", "mace", 600_000_000, 150_000_000,
                                   caches=(2_000_000, 1_000_000, 250_000)),
                x86_insn_count.Row("m", "ort", 600_000_000, 120_000_000,
                                   caches=(1_500_000, 800_000, 500_000))]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.md"
            x86_insn_count.write_report(rows, path, "tools/x86_insn_count.sh --caches 32K:8,512K:8",
                                        90.0, "Haswell", "32K:8,512K:8")
            text = path.read_text()
        self.assertIn("`32K:8,512K:8`", text)
        self.assertIn("| m | MACE | 128.0 | 64.0 | 16.0 |  |", text)
        self.assertIn("| m | ORT | 96.0 | 51.2 | 32.0 | 0.50x |", text)
        models, engines = x86_insn_count.DEFAULT_MODELS, list(x86_insn_count.ENGINES)
        self.assertEqual(x86_insn_count.default_report(models, engines, "Haswell", "32K:8,512K:8"),
                         x86_insn_count.CACHES_REPORT)

    def test_unknown_names_are_refused(self):
        with self.assertRaises(SystemExit):
            x86_insn_count.names("mobilenet_v1,lenet", x86_insn_count.DEFAULT_MODELS, "model")
        self.assertEqual(x86_insn_count.names("resnet18,,resnet18",
                                              x86_insn_count.DEFAULT_MODELS, "model"),
                         ["resnet18"])


if __name__ == "__main__":
    unittest.main()
