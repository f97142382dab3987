"""A tiny TensorFlow frozen graph and a tiny Caffe model, written with the
converter's own schemas (no TensorFlow or Caffe needed), for the frontends'
end-to-end tests. `tf_params` and `caffe_params` give the weights, so the
tests can compute the expected outputs independently."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from mace_converter import protos

TF_INPUT = [1, 16, 16, 3]
TF_OUTPUTS = {"prob": [1, 10], "features": [1, 256], "merged": [1, 4, 4, 16]}
CAFFE_INPUT = [1, 3, 12, 12]
CAFFE_OUTPUTS = {"prob": [1, 10]}


def _normal(rng: np.random.Generator, shape, scale: float) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def tf_params(seed: int = 11) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "conv1/w": _normal(rng, (3, 3, 3, 8), 0.4), "conv1/b": _normal(rng, 8, 0.1),
        "bn/scale": rng.uniform(0.8, 1.2, 8).astype(np.float32),
        "bn/offset": _normal(rng, 8, 0.1), "bn/mean": _normal(rng, 8, 0.1),
        "bn/var": rng.uniform(0.5, 1.5, 8).astype(np.float32),
        "dw/w": _normal(rng, (3, 3, 8, 2), 0.4), "dw/b": _normal(rng, 16, 0.1),
        "mul/c": rng.uniform(0.5, 1.5, 16).astype(np.float32),
        "branch_a/w": _normal(rng, (1, 1, 16, 8), 0.3),
        "branch_b/w": _normal(rng, (3, 3, 16, 8), 0.1),
        "fc/w": _normal(rng, (16, 10), 0.3), "fc/b": _normal(rng, 10, 0.1),
    }


class TfGraphWriter:
    """Writes GraphDef nodes the way TensorFlow's freezer does."""

    TYPE_ATTRS = ("T", "dtype", "Tidx", "Tshape", "Tpaddings", "DstT", "SrcT", "U")

    def __init__(self):
        self.schema = protos.load("tf_graph")
        self.graph = self.schema.GraphDef()
        self.graph.versions.producer = 1087

    def node(self, name: str, op: str, inputs=(), **attrs) -> str:
        schema = self.schema
        proto = self.graph.node.add()
        proto.name, proto.op = name, op
        proto.input.extend(inputs)
        for key, value in sorted(attrs.items()):
            target = proto.attr[key]
            if isinstance(value, np.ndarray):
                target.tensor.CopyFrom(_tf_tensor(schema, value))
            elif isinstance(value, bool):
                target.b = value
            elif isinstance(value, str):
                if key in self.TYPE_ATTRS:
                    target.type = getattr(schema, value)
                else:
                    target.s = value.encode()
            elif isinstance(value, float):
                target.f = value
            elif isinstance(value, int):
                target.i = value
            elif key == "shape":
                target.shape.dim.extend(schema.TensorShapeProto.Dim(size=d) for d in value)
            else:
                target.list.i.extend(value)
        return name

    def const(self, name: str, value: np.ndarray) -> str:
        dtype = "DT_INT32" if value.dtype == np.int32 else "DT_FLOAT"
        return self.node(name, "Const", value=value, dtype=dtype)

    def serialize(self) -> bytes:
        return self.graph.SerializeToString(deterministic=True)


