"""runtime: dsp in build, run and benchmark without building: the DSP image
is installed beside libmace and packed, removed when no model asks for the
DSP, found by run, and the DSP is started from the host ABI only."""
from __future__ import annotations

import contextlib
import io
import os
import tarfile
import tempfile
import textwrap
import unittest
from pathlib import Path
from unittest import mock

from mace_converter import build, cli, package, run
from mace_converter.config import load_config
from mace_converter.progress import UserError


class DspPackageTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        patcher = mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(self.dir / "build")})
        patcher.start()
        self.addCleanup(patcher.stop)
        self.addCleanup(self.tmp.cleanup)

    def config(self, runtime: str):
        path = self.dir / f"{runtime}.yml"
        path.write_text(textwrap.dedent(f"""\
            library_name: lib
            target_abis: [host, arm64-v8a]
            build_type: proto
            models:
              net:
                platform: onnx
                model_file_path: m.onnx
                model_sha256_checksum: {"a" * 64}
                runtime: {runtime}
                input_tensors: x
                input_shapes: 1,3,8,8
                output_tensors: y
                output_shapes: 1,10
            """))
        return load_config(path)

    def outputs(self, with_image: bool) -> build.AbiOutputs:
        files = {}
        for name in ("libmace.a", "mace_run", "dsp_runtime.elf"):
            files[name] = self.dir / name
            files[name].write_bytes(name.encode())
        return build.AbiOutputs(abi="host", static_library=files["libmace.a"], link_flags="",
                                mace_run=files["mace_run"],
                                dsp_image=files["dsp_runtime.elf"] if with_image else None)

    def test_the_image_is_installed_packed_and_removed(self):
        config = self.config("dsp")
        self.assertTrue(build.needs_dsp(config))
        package.install_abi(config, self.outputs(with_image=True))
        image = package.dsp_image_path(config)
        self.assertEqual(image, self.dir / "build" / "lib" / "dsp" / "dsp_runtime.elf")
        self.assertEqual(image.read_bytes(), b"dsp_runtime.elf")
        self.assertEqual(run.dsp_flags(config), [f"--dsp_image={image}"])
        with contextlib.redirect_stdout(io.StringIO()):
            tarball = package.make_tarball(config)
        with tarfile.open(tarball) as tar:
            self.assertIn("dsp/dsp_runtime.elf", tar.getnames())
        cpu = self.config("cpu")
        self.assertFalse(build.needs_dsp(cpu))
        package.install_abi(cpu, self.outputs(with_image=False))
        self.assertFalse(image.parent.exists())

    def test_run_needs_the_built_image(self):
        with self.assertRaises(UserError) as caught:
            run.dsp_flags(self.config("dsp"))
        self.assertIn("build the DSP image first", str(caught.exception))

    def test_the_dsp_runs_from_the_host_abi_only(self):
        config = self.config("dsp")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), mock.patch.object(run, "run_model") as run_model:
            result = cli._run_one(config, config.models["net"], None, "arm64-v8a", "dsp", {},
                                  run.RunOptions())
        self.assertIsNone(result)
        run_model.assert_not_called()
        self.assertIn("started from the host ABI's mace_run only; skipped", out.getvalue())


if __name__ == "__main__":
    unittest.main()
