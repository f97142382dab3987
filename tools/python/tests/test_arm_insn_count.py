"""The instruction-count plugin and report of tools/arm_insn_count.sh. The
plugin test runs a hand-written aarch64 loop whose instruction count is known
exactly; the whole-model runs are the tool itself (minutes)."""
import io
import shutil
import subprocess
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from mace_tools import arm_insn_count, ncnn_arm

# The iterations come from argv[1]; the loop body is exactly three
# instructions, in each ABI's assembly.
LOOP_SOURCE = r"""
#include <stdlib.h>
int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 0;
  if (n <= 0) return 0;
  __asm__ volatile(LOOP : "+r"(n) : : SCRATCH, "cc");
  return 0;
}
"""
# ABI -> (compiler, qemu, the loop's assembly, its scratch register).
LOOPS = {
    "arm64-v8a": ("aarch64-linux-gnu-gcc", "qemu-aarch64",
                  r'"1:\n  add x9, x9, #1\n  subs %0, %0, #1\n  b.ne 1b\n"', '"x9"'),
    "armeabi-v7a": ("arm-linux-gnueabihf-gcc", "qemu-arm",
                    r'"1:\n  add r3, r3, #1\n  subs %0, %0, #1\n  bne 1b\n"', '"r3"'),
}


@unittest.skipUnless(shutil.which("gcc"), "needs gcc")
class PluginTest(unittest.TestCase):
    def check_abi(self, abi: str) -> None:
        compiler, qemu, loop, scratch = LOOPS[abi]
        if not (shutil.which(compiler) and shutil.which(qemu)):
            self.skipTest(f"needs {compiler} and {qemu}")
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            plugin = arm_insn_count.build_plugin(tmp / "libinsn_count.so")
            (tmp / "loop.c").write_text(f"#define LOOP {loop}\n#define SCRATCH {scratch}\n"
                                        + LOOP_SOURCE)
            program = tmp / "loop"
            subprocess.run([compiler, "-O1", "-static", "-o", str(program),
                            str(tmp / "loop.c")], check=True)

            def executed(iterations: int, option: str = "") -> int:
                # An empty environment: the C library's start-up
                # (__tunables_init) walks every variable, and under a CI
                # runner's many it executed more instructions than main.
                result = subprocess.run([qemu, "-d", "plugin", "-plugin",
                                         str(plugin) + option, str(program), str(iterations)],
                                        capture_output=True, text=True, check=True, env={})
                text = result.stdout + result.stderr
                count = arm_insn_count.parse_count(text)
                self.assertIsNotNone(count, result.stderr)
                if option:
                    symbols = arm_insn_count.parse_symbols(text)
                    self.assertEqual(len(symbols), 3)
                    self.assertEqual(symbols[0][0], "main")
                    self.assertGreater(symbols[0][1], 3 * iterations)
                    self.assertLessEqual(sum(n for _, n in symbols), count)
                return count

            # Same digit count, so atol's own instructions cancel out.
            base = executed(1000)
            self.assertGreater(base, 3000)
            self.assertEqual(executed(5000) - base, 3 * 4000)
            self.assertEqual(executed(9000) - base, 3 * 8000)
            # Per-function counting leaves the total as it was.
            self.assertEqual(executed(9000, ",symbols=3") - base, 3 * 8000)

    def test_counts_every_executed_instruction_arm64(self):
        self.check_abi("arm64-v8a")

    def test_counts_every_executed_instruction_armv7(self):
        self.check_abi("armeabi-v7a")


