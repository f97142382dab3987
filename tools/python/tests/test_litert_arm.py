"""LiteRT's kernel set in tools/arm_insn_count.sh: the arm64 sysroot's
refusals and pins, the guest script (run here by the host's Python on a
hand-built .tflite), and LiteRT's rows in the report. The counts themselves
are the tool's (minutes under qemu)."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

from mace_tools import arm_insn_count, litert_arm

HAVE_LITERT = all(importlib.util.find_spec(name) is not None
                  for name in ("ai_edge_litert", "tflite", "flatbuffers"))


class SysrootTest(unittest.TestCase):
    def test_refusal_names_what_is_missing(self):
        everything = lambda command: f"/usr/bin/{command}"  # noqa: E731
        self.assertEqual(litert_arm.refusal(everything, "arm64\narmhf\n"), "")
        no_qemu = lambda command: None if command == "qemu-aarch64" else "/bin/x"  # noqa: E731
        self.assertIn("no qemu-aarch64", litert_arm.refusal(no_qemu, "arm64\n"))
        refused = litert_arm.refusal(everything, "armhf\n")
        self.assertIn("arm64 architecture", refused)
        self.assertIn("dpkg --add-architecture arm64", refused)
        # "arm64" must be an architecture of its own, not part of another name.
        self.assertIn("arm64 architecture", litert_arm.refusal(everything, "arm64ilp32\n"))

    def test_sysroot_refuses_before_fetching_anything(self):
        calls = []

        def fake_run(command, **kwargs):
            calls.append(command)
            return subprocess.CompletedProcess(command, 0, "armhf\n", "")

        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "litert_arm"
            with mock.patch.object(litert_arm, "ROOT", root), \
                    mock.patch.object(litert_arm, "SYSROOT", root / "sysroot"), \
                    mock.patch.object(litert_arm.shutil, "which", lambda c: f"/usr/bin/{c}"), \
                    mock.patch.object(litert_arm.subprocess, "run", fake_run):
                with self.assertRaisesRegex(litert_arm.LiteRTError,
                                            "cannot make the arm64 Python.*arm64 architecture"):
                    litert_arm.sysroot(lambda text: None)
            self.assertFalse(root.exists())
        self.assertEqual(calls, [["dpkg", "--print-foreign-architectures"]])

    def test_wheel_pins(self):
        pins = litert_arm.wheel_pins(litert_arm.REQUIREMENTS.read_text())
        self.assertEqual(sorted(pins), ["ai-edge-litert", "numpy"])
        self.assertEqual(litert_arm.wheel_pins("numpy == 1.2.3  # why\nai_edge_litert==2.0\n"),
                         {"numpy": "1.2.3", "ai-edge-litert": "2.0"})
        with self.assertRaisesRegex(litert_arm.LiteRTError, "no version of ai-edge-litert"):
            litert_arm.wheel_pins("numpy==1.26.4\nai-edge-litert>=2\n")

    def test_the_stamp_changes_with_every_pin(self):
        pins = {"ai-edge-litert": "2.3.0", "numpy": "1.26.4"}
        text = litert_arm.pins_text(pins)
        for name, version in litert_arm.DEBIAN_PACKAGES.items():
            self.assertIn(f"{name}:arm64={version}\n", text)
        self.assertNotEqual(text, litert_arm.pins_text({**pins, "numpy": "1.26.5"}))
        self.assertIn("CPU part", text)

    def test_guest_command_runs_the_guest_script_without_user_site_or_bytecode(self):
        command = litert_arm.guest_command(Path("/r"), Path("m.tflite"), Path("f.npz"), 3)
        self.assertEqual(command, ["/r/usr/bin/python3.11", "-s", "-B",
                                   str(litert_arm.GUEST_SCRIPT), "m.tflite", "f.npz", "3"])
        self.assertEqual(litert_arm.GUEST_ENV, {"PYTHONHASHSEED": "0"})


@unittest.skipUnless(HAVE_LITERT, "needs ai_edge_litert, tflite and flatbuffers")
class GuestScriptTest(unittest.TestCase):
    """The guest script and the feeds file, with the host's LiteRT."""

    def model(self, directory: Path) -> Path:
        import tflite

        from tests.tflite.builder import Op, Spec, T, build
        # y = inputs_0 - inputs_1, with inputs_1 the graph's first input: the
        # feeds must follow onnx2tf's names, not the graph's order.
        spec = Spec([T("inputs_1", [2, 3]), T("inputs_0", [2, 3]), T("y", [2, 3])],
                    [Op(tflite.BuiltinOperator.SUB, [1, 0], [2])], [0, 1], [2])
        path = directory / "model.tflite"
        path.write_bytes(build(spec))
        return path

    def run_guest(self, *arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(litert_arm.GUEST_SCRIPT), *arguments],
                              capture_output=True, text=True, timeout=120)

    def test_invokes_with_the_feeds_in_onnx_order(self):
        rng = np.random.default_rng(1234)
        first = rng.random((2, 3), dtype=np.float32)
        second = rng.random((2, 3), dtype=np.float32) * 10
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            model = self.model(tmp)
            np.save(tmp / "a.npy", first)
            np.save(tmp / "b.npy", second)
            feeds = tmp / "feeds.npz"
            litert_arm.write_feeds(model, [("a", tmp / "a.npy"), ("b", tmp / "b.npy")], feeds)
            result = self.run_guest(str(model), str(feeds), "2")
            self.assertEqual(result.returncode, 0, result.stderr)
            expected = float(np.sum(first - second, dtype=np.float64))
            printed = float(result.stdout.split("output sum ")[1])
            self.assertAlmostEqual(printed, expected, places=4)

            with self.assertRaisesRegex(litert_arm.LiteRTError, "2 inputs, the model 1"):
                litert_arm.write_feeds(model, [("a", tmp / "a.npy")], feeds)
            np.save(tmp / "wide.npy", np.zeros((2, 4), np.float32))
            with self.assertRaisesRegex(litert_arm.LiteRTError, r"takes \[2, 3\]"):
                litert_arm.write_feeds(model, [("a", tmp / "wide.npy"),
                                               ("b", tmp / "b.npy")], feeds)

            np.savez(tmp / "short.npz", **{"7": first})
            result = self.run_guest(str(model), str(tmp / "short.npz"), "1")
            self.assertEqual(result.returncode, 1)
            self.assertIn("no array for input tensor", result.stderr)
            for invokes in ("0", "x"):
                self.assertEqual(self.run_guest(str(model), str(feeds), invokes).returncode, 2)


