"""tools/library_size.py on small shared libraries built here with g++: the
stripped size is strip's, symbols go to their parts, and the table with and
without a model takes only measured pairs (an ABI missing a library, or a
library whose model code is smaller than the weights, is an error)."""
from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tools"))
import library_size  # noqa: E402  (the path above)

ENGINE = """
namespace mace {
namespace ops {
int Kernel(const float* x, int n) { int s = 0; for (int i = 0; i < n; ++i) s += x[i] > 0; return s; }
}  // namespace ops
namespace memory {
int Plan(int a) { return a * 3 + 1; }
}  // namespace memory
int Engine(int a) { return memory::Plan(a) + 2; }
}  // namespace mace
"""

# A model compiled in as code: its weights as a byte array.
MODEL = """
namespace mace {
namespace codegen {
extern const char kWeights[WEIGHTS];
const char kWeights[WEIGHTS] = {1, 2, 3};
int ModelChecksum() { return kWeights[0] + kWeights[WEIGHTS - 1]; }
}  // namespace codegen
}  // namespace mace
"""
WEIGHTS = 64 * 1024


@unittest.skipUnless(shutil.which("g++") and shutil.which("strip") and shutil.which("nm"),
                     "needs g++ and binutils")
class LibrarySizeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        (cls.dir / "engine.cc").write_text(ENGINE)
        (cls.dir / "model.cc").write_text(MODEL)
        cls.bare = cls.build("bare.so", ["engine.cc"])
        cls.full = cls.build("full.so", ["engine.cc", "model.cc"])
        cls.weights = cls.dir / "model.data"
        cls.weights.write_bytes(bytes(WEIGHTS))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def build(cls, name: str, sources: list[str]) -> Path:
        out = cls.dir / name
        subprocess.run(["g++", "-shared", "-fPIC", "-O1", f"-DWEIGHTS={WEIGHTS}", "-o", str(out),
                        *[str(cls.dir / s) for s in sources]], check=True)
        return out

    def stripped_size(self, path: Path) -> int:
        out = self.dir / (path.name + ".stripped")
        subprocess.run(["strip", "--strip-all", "-o", str(out), str(path)], check=True)
        return out.stat().st_size

    def test_measure(self):
        bare, full = library_size.measure(self.bare), library_size.measure(self.full)
        self.assertEqual(bare["abi"], "x86-64")
        self.assertEqual(bare["stripped"], self.stripped_size(self.bare))
        self.assertEqual(full["stripped"], self.stripped_size(self.full))
        self.assertEqual(bare["size"], self.bare.stat().st_size)
        self.assertGreater(bare["parts"]["ops"], 0)
        self.assertGreater(bare["parts"]["planner"], 0)
        self.assertEqual(bare["parts"]["model code"], 0)
        self.assertGreaterEqual(full["parts"]["model code"], WEIGHTS)
        self.assertLess(full["parts"]["model code"], WEIGHTS + 1024)
        self.assertEqual(bare["parts"]["ops"], full["parts"]["ops"])
        self.assertEqual(bare["other"], bare["stripped"] - sum(bare["parts"].values()))

    def test_folded_code_counted_once(self):
        # Two functions with the same code, folded into one by gold.
        source = self.dir / "twins.cc"
        source.write_text("namespace mace { namespace ops {\n" + "".join(
            f"int Twin{i}(const int* x) {{ int s = 0; for (int j = 0; j < 4096; ++j) "
            f"s += x[j] * (j | 7); return s; }}\n" for i in range(2)) + "}}\n")
        folded = self.dir / "folded.so"
        subprocess.run(["g++", "-shared", "-fPIC", "-O1", "-ffunction-sections", "-fuse-ld=gold",
                        "-Wl,--icf=all", "-o", str(folded), str(source)], check=True)
        listing = subprocess.run(["nm", "-S", str(folded)], check=True, capture_output=True,
                                 text=True).stdout
        twins = [line.split() for line in listing.splitlines() if "Twin" in line]
        self.assertEqual(len(twins), 2)
        self.assertEqual(twins[0][0], twins[1][0], "gold did not fold the twins")
        result = library_size.measure(folded)
        self.assertEqual(result["parts"]["ops"], int(twins[0][1], 16))
        self.assertGreaterEqual(result["other"], 0)

    def test_parts_by_qualified_name(self):
        self.assertEqual(library_size.part("mace::ops::Conv2d<float>::Run(mace::OpContext*)"),
                         "ops")
        self.assertEqual(library_size.part("std::vector<mace::ops::X> mace::Engine::Outputs()"),
                         "rest of the engine")
        self.assertEqual(library_size.part("vtable for mace::memory::Planner"), "planner")
        self.assertEqual(library_size.part("mace::NetDef::_InternalParse(char const*)"),
                         "protobuf")
        self.assertEqual(library_size.part("mace::codegen::kWeights"), "model code")

    def test_guide(self):
        self.assertEqual(library_size.guide_with_model(0), 3 * 1024 * 1024)
        self.assertEqual(library_size.guide_with_model(2 * 1024 * 1024), 4 * 1024 * 1024)

    def test_model_table_is_measured(self):
        table = library_size.model_table(
            [library_size.measure(self.full), library_size.measure(self.bare)], self.weights)
        lines = table.splitlines()
        self.assertEqual(len(lines), 3)
        row = lines[2].split(" | ")
        self.assertEqual(row[0], "| x86-64")
        bare, full = self.stripped_size(self.bare), self.stripped_size(self.full)
        self.assertTrue(row[1].startswith(library_size.kib(bare)), row[1])
        self.assertEqual(row[2], "within")
        self.assertTrue(row[3].startswith(library_size.kib(full)), row[3])
        self.assertEqual(row[5], "within |")
        self.assertIn("with model", lines[0])
        self.assertIn(library_size.mib(WEIGHTS // 2 + 3 * 1024 * 1024), lines[0])

    def test_main_prints_the_table(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(library_size.main([str(self.bare), str(self.full),
                                                "--weights", str(self.weights)]), 0)
        self.assertIn("| x86-64 |", out.getvalue())
        self.assertIn("model code", out.getvalue())

    def test_missing_library_is_an_error(self):
        bare, full = library_size.measure(self.bare), library_size.measure(self.full)
        with self.assertRaisesRegex(SystemExit, "no library with the model"):
            library_size.model_table([bare], self.weights)
        with self.assertRaisesRegex(SystemExit, "no library without a model"):
            library_size.model_table([full], self.weights)
        with self.assertRaisesRegex(SystemExit, "two libraries without a model"):
            library_size.model_table([bare, bare, full], self.weights)

    def test_weights_not_compiled_in_is_an_error(self):
        larger = self.dir / "larger.data"
        larger.write_bytes(bytes(2 * WEIGHTS))
        with self.assertRaisesRegex(SystemExit, "not compiled in"):
            library_size.model_table([library_size.measure(self.bare),
                                      library_size.measure(self.full)], larger)

    def test_not_elf(self):
        with self.assertRaisesRegex(SystemExit, "not an ELF file"):
            library_size.measure(self.weights)


if __name__ == "__main__":
    unittest.main()