def _tf_graph(params: dict[str, np.ndarray]) -> bytes:
    writer = TfGraphWriter()
    node, const = writer.node, writer.const
    image = dict(T="DT_FLOAT", data_format="NHWC")
    x = node("input", "Placeholder", dtype="DT_FLOAT", shape=TF_INPUT)
    y = node("conv1/Conv2D", "Conv2D", [x, const("conv1/w", params["conv1/w"])],
             strides=[1, 1, 1, 1], padding="SAME", dilations=[1, 1, 1, 1], **image)
    y = node("conv1/BiasAdd", "BiasAdd", [y, const("conv1/b", params["conv1/b"])], **image)
    bn_inputs = [const(f"bn/{k}", params[f"bn/{k}"]) for k in ("scale", "offset", "mean", "var")]
    y = node("bn/FusedBatchNormV3", "FusedBatchNormV3", [y] + bn_inputs, epsilon=1e-3,
             is_training=False, U="DT_FLOAT", **image)
    y = node("relu6", "Relu6", [y], T="DT_FLOAT")
    y = node("dw/depthwise", "DepthwiseConv2dNative", [y, const("dw/w", params["dw/w"])],
             strides=[1, 2, 2, 1], padding="SAME", dilations=[1, 1, 1, 1], **image)
    y = node("dw/BiasAdd", "BiasAdd", [y, const("dw/b", params["dw/b"])], **image)
    y = node("mul", "Mul", [y, const("mul/c", params["mul/c"])], T="DT_FLOAT")
    y = node("relu", "Relu", [y], T="DT_FLOAT")
    pooled = node("maxpool", "MaxPool", [y], ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                  padding="VALID", **image)
    a = node("branch_a/Conv2D", "Conv2D", [pooled, const("branch_a/w", params["branch_a/w"])],
             strides=[1, 1, 1, 1], padding="VALID", **image)
    a = node("branch_a/Relu", "Relu", [a], T="DT_FLOAT")
    b = node("branch_b/Conv2D", "Conv2D", [pooled, const("branch_b/w", params["branch_b/w"])],
             strides=[1, 1, 1, 1], padding="SAME", **image)
    cat = node("concat", "ConcatV2", [a, b, const("concat/axis", np.array(3, np.int32))],
               N=2, T="DT_FLOAT", Tidx="DT_INT32")
    merged = node("merged", "AddV2", [cat, pooled], T="DT_FLOAT")
    paddings = np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32)
    y = node("pad", "Pad", [merged, const("pad/paddings", paddings)], T="DT_FLOAT",
             Tpaddings="DT_INT32")
    y = node("avgpool", "AvgPool", [y], ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1],
             padding="VALID", **image)
    node("features", "Reshape", [y, const("features/shape", np.array([1, -1], np.int32))],
         T="DT_FLOAT", Tshape="DT_INT32")
    y = node("mean", "Mean", [y, const("mean/axes", np.array([1, 2], np.int32))],
             keep_dims=True, T="DT_FLOAT", Tidx="DT_INT32")
    y = node("squeeze", "Squeeze", [y], squeeze_dims=[1, 2], T="DT_FLOAT")
    y = node("identity", "Identity", [y], T="DT_FLOAT")
    y = node("fc/MatMul", "MatMul", [y, const("fc/w", params["fc/w"])], transpose_a=False,
             transpose_b=False, T="DT_FLOAT")
    y = node("fc/BiasAdd", "BiasAdd", [y, const("fc/b", params["fc/b"])], **image)
    node("prob", "Softmax", [y], T="DT_FLOAT")
    return writer.serialize()


def _tf_tensor(schema, value: np.ndarray):
    tensor = schema.TensorProto()
    tensor.dtype = schema.DT_INT32 if value.dtype == np.int32 else schema.DT_FLOAT
    tensor.tensor_shape.dim.extend(schema.TensorShapeProto.Dim(size=d) for d in value.shape)
    tensor.tensor_content = value.astype(value.dtype.newbyteorder("<")).tobytes()
    return tensor


def write_tensorflow(out: Path) -> list[Path]:
    path = out / "tiny_tf.pb"
    path.write_bytes(_tf_graph(tf_params()))
    return [path]


def caffe_params(seed: int = 12) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "conv1/w": _normal(rng, (8, 3, 3, 3), 0.4), "conv1/b": _normal(rng, 8, 0.1),
        "bn/mean": _normal(rng, 8, 0.1), "bn/var": rng.uniform(0.5, 1.5, 8).astype(np.float32),
        "bn/factor": np.array([2.0], np.float32),
        "scale/gamma": rng.uniform(0.8, 1.2, 8).astype(np.float32),
        "scale/beta": _normal(rng, 8, 0.1),
        "dw/w": _normal(rng, (8, 1, 3, 3), 0.4),
        "prelu/slope": rng.uniform(0.0, 0.3, 8).astype(np.float32),
        "expand/w": _normal(rng, (8, 8, 1, 1), 0.3), "expand/b": _normal(rng, 8, 0.1),
        "fc/w": _normal(rng, (10, 8 * 4 * 4), 0.2), "fc/b": _normal(rng, 10, 0.1),
    }


