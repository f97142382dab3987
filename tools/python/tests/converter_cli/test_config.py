"""Deployment file checks: every problem is one message naming the file and
the key, and the command line prints it without a traceback."""
import copy
import tempfile
import unittest
from pathlib import Path

import yaml

from mace_converter.config import ConfigError, load_config
from tests.converter_cli.support import run_cli

SHA = "ab" * 32
BASE = {
    "library_name": "demo",
    "target_abis": ["host"],
    "build_type": "proto",
    "models": {
        "net": {
            "platform": "onnx",
            "model_file_path": "build/zoo/net.onnx",
            "model_sha256_checksum": SHA,
            "subgraphs": [{
                "input_tensors": "input",
                "input_shapes": "1,3,224,224",
                "output_tensors": "output",
                "output_shapes": "1,1000",
            }],
            "runtime": "cpu",
        },
    },
}


class ConfigTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.path = Path(self._tmp.name) / "deploy.yml"

    def tearDown(self):
        self._tmp.cleanup()

    def load_text(self, text: str):
        self.path.write_text(text)
        return load_config(self.path)

    def load(self, document):
        return self.load_text(yaml.safe_dump(document, sort_keys=False))

    def error_of(self, document) -> str:
        with self.assertRaises(ConfigError) as caught:
            if isinstance(document, str):
                self.load_text(document)
            else:
                self.load(document)
        message = str(caught.exception)
        self.assertTrue(message.startswith(f"{self.path}: "), message)
        self.assertNotIn("\n", message)
        return message[len(str(self.path)) + 2:]

    def changed(self, edit):
        document = copy.deepcopy(BASE)
        edit(document)
        return document

    @staticmethod
    def model(document):
        return document["models"]["net"]

    @staticmethod
    def subgraph(document):
        return document["models"]["net"]["subgraphs"][0]

    # ---- accepted files ------------------------------------------------------

    def test_defaults(self):
        config = self.load(BASE)
        self.assertEqual(config.library_name, "demo")
        self.assertFalse(config.embed_model_data)
        self.assertFalse(config.linkshared)
        self.assertFalse(config.java)
        self.assertEqual(config.target_socs, [])
        model = config.models["net"]
        self.assertEqual(model.data_type, "fp32_fp32")
        self.assertEqual(model.inputs[0].shape, [1, 3, 224, 224])
        self.assertEqual(model.inputs[0].value_range, (-1.0, 1.0))
        self.assertEqual(model.inputs[0].data_format, "NCHW")
        self.assertEqual(model.outputs[0].data_format, "NONE")
        self.assertEqual((model.winograd, model.obfuscate, model.nnlib_graph_mode), (0, False, 0))
        self.assertEqual(len(config.sha256), 64)

    def test_single_subgraph_shorthand_and_spellings(self):
        def edit(document):
            model = self.model(document)
            model.update(model.pop("subgraphs")[0])
            model.update(platform="tensorflow", runtime="cpu_gpu", input_tensors=["a", "b"],
                         input_shapes=["1,8,8,3", "1,4"], input_ranges=[[0, 255], "-2,2"],
                         model_sha256_checksum=SHA.upper(), winograd=4, obfuscate=1)
            document.update(target_abis="host,arm64-v8a", embed_model_data=True,
                            target_socs="sdm845")
        config = self.load(self.changed(edit))
        model = config.models["net"]
        self.assertEqual(config.target_abis, ["host", "arm64-v8a"])
        self.assertEqual(config.target_socs, ["sdm845"])
        self.assertTrue(config.embed_model_data)
        self.assertEqual(model.runtime, "cpu+gpu")
        self.assertEqual(model.devices(), ["cpu", "gpu"])
        self.assertEqual(model.data_type, "fp16_fp32")
        self.assertEqual(model.model_sha256_checksum, SHA)
        self.assertEqual([s.name for s in model.inputs], ["a", "b"])
        self.assertEqual([s.data_format for s in model.inputs], ["NHWC", "NONE"])
        self.assertEqual([s.value_range for s in model.inputs], [(0.0, 255.0), (-2.0, 2.0)])
        self.assertEqual(model.winograd, 4)
        self.assertFalse(model.dynamic_quantize)
        config = self.load(self.changed(lambda d: self.model(d).update(dynamic_quantize=1)))
        self.assertTrue(config.models["net"].dynamic_quantize)

    def test_scalar_and_empty_shapes(self):
        def edit(document):
            self.subgraph(document).update(input_tensors="a,b,c,d",
                                           input_shapes=["3,0,4", "", [], "0"])
        inputs = self.load(self.changed(edit)).models["net"].inputs
        self.assertEqual([s.shape for s in inputs], [[3, 0, 4], [], [], [0]])
        config = self.load(self.changed(
            lambda d: self.subgraph(d).update(input_tensors="a,b", input_shapes="2,3:")))
        self.assertEqual([s.shape for s in config.models["net"].inputs], [[2, 3], []])

    def test_dsp_defaults_to_uint8(self):
        config = self.load(self.changed(lambda d: self.model(d).update(runtime="dsp")))
        self.assertEqual(config.models["net"].data_type, "uint8")

    def test_gpu_runtimes_and_their_data_types(self):
        cases = [("gpu", None, "fp16_fp32", ["gpu"]), ("gpu", "fp32_fp32", "fp32_fp32", ["gpu"]),
                 ("GPU", "FP16_FP32", "fp16_fp32", ["gpu"]),
                 ("cpu+gpu", None, "fp16_fp32", ["cpu", "gpu"]),
                 ("cpu_gpu", "fp32", "fp32_fp32", ["cpu", "gpu"])]
        for runtime, data_type, expected, devices in cases:
            with self.subTest(runtime=runtime, data_type=data_type):
                def edit(document):
                    self.model(document).update(runtime=runtime, limit_opencl_kernel_time=1)
                    if data_type:
                        self.model(document)["data_type"] = data_type
                model = self.load(self.changed(edit)).models["net"]
                self.assertEqual(model.data_type, expected)
                self.assertEqual(model.devices(), devices)
                self.assertTrue(model.limit_opencl_kernel_time)
        self.assertFalse(self.load(BASE).models["net"].limit_opencl_kernel_time)

    def test_selection(self):
        config = self.load(BASE)
        self.assertEqual([m.name for m in config.select(None)], ["net"])
        with self.assertRaisesRegex(ConfigError, r"--model_name other: no such model .*"
                                                 r"\(it has: net\)"):
            config.select("other")
        with self.assertRaisesRegex(ConfigError, r"--target_abi arm64-v8a: .* builds only "
                                                 r"host \(target_abis\)"):
            config.abis("arm64-v8a")

    # ---- rejected files ------------------------------------------------------

    def test_file_level_problems(self):
        self.assertEqual(self.error_of(""), "the deployment file is empty")
        self.assertRegex(self.error_of("library_name: [a\nmodels: {}\n"),
                         r"^line \d+: not valid YAML: ")
        self.assertEqual(self.error_of("library_name: a\nlibrary_name: b\n"),
                         "line 2: not valid YAML: key 'library_name' appears twice "
                         "(first on line 1)")
        self.assertEqual(self.error_of("- a\n- b\n"),
                         ": expected a mapping of keys, got a list")
        with self.assertRaisesRegex(ConfigError, "cannot read the deployment file"):
            load_config(Path(self._tmp.name) / "missing.yml")

    def test_unknown_keys(self):
        self.assertEqual(
            self.error_of(self.changed(lambda d: d.update(libary_name="x"))),
            "libary_name: unknown key (did you mean 'library_name'?); known keys: "
            "library_name, target_abis, target_socs, embed_model_data, build_type, "
            "linkshared, java, android_aar, model_specific_library, c_api, models")
        self.assertRegex(
            self.error_of(self.changed(lambda d: self.model(d).update(runtimes="cpu"))),
            r"^models\.net\.runtimes: unknown key \(did you mean 'runtime'\?\)")
        self.assertRegex(
            self.error_of(self.changed(lambda d: self.subgraph(d).update(input_shape="1"))),
            r"^models\.net\.subgraphs\[0\]\.input_shape: unknown key \(did you mean "
            r"'input_shapes'\?\)")

    def test_missing_keys(self):
        self.assertEqual(self.error_of(self.changed(lambda d: d.pop("library_name"))),
                         "library_name: missing required key")
        self.assertEqual(self.error_of(self.changed(lambda d: d.pop("build_type"))),
                         "build_type: missing required key")
        self.assertEqual(
            self.error_of(self.changed(lambda d: self.model(d).pop("model_sha256_checksum"))),
            "models.net.model_sha256_checksum: missing required key")
        self.assertEqual(
            self.error_of(self.changed(lambda d: self.subgraph(d).pop("output_shapes"))),
            "models.net.subgraphs[0].output_shapes: missing required key")
        self.assertEqual(
            self.error_of(self.changed(lambda d: self.model(d).update(platform="caffe"))),
            "models.net.weight_file_path: missing required key (a Caffe model needs its "
            ".caffemodel)")
        self.assertEqual(
            self.error_of(self.changed(lambda d: self.model(d).update(weight_file_path="w"))),
            "models.net.weight_sha256_checksum: missing required key (weight_file_path is set)")

    def test_wrong_types_and_values(self):
        cases = [
            (lambda d: d.update(target_abis={"a": 1}),
             "target_abis: expected a string, got a mapping"),
            (lambda d: d.update(target_abis=["host", "x86"]),
             "target_abis: 'x86' is not one of host, arm64-v8a, armeabi-v7a"),
            (lambda d: d.update(target_abis=["host", "host"]), "target_abis: lists an ABI twice"),
            (lambda d: d.update(embed_model_data="yes"),
             "embed_model_data: expected 0 or 1, got 'yes'"),
            (lambda d: d.update(linkshared=2), "linkshared: expected 0 or 1, got 2"),
            (lambda d: d.update(build_type="binary"),
             "build_type: 'binary' is not one of proto, code"),
            (lambda d: d.update(library_name="my lib"),
             "library_name: 'my lib' may use only letters, digits, '_', '.' and '-' "
             "(at most 128)"),
            (lambda d: d.update(models=[]),
             "models: expected a mapping from model names to models"),
            (lambda d: d.update(models={"net": "x"}),
             "models.net: expected a mapping of keys, got a string"),
            (lambda d: self.model(d).update(runtime="npu"),
             "models.net.runtime: 'npu' is not one of cpu, gpu, dsp, cpu+gpu"),
            (lambda d: self.model(d).update(platform="pytorch"),
             "models.net.platform: 'pytorch' is not one of onnx, tensorflow, caffe, tflite"),
            (lambda d: self.model(d).update(model_sha256_checksum="abc"),
             "models.net.model_sha256_checksum: expected a SHA-256 checksum (64 hexadecimal "
             "digits), got 'abc'"),
            (lambda d: self.model(d).update(runtime="dsp", data_type="fp32"),
             "models.net.data_type: runtime dsp runs uint8 models only"),
            (lambda d: self.model(d).update(runtime="gpu", data_type="uint8"),
             "models.net.data_type: uint8 is for runtime cpu or dsp, not gpu"),
            (lambda d: self.model(d).update(runtime="gpu", data_type="fp16_fp16"),
             "models.net.data_type: runtime gpu takes fp16_fp32 or fp32_fp32, not fp16_fp16"),
            (lambda d: self.model(d).update(runtime="cpu+gpu", data_type="bf16_fp32"),
             "models.net.data_type: runtime cpu+gpu takes fp16_fp32 or fp32_fp32, not "
             "bf16_fp32"),
            (lambda d: self.model(d).update(runtime="gpu", data_type="fp64"),
             "models.net.data_type: 'fp64' is not one of fp32_fp32, fp16_fp32, fp16_fp16, "
             "bf16_fp32, uint8"),
            (lambda d: self.model(d).update(runtime="opencl"),
             "models.net.runtime: 'opencl' is not one of cpu, gpu, dsp, cpu+gpu"),
            (lambda d: self.model(d).update(runtime="gpu", limit_opencl_kernel_time=2),
             "models.net.limit_opencl_kernel_time: expected 0 or 1, got 2"),
            (lambda d: self.model(d).update(winograd=3),
             "models.net.winograd: expected one of 0, 2, 4, 6, got 3"),
            (lambda d: self.model(d).update(obfuscate="no"),
             "models.net.obfuscate: expected 0 or 1, got 'no'"),
            (lambda d: self.model(d).update(dynamic_quantize=2),
             "models.net.dynamic_quantize: expected 0 or 1, got 2"),
            (lambda d: self.model(d).update(dynamic_quantize=1, runtime="gpu"),
             "models.net.dynamic_quantize: int8 linear layers run on the CPU in fp32_fp32 "
             "models only, not runtime gpu with fp16_fp32"),
            (lambda d: self.model(d).update(dynamic_quantize=1, data_type="fp16_fp32"),
             "models.net.dynamic_quantize: int8 linear layers run on the CPU in fp32_fp32 "
             "models only, not runtime cpu with fp16_fp32"),
            (lambda d: self.model(d).update(subgraphs={"a": 1}),
             "models.net.subgraphs: expected a list with one subgraph"),
            (lambda d: self.model(d)["subgraphs"].append(self.subgraph(d)),
             "models.net.subgraphs: has 2 subgraphs; one per model is supported"),
            (lambda d: self.model(d).update(input_tensors="x"),
             "models.net.input_tensors: give the tensors either under subgraphs or directly "
             "under the model, not both"),
            (lambda d: self.subgraph(d).update(input_shapes="1,3,224,224:1,3"),
             "models.net.subgraphs[0].input_shapes: gives 2 shape(s) for 1 tensor(s)"),
            (lambda d: self.subgraph(d).update(input_shapes="1,3,-1,224"),
             "models.net.subgraphs[0].input_shapes: '1,3,-1,224' is not a shape of "
             "non-negative integers"),
            (lambda d: self.subgraph(d).update(input_shapes="1,,224"),
             "models.net.subgraphs[0].input_shapes: '1,,224' is not a shape of "
             "non-negative integers"),
            (lambda d: self.subgraph(d).update(input_shapes={"a": 1}),
             "models.net.subgraphs[0].input_shapes: expected a shape like 1,224,224,3, got a "
             "mapping"),
            (lambda d: self.subgraph(d).update(input_tensors="a,a", input_shapes="1:1"),
             "models.net.subgraphs[0].input_tensors: names a tensor twice"),
            (lambda d: self.subgraph(d).update(input_ranges="1,-1"),
             "models.net.subgraphs[0].input_ranges: range '1,-1' is empty: low must be below "
             "high"),
            (lambda d: self.subgraph(d).update(input_ranges="low,high"),
             "models.net.subgraphs[0].input_ranges: expected a range like -1,1, got "
             "'low,high'"),
            (lambda d: self.subgraph(d).update(input_data_formats="NCWH"),
             "models.net.subgraphs[0].input_data_formats: 'NCWH' is not one of NCHW, NHWC, "
             "NONE"),
            (lambda d: self.subgraph(d).update(validation_inputs_data=["a.npy", "b.npy"]),
             "models.net.subgraphs[0].validation_inputs_data: gives 2 file(s) for 1 input(s)"),
            # A NUL would end the name in C strings, or fail the file system.
            (lambda d: self.model(d).update(model_file_path="net\0.onnx"),
             "models.net.model_file_path: must not contain a NUL character"),
            (lambda d: self.subgraph(d).update(input_tensors="x\0y"),
             "models.net.subgraphs[0].input_tensors: must not contain a NUL character"),
            (lambda d: self.subgraph(d).update(output_tensors=["y\0"]),
             "models.net.subgraphs[0].output_tensors[0]: must not contain a NUL character"),
        ]
        for edit, expected in cases:
            with self.subTest(expected=expected):
                self.assertEqual(self.error_of(self.changed(edit)), expected)

    def test_code_mode_needs_cpp_model_names(self):
        def edit(document):
            document.update(build_type="code")
            document["models"] = {"mobile-net": self.model(document)}
        self.assertEqual(self.error_of(self.changed(edit)),
                         "models.mobile-net: with build_type: code, a model name must be a "
                         "C++ identifier (letters, digits and '_')")

    def test_java_is_a_flag_of_proto_mode(self):
        self.assertTrue(self.load(self.changed(lambda d: d.update(java=1))).java)
        self.assertTrue(self.load(self.changed(lambda d: d.update(java=True))).java)
        self.assertFalse(self.load(self.changed(lambda d: d.update(java=0))).java)
        self.assertEqual(self.error_of(self.changed(lambda d: d.update(java="yes"))),
                         "java: expected 0 or 1, got 'yes'")
        self.assertEqual(self.error_of(self.changed(lambda d: d.update(java=1,
                                                                       build_type="code"))),
                         "java: needs build_type: proto (the Java API loads .pb and .data "
                         "files)")

    def test_c_api_leaves_only_a_model_specific_library(self):
        self.assertTrue(self.load(self.changed(lambda d: None)).c_api)
        config = self.load(self.changed(lambda d: d.update(c_api=0, model_specific_library=1)))
        self.assertFalse(config.c_api)
        self.assertEqual(self.error_of(self.changed(lambda d: d.update(c_api=0))),
                         "c_api: 0 needs model_specific_library: 1 (the libraries with every "
                         "op carry the C API)")
        self.assertEqual(self.error_of(self.changed(lambda d: d.update(c_api=2))),
                         "c_api: expected 0 or 1, got 2")

    def test_command_line_prints_one_line_and_fails(self):
        self.path.write_text("library_name: demo\ntarget_abis: [host]\nbuild_type: proto\n"
                             "models:\n  net:\n    platform: onnx\n    runtime: gpu\n")
        status, out, err = run_cli("convert", "--config", str(self.path))
        self.assertEqual(status, 1)
        self.assertEqual(err, f"error: {self.path}: models.net.model_file_path: missing "
                              "required key\n")
        self.assertNotIn("Traceback", out + err)


if __name__ == "__main__":
    unittest.main()
