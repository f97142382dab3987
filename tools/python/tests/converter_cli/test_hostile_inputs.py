"""Careless and hostile inputs to the converter end in one clear line naming
the key or the node: files and URLs a deployment file names, names, range
files, ONNX external data, and ONNX models the engine would refuse."""
import http.server
import os
import stat
import tempfile
import threading
import unittest
from pathlib import Path
from unittest import mock

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mace_converter import fetch
from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.config import ConfigError, load_config
from mace_converter.convert import convert
from mace_tools.converter_structure_fuzz import _graph_seed, bounded_files
from tests.converter_cli.support import deployment, quiet, run_cli

SECRET = "first line of a private file"


class Case(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)
        self.downloads = self.tmp / "build" / "downloads"
        env = {"MACE_BUILD_DIR": str(self.tmp / "build")}
        patcher = mock.patch.dict(os.environ, env)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.addCleanup(self._tmp.cleanup)
        self.quiet = quiet()
        self.quiet.__enter__()
        self.addCleanup(self.quiet.__exit__, None, None, None)

    def one_line(self, error: Exception, *parts: str) -> str:
        message = str(error)
        self.assertNotIn("\n", message)
        for part in parts:
            self.assertIn(part, message)
        return message

    def left_in_downloads(self) -> list[Path]:
        return [p for p in self.downloads.rglob("*") if p.is_file()] \
            if self.downloads.exists() else []


class FileTest(Case):
    def model(self, location: str):
        config = load_config(deployment(self.tmp))
        model = config.models["tiny"]
        model.model_file_path = location
        return config, model

    def refused(self, location: str, *parts: str) -> str:
        config, model = self.model(location)
        with self.assertRaises(ConfigError) as caught:
            fetch.model_files(config, model)
        return self.one_line(caught.exception, "models.tiny.model_file_path", *parts)

    def test_symlink_loop(self):
        os.symlink(self.tmp / "b", self.tmp / "a")
        os.symlink(self.tmp / "a", self.tmp / "b")
        self.refused(str(self.tmp / "a"), "symbolic links")
        self.refused((self.tmp / "a").as_uri(), "cannot download", "symbolic links")

    def test_long_symlink_chain(self):
        target = self.tmp / "tiny.pb"
        deployment(self.tmp)
        for i in range(45):
            link = self.tmp / f"l{i}"
            os.symlink(target, link)
            target = link
        self.refused(str(target), "more than 40 symbolic links")

    def test_device_and_directory(self):
        # The ceiling stops an unbounded copy of /dev/zero (EFBIG) should
        # the check ever go.
        with bounded_files():
            for location in ("file:///dev/zero", "/dev/zero"):
                self.refused(location, "a character device")
        (self.tmp / "adir").mkdir()
        self.refused((self.tmp / "adir").as_uri(), "a directory")
        self.refused(str(self.tmp / "adir"), "a directory")
        self.assertEqual(self.left_in_downloads(), [])

    def test_other_schemes(self):
        for url in ("ftp://example.invalid/m.onnx", "gopher://example.invalid/m.onnx",
                    "FILE2://x/y", "data://text/plain,abc"):
            self.refused(url, url, "only http, https and file URLs")
        self.refused(f"file://elsewhere{self.tmp / 'tiny.pb'}", "on this machine")
        self.refused("http://[::1", "not a valid URL")

    def test_private_file_copy_keeps_owner_only_permissions(self):
        config, model = self.model("")
        private = self.tmp / "tiny.pb"
        private.chmod(0o640)
        model.model_file_path = private.as_uri()
        copy, _ = fetch.model_files(config, model)
        self.assertEqual(stat.S_IMODE(copy.stat().st_mode), 0o600)
        private.chmod(0o400)
        model.model_file_path = private.as_uri() + "?again"
        copy, _ = fetch.model_files(config, model)
        self.assertEqual(stat.S_IMODE(copy.stat().st_mode), 0o400)

    def test_refused_checksum_deletes_the_download(self):
        config, model = self.model("")
        private = self.tmp / "tiny.pb"
        private.chmod(0o640)
        model.model_file_path = private.as_uri()
        model.model_sha256_checksum = "0" * 64
        with self.assertRaises(ConfigError) as caught:
            fetch.model_files(config, model)
        self.one_line(caught.exception, "model_sha256_checksum")
        self.assertEqual(self.left_in_downloads(), [])

    def test_size_limit(self):
        big = self.tmp / "big.onnx"
        big.write_bytes(b"\0" * (2 << 20))
        with mock.patch.dict(os.environ, {"MACE_CONVERTER_MAX_INPUT_MB": "1"}):
            self.refused(str(big), "more than the 1 MiB input limit",
                         "MACE_CONVERTER_MAX_INPUT_MB")
            self.refused(big.as_uri(), "more than the 1 MiB input limit")
            self.assertEqual(self.left_in_downloads(), [])
            with self.assertRaises(ConversionError) as caught:
                convert(ConvertOptions("onnx", big, None, [], []))
            self.one_line(caught.exception, "input limit")
        with mock.patch.dict(os.environ, {"MACE_CONVERTER_MAX_INPUT_MB": "lots"}):
            self.refused(str(big), "MACE_CONVERTER_MAX_INPUT_MB='lots' must be a whole number")

    def test_http_download_stops_at_the_limit(self):
        body = b"\1" * (2 << 20)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                if self.path == "/redirect":
                    self.send_response(302)
                    self.send_header("Location", "ftp://example.invalid/m.onnx")
                    self.end_headers()
                    return
                self.send_response(200)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        with mock.patch.dict(os.environ, {"MACE_CONVERTER_MAX_INPUT_MB": "1"}):
            self.refused(f"{base}/m.onnx", "cannot download", "1 MiB input limit")
        self.refused(f"{base}/redirect", "cannot download", "not http or https")
        self.assertEqual(self.left_in_downloads(), [])