CAFFE_PROTOTXT = """name: "tiny_caffe"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 1 dim: 3 dim: 12 dim: 12 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  param { lr_mult: 1 } param { lr_mult: 2 }
  convolution_param { num_output: 8 kernel_size: 3 pad: 1 stride: 1
    weight_filler { type: "xavier" } } }
layer { name: "bn" type: "BatchNorm" bottom: "conv1" top: "conv1"
  batch_norm_param { use_global_stats: true eps: 0.001 } }
layer { name: "scale" type: "Scale" bottom: "conv1" top: "conv1"
  scale_param { bias_term: true } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "split" type: "Split" bottom: "conv1" top: "conv1_a" top: "conv1_b" }
layer { name: "dw" type: "Convolution" bottom: "conv1_a" top: "dw"
  convolution_param { num_output: 8 group: 8 kernel_size: 3 pad: 1 bias_term: false } }
layer { name: "prelu" type: "PReLU" bottom: "dw" top: "dw" }
layer { name: "expand" type: "Convolution" bottom: "conv1_b" top: "expand"
  convolution_param { num_output: 8 kernel_size: 1 } }
layer { name: "sigmoid" type: "Sigmoid" bottom: "expand" top: "gate" }
layer { name: "gated" type: "Eltwise" bottom: "dw" bottom: "gate" top: "gated"
  eltwise_param { operation: PROD } }
layer { name: "sum" type: "Eltwise" bottom: "gated" bottom: "conv1_b" top: "sum"
  eltwise_param { operation: SUM coeff: 1.0 coeff: 0.5 } }
layer { name: "tanh" type: "TanH" bottom: "sum" top: "sum" }
layer { name: "lrn" type: "LRN" bottom: "sum" top: "lrn"
  lrn_param { local_size: 3 alpha: 0.0001 beta: 0.75 } }
layer { name: "pool" type: "Pooling" bottom: "lrn" top: "pool"
  pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
layer { name: "avg" type: "Pooling" bottom: "pool" top: "avg"
  pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "concat" type: "Concat" bottom: "avg" bottom: "avg" top: "concat" }
layer { name: "drop" type: "Dropout" bottom: "avg" top: "avg"
  dropout_param { dropout_ratio: 0.5 } }
layer { name: "fc" type: "InnerProduct" bottom: "avg" top: "fc"
  inner_product_param { num_output: 10 } }
layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "fc" bottom: "label" top: "loss"
  include { phase: TRAIN } }
"""

_CAFFE_BLOBS = {"conv1": ["conv1/w", "conv1/b"], "bn": ["bn/mean", "bn/var", "bn/factor"],
                "scale": ["scale/gamma", "scale/beta"], "dw": ["dw/w"],
                "prelu": ["prelu/slope"], "expand": ["expand/w", "expand/b"],
                "fc": ["fc/w", "fc/b"]}


def _caffe_model(params: dict[str, np.ndarray]) -> bytes:
    schema = protos.load("caffe")
    net = schema.NetParameter()
    net.name = "tiny_caffe"
    for layer_name, blob_names in _CAFFE_BLOBS.items():
        layer = net.layer.add()
        layer.name = layer_name
        for blob_name in blob_names:
            value = params[blob_name]
            blob = layer.blobs.add()
            blob.shape.dim.extend(value.shape)
            blob.data.extend(value.reshape(-1).tolist())
    return net.SerializeToString(deterministic=True)


def write_caffe(out: Path) -> list[Path]:
    prototxt, weights = out / "tiny_caffe.prototxt", out / "tiny_caffe.caffemodel"
    prototxt.write_text(CAFFE_PROTOTXT)
    weights.write_bytes(_caffe_model(caffe_params()))
    return [prototxt, weights]
