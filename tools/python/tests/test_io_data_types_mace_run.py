"""Typed model inputs and outputs: the deployment keys input_data_types and
output_data_types, the ONNX default (int32, int64 and bool inputs and
outputs keep their type), and an ONNX model whose int64 ids feed a Gather
and a Reshape and whose bool output comes from a comparison, run through
mace_run on .npy files of those types and compared with ONNX Runtime.
The mace_run cases need the host binary (MACE_RUN).
"""
import copy
import subprocess
import tempfile
import unittest
from pathlib import Path

import numpy as np
import yaml

from tests.test_mace_run_cli import MACE_RUN

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.config import ConfigError, load_config
from mace_converter.convert import convert

RNG = np.random.default_rng(20261126)
TABLE = RNG.standard_normal((40, 3)).astype(np.float32)


def ids_model():
    """ids int64 [4] -> Gather(table [40, 3]) -> Reshape [2, 6] -> flat;
    hit = ids > 20 (bool [4])."""
    from onnx import TensorProto as tp, helper, numpy_helper as nh
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["rows"], axis=0),
         helper.make_node("Reshape", ["rows", "shape"], ["flat"]),
         helper.make_node("Greater", ["ids", "limit"], ["hit"])],
        "ids",
        [helper.make_tensor_value_info("ids", tp.INT64, [4])],
        [helper.make_tensor_value_info("flat", tp.FLOAT, [2, 6]),
         helper.make_tensor_value_info("hit", tp.BOOL, [4])],
        [nh.from_array(TABLE, "table"), nh.from_array(np.array([2, 6], np.int64), "shape"),
         nh.from_array(np.array(20, np.int64), "limit")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def reference(model, ids):
    import onnxruntime
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    return session.run(None, {"ids": ids})


def convert_ids(directory: Path, input_type=None, output_types=(None, None)):
    import onnx
    path = directory / "model.onnx"
    onnx.save(ids_model(), str(path))
    converted = convert(ConvertOptions(
        platform="onnx", model_file=path, weight_file=None,
        inputs=[TensorSpec("ids", [4], data_format="NONE", data_type=input_type)],
        outputs=[TensorSpec("flat", [], data_type=output_types[0]),
                 TensorSpec("hit", [], data_type=output_types[1])],
        model_name="ids"))
    (directory / "model.pb").write_bytes(converted.net_def.SerializeToString())
    (directory / "model.data").write_bytes(converted.weights)
    return converted


def app_types(converted):
    """{name: IODataType name} of every input and output."""
    enum = converted.net_def.DESCRIPTOR.file.enum_types_by_name["IODataType"]
    return {info.name: enum.values_by_number[info.app_data_type].name
            for info in list(converted.net_def.input_info) + list(converted.net_def.output_info)}


def mace_run(directory: Path, ids: np.ndarray):
    np.save(directory / "in_ids.npy", ids)
    command = [str(MACE_RUN), f"--model_file={directory / 'model.pb'}",
               f"--model_data_file={directory / 'model.data'}",
               "--input_node=ids", "--input_shape=4", "--output_node=flat,hit",
               f"--input_file={directory / 'in'}", f"--output_file={directory / 'out'}"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


class ConverterTypesTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def test_onnx_types_are_the_default(self):
        converted = convert_ids(self.dir)
        self.assertEqual(app_types(converted),
                         {"ids": "IO_INT64", "flat": "IO_DEFAULT", "hit": "IO_BOOL"})
        self.assertEqual([s.data_type for s in converted.inputs], ["int64"])
        self.assertEqual([s.data_type for s in converted.outputs], ["float32", "bool"])

    def test_keys_override_the_default(self):
        converted = convert_ids(self.dir, "float32", ("float32", "int32"))
        self.assertEqual(app_types(converted),
                         {"ids": "IO_DEFAULT", "flat": "IO_DEFAULT", "hit": "IO_INT32"})
        converted = convert_ids(self.dir, "int32", ("int64", "uint8"))
        self.assertEqual(app_types(converted),
                         {"ids": "IO_INT32", "flat": "IO_INT64", "hit": "IO_UINT8"})

    def test_bad_type_is_refused(self):
        with self.assertRaisesRegex(ConversionError, r"'ids' has data type 'int8'; use one of "
                                    r"float32, int32, int64, bool, uint8"):
            convert_ids(self.dir, "int8")


class DeploymentKeysTest(unittest.TestCase):
    BASE = {
        "library_name": "demo", "target_abis": ["host"], "build_type": "proto",
        "models": {"net": {
            "platform": "onnx", "model_file_path": "net.onnx",
            "model_sha256_checksum": "ab" * 32, "runtime": "cpu",
            "input_tensors": "ids,mask", "input_shapes": "4:4",
            "output_tensors": "y", "output_shapes": "4"}},
    }

    def load(self, **keys):
        document = copy.deepcopy(self.BASE)
        document["models"]["net"].update(keys)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "deploy.yml"
            path.write_text(yaml.safe_dump(document))
            try:
                return load_config(path).models["net"], None
            except ConfigError as error:
                return None, str(error)[len(str(path)) + 2:]

    def test_keys_are_read(self):
        model, error = self.load(input_data_types=["int64", "bool"], output_data_types="int32")
        self.assertIsNone(error)
        self.assertEqual([s.data_type for s in model.inputs], ["int64", "bool"])
        self.assertEqual([s.data_type for s in model.outputs], ["int32"])
        model, _ = self.load()
        self.assertEqual([s.data_type for s in model.inputs + model.outputs], [None] * 3)

    def test_bad_keys_name_the_key(self):
        cases = [
            ({"input_data_types": ["int64"]},
             "models.net.input_data_types: gives 1 type(s) for 2 tensor(s) (ids, mask)"),
            ({"input_data_types": ["int64", "int16"]},
             "models.net.input_data_types[1]: expected one of float32, int32, int64, bool, "
             "uint8, got 'int16'"),
            ({"output_data_types": {"y": "bool"}},
             "models.net.output_data_types: expected a list of float32, int32, int64, bool, "
             "uint8, got a mapping"),
            ({"output_data_types": [True]},
             "models.net.output_data_types[0]: expected one of float32, int32, int64, bool, "
             "uint8, got True"),
        ]
        for keys, expected in cases:
            with self.subTest(keys=keys):
                self.assertEqual(self.load(**keys)[1], expected)


@unittest.skipUnless(MACE_RUN.exists(), f"build //mace/tools:mace_run ({MACE_RUN})")
class TypedMaceRunTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self._tmp.name)
        convert_ids(self.dir)

    def tearDown(self):
        self._tmp.cleanup()

    def test_int64_in_bool_out_matches_onnxruntime(self):
        for ids in (np.array([0, 39, 21, 20], np.int64), RNG.integers(0, 40, 4)):
            ids = ids.astype(np.int64)
            result = mace_run(self.dir, ids)
            self.assertEqual(result.returncode, 0, result.stderr)
            flat, hit = reference(ids_model(), ids)
            got_flat = np.load(self.dir / "out_flat.npy")
            got_hit = np.load(self.dir / "out_hit.npy")
            self.assertEqual(got_flat.dtype, np.float32)
            self.assertEqual(got_hit.dtype, np.bool_)
            np.testing.assert_array_equal(got_flat, flat)
            np.testing.assert_array_equal(got_hit, hit)

    def test_integers_float32_cannot_hold_are_refused(self):
        for bad in (2 ** 24 + 1, -(2 ** 24) - 1):
            result = mace_run(self.dir, np.array([1, 2, bad, 3], np.int64))
            self.assertNotEqual(result.returncode, 0)
            self.assertIn(f"input 'ids' holds {bad} (element 2)", result.stderr + result.stdout)

    def test_wrong_file_type_is_refused(self):
        result = mace_run(self.dir, np.array([1, 2, 3, 4], np.int32))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("input 'ids' is int32 but the model expects int64",
                      result.stderr + result.stdout)


if __name__ == "__main__":
    unittest.main()