class ReportTest(unittest.TestCase):
    def test_parse_count(self):
        self.assertEqual(arm_insn_count.parse_count("noise\ninsn_count: 12345\n"), 12345)
        self.assertIsNone(arm_insn_count.parse_count("insn_count: \n"))

    def test_short_names(self):
        self.assertEqual(arm_insn_count.short_name("mace::ops::arm::NeonGemm(long, float const*)"),
                         "NeonGemm")
        self.assertEqual(
            arm_insn_count.short_name("mace::ops::(anonymous namespace)::Panel<32>(float const*)"),
            "Panel<32>")
        self.assertEqual(arm_insn_count.short_name("std::vector<a::b>::push_back(int)"),
                         "push_back")
        self.assertEqual(arm_insn_count.short_name("memcpy"), "memcpy")
        self.assertEqual(arm_insn_count.short_name(
            "void mace::ops::arm::(anonymous namespace)::Tile<3, false, "
            "(mace::ops::arm::(anonymous namespace)::TileAct)1>(long)"),
            "Tile<3, false, (TileAct)1>")

    def test_per_inference_functions(self):
        # Loading runs `load` once in each process; the longer one ran two
        # more inferences of 100 instructions: 80 in gemm, 20 in pack.
        one = [("load", 500), ("gemm", 90), ("pack", 20)]
        more = [("load", 500), ("gemm", 250), ("pack", 60), ("[table full]", 7)]
        top = arm_insn_count.per_inference_functions(one, more, 2, 100.0)
        self.assertEqual([name for name, _ in top], ["gemm", "pack"])
        self.assertAlmostEqual(top[0][1], 80.0)
        self.assertAlmostEqual(top[1][1], 20.0)
        self.assertEqual(arm_insn_count.per_inference_functions(one, more, 2, 100.0, limit=1),
                         top[:1])
        # A function the shorter process's full list left out counts there as
        # its smallest listed count.
        listed = arm_insn_count.LISTED_SYMBOLS
        one = [(f"f{i}", 1000 - i) for i in range(listed)]
        more = [("late", 2 * 1000)] + one
        top = arm_insn_count.per_inference_functions(one, more, 2, 1000.0)
        self.assertEqual(top, [("late", 100.0 * (2000 - (1000 - listed + 1)) / 2 / 1000.0)])

    def test_only_a_full_run_rewrites_the_checked_in_report(self):
        models = ",".join(arm_insn_count.DEFAULT_MODELS)
        abis = ",".join(arm_insn_count.ABIS)
        kernels = ",".join(arm_insn_count.ALL_KERNELS)
        self.assertEqual(arm_insn_count.default_report(models, abis, kernels),
                         arm_insn_count.FULL_REPORT)
        for partial in (("mobilenet_v2", abis, kernels), (models, "arm64-v8a", kernels),
                        (models, abis, "neon"), (models, abis, "neon,neon_blocked,ref")):
            with self.subTest(partial=partial):
                report = arm_insn_count.default_report(*partial)
                self.assertEqual(report, arm_insn_count.PARTIAL_REPORT)
                self.assertEqual(report.relative_to(arm_insn_count.REPO).parts[0], "build")

    def test_report_rows_and_ratio(self):
        rows = [arm_insn_count.Row("m", "arm64-v8a", "neon", 600_000_000, 300_000_000),
                arm_insn_count.Row("m", "arm64-v8a", "ref", 600_000_000, 6_000_000_000)]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.md"
            arm_insn_count.write_report(rows, path, "tools/arm_insn_count.sh --models m", 90.0)
            text = path.read_text()
        self.assertIn("| m | arm64-v8a | neon | 600 | 300.0 | 2.00 | 20.0x |", text)
        self.assertIn("| m | arm64-v8a | ref | 600 | 6000.0 | 0.10 |  |", text)
        self.assertIn("`tools/arm_insn_count.sh --models m`", text)
        self.assertNotIn("Where the instructions", text)
        self.assertNotIn("against ncnn", text)
        rows[0].top = [("NeonGemm", 61.25), ("memcpy", 3.0)]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.md"
            arm_insn_count.write_report(rows, path, "tools/arm_insn_count.sh", 90.0)
            text = path.read_text()
        self.assertIn("- m, arm64-v8a, neon: `NeonGemm` 61.2%, `memcpy` 3.0%", text)

    def test_ncnn_comparison(self):
        rows = [arm_insn_count.Row("m", "arm64-v8a", "neon", 600_000_000, 300_000_000),
                arm_insn_count.Row("m", "arm64-v8a", "ncnn_fp32", 600_000_000, 250_000_000),
                arm_insn_count.Row("m", "arm64-v8a", "ncnn_default", 600_000_000, 150_000_000),
                arm_insn_count.Row("m", "armeabi-v7a", "neon", 600_000_000, 400_000_000)]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.md"
            arm_insn_count.write_report(rows, path, "tools/arm_insn_count.sh", 90.0)
            text = path.read_text()
        self.assertIn("| m | arm64-v8a | ncnn_fp32 | 600 | 250.0 | 2.40 |  |", text)
        self.assertIn("| m | arm64-v8a | 300.0 | 250.0 | 150.0 | 1.20x | 2.00x |  |  |", text)
        # No ncnn row for armv7: no comparison row either.
        self.assertNotIn("| m | armeabi-v7a | 400.0 |", text)

    def test_fp16_against_ncnn_defaults(self):
        rows = [arm_insn_count.Row("m", "arm64-v8a", "neon", 600_000_000, 300_000_000),
                arm_insn_count.Row("m", "arm64-v8a", "ncnn_default", 600_000_000, 150_000_000),
                arm_insn_count.Row("m", "arm64-v8a", "neon_fp16", 600_000_000, 180_000_000),
                # fp16 counted without fp32: its columns alone.
                arm_insn_count.Row("n", "arm64-v8a", "ncnn_default", 100_000_000, 40_000_000),
                arm_insn_count.Row("n", "arm64-v8a", "neon_fp16", 100_000_000, 30_000_000)]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.md"
            arm_insn_count.write_report(rows, path, "tools/arm_insn_count.sh", 90.0)
            text = path.read_text()
        self.assertIn("| MACE neon_fp16 | MACE fp16 / ncnn defaults |", text)
        self.assertIn("| m | arm64-v8a | 300.0 |  | 150.0 |  | 2.00x | 180.0 | 1.20x |", text)
        self.assertIn("| n | arm64-v8a |  |  | 40.0 |  |  | 30.0 | 0.75x |", text)


    def test_rows_kept_from_an_earlier_report(self):
        earlier = [arm_insn_count.Row("m", "arm64-v8a", "neon", 144_600_000, 58_100_000,
                                      [("AsmTile", 71.1)]),
                   arm_insn_count.Row("m", "arm64-v8a", "ncnn_default", 144_600_000, 61_800_000),
                   arm_insn_count.Row("m", "arm64-v8a", "neon_fp16", 144_600_000, 70_000_000,
                                      [("FullTile", 60.0)])]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.md"
            arm_insn_count.write_report(earlier, path, "tools/arm_insn_count.sh", 90.0)
            path.write_text(path.read_text() + "\n## A note\n\nWritten by hand.\n")
            kept, notes = arm_insn_count.read_report(path)
            self.assertEqual([(r.kernels, r.per_inference) for r in kept],
                             [("neon", 58.1e6), ("ncnn_default", 61.8e6), ("neon_fp16", 70e6)])
            self.assertEqual(kept[0].top, [("AsmTile", 71.1)])
            self.assertEqual(notes, ["## A note\n\nWritten by hand."])
            # A new fp16 count replaces the kept one; the others stay, as printed.
            counted = [arm_insn_count.Row("m", "arm64-v8a", "neon_fp16", 144_600_000, 50_000_000)]
            rows, old = arm_insn_count.merge_rows(counted, kept)
            self.assertEqual([r.kernels for r in rows], ["neon", "ncnn_default", "neon_fp16"])
            self.assertEqual([r.kernels for r in old], ["neon", "ncnn_default"])
            arm_insn_count.write_report(rows, path, "tools/arm_insn_count.sh", 90.0, old, notes,
                                        "earlier.md")
            text = path.read_text()
        self.assertIn("| m | arm64-v8a | neon | 145 | 58.1 | 2.49 |  |", text)
        self.assertIn("| m | arm64-v8a | neon_fp16 | 145 | 50.0 | 2.89 |  |", text)
        self.assertIn("| m | arm64-v8a | 58.1 |  | 61.8 |  | 0.94x | 50.0 | 0.81x |", text)
        self.assertIn("Rows kept from `earlier.md`", text)
        self.assertIn("m arm64-v8a neon, m arm64-v8a ncnn_default", text)
        self.assertIn("- m, arm64-v8a, neon: `AsmTile` 71.1%", text)
        self.assertNotIn("FullTile", text)
        self.assertTrue(text.rstrip().endswith("Written by hand."))

    def test_armv7_rows_join_the_kept_arm64_rows(self):
        kept = [arm_insn_count.Row("m", "arm64-v8a", "neon", 300_000_000, 100_000_000),
                arm_insn_count.Row("m", "arm64-v8a", "ncnn_fp32", 300_000_000, 80_000_000),
                arm_insn_count.Row("m", "armeabi-v7a", "neon", 300_000_000, 1e9)]
        counted = [
            arm_insn_count.Row("m", "armeabi-v7a", "ncnn_default", 300_000_000, 160_000_000,
                               [("innerproduct_fp16s", 1.5)]),
            arm_insn_count.Row("m", "armeabi-v7a", "neon", 300_000_000, 240_000_000),
            arm_insn_count.Row("m", "armeabi-v7a", "ncnn_fp32", 300_000_000, 150_000_000)]
        rows, old = arm_insn_count.merge_rows(counted, kept)
        # The recount replaces the kept armv7 neon row; rows go by ABI, then kernels.
        self.assertEqual([(r.abi, r.kernels) for r in old],
                         [("arm64-v8a", "neon"), ("arm64-v8a", "ncnn_fp32")])
        self.assertEqual([(r.abi, r.kernels) for r in rows],
                         [("arm64-v8a", "neon"), ("arm64-v8a", "ncnn_fp32"),
                          ("armeabi-v7a", "neon"), ("armeabi-v7a", "ncnn_fp32"),
                          ("armeabi-v7a", "ncnn_default")])
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.md"
            arm_insn_count.write_report(rows, path, "tools/arm_insn_count.sh", 90.0, old, [],
                                        "kept.md")
            text = path.read_text()
            again, _ = arm_insn_count.read_report(path)
        self.assertIn("| m | arm64-v8a | 100.0 | 80.0 |  | 1.25x |  |  |  |", text)
        self.assertIn("| m | armeabi-v7a | 240.0 | 150.0 | 160.0 | 1.60x | 1.50x |  |  |", text)
        self.assertIn("- m, armeabi-v7a, ncnn_default: `innerproduct_fp16s` 1.5%", text)
        self.assertIn("command: m arm64-v8a neon, m arm64-v8a ncnn_fp32\n", text)
        # What the tool wrote reads back as it was.
        self.assertEqual([(r.abi, r.kernels, r.per_inference) for r in again],
                         [(r.abi, r.kernels, r.per_inference) for r in rows])

    def test_reports_merge_without_counting(self):
        Row = arm_insn_count.Row
        first = [Row("m", "arm64-v8a", "neon", 300_000_000, 100_000_000, [("AsmTile", 70.0)]),
                 Row("m", "armeabi-v7a", "neon", 300_000_000, 250_000_000)]
        second = [Row("m", "arm64-v8a", "neon", 300_000_000, 100_000_000, [("AsmTile", 70.0)]),
                  Row("m", "armeabi-v7a", "neon", 300_000_000, 240_000_000),
                  Row("m", "armeabi-v7a", "ncnn_fp32", 300_000_000, 200_000_000)]
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            for name, rows in (("a.md", first), ("b.md", second)):
                arm_insn_count.write_report(rows, tmp / name, "tools/arm_insn_count.sh", 60.0)
                (tmp / name).write_text((tmp / name).read_text() + "\n## A note\n\nKept.\n")
            out = tmp / "merged.md"
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                self.assertEqual(arm_insn_count.main(
                    ["--models", "", "--keep-rows-from", str(tmp / "a.md"), "--keep-rows-from",
                     str(tmp / "b.md"), "--report", str(out)]), 0)
            text = out.read_text()
        self.assertIn("--models '' --keep-rows-from", text)
        self.assertIn(f"Rows kept from `{tmp / 'a.md'}`, `{tmp / 'b.md'}`", text)
        # The later report's armv7 neon row wins; each row appears once.
        self.assertIn("| m | armeabi-v7a | neon | 300 | 240.0 | 1.25 |  |", text)
        self.assertNotIn("250.0", text)
        self.assertEqual(text.count("| m | arm64-v8a | neon |"), 1)
        self.assertIn("| m | armeabi-v7a | 240.0 | 200.0 |  | 1.20x |", text)
        self.assertIn("- m, arm64-v8a, neon: `AsmTile` 70.0%", text)
        self.assertEqual(text.count("## A note"), 1)

    def test_bad_arguments_are_clear_errors(self):
        for argv, message in (
                (["--abis", "armeabi"], "unknown ABI 'armeabi'"),
                (["--kernels", "neon,ncnn_fp16"], "unknown kernel set 'ncnn_fp16'"),
                (["--keep-rows-from", "/nonexistent/report.md"], "no report")):
            with self.subTest(argv=argv), redirect_stderr(io.StringIO()) as err:
                with self.assertRaises(SystemExit) as exit_:
                    arm_insn_count.main(argv)
                self.assertEqual(exit_.exception.code, 1)
                self.assertIn(message, err.getvalue())


