"""tools/x86/avx2_cap.c and mace_tools/avx2_cap.py: binaries whose cpuid
instructions are rewritten answer cpuid as an AVX2-only host would, every
other leaf and bit stays the host's, and peer_bench's --avx2-cap runs its
engines that way."""
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_tools import avx2_cap
from mace_tools.peer_bench import cap as peer_cap
from mace_tools.peer_bench.children import ChildResult
from mace_tools.peer_bench.options import parse_args
from tests.test_mace_run_cli import MACE_RUN, make_model

# Prints leaves 0, 1 (without EBX: it holds the APIC id of the core it ran
# on), 7.0 and 7.1 in hex, and what libgcc's feature probe (its own cpuid)
# says of AVX2 and AVX-512F. With argument "trap" it runs an int3 that is
# not followed by a nop instead.
PROBE_SOURCE = r"""
#include <cpuid.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "trap") == 0) {
    __asm__ volatile("int3\n\tpause");
    return 0;
  }
  unsigned a, b, c, d;
  __cpuid_count(0, 0, a, b, c, d);
  printf("0: %x %x %x %x\n", a, b, c, d);
  unsigned max = a;
  __cpuid_count(1, 0, a, b, c, d);
  printf("1: %x %x %x\n", a, c, d);
  for (unsigned sub = 0; sub < 2; ++sub) {
    a = b = c = d = 0;
    if (max >= 7) __cpuid_count(7, sub, a, b, c, d);
    printf("7.%u: %x %x %x %x\n", sub, a, b, c, d);
  }
  __builtin_cpu_init();
  printf("gcc: avx2=%d avx512f=%d\n", __builtin_cpu_supports("avx2") != 0,
         __builtin_cpu_supports("avx512f") != 0);
  return 0;
}
"""

# The bits the cap clears, as the library documents them.
LEAF7_EBX = sum(1 << bit for bit in (16, 17, 21, 26, 27, 28, 30, 31))
LEAF7_ECX = sum(1 << bit for bit in (1, 6, 11, 12, 14))
LEAF7_EDX = sum(1 << bit for bit in (2, 3, 8, 22, 23, 24, 25))
LEAF71_EAX = sum(1 << bit for bit in (4, 5, 21, 23))
LEAF71_EDX = sum(1 << bit for bit in (4, 5, 10, 19))


def parse_probe(text: str) -> dict[str, list[int]]:
    leaves = {}
    for line in text.splitlines():
        key, _, values = line.partition(": ")
        if key != "gcc":
            leaves[key] = [int(v, 16) for v in values.split()]
    return leaves


def gcc_flags(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("gcc: "))


@unittest.skipUnless(platform.machine() == "x86_64" and shutil.which("gcc")
                     and shutil.which("objdump"), "needs an x86-64 host with gcc and objdump")
class CapTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        cls.library = avx2_cap.build_library(cls.dir)
        (cls.dir / "probe.c").write_text(PROBE_SOURCE)
        cls.probe = cls.dir / "probe"
        subprocess.run(["gcc", "-O1", "-o", str(cls.probe), str(cls.dir / "probe.c")],
                       check=True)
        cls.capped = cls.dir / "capped" / "probe"
        cls.rewritten = avx2_cap.capped_copy(cls.probe, cls.capped)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_capped(self, *args: str, preload: bool = True) -> subprocess.CompletedProcess:
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        if preload:
            env = avx2_cap.preload_environment(self.library, env=env)
            env[avx2_cap.REPORT_VARIABLE] = "1"
        return subprocess.run([str(self.capped), *args], capture_output=True, text=True,
                              env=env)

    def test_every_cpuid_in_the_text_is_rewritten(self):
        # The probe's four inline cpuid and the one in libgcc's probe at least.
        self.assertGreaterEqual(self.rewritten, 5)
        data = self.capped.read_bytes()
        self.assertEqual(avx2_cap.cpuid_offsets(self.capped, data), [])
        original = self.probe.read_bytes()
        changed = [i for i in range(len(data)) if data[i] != original[i]]
        self.assertEqual(len(changed), 2 * self.rewritten)

    def test_answers_as_an_avx2_host_and_keeps_every_other_bit(self):
        host = subprocess.run([str(self.probe)], capture_output=True, text=True, check=True)
        capped = self.run_capped()
        self.assertEqual(capped.returncode, 0, capped.stderr)
        want, got = parse_probe(host.stdout), parse_probe(capped.stdout)
        self.assertEqual(got["0"], want["0"])
        self.assertEqual(got["1"], want["1"])
        a, b, c, d = want["7.0"]
        self.assertEqual(got["7.0"], [a, b & ~LEAF7_EBX, c & ~LEAF7_ECX, d & ~LEAF7_EDX])
        a, b, c, d = want["7.1"]
        self.assertEqual(got["7.1"], [a & ~LEAF71_EAX, b, c, d & ~LEAF71_EDX])
        avx2 = (want["7.0"][1] >> 5) & 1
        self.assertEqual(gcc_flags(capped.stdout), f"gcc: avx2={avx2} avx512f=0")
        count = peer_cap.REPORT_LINE.findall(capped.stderr)
        self.assertEqual(len(count), 1, capped.stderr)
        self.assertGreaterEqual(int(count[0]), 5)

    def test_without_the_library_the_rewritten_binary_stops_at_its_first_cpuid(self):
        result = self.run_capped(preload=False)
        self.assertEqual(result.returncode, -signal.SIGTRAP)
        self.assertEqual(result.stdout, "")

    def test_an_int3_of_its_own_still_stops_the_process(self):
        result = self.run_capped("trap")
        self.assertEqual(result.returncode, -signal.SIGTRAP)

    def test_a_copy_is_rewritten_once_per_source_version(self):
        stamp = self.capped.with_name("probe.avx2_cap")
        before = stamp.stat().st_mtime_ns
        self.assertEqual(avx2_cap.capped_copy(self.probe, self.capped), self.rewritten)
        self.assertEqual(stamp.stat().st_mtime_ns, before)

    def test_mirrors_packages_and_extension_modules(self):
        site, out = self.dir / "site", self.dir / "mirror"
        (site / "pkg" / "sub").mkdir(parents=True)
        (site / "pkg" / "__init__.py").write_text("")
        (site / "pkg" / "__pycache__").mkdir()
        shutil.copy(self.probe, site / "pkg" / "sub" / "ext.so")
        shutil.copy(self.probe, site / "top.cpython-311-x86_64-linux-gnu.so")
        # A wheel's vendored libraries, named after the distribution.
        (site / "PKG.libs").mkdir()
        shutil.copy(self.probe, site / "PKG.libs" / "libvendored.so")
        (site / "other.libs").mkdir()
        mirror, count = avx2_cap.mirror_modules(["pkg", "top"], out, site)
        self.assertEqual(count, 3 * self.rewritten)
        self.assertTrue((mirror / "pkg" / "__init__.py").is_symlink())
        self.assertFalse((mirror / "pkg" / "__pycache__").exists())
        self.assertFalse((mirror / "other.libs").exists())
        for path in (mirror / "pkg" / "sub" / "ext.so",
                     mirror / "top.cpython-311-x86_64-linux-gnu.so",
                     mirror / "PKG.libs" / "libvendored.so"):
            self.assertFalse(path.is_symlink())
            self.assertEqual(avx2_cap.cpuid_offsets(path), [])
        with self.assertRaisesRegex(avx2_cap.CapError, "no module absent"):
            avx2_cap.mirror_modules(["absent"], out, site)

    def test_bad_input(self):
        with self.assertRaisesRegex(avx2_cap.CapError, "not a little-endian 64-bit ELF"):
            avx2_cap.executable_sections(b"#!/bin/sh\n")
        with self.assertRaisesRegex(avx2_cap.CapError, "not a little-endian 64-bit ELF"):
            avx2_cap.executable_sections(b"\x7fELF\x02\x01")
        data = self.probe.read_bytes()
        with self.assertRaisesRegex(avx2_cap.CapError, "section table lies outside"):
            avx2_cap.executable_sections(data[:4096])
        with self.assertRaisesRegex(avx2_cap.CapError, "no cpuid bytes at file offset 0x0"):
            avx2_cap.rewrite(data, [0])


class PeerBenchCapTest(unittest.TestCase):
    def result(self, stderr: str, returncode: int = 0) -> ChildResult:
        return ChildResult(returncode=returncode, stdout="", stderr=stderr, peak_rss_kib=0,
                           wall_s=0.0)

    def test_the_report_line_is_counted_and_removed(self):
        stripped, count = peer_cap.emulated(self.result("warning\navx2_cap: 29 cpuid emulated\n"))
        self.assertEqual(count, 29)
        self.assertEqual(stripped.last_line(), "warning")
        self.assertEqual(peer_cap.check_emulated(self.result("avx2_cap: 3 cpuid emulated"),
                                                 "mace_run")[1], "")

    def test_the_peak_benchmark_must_ask_too(self):
        self.assertEqual(peer_cap.Cap.answered("x\navx2_cap: 12 cpuid emulated\n"), 12)
        self.assertEqual(peer_cap.Cap.answered("killed"), 0)

    def test_a_process_that_asked_nothing_fails(self):
        for stderr in ("", "avx2_cap: 0 cpuid emulated\n"):
            _, error = peer_cap.check_emulated(self.result(stderr), "the ort worker")
            self.assertIn("the ort worker asked the AVX2 cap no cpuid", error)
        # A process that failed keeps its own error.
        _, error = peer_cap.check_emulated(self.result("boom", returncode=1), "mace_run")
        self.assertEqual(error, "")

    def test_modules_and_flags(self):
        self.assertEqual(peer_cap.modules_for(["mace"]), ["onnxruntime"])
        self.assertEqual(peer_cap.modules_for(["mace", "ncnn_default", "mnn_int8"]),
                         ["onnxruntime", "ncnn", "MNN", "_mnncengine"])
        self.assertEqual(peer_cap.visible_flags(["avx2", "fma", "avx512f", "avx512_vnni",
                                                 "avx_vnni", "amx_tile"]), ["avx2", "fma"])

    def test_option(self):
        options = parse_args(["--models", "mobilenet_v2", "--avx2-cap"])
        self.assertTrue(options.avx2_cap)
        self.assertEqual(options.report, Path("build/peer_bench/cpu_peers.md"))
        self.assertFalse(parse_args(["--models", "mobilenet_v2"]).avx2_cap)
        # A full run never replaces the report of the host's own kernels.
        self.assertEqual(parse_args(["--avx2-cap"]).report,
                         Path("docs/reports/cpu_peers_avx2.md"))
        self.assertEqual(parse_args([]).report, Path("docs/reports/cpu_peers.md"))