class NameTest(Case):
    def load(self, text: str):
        path = self.tmp / "names.yml"
        path.write_text(text)
        return load_config(path)

    def base(self, model: str = "tiny", library: str = "lib") -> str:
        return (f"library_name: {library}\ntarget_abis: [host]\nbuild_type: proto\n"
                f"models:\n  {model}:\n    platform: onnx\n"
                f"    model_file_path: m.onnx\n    model_sha256_checksum: '{'0' * 64}'\n"
                "    input_tensors: x\n    input_shapes: 1,2\n    output_tensors: y\n"
                "    output_shapes: 1,2\n    runtime: cpu\n")

    def test_trailing_newline_in_names(self):
        for model, library, key in (('"tiny\\n"', "lib", "models."),
                                    ("tiny", '"lib\\n"', "library_name"),
                                    ('"tiny "', "lib", "models."),
                                    ("x" * 129, "lib", "models.")):
            with self.subTest(model=model, library=library):
                with self.assertRaises(ConfigError) as caught:
                    self.load(self.base(model, library))
                self.one_line(caught.exception, key, "only letters")
        self.assertIn("tiny", self.load(self.base()).models)

    def test_huge_dimension(self):
        text = self.base().replace("input_shapes: 1,2", "input_shapes: 1,2147483648")
        with self.assertRaises(ConfigError) as caught:
            self.load(text)
        self.one_line(caught.exception, "input_shapes", "2147483648")


class RangeFileTest(Case):
    def test_a_private_file_as_range_file_is_not_quoted(self):
        secret = self.tmp / "private.txt"
        secret.write_text(SECRET + "\nsecond line\n")
        extra = f"    quantize: 1\n    quantize_range_file: {secret}\n"
        config = deployment(self.tmp, extra_model=extra)
        status, out, err = run_cli("convert", "--config", str(config))
        self.assertEqual(status, 1, out + err)
        self.assertIn("models.tiny.quantize_range_file", err)
        self.assertIn("line 1: not a range line", err)
        self.assertNotIn(SECRET, err + out)
        self.assertNotIn("Traceback", err)

    def test_symlink_loop_on_the_command_line(self):
        os.symlink(self.tmp / "b", self.tmp / "a")
        os.symlink(self.tmp / "a", self.tmp / "b")
        config = deployment(self.tmp)
        config.write_text(config.read_text().replace(str(self.tmp / "tiny.pb"),
                                                     str(self.tmp / "a")))
        status, out, err = run_cli("convert", "--config", str(config))
        self.assertEqual(status, 1, out + err)
        self.assertIn("models.tiny.model_file_path", err)
        self.assertIn("symbolic links", err)
        self.assertNotIn("Traceback", err)


class CaffeTextTest(Case):
    def test_parse_errors_do_not_quote_the_file(self):
        prototxt = self.tmp / "passwd.prototxt"
        prototxt.write_text("name: 'net'\nroot:x:0:0:" + SECRET + ":/root:/bin/sh\n")
        weights = self.tmp / "w.caffemodel"
        weights.write_bytes(b"")
        with self.assertRaises(ConversionError) as caught:
            convert(ConvertOptions("caffe", prototxt, weights, [TensorSpec("data", [1])], []))
        message = self.one_line(caught.exception, "not a Caffe prototxt", "line 2, column")
        self.assertNotIn(SECRET, message)
        self.assertNotIn("root:x", message)


