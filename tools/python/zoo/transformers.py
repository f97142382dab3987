"""The transformer zoo: a BERT-style encoder in PyTorch's and tf2onnx's
graph shapes, a ViT-tiny and a Whisper-tiny-style encoder, with seeded
weights. The keyword arguments give the smaller variants the quick tests
check; the defaults are the real sizes."""
from __future__ import annotations

import math

import numpy as np
import onnx
from onnx import TensorProto

from zoo.transformer_net import TransformerNet

BERT_VOCAB = 30522


def sinusoids(length: int, channels: int) -> np.ndarray:
    """Whisper's fixed positional embedding, [1, length, channels]."""
    scales = np.exp(-math.log(10000) / (channels // 2 - 1) * np.arange(channels // 2))
    angles = np.arange(length)[:, None] * scales[None, :]
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)[None].astype(np.float32)


def bert(form: str = "torch", layers: int = 6, hidden: int = 384, heads: int = 12,
         seq: int = 128, vocab: int = BERT_VOCAB) -> onnx.ModelProto:
    """A MiniLM-sized BERT encoder on int64 input_ids and attention_mask
    [1, seq]; its output is last_hidden_state [1, seq, hidden]."""
    net = TransformerNet(f"bert_{form}", 59 if form == "torch" else 60, form)
    ids = net.add_input("input_ids", TensorProto.INT64, [1, seq])
    mask = net.add_input("attention_mask", TensorProto.INT64, [1, seq])
    words = net.node("Gather", [net.weight((vocab, hidden), 0.5), ids], axis=0)
    # Position and token-type (all 0) embeddings, summed into one table.
    x = net.node("Add", [words, net.weight((1, seq, hidden), 0.5)])
    x = net.layer_norm(x, hidden, 1e-12)
    wide = net.node("Unsqueeze", [mask, net.ints([1, 2])])
    if form == "torch":
        wide = net.node("Cast", [wide], to=TensorProto.FLOAT)
        masked = net.node("Sub", [net.scalar(1.0), wide])
        attend = net.node("Mul", [masked, net.scalar(-10000.0)])
    else:
        attend = net.node("Cast", [wide], to=TensorProto.BOOL)
    for _ in range(layers):
        x = net.post_norm_layer(x, seq, hidden, heads, 4 * hidden, attend, 1e-12)
    return net.model(x, "last_hidden_state", [1, seq, hidden])


def bert_torch(**sizes) -> onnx.ModelProto:
    return bert("torch", **sizes)


def bert_tf(**sizes) -> onnx.ModelProto:
    return bert("tf", **sizes)


def vit_tiny(size: int = 224, layers: int = 12, hidden: int = 192, heads: int = 3,
             classes: int = 1000) -> onnx.ModelProto:
    """ViT-Ti/16 on pixel_values [1, 3, size, size]; logits [1, classes]."""
    net = TransformerNet("vit_tiny", 61, "torch")
    pixels = net.add_input("pixel_values", TensorProto.FLOAT, [1, 3, size, size])
    patches = (size // 16) ** 2
    conv = net.node("Conv", [pixels, net.weight((hidden, 3, 16, 16), 1 / math.sqrt(768)),
                             net.weight((hidden,), 0.02)], kernel_shape=[16, 16],
                    strides=[16, 16])
    tokens = net.node("Transpose", [net.node("Reshape", [conv, net.ints([1, hidden, patches])])],
                      perm=[0, 2, 1])
    x = net.node("Concat", [net.weight((1, 1, hidden), 0.5), tokens], axis=1)
    x = net.node("Add", [x, net.weight((1, patches + 1, hidden), 0.5)])
    for _ in range(layers):
        x = net.pre_norm_layer(x, patches + 1, hidden, heads, 4 * hidden, 1e-6)
    x = net.layer_norm(x, hidden, 1e-6)
    first = net.node("Gather", [x, net.const("index", np.array(0, np.int64))], axis=1)
    return net.model(net.linear(first, hidden, classes), "logits", [1, classes])


def whisper_tiny_encoder(frames: int = 3000, layers: int = 4, hidden: int = 384,
                         heads: int = 6, mels: int = 80) -> onnx.ModelProto:
    """Whisper-tiny's encoder on input_features [1, mels, frames]: two 1-D
    convolutions (the second at stride 2) with GELU, fixed sinusoidal
    positions and pre-norm layers; last_hidden_state [1, frames / 2, hidden]."""
    net = TransformerNet("whisper_tiny_encoder", 62, "torch")
    x = net.add_input("input_features", TensorProto.FLOAT, [1, mels, frames])
    for stride, channels in ((1, mels), (2, hidden)):
        x = net.gelu(net.node("Conv", [x, net.weight((hidden, channels, 3),
                                                     1 / math.sqrt(3 * channels)),
                                       net.weight((hidden,), 0.02)],
                              kernel_shape=[3], pads=[1, 1], strides=[stride]))
    seq = frames // 2
    x = net.node("Add", [net.node("Transpose", [x], perm=[0, 2, 1]),
                         net.const("positions", sinusoids(seq, hidden))])
    for _ in range(layers):
        x = net.pre_norm_layer(x, seq, hidden, heads, 4 * hidden, 1e-5)
    x = net.layer_norm(x, hidden, 1e-5)
    return net.model(x, "last_hidden_state", [1, seq, hidden])
