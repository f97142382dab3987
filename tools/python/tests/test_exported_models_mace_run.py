"""The real exported models of converter_front/test_exported_models.py,
converted and run by the C++ engine through mace_run, match ONNX Runtime.

Needs the host mace_run binary; tools/test.sh builds it first and passes its
path in MACE_RUN (default: bazel-bin/mace/tools/mace_run). Needs the packages
of tools/requirements-models.txt as well.
"""
import subprocess
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_converter.quantize.graph_pass import DT_UINT8, QuantizeSettings
from tests.converter_front import test_exported_models as exported
from tests.converter_front.helpers import cosine
from tests.test_mace_run_cli import MACE_RUN


def safe_name(name: str) -> str:
    """mace_run's file name for a tensor name."""
    return name.replace("/", "_").replace(":", "_").replace(" ", "_")


def shapes(specs) -> str:
    return ":".join(",".join(str(d) for d in spec.shape) for spec in specs)


def run_converted(test: unittest.TestCase, converted,
                  feeds: dict[str, np.ndarray], check_shapes: bool = True
                  ) -> dict[str, np.ndarray]:
    """Runs a converted model through mace_run on `feeds` and returns its
    outputs by name; a failing run fails `test` with mace_run's stderr.
    Without `check_shapes` the outputs may have other shapes than the
    converted ones (after NonMaxSuppression, those are the largest)."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        graph, weights = directory / "model.pb", directory / "model.data"
        graph.write_bytes(converted.net_def.SerializeToString())
        weights.write_bytes(converted.weights)
        for name, array in feeds.items():
            np.save(directory / f"in_{safe_name(name)}.npy", array)
        command = [
            str(MACE_RUN), f"--model_file={graph}", f"--model_data_file={weights}",
            "--input_node=" + ",".join(s.name for s in converted.inputs),
            "--input_shape=" + shapes(converted.inputs),
            "--output_node=" + ",".join(s.name for s in converted.outputs),
            f"--input_file={directory / 'in'}", f"--output_file={directory / 'out'}"]
        if check_shapes:
            command.append("--output_shape=" + shapes(converted.outputs))
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        test.assertEqual(result.returncode, 0, result.stderr)
        return {s.name: np.load(directory / f"out_{safe_name(s.name)}.npy")
                for s in converted.outputs}


class ExportedModelsOnEngineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")

    def _check(self, case: exported.ExportedModel) -> None:
        path, model = exported.load(self, case)
        feeds, expected = exported.reference(case, model)
        converted = exported.convert_case(case, path)
        got = run_converted(self, converted, feeds)
        exported.assert_matches(self, case, f"{path.name} (mace_run)", expected, got)

    def test_paddle2onnx_opset11_ppocr_mobile_v2_cls(self):
        self._check(exported.PPOCR_CLS)

    def test_paddle2onnx_opset12_ppocr_v4_det(self):
        self._check(exported.PPOCR_DET)

    def test_paddle2onnx_opset12_ppocr_v4_rec(self):
        self._check(exported.PPOCR_REC)

    def test_pytorch_opset17_yolov8n(self):
        self._check(exported.NUDENET_YOLOV8N)

    def test_tf2onnx_opset13_speech_embedding(self):
        self._check(exported.OWW_EMBEDDING)

    def test_pytorch_opset13_log_mel_spectrogram(self):
        self._check(exported.OWW_MELSPECTROGRAM)

    def test_qdq_opset18_smart_turn(self):
        self._check(exported.SMART_TURN)

    def test_qdq_opset18_smart_turn_quantized(self):
        """quantize: 1 on the QDQ model: the projections (MatMuls of a
        constant matrix, FullyConnected between two Reshapes) keep the
        model's int8 weights with their per-column scales, the attention
        MatMuls of two activations and the classifier's Gemms run on the
        model's uint8 activations."""
        case = exported.SMART_TURN
        path, model = exported.load(self, case)
        feeds, expected = exported.reference(case, model)
        converted = exported.convert_case(case, path, data_type="uint8",
                                          quantize=QuantizeSettings())
        uint8 = [op.type for op in converted.net_def.op
                 if any(a.name == "T" and a.i == DT_UINT8 for a in op.arg)]
        self.assertEqual((uint8.count("MatMul"), uint8.count("FullyConnected")), (8, 29),
                         converted.log)
        got = run_converted(self, converted, feeds)
        pooled = "sum_1_DequantizeLinear_Output"
        self.assertGreater(cosine(got[pooled], expected[pooled]), 0.998)
        self.assertLess(abs(got["logits"].item() - expected["logits"].item()), 2e-3)

    def test_tf2onnx_opset15_magika_1d_global_max_pool(self):
        self._check(exported.MAGIKA_V3_3)

    def test_pytorch_opset17_minilm_int8_weights(self):
        self._check(exported.MINILM)

    def test_pytorch_opset17_name_romanizer_gru_encoder(self):
        self._check(exported.NAME_ROMANIZER_ENCODER)

    def test_pytorch_opset17_name_romanizer_attention_decoder(self):
        self._check(exported.NAME_ROMANIZER_DECODER)

    def test_pytorch_opset18_attacut_1d_convolutions(self):
        self._check(exported.ATTACUT_C)

    def test_tf2onnx_opset15_oskut_lstm(self):
        self._check(exported.OSKUT_SCADS)

    def test_dynamic_quantization_opset17_tashkeel_bilstm(self):
        self._check(exported.TASHKEEL_BILSTM)

    def test_dynamic_quantization_opset17_tashkeel_two_heads(self):
        self._check(exported.TASHKEEL_RAWI_V3)

    def test_dynamic_quantization_tashkeel_heads_are_integer(self):
        """The MatMulInteger heads of both text2tashkeel models run as
        integer DynamicQuantizedFullyConnected ops. Fed onnxruntime's own
        LSTM output (the LSTMs run in float here, which is where the whole
        models differ), the heads match onnxruntime to float rounding: the
        rawi model's two heads directly, the bilstm model's attention (two
        projections, Tanh, a third projection, Softmax, a MatMul) and
        classifier after it."""
        import copy

        import onnx
        from onnx import TensorProto, helper

        from tests.converter_front.helpers import convert_model, ort_run
        heads = ((exported.TASHKEEL_BILSTM, "/lstm/Transpose_4_output_0", ["logits"], 4),
                 (exported.TASHKEEL_RAWI_V3, "/lstm/Transpose_3_output_0",
                  ["presence", "value"], 2))
        for case, start, outputs, count in heads:
            with self.subTest(model=case.path):
                path, model = exported.load(self, case)
                converted = exported.convert_case(case, path)
                ops = [op for op in converted.net_def.op
                       if op.type == "DynamicQuantizedFullyConnected"]
                self.assertEqual(len(ops), count, converted.log)
                # onnxruntime's value of the heads' input on the case's input.
                probe = copy.deepcopy(model)
                probe.graph.output.extend(
                    [helper.make_tensor_value_info(start, TensorProto.FLOAT, None)])
                hidden = ort_run(probe, exported.feeds_of(case))[-1]
                head = onnx.utils.Extractor(model).extract_model([start], outputs)
                wants = dict(zip(outputs, ort_run(head, {start: hidden})))
                converted = convert_model(head, {start: list(hidden.shape)}, outputs)
                got = run_converted(self, converted, {start: hidden})
                for name, want in wants.items():
                    error = float(np.abs(got[name].reshape(want.shape) - want).max())
                    self.assertLessEqual(error, 1e-5 * float(np.abs(want).max()), name)

    # The wake-word head is left out: its output is named by a JSON string
    # with commas, which mace_run's comma-separated --output_node cannot carry.


if __name__ == "__main__":
    unittest.main()
