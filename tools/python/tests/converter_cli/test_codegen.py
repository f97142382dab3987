"""Code mode: the generated C++ compiles against a packaged libmace, and
CreateMaceEngineFromCode runs the model with embedded weights and with
weights from a file, and refuses a file that does not match the model."""
import os
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

from mace_converter import codegen, conversion
from mace_converter.config import load_config
from tests.converter_cli import apps
from tests.converter_cli.support import (SharedBuild, deployment, quiet, stand_in_frontend,
                                         tiny_reference)


class CodegenTest(unittest.TestCase):
    def test_string_literal_escapes(self):
        literal = codegen.c_string_literal(b'a"\\?\x001\n' + bytes(range(250, 256)))
        self.assertEqual(literal, '"a\\"\\\\\\?\\0001\\012\\372\\373\\374\\375\\376\\377"')
        self.assertEqual(codegen.c_string_literal(b""), '""')
        self.assertEqual(len(codegen.c_string_literal(b"x" * 200).splitlines()), 3)

    def test_generated_code_compiles_and_runs_both_ways(self):
        shared = SharedBuild.get()
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            config = load_config(deployment(root, library="codetest", build_type="code",
                                            embed=1))
            with stand_in_frontend(), quiet(), \
                    mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(root / "build")}):
                artifacts = conversion.convert_models(config, list(config.models.values()))
            generated = root / "generated"
            for relative, content in codegen.render_sources(config, artifacts).items():
                (generated / relative).parent.mkdir(parents=True, exist_ok=True)
                (generated / relative).write_text(content)
            library = shared.library
            app = apps.compile_app(
                apps.CODE_APP, root / "code_app",
                [library / "include", generated / "include"],
                sorted(generated.rglob("*.cc")),
                [str(library / "lib/host/libmace_clitest.a"),
                 *(library / "lib/host/link_flags.txt").read_text().split()])
            image = np.random.default_rng(4).uniform(0, 1, (1, 3, 8, 8)).astype(np.float32)
            image.tofile(root / "input.raw")
            expected = tiny_reference(image).reshape(-1)
            embedded, message = apps.run_app([str(app), str(root / "input.raw")])
            np.testing.assert_allclose(embedded, expected, rtol=1e-4, atol=1e-6)
            self.assertIn("no model named 'absent' is compiled into this library (it has: "
                          "tiny)", message)
            from_file, _ = apps.run_app([str(app), str(root / "input.raw"),
                                         str(artifacts["tiny"].data)])
            np.testing.assert_array_equal(from_file, embedded)
            corrupt = bytearray(artifacts["tiny"].data.read_bytes())
            corrupt[-1] ^= 0x01
            (root / "corrupt.data").write_bytes(bytes(corrupt))
            refused = subprocess.run([str(app), str(root / "input.raw"),
                                      str(root / "corrupt.data")],
                                     capture_output=True, text=True, timeout=120)
            self.assertEqual(refused.returncode, 1, refused.stderr)
            self.assertIn("the weights data does not match the model (CRC32C expected 0x",
                          refused.stderr)


if __name__ == "__main__":
    unittest.main()