class TransformerModelsTest(unittest.TestCase):
    """--models bert_torch: MACE's kernel sets are counted, ncnn's are not
    (its driver feeds one float input) and the report says why. The builds,
    conversion and qemu runs are replaced; what they do is tested above."""

    def test_groups_and_unknown_models(self):
        self.assertEqual(arm_insn_count.model_names("transformers,bert_torch"),
                         arm_insn_count.TRANSFORMER_MODELS)
        self.assertEqual(arm_insn_count.model_names(""), [])
        with redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
            arm_insn_count.model_names("bert_large")
        self.assertIn("unknown model bert_large", err.getvalue())

    def test_ncnn_takes_one_float_input(self):
        self.assertIn("feeds one input; bert_torch has 2 (input_ids, attention_mask)",
                      arm_insn_count.NcnnRunner.unsupported("bert_torch"))
        for name in ("vit_tiny", "whisper_tiny_encoder", "mobilenet_v2"):
            self.assertEqual(arm_insn_count.NcnnRunner.unsupported(name), "", name)

    def test_bert_counts_the_mace_kernels_and_names_the_skipped_ncnn_ones(self):
        from unittest import mock
        counted = []

        def fake_count(abi, binary, plugin, graph, data, kernels, rounds, symbols=0,
                       flags=None):
            counted.append((abi, tuple(sorted(kernels.items())), tuple(flags or ())))
            return 1000 + 500 * rounds, []

        def fake_command(abi, command, plugin, kernels, symbols, what, sysroot=None, cpu=""):
            counted.append((abi, "litert", command[-1], str(sysroot), cpu))
            return 1000 + 700 * int(command[-1]), []

        tool = arm_insn_count
        litert_model = tool.litert_arm.LiteRTModel(Path("b.tflite"), Path("f.npz"))
        with tempfile.TemporaryDirectory() as tmp:
            report = Path(tmp) / "report.md"
            with mock.patch.object(tool, "build_plugin", return_value=Path("plugin.so")), \
                    mock.patch.object(tool, "build_mace_run", return_value=Path("mace_run")), \
                    mock.patch.object(tool, "convert",
                                      return_value=(Path("b.pb"), Path("b.data"))), \
                    mock.patch.object(tool, "model_macs", return_value=2_000_000), \
                    mock.patch.object(tool, "count", side_effect=fake_count), \
                    mock.patch.object(tool, "count_command", side_effect=fake_command), \
                    mock.patch.object(tool.litert_arm, "sysroot", return_value=Path("root")), \
                    mock.patch.object(tool.litert_arm, "model", return_value=litert_model), \
                    mock.patch.object(tool.NcnnRunner, "model",
                                      side_effect=AssertionError("ncnn was asked")), \
                    redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
                self.assertEqual(tool.main(["--models", "bert_torch", "--abis", "arm64-v8a",
                                            "--report", str(report)]), 0)
            text = report.read_text()
        self.assertIn("skipping ncnn_fp32, ncnn_default for bert_torch", err.getvalue())
        # neon, neon_blocked, neon_fp16, ref and litert, each at two round counts.
        self.assertEqual(len(counted), 10)
        self.assertEqual(counted[-2:], [("arm64-v8a", "litert", "1", "root", "max,sme=off"),
                                        ("arm64-v8a", "litert", "3", "root", "max,sme=off")])
        for kernels in ("neon", "neon_blocked", "neon_fp16", "ref", "litert"):
            self.assertIn(f"| bert_torch | arm64-v8a | {kernels} | 2 | 0.0 |", text)
        self.assertNotIn("| bert_torch | arm64-v8a | ncnn", text)
        self.assertIn("## Not counted", text)
        self.assertIn("- bert_torch, ncnn_fp32 and ncnn_default: the ncnn driver", text)