@unittest.skipUnless(platform.machine() == "x86_64" and shutil.which("gcc")
                     and shutil.which("objdump"), "needs an x86-64 host with gcc and objdump")
class MaceRunUnderTheCapTest(unittest.TestCase):
    """mace_run rewritten and preloaded picks the AVX2 kernels and computes
    what it computes without the cap."""

    def test_mace_run_chooses_its_avx2_kernels(self):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            pb, data, _ = make_model(tmp)
            np.save(tmp / "in_x.npy", np.random.default_rng(3).uniform(
                -1, 1, (1, 2, 4, 4)).astype(np.float32))
            capped = peer_cap.prepare_cap([], tmp / "cap", lambda _: None)
            runner = capped.binary(MACE_RUN)
            self.assertGreater(capped.runners[MACE_RUN][1], 0)

            def run(binary: Path, env: dict[str, str], name: str) -> tuple[str, np.ndarray]:
                env = dict(env, MACE_CPP_MIN_VLOG_LEVEL="1")
                env.pop("MACE_CPU_KERNELS", None)
                result = subprocess.run(
                    [str(binary), f"--model_file={pb}", f"--model_data_file={data}",
                     "--input_node=x", "--input_shape=1,2,4,4", "--output_node=y",
                     "--output_shape=1,3,4,4", f"--input_file={tmp / 'in'}",
                     f"--output_file={tmp / name}", "--round=1", "--omp_num_threads=1"],
                    capture_output=True, text=True, env=env)
                self.assertEqual(result.returncode, 0, result.stderr[-2000:])
                return result.stdout + result.stderr, np.load(tmp / f"{name}_y.npy")

            host_text, host_out = run(MACE_RUN, dict(os.environ), "host")
            text, out = run(runner, capped.environment(), "capped")
            self.assertIn("kernels avx2_fma", text)
            self.assertGreater(peer_cap.Cap.answered(text), 0)
            if "kernels avx512" in host_text:
                self.assertNotIn("kernels avx512", text)
            np.testing.assert_allclose(out, host_out, rtol=1e-5, atol=1e-6)


@unittest.skipUnless(platform.machine() == "x86_64" and shutil.which("gcc")
                     and shutil.which("objdump"), "needs an x86-64 host with gcc and objdump")
class OnnxruntimeUnderTheCapTest(unittest.TestCase):
    def test_onnxruntime_chooses_its_kernels_through_the_cap(self):
        import onnx
        from onnx import helper
        script = (
            "import sys, numpy as np, onnxruntime as ort\n"
            "s = ort.InferenceSession(sys.argv[1], providers=['CPUExecutionProvider'])\n"
            "x = np.arange(64, dtype=np.float32).reshape(8, 8)\n"
            "print(ort.__file__)\n"
            "print(float(s.run(None, {'x': x})[0].sum()))\n")
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", "x"], ["y"])], "g",
            [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [8, 8])],
            [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [8, 8])])
        x = np.arange(64, dtype=np.float32).reshape(8, 8)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            model = tmp / "m.onnx"
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
                      str(model))
            capped = peer_cap.prepare_cap(["ort"], tmp / "cap", lambda _: None)
            self.assertGreater(capped.rewritten, 0)
            result = subprocess.run([sys.executable, "-c", script, str(model)],
                                    capture_output=True, text=True,
                                    env=capped.environment())
            self.assertEqual(result.returncode, 0, result.stderr)
            where, total = result.stdout.split()
            self.assertTrue(where.startswith(str(capped.site)), where)
            self.assertEqual(float(total), float((x @ x).sum()))
            _, count = peer_cap.emulated(ChildResult(0, "", result.stderr, 0, 0.0))
            self.assertGreater(count, 0)


if __name__ == "__main__":
    unittest.main()
