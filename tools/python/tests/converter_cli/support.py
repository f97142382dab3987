"""Shared pieces of the converter command-line tests: a tiny model standing
in for the converter's output, deployment files, and one library build that
the slow tests share."""
from __future__ import annotations

import atexit
import contextlib
import hashlib
import io
import os
import shutil
import tempfile
import textwrap
from pathlib import Path
from typing import Iterator, Optional
from unittest import mock

import numpy as np

from mace_converter import cli, conversion
from mace_converter.api import ConvertedModel, ConvertOptions, TensorSpec
from mace_converter.crc32c import crc32c
from mace_tools import numpy_ref as ref
from mace_tools.builder import NetBuilder

CLASSES = 10
SIZE = 8
CHANNELS = 3
SEED = 5


def tiny_weights() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    return {
        "conv_w": (rng.standard_normal((8, CHANNELS, 3, 3)) * 0.4).astype(np.float32),
        "conv_b": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "fc_w": (rng.standard_normal((CLASSES, 8)) * 0.5).astype(np.float32),
        "fc_b": (rng.standard_normal(CLASSES) * 0.1).astype(np.float32),
    }


def tiny_net(name: str = "tiny") -> NetBuilder:
    """conv 3x3 + relu6 -> global average pool -> fully connected -> softmax."""
    w = tiny_weights()
    net = NetBuilder(name)
    net.add_input("image", [1, CHANNELS, SIZE, SIZE])
    net.add_op("Conv2D", ["image", net.add_weight("conv/w", w["conv_w"]),
                          net.add_weight("conv/b", w["conv_b"])], "conv", name="conv",
               strides=[1, 1], pads=list(ref.same_pads(SIZE, 3, 1)), activation="RELU6")
    net.add_op("Pooling", ["conv"], "pool", name="pool", pooling_type=1, **{"global": 1})
    net.add_op("FullyConnected", ["pool", net.add_weight("fc/w", w["fc_w"]),
                                  net.add_weight("fc/b", w["fc_b"])], "logits", name="fc")
    net.add_op("Softmax", ["logits"], "prob4d", name="softmax", axis=1)
    net.add_op("Reshape", ["prob4d"], "prob", name="flatten", shape=[1, CLASSES])
    net.add_output("prob", [1, CLASSES])
    return net


def tiny_reference(image_nchw: np.ndarray) -> np.ndarray:
    w = tiny_weights()
    x = ref.conv2d(image_nchw.astype(np.float64), w["conv_w"], w["conv_b"], 1,
                   ref.same_pads(SIZE, 3, 1), 1)
    pooled = ref.relu6(x).mean(axis=(2, 3))
    return ref.softmax(pooled @ w["fc_w"].T.astype(np.float64) + w["fc_b"], axis=1)


class StandInFrontend:
    """Plays mace_converter.convert in tests: returns the tiny model, whose
    engine input is NCHW while the deployment file may say NHWC."""

    def __init__(self) -> None:
        self.calls: list[ConvertOptions] = []

    def convert(self, options: ConvertOptions) -> ConvertedModel:
        self.calls.append(options)
        net = tiny_net(options.model_name)
        weights = bytes(net._blob)
        # As serialize() does, so that the engine checks the weights.
        net.net.weights_crc32c = crc32c(weights)
        return ConvertedModel(
            net_def=net.net, weights=weights,
            inputs=[TensorSpec("image", [1, CHANNELS, SIZE, SIZE], options.inputs[0].value_range,
                               "NCHW")],
            outputs=[TensorSpec("prob", [1, CLASSES], data_format="NONE")],
            log=["stand-in: tiny test network"])


@contextlib.contextmanager
def stand_in_frontend() -> Iterator[StandInFrontend]:
    frontend = StandInFrontend()
    with mock.patch.object(conversion, "_frontend", return_value=frontend):
        yield frontend


def deployment(directory: Path, *, library: str = "clitest", build_type: str = "proto",
               embed: int = 0, linkshared: int = 0, java: int = 0, extra_model: str = "",
               model_bytes: bytes = b"a stand-in model file\n") -> Path:
    """Writes a deployment file for one NHWC 'tensorflow' model."""
    model_file = directory / "tiny.pb"
    model_file.write_bytes(model_bytes)
    checksum = hashlib.sha256(model_bytes).hexdigest()
    path = directory / "deploy.yml"
    path.write_text(textwrap.dedent(f"""\
        library_name: {library}
        target_abis: [host]
        build_type: {build_type}
        embed_model_data: {embed}
        linkshared: {linkshared}
        java: {java}
        models:
          tiny:
            platform: tensorflow
            model_file_path: {model_file}
            model_sha256_checksum: {checksum}
            subgraphs:
              - input_tensors: image
                input_shapes: 1,{SIZE},{SIZE},{CHANNELS}
                output_tensors: prob
                output_shapes: 1,{CLASSES}
                input_ranges: 0,1
            runtime: cpu
        """) + extra_model)
    return path


def quiet() -> contextlib.AbstractContextManager:
    """Keeps progress lines of functions called directly out of test output."""
    return contextlib.redirect_stdout(io.StringIO())


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(list(argv))
    return status, out.getvalue(), err.getvalue()


class SharedBuild:
    """One proto-mode host build (libmace.a, libmace.so, the Java API,
    mace_run) in a temporary MACE_BUILD_DIR, made on first use and shared by
    test classes. It is built for a cpu+gpu model, so that it has every
    runtime and the tests run its mace_run on any device; `config` then says
    runtime: cpu, as the tests' own deployment files start from."""

    _instance: Optional["SharedBuild"] = None

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="converter_cli_"))
        self.build_dir = self.tmp / "build"
        self.config = deployment(self.tmp, linkshared=1, java=1)
        text = self.config.read_text()
        self.config.write_text(text.replace("    runtime: cpu\n",
                                            "    runtime: cpu+gpu\n    data_type: fp32_fp32\n"))
        with self.environment(), stand_in_frontend():
            self.status, self.stdout, self.stderr = run_cli("build", "--config",
                                                            str(self.config))
        self.config.write_text(text)
        if self.status != 0:
            raise AssertionError(f"build failed:\n{self.stdout}\n{self.stderr}")
        self.library = self.build_dir / "clitest"

    def environment(self) -> contextlib.AbstractContextManager:
        return mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(self.build_dir)})

    @classmethod
    def get(cls) -> "SharedBuild":
        if cls._instance is None:
            cls._instance = SharedBuild()
            atexit.register(cls.cleanup)
        return cls._instance

    @classmethod
    def cleanup(cls) -> None:
        if cls._instance is not None:
            shutil.rmtree(cls._instance.tmp, ignore_errors=True)
            cls._instance = None