class NcnnArmTest(unittest.TestCase):
    """The Python side of the ncnn columns; building ncnn is the tool's job."""

    def test_pinned_versions_have_a_source_address(self):
        version = ncnn_arm.pinned("ncnn")
        url, checksum = ncnn_arm.sdist(version)
        self.assertTrue(url.startswith("https://files.pythonhosted.org/"))
        self.assertTrue(url.endswith(f"/ncnn-{version}.tar.gz"))
        self.assertRegex(checksum, r"^[0-9a-f]{64}$")
        self.assertRegex(ncnn_arm.pinned("pnnx"), r"^\d+$")

    def test_unknown_versions_and_packages_are_clear_errors(self):
        with self.assertRaisesRegex(ncnn_arm.NcnnError, "no PyPI address"):
            ncnn_arm.sdist("0.0.1")
        with tempfile.TemporaryDirectory() as tmp:
            requirements = Path(tmp) / "requirements.txt"
            requirements.write_text("numpy==1.26.4\nncnn>=1.0\n")
            with self.assertRaisesRegex(ncnn_arm.NcnnError, "pins no version of ncnn"):
                ncnn_arm.pinned("ncnn", requirements)
            self.assertEqual(ncnn_arm.pinned("numpy", requirements), "1.26.4")

    def test_driver_arguments(self):
        args = ncnn_arm.driver_arguments(Path("a.param"), Path("a.bin"), [1, 3, 224, 200], 3,
                                         "fp32")
        self.assertEqual(args, ["a.param", "a.bin", "3", "224", "200", "3", "fp32"])
        with self.assertRaisesRegex(ncnn_arm.NcnnError, "unknown ncnn mode"):
            ncnn_arm.driver_arguments(Path("a"), Path("b"), [1, 3, 8, 8], 1, "fp16")
        with self.assertRaisesRegex(ncnn_arm.NcnnError, "one NCHW image"):
            ncnn_arm.driver_arguments(Path("a"), Path("b"), [2, 3, 8, 8], 1, "fp32")
        self.assertEqual(set(arm_insn_count.NCNN_KERNELS.values()), set(ncnn_arm.MODES))

    def test_armv7_build_is_hard_float_neon_with_only_the_needed_layers(self):
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp)
            (tree / "src").mkdir()
            declared = ["AbsVal", *ncnn_arm.LAYERS, "LSTM"]
            (tree / "src" / "CMakeLists.txt").write_text(
                "".join(f"ncnn_add_layer({name})\n" for name in declared[:-1])
                + "ncnn_add_layer(LSTM OFF)\n")
            command = ncnn_arm.configure_command("armeabi-v7a", tree)
            self.assertIn("-DCMAKE_CXX_COMPILER=arm-linux-gnueabihf-g++", command)
            flags = next(c for c in command if c.startswith("-DCMAKE_CXX_FLAGS="))
            self.assertEqual(flags.split("=", 1)[1].split(),
                             ["-march=armv7-a", "-mfloat-abi=hard", "-mfpu=neon"])
            self.assertIn("-DWITH_LAYER_convolution=ON", command)
            self.assertIn("-DWITH_LAYER_innerproduct=ON", command)
            self.assertIn("-DWITH_LAYER_absval=OFF", command)
            self.assertIn("-DWITH_LAYER_lstm=OFF", command)
            self.assertEqual(len([c for c in command if c.startswith("-DWITH_LAYER_")]),
                             len(declared))
            # arm64 builds the same layers, without extra flags.
            arm64 = ncnn_arm.configure_command("arm64-v8a", tree)
            self.assertFalse(any(c.startswith("-DCMAKE_CXX_FLAGS=") for c in arm64))
            self.assertEqual([c for c in arm64 if "WITH_LAYER" in c],
                             [c for c in command if "WITH_LAYER" in c])
            (tree / "src" / "CMakeLists.txt").write_text("ncnn_add_layer(Convolution)\n")
            with self.assertRaisesRegex(ncnn_arm.NcnnError, "declares no layer .*InnerProduct"):
                ncnn_arm.layer_options(tree)

    def test_cache_value(self):
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / "CMakeCache.txt"
            cache.write_text("//optimize armv7 platform with vfpv4\nNCNN_VFPV4:BOOL=ON\n"
                             "NCNN_VFPV4_EXTRA:BOOL=OFF\nCMAKE_C_FLAGS:STRING=-O2 -g\n")
            self.assertEqual(ncnn_arm.cache_value(cache, "NCNN_VFPV4"), "ON")
            self.assertEqual(ncnn_arm.cache_value(cache, "CMAKE_C_FLAGS"), "-O2 -g")
            self.assertIsNone(ncnn_arm.cache_value(cache, "NCNN_ARM82"))


if __name__ == "__main__":
    unittest.main()
