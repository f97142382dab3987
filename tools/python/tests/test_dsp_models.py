"""MobileNet v1 and v2, quantized for runtime: dsp (int8 weights per output
channel), end to end on the emulated Hexagon DSP through `converter.py
convert` and `converter.py run --validate`: mace_run --device=HEXAGON
starts the DSP image under qemu-hexagon, its outputs equal the CPU uint8
engine's bit for bit, and their cosine against onnxruntime on the float
model is at least 0.98.

The models are the zoo's architectures at 32x32 input (every layer of the
224x224 models, with planes 49 times smaller) so that the emulator runs
them in seconds. Needs the host mace_run (MACE_RUN, default
bazel-bin/mace/tools/mace_run), the DSP image (MACE_DSP_RUNTIME, default
bazel-bin/mace/dsp/dsp_runtime.elf) and qemu-hexagon; tools/test.sh builds
both binaries first.
"""
from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

from mace_converter import cli, package
from mace_converter.config import load_config
from mace_tools import proto
from mace_tools.zoo_deployment import classifier_model, write_deployment, write_zoo_onnx
from tests.test_mace_run_cli import MACE_RUN, REPO

DSP_IMAGE = Path(os.environ.get("MACE_DSP_RUNTIME",
                                REPO / "bazel-bin" / "mace" / "dsp" / "dsp_runtime.elf"))
SIZE = 32


class DspMobileNetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for path, what in ((MACE_RUN, "//mace/tools:mace_run"),
                           (DSP_IMAGE, "//mace/dsp:dsp_runtime")):
            if not path.exists():
                raise AssertionError(f"{path} is missing: build {what} first")
        if shutil.which(os.environ.get("MACE_QEMU_HEXAGON", "qemu-hexagon")) is None:
            raise AssertionError("qemu-hexagon is missing: install qemu-user "
                                 "(tools/bootstrap.sh does)")

    def _check(self, name: str) -> str:
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(Path(tmp) / "build"),
                                             "MACE_RUN": str(MACE_RUN)}):
            directory = Path(tmp)
            model = write_zoo_onnx(name, SIZE, directory)
            rng = np.random.default_rng(26)
            for i in range(2):
                np.save(directory / f"calib{i}.npy",
                        rng.uniform(-1, 1, (1, 3, SIZE, SIZE)).astype(np.float32))
            config_path = write_deployment(
                directory / "dsp.yml", f"dsp_{name}",
                {name: classifier_model(model, SIZE, "dsp", "-1,1",
                                        calibration_inputs=["calib0.npy", "calib1.npy"])})
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(cli.main(["convert", "--config", str(config_path)]), 0)
            # runtime: dsp quantizes weights as runtime: cpu does: int8 with
            # one scale per output channel.
            pb = proto.load()
            net = pb.NetDef()
            net.ParseFromString(next((directory / "build").rglob(f"{name}.pb")).read_bytes())
            weights = {t.name: t.data_type for t in net.tensors}
            kinds = {weights[op.input[1]] for op in net.op
                     if op.type in ("Conv2D", "DepthwiseConv2d", "FullyConnected")}
            self.assertEqual(kinds, {pb.DT_INT8})
            # What `build` installs: the runner and the DSP image beside libmace.
            config = load_config(config_path)
            runner, image = package.mace_run_path(config, "host"), package.dsp_image_path(config)
            for source, target in ((MACE_RUN, runner), (DSP_IMAGE, image)):
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, target)
            with contextlib.redirect_stdout(out):
                status = cli.main(["run", "--validate", "--config", str(config_path)])
            text = out.getvalue()
            self.assertEqual(status, 0, text)
            self.assertIn("--device=HEXAGON", text)
            self.assertIn("output: bit-identical to the CPU uint8 engine  PASS", text)
            self.assertRegex(text, r"output: cosine 0\.9[89]\d* \(>= 0\.98\).*PASS")
            return text

    def test_mobilenet_v1(self):
        self._check("mobilenet_v1")

    def test_mobilenet_v2(self):
        self._check("mobilenet_v2")

    def test_shufflenet_v2_split_between_dsp_and_cpu(self):
        # The channel split and shuffle of every unit have no DSP kernel:
        # they run on the CPU between DSP graphs, and the result still
        # equals the CPU uint8 engine bit for bit.
        text = self._check("shufflenet_v2_x1_0")
        summary = [line for line in text.splitlines() if "runtime dsp places" in line]
        self.assertEqual(len(summary), 1, text)
        self.assertRegex(summary[0], r"on the DSP in ([2-9]|\d\d+) segment\(s\)")


if __name__ == "__main__":
    unittest.main()