class ReportTest(unittest.TestCase):
    def rows(self) -> list[arm_insn_count.Row]:
        return [arm_insn_count.Row("m", "arm64-v8a", "neon", 600_000_000, 300_000_000),
                arm_insn_count.Row("m", "arm64-v8a", "ncnn_fp32", 600_000_000, 250_000_000),
                arm_insn_count.Row("m", "arm64-v8a", "litert", 600_000_000, 400_000_000),
                arm_insn_count.Row("n", "arm64-v8a", "litert", 100_000_000, 50_000_000)]

    def test_litert_against_mace_and_ncnn(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.md"
            arm_insn_count.write_report(self.rows(), path, "tools/arm_insn_count.sh", 60.0)
            text = path.read_text()
            rows, _ = arm_insn_count.read_report(path)
        self.assertIn("| m | arm64-v8a | litert | 600 | 400.0 | 1.50 |  |", text)
        self.assertIn("## MACE against LiteRT", text)
        self.assertIn("| m | arm64-v8a | 300.0 | 400.0 | 0.75x | 250.0 | 1.20x |", text)
        # LiteRT without a MACE row: its own count, no ratios.
        self.assertIn("| n | arm64-v8a |  | 50.0 |  |  |  |", text)
        self.assertEqual([(r.model, r.kernels, r.per_inference) for r in rows],
                         [(r.model, r.kernels, r.per_inference) for r in self.rows()])

    def test_no_litert_rows_no_section(self):
        self.assertEqual(arm_insn_count.compare_litert(self.rows()[:2]), [])

    def test_litert_is_skipped_on_armv7_with_a_reason(self):
        self.assertIn("litert", arm_insn_count.ALL_KERNELS)
        self.assertIn("arm64", arm_insn_count.SKIPPED[("armeabi-v7a", "litert")])
        self.assertNotIn("litert", arm_insn_count.PROFILED)


if __name__ == "__main__":
    unittest.main()