def _matmul_model() -> onnx.ModelProto:
    weights = numpy_helper.from_array(np.arange(16, dtype=np.float32).reshape(4, 4), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "external",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], [weights])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


class ExternalDataTest(Case):
    def save(self) -> Path:
        folder = self.tmp / "model"
        folder.mkdir()
        path = folder / "m.onnx"
        onnx.save(_matmul_model(), str(path), save_as_external_data=True,
                  all_tensors_to_one_file=True, location="w.bin", size_threshold=0)
        return path

    def convert(self, path: Path):
        return convert(ConvertOptions("onnx", path, None, [TensorSpec("x", [1, 4])],
                                      [TensorSpec("y", [1, 4])]))

    def test_symlink_inside_the_folder_is_read(self):
        path = self.save()
        os.rename(path.parent / "w.bin", path.parent / "real.bin")
        os.symlink("real.bin", path.parent / "w.bin")
        self.assertEqual(len(self.convert(path).net_def.op), 1)

    def test_symlink_out_of_the_folder_is_refused(self):
        path = self.save()
        outside = self.tmp / "outside.bin"
        os.rename(path.parent / "w.bin", outside)
        os.symlink(outside, path.parent / "w.bin")
        with self.assertRaises(ConversionError) as caught:
            self.convert(path)
        self.one_line(caught.exception, "initializer 'w'", "outside the model's folder")

    def test_symlink_loop_is_refused(self):
        path = self.save()
        (path.parent / "w.bin").unlink()
        os.symlink("w2.bin", path.parent / "w.bin")
        os.symlink("w.bin", path.parent / "w2.bin")
        with self.assertRaises(ConversionError) as caught:
            self.convert(path)
        self.one_line(caught.exception, "initializer 'w'", "symbolic links")


class EngineLimitTest(Case):
    def refused(self, model: onnx.ModelProto, inputs, *parts: str) -> str:
        path = self.tmp / "m.onnx"
        path.write_bytes(model.SerializeToString())
        with self.assertRaises(ConversionError) as caught:
            convert(ConvertOptions("onnx", path, None,
                                   [TensorSpec(n, s, data_format="NONE")
                                    for n, s in inputs.items()],
                                   [TensorSpec("y", [], data_format="NONE")]))
        return self.one_line(caught.exception, *parts)

    inputs = {"x": [1, 3, 8, 8], "cond": [1]}

    def test_two_nodes_write_one_output(self):
        model = _graph_seed()
        model.graph.node[2].output[0] = "p"
        self.refused(model, self.inputs, "Relu node 'relu'", "writes 'p'", "MaxPool")

    def test_pooling_window_of_zero(self):
        model = _graph_seed()
        model.graph.node[1].attribute[0].ints[0] = 0
        self.refused(model, self.inputs, "MaxPool node 'pool'", "kernel_shape [0, 2]")

    def test_conv_stride_of_zero_and_negative_pads(self):
        model = _graph_seed()
        strides = next(a for a in model.graph.node[0].attribute if a.name == "strides")
        strides.ints[1] = 0
        self.refused(model, self.inputs, "Conv node 'conv'", "strides")
        model = _graph_seed()
        pads = next(a for a in model.graph.node[0].attribute if a.name == "pads")
        pads.ints[0] = -1
        self.refused(model, self.inputs, "Conv node 'conv'", "pads")

    def test_nesting_beyond_the_engine(self):
        self.refused(_graph_seed(9), self.inputs, "If node 'if9'", "9 levels", "at most 8")
        path = self.tmp / "eight.onnx"
        path.write_bytes(_graph_seed(8).SerializeToString())
        converted = convert(ConvertOptions(
            "onnx", path, None, [TensorSpec(n, s, data_format="NONE")
                                 for n, s in self.inputs.items()],
            [TensorSpec("y", [], data_format="NONE")]))
        self.assertGreater(len(converted.net_def.op), 0)

    def test_input_dimension_of_two_to_the_forty(self):
        model = _graph_seed()
        model.graph.input[0].type.tensor_type.shape.dim[3].dim_value = 2**40
        self.refused(model, {"x": [1, 3, 8, 2**40], "cond": [1]}, "input 'x'", str(2**40))

    def test_dangling_input(self):
        model = _graph_seed()
        model.graph.node[2].input[0] = "ghost"
        self.refused(model, self.inputs, "'relu'", "ghost")

    def test_checker_names_the_node(self):
        model = _graph_seed()
        model.graph.node[2].attribute.append(helper.make_attribute("alpha", 2.0))
        self.refused(model, self.inputs, "Relu node 'relu'", "alpha", "onnx.checker")


if __name__ == "__main__":
    unittest.main()
