"""Writes the model zoo: ONNX models of real architectures with seeded
weights (CNNs and transformer encoders), plus a tiny TensorFlow frozen
graph and a tiny Caffe model for the frontend tests. The bytes are deterministic; checksums.json beside this file
records the sha256 of each file for deployment files.

    python tools/python/zoo/make_zoo.py --out build/zoo [--only NAME] [--check]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Callable

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zoo import classic, modern, tiny, transformers  # noqa: E402

CHECKSUMS = Path(__file__).resolve().parent / "checksums.json"

# name -> (files it writes, writer)
ONNX_MODELS: dict[str, Callable] = {
    "mobilenet_v1": classic.mobilenet_v1,
    "mobilenet_v2": classic.mobilenet_v2,
    "squeezenet1_1": classic.squeezenet1_1,
    "resnet18": classic.resnet18,
    "resnet50": classic.resnet50,
    "shufflenet_v2_x1_0": modern.shufflenet_v2_x1_0,
    "inception_v3": modern.inception_v3,
    "deeplab_v3": modern.deeplab_v3,
}
# Transformer encoders, with int64 token ids or float features as inputs.
TRANSFORMER_MODELS: dict[str, Callable] = {
    "bert_torch": transformers.bert_torch,
    "bert_tf": transformers.bert_tf,
    "vit_tiny": transformers.vit_tiny,
    "whisper_tiny_encoder": transformers.whisper_tiny_encoder,
}
OTHER_MODELS: dict[str, Callable[[Path], list[Path]]] = {
    "tiny_tf": tiny.write_tensorflow,
    "tiny_caffe": tiny.write_caffe,
}
NAMES = list(ONNX_MODELS) + list(TRANSFORMER_MODELS) + list(OTHER_MODELS)


def write(name: str, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    builder = ONNX_MODELS.get(name) or TRANSFORMER_MODELS.get(name)
    if builder is not None:
        path = out / f"{name}.onnx"
        path.write_bytes(builder().SerializeToString())
        return [path]
    return OTHER_MODELS[name](out)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument("--only", choices=NAMES, action="append",
                        help="write only this model (repeatable)")
    parser.add_argument("--check", action="store_true",
                        help="fail if a file's sha256 differs from checksums.json")
    parser.add_argument("--update-checksums", action="store_true",
                        help="record the sha256 of the written files in checksums.json")
    args = parser.parse_args(argv)
    known = json.loads(CHECKSUMS.read_text()) if CHECKSUMS.exists() else {}
    status = 0
    for name in args.only or NAMES:
        for path in write(name, args.out):
            digest = sha256(path)
            print(f"{digest}  {path.stat().st_size:>10}  {path}")
            expected = known.get(path.name, {}).get("sha256")
            if args.check and expected != digest:
                print(f"make_zoo: {path.name}: sha256 {digest} but checksums.json says "
                      f"{expected}", file=sys.stderr)
                status = 1
            if args.update_checksums:
                known[path.name] = {"sha256": digest, "bytes": path.stat().st_size}
    if args.update_checksums:
        CHECKSUMS.write_text(json.dumps(dict(sorted(known.items())), indent=2) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
