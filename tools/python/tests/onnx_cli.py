"""Shared pieces of the tests that take a small ONNX model through
`converter.py` with the host mace_run (MACE_RUN): a temporary build
directory, deployment files, and the runner where `build` would put it."""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import tempfile
import textwrap
import unittest
from pathlib import Path
from unittest import mock

from mace_converter import cli, package
from mace_converter.config import load_config
from tests.test_mace_run_cli import MACE_RUN


def serialized(graph) -> bytes:
    """An opset-13 model of `graph`, checked, as bytes."""
    import onnx
    from onnx import helper
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


class OnnxCliFixture(unittest.TestCase):
    """setUpClass of a subclass calls start(), then writes its model and
    deployment files with deployment()."""

    @classmethod
    def start(cls) -> None:
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        cls.env = mock.patch.dict(os.environ, {"MACE_BUILD_DIR": str(cls.dir / "build")})
        cls.env.start()

    @classmethod
    def tearDownClass(cls):
        cls.env.stop()
        cls.tmp.cleanup()

    @classmethod
    def deployment(cls, name: str, model: str, model_file: Path, keys: str) -> Path:
        """A host proto-mode deployment file of one ONNX model on the CPU;
        `keys` are the model's other keys, unindented. The host mace_run
        goes where `build` would install it."""
        path = cls.dir / f"{name}.yml"
        path.write_text(textwrap.dedent(f"""\
            library_name: {name}
            target_abis: [host]
            build_type: proto
            models:
              {model}:
                platform: onnx
                model_file_path: {model_file}
                model_sha256_checksum: {hashlib.sha256(model_file.read_bytes()).hexdigest()}
                runtime: cpu
            """) + textwrap.indent(textwrap.dedent(keys), " " * 4))
        runner = package.mace_run_path(load_config(path), "host")
        runner.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(MACE_RUN, runner)
        return path

    @staticmethod
    def cli(command: str, config: Path, *flags: str) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = cli.main([command, "--config", str(config), *flags])
        return status, out.getvalue()
