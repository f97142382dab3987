"""QuantizeLinear / DequantizeLinear of ONNX QDQ models (what
onnxruntime.quantization.quantize_static writes), and the QLinear ops of its
QOperator format: QLinearConv, QLinearMatMul, and QLinearAdd and QLinearMul
of the com.microsoft domain.

An inner QuantizeLinear -> DequantizeLinear pair on an activation rounds the
value to its quantization grid and saturates it to the integer range; the
saturation is often an activation the exporter folded into the range (a
ReLU as zero point -128 of int8). So the pair always keeps its meaning: it
becomes a fake quantization, the engine's float-domain QuantizeLinear and
DequantizeLinear back to back (Graph.fake_quant), and so does the output
requantization of a QLinear op. The scale and zero point are kept too
(Graph.imported_quant; int8 ones as the equivalent uint8 ones), so the
uint8 pass quantizes the tensor exactly as the model says and drops the
fake quantization where the tensor is uint8 already. On weights the
DequantizeLinear folds to a float constant at import; its scales are kept
(Graph.imported_weight_scales, via record_weight_scales) so the pass can
recover the model's integers.
"""
from __future__ import annotations

import numpy as np

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import converter
from mace_converter.ir import QuantParams


def scales(node: Node, index: int, what: str = "scale") -> np.ndarray:
    """The constant scale(s) of input `index`; a zero, negative, NaN or
    infinite one is an error naming the tensor."""
    value = node.const(index, what)
    flat = value.astype(np.float64).reshape(-1)
    bad = flat[~(np.isfinite(flat) & (flat > 0))]
    if bad.size or not flat.size:
        shown = f"holds {bad[0]}" if bad.size else "is empty"
        raise node.fail(f"{what} '{node.inputs[index]}' {shown}; a scale must be finite and "
                        "positive")
    return value


def _params(node: Node) -> QuantParams | None:
    """uint8 parameters of a per-tensor uint8 or int8 activation
    quantization, or None (per-axis and wider types have none: their fake
    quantization stays float)."""
    scale = scales(node, 1)
    zero_point = node.optional_const(2, "zero point") if node.has_input(2) else None
    if scale.size != 1 or (zero_point is not None and zero_point.size != 1):
        return None
    if zero_point is None:    # ONNX's default zero point is a uint8 0
        zero_point = np.zeros(1, np.uint8)
    return _scalar_params(node, float(scale.reshape(-1)[0]), zero_point)


# ONNX element types QuantizeLinear produces, by the names the engine's
# QuantizeLinear takes.
_QUANTIZED_TYPES = {2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16", 21: "UINT4", 22: "INT4",
                    17: "FLOAT8E4M3FN", 18: "FLOAT8E4M3FNUZ", 19: "FLOAT8E5M2",
                    20: "FLOAT8E5M2FNUZ"}
_FLOAT8 = {17, 18, 19, 20}


def _onnx_type(node: Node, name: str) -> int:
    """The ONNX element type of tensor `name` where the model states it (a
    graph input, output or value_info, or an initializer), else 0."""
    graph = node.graph
    declared = getattr(graph, "onnx_input_types", {}).get(name) or \
        getattr(graph, "onnx_value_types", {}).get(name)
    if declared:
        return int(declared)
    if name in node.values:
        from onnx import helper
        try:
            return int(helper.np_dtype_to_tensor_dtype(np.asarray(node.values[name]).dtype))
        except (KeyError, TypeError, ValueError):
            return 0
    return 0


def _quantize_args(node: Node) -> tuple[dict, bool]:
    """The engine QuantizeLinear's arguments for this QuantizeLinear node,
    and whether it quantizes to a float8 type."""
    args = {"axis": int(node.attr("axis", 1)), "block_size": int(node.attr("block_size", 0))}
    zero_point = node.inputs[2] if node.has_input(2) else ""
    # ONNX: output_dtype, else the zero point's type, else uint8. A zero
    # point computed by other ops has no stated type: y's declared one.
    to = int(node.attr("output_dtype", 0)) or \
        (_onnx_type(node, zero_point) or _onnx_type(node, node.outputs[0])
         if zero_point else 2)
    if to not in _QUANTIZED_TYPES:
        raise node.fail(f"QuantizeLinear to ONNX element type {to} is not supported")
    args["to"] = _QUANTIZED_TYPES[to]
    args["saturate"] = int(node.attr("saturate", 1))
    return args, to in _FLOAT8


def _float_domain_qdq(node: Node) -> None:
    """QuantizeLinear or DequantizeLinear that computes: the engine's
    float-domain op of the same name, exact to ONNX (the quantized values
    carried in float32)."""
    quantize = node.op_type == "QuantizeLinear"
    if quantize:
        args, float8 = _quantize_args(node)
    else:
        args = {"axis": int(node.attr("axis", 1)), "block_size": int(node.attr("block_size", 0))}
        float8 = _onnx_type(node, node.inputs[0]) in _FLOAT8
    zero_point = node.inputs[2] if node.has_input(2) else ""
    inputs = [node.tensor(0), float32_input(node, 1)]
    # A float8 zero point must be 0 (the engine checks it when it quantizes);
    # dequantizing float8 ignores it.
    if zero_point and not (float8 and not quantize):
        inputs.append(float32_input(node, 2))
    node.emit_out(node.op_type, inputs, args)


def fake_quantize(node: Node, source: str, target: str, scale: str, zero_point: str,
                  args: dict, params: QuantParams | None) -> None:
    """target = DequantizeLinear(QuantizeLinear(source)): `source` rounded
    to its quantization grid and saturated, in float. `scale` and
    `zero_point` are IR tensors ("" for none); `args` the QuantizeLinear's.
    The pair is recorded in Graph.fake_quant by the name of the integers
    between its two ops, with the uint8 parameters it equals (None where
    there are none), for the uint8 pass."""
    operands = [scale] + ([zero_point] if zero_point else [])
    integers = node.emit("QuantizeLinear", [source] + operands, args).outputs[0]
    node.emit("DequantizeLinear", [integers] + operands,
              {"axis": args.get("axis", 1), "block_size": args.get("block_size", 0)},
              outputs=[target])
    if not hasattr(node.graph, "fake_quant"):
        node.graph.fake_quant = {}
    node.graph.fake_quant[integers] = params


def float32_input(node: Node, index: int) -> str:
    """Input `index` as the engine's ops read it: a constant (an integer
    zero point, a float16 scale) as float32 values, else the tensor."""
    if not node.known(index):
        return node.tensor(index)
    return node.weight(f"{node.inputs[index]}_float32",
                       np.asarray(node.const(index)).astype(np.float32))


def uses_of(graph_proto) -> list[tuple[str, str]]:
    """(op type, input name) of every node input, subgraphs included (a
    subgraph's output reading an outer tensor counts as a use too)."""
    uses = []
    for proto in graph_proto.node:
        uses.extend((proto.op_type, name) for name in proto.input)
        for attribute in proto.attribute:
            subs = ([attribute.g] if attribute.HasField("g") else []) + list(attribute.graphs)
            for sub in subs:
                uses.extend(uses_of(sub) + [("", info.name) for info in sub.output])
    return uses


# QLinear ops of the com.microsoft domain that onnxruntime's QOperator
# format writes and the converter reads.
MICROSOFT_OPS = ("QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu",
                 "QLinearGlobalAveragePool", "QLinearConcat", "QGemm")


# Ops that read a quantized tensor as its dequantized value in a float
# conversion (the QLinear ops with constant scales).
_VALUE_READERS = ("DequantizeLinear", "QLinearConv", "QLinearMatMul") + MICROSOFT_OPS


def inner_pairs(graph_proto, outputs: list[str]) -> set[str]:
    """Outputs of the QuantizeLinear nodes read only by DequantizeLinear
    (or QLinear) nodes and not graph outputs: the pair (or the QLinear op's
    input) only rounds and saturates the value, a fake quantization. Anywhere
    else the integers are what the model computes."""
    quantizers = {proto.output[0]: proto for proto in graph_proto.node
                  if proto.op_type == "QuantizeLinear" and proto.output}
    uses = uses_of(graph_proto)
    read = {name for _, name in uses}
    other = {name for op_type, name in uses if op_type not in _VALUE_READERS}
    # A reader that dequantizes with another scale or zero point (or ones
    # not known here) rescales the value: the pair must compute.
    constants = constants_of(graph_proto)
    mismatched = set()
    for proto in graph_proto.node:
        if proto.op_type not in _VALUE_READERS:
            continue
        for index, name in enumerate(proto.input):
            if name in quantizers and not _same_params(quantizers[name], 1, proto, index + 1,
                                                       constants):
                mismatched.add(name)
    return {name for name in quantizers
            if name in read and name not in other and name not in outputs
            and name not in mismatched}


def constants_of(graph_proto) -> dict[str, np.ndarray]:
    """The initializers and Constant node values of a graph, by name."""
    from onnx import numpy_helper
    values = {t.name: numpy_helper.to_array(t) for t in graph_proto.initializer}
    for proto in graph_proto.node:
        if proto.op_type == "Constant" and proto.output:
            for attribute in proto.attribute:
                if attribute.name == "value":
                    values[proto.output[0]] = numpy_helper.to_array(attribute.t)
    return values


def _same_params(a, a_scale: int, b, b_scale: int, constants: dict) -> bool:
    """Whether node `a`'s scale and zero point (inputs a_scale and
    a_scale + 1) are constants equal to node `b`'s (an absent zero point is
    0), and so is the quantization axis when a scale has more than one
    value."""
    def param(proto, index, default):
        if index >= len(proto.input) or not proto.input[index]:
            return default
        value = constants.get(proto.input[index])
        return None if value is None else np.asarray(value, np.float64).reshape(-1)

    def axis(proto):
        for attribute in proto.attribute:
            if attribute.name == "axis":
                return attribute.i
        return 1
    zero = np.zeros(1)
    scale_a, scale_b = param(a, a_scale, None), param(b, b_scale, None)
    zero_a, zero_b = param(a, a_scale + 1, zero), param(b, b_scale + 1, zero)
    if any(v is None for v in (scale_a, scale_b, zero_a, zero_b)):
        return False
    if scale_a.size > 1 or scale_b.size > 1:
        if b.op_type != "DequantizeLinear" or axis(a) != axis(b):
            return False
    if scale_a.shape != scale_b.shape or not np.array_equal(scale_a, scale_b):
        return False
    if {zero_a.size, zero_b.size} - {1, scale_a.size}:
        return False
    return np.array_equal(np.broadcast_to(zero_a, scale_a.shape),
                          np.broadcast_to(zero_b, scale_b.shape))


def _holds_values(node: Node) -> None:
    """Notes that this node's output holds the dequantized value of what
    ONNX computes as integers (a fake quantization, a QLinear op on
    dequantized values), so a DequantizeLinear of it is an Identity."""
    if not hasattr(node.graph, "dequantized_values"):
        node.graph.dequantized_values = set()
    node.graph.dequantized_values.add(node.outputs[0])


@converter("QuantizeLinear", "DequantizeLinear")
def quantize_linear(node: Node) -> None:
    if not node.known(1) or (node.has_input(2) and not node.known(2)):
        _float_domain_qdq(node)
        return
    graph = node.graph
    quantize = node.op_type == "QuantizeLinear"
    source = node.inputs[0]
    if quantize:
        inner = node.outputs[0] in getattr(graph, "inner_qdq", ())
    else:
        inner = source in getattr(graph, "dequantized_values", ())
    quant = _params(node) if quantize else graph.imported_quant.get(source) or _params(node)
    if quantize and inner:
        # The pair rounds and saturates: it stays, as a fake quantization.
        scales(node, 1)
        args, _ = _quantize_args(node)
        zero_point = float32_input(node, 2) if node.has_input(2) else ""
        fake_quantize(node, node.tensor(0), node.outputs[0], float32_input(node, 1), zero_point,
                      args, quant)
        _holds_values(node)
    elif inner or (getattr(graph, "qdq_for_uint8", False) and quant is not None):
        # The dequantization of a fake quantization's values; or, in a
        # conversion for the uint8 pass, a QuantizeLinear or
        # DequantizeLinear at the graph's edge, whose integers the app
        # feeds or reads as uint8 (the pass's uint8 inputs and outputs).
        node.emit_out("Identity", [node.tensor(0)])
        if quantize:
            _holds_values(node)
    else:
        scales(node, 1)
        _float_domain_qdq(node)
        return
    if quant is not None:
        for name in (source, node.outputs[0]):
            graph.imported_quant[name] = quant


def dequantize_const(node: Node) -> np.ndarray:
    """(q - zero_point) * scale of a constant, per tensor or along `axis`."""
    scale = scales(node, 1).astype(np.float64)
    if node.has_input(2) and node.const(2).dtype != node.const(0).dtype:
        raise node.fail(f"zero point '{node.inputs[2]}' is {node.const(2).dtype} but "
                        f"'{node.inputs[0]}' is {node.const(0).dtype}; they must match")
    values = node.const(0).astype(np.float64)
    zero_point = node.const(2).astype(np.float64) if node.has_input(2) else np.zeros(1)
    if scale.size > 1:
        axis = int(node.attr("axis", 1)) % values.ndim
        shape = [1] * values.ndim
        shape[axis] = -1
        scale, zero_point = scale.reshape(shape), zero_point.reshape(
            shape if zero_point.size > 1 else [1] * values.ndim)
    return ((values - zero_point) * scale).astype(np.float32)


def record_weight_scales(node: Node) -> None:
    """After a DequantizeLinear of a constant folded: remember its scales,
    per output channel for a symmetric int8 weight."""
    if not node.is_const(0) or not node.is_const(1):
        return
    values = node.const(0)
    zero_point = node.const(2) if node.has_input(2) else np.zeros(1, np.int8)
    if values.dtype != np.int8 or np.any(zero_point != 0):
        return
    node.graph.imported_weight_scales[node.outputs[0]] = np.asarray(
        node.const(1), dtype=np.float32).reshape(-1)


@converter("QLinearConv")
def qlinear_conv(node: Node) -> None:
    """A Conv on dequantized values, between the input's and the output's
    quantization: the uint8 pass turns it back into a uint8 Conv2D with the
    model's own scales."""
    from mace_converter.frontends.onnx_nn import conv
    if any(node.has_input(i) and not node.known(i) for i in (1, 2, 3, 4, 5, 6, 7, 8)):
        _qlinear_float(node, conv, "Conv", (0, 3), 6, bias=8)
        return
    x, (x_scale, x_zp) = node.inputs[0], (scales(node, 1, "x_scale"),
                                          node.const(2, "x_zero_point"))
    weight, w_scale = node.const(3, "w"), scales(node, 4, "w_scale").astype(np.float64)
    scales(node, 6, "y_scale")
    w_zp = node.const(5, "w_zero_point").astype(np.float64)
    if x_scale.size != 1 or node.const(6, "y_scale").size != 1:
        raise node.fail("per-axis activation scales are not supported")
    shape = [-1] + [1] * (weight.ndim - 1)
    units = w_scale.reshape(shape if w_scale.size > 1 else [1] * weight.ndim)
    zero = w_zp.reshape(shape if w_zp.size > 1 else [1] * weight.ndim)
    values = node.values
    w_name, b_name = f"{node.inputs[3]}_dequantized", ""
    values[w_name] = ((weight.astype(np.float64) - zero) * units).astype(np.float32)
    if weight.dtype == np.int8 and not np.any(w_zp):
        node.graph.imported_weight_scales[w_name] = w_scale.astype(np.float32).reshape(-1)
    if node.has_input(8):
        b_name = f"{node.inputs[8]}_dequantized"
        unit = float(x_scale.reshape(-1)[0]) * w_scale.reshape(-1)
        values[b_name] = (node.const(8, "B").astype(np.float64) * unit).astype(np.float32)
    x_params = _scalar_params(node, float(x_scale.reshape(-1)[0]), x_zp)
    y_params = _scalar_params(node, float(node.const(6).reshape(-1)[0]), node.const(7))
    product = node.graph.unique_name(f"{node.outputs[0]}_float")
    inner = Node(node.graph, "Conv", node.name, node.index,
                 [x, w_name] + ([b_name] if b_name else []), [product], node.attrs, values,
                 node.ir_consts, node.opset)
    conv(inner)
    _holds_values(node)
    if x_params is not None:
        node.graph.imported_quant.setdefault(x, x_params)
    _requantize(node, product, 6, y_params)


def _linear_input(node: Node, index: int, what: str) -> tuple[str, QuantParams | None]:
    """Input `index` of a QLinear op, followed by its scale and zero point,
    as the float input of the op on dequantized values: a constant is
    dequantized now (under a new name), an activation keeps its name and
    gets its quantization. Returns the name and the activation's params."""
    scale = scales(node, index + 1, f"{what}_scale")
    zero_point = node.const(index + 2, f"{what}_zero_point") if node.has_input(index + 2) \
        else np.zeros(1, np.uint8)
    if scale.size != 1 or zero_point.size != 1:
        raise node.fail(f"{what}: per-axis scales are supported on constant inputs only")
    if node.is_const(index):
        values = node.const(index, what).astype(np.float64)
        name = f"{node.inputs[index]}_dequantized"
        node.values[name] = ((values - float(zero_point.reshape(-1)[0]))
                             * float(scale.reshape(-1)[0])).astype(np.float32)
        return name, None
    return node.inputs[index], _scalar_params(node, float(scale.reshape(-1)[0]), zero_point)


def _float_op(node: Node, op_type: str, inputs: list[str], params: list) -> Node:
    """The float `op_type` node over `inputs`, writing a new tensor that
    _requantize turns into this node's output, with the activations'
    quantization recorded for the uint8 pass."""
    product = node.graph.unique_name(f"{node.outputs[0]}_float")
    inner = Node(node.graph, op_type, node.name, node.index, inputs, [product], node.attrs,
                 node.values, node.ir_consts, node.opset)
    _holds_values(node)
    for name, quant in zip(inputs, params):
        if quant is not None:
            node.graph.imported_quant.setdefault(name, quant)
    return inner


def _requantize(node: Node, product: str, y_index: int, params: QuantParams | None) -> None:
    """This QLinear node's output: its float result `product` rounded to
    y's scale and zero point (inputs y_index, y_index + 1) and saturated to
    y's type, as the QLinear op does (a fake quantization), with y's
    parameters recorded for the uint8 pass."""
    zero_point = node.const(y_index + 1, "y_zero_point") if node.has_input(y_index + 1) \
        else np.zeros(1, np.uint8)
    if zero_point.dtype not in (np.uint8, np.int8):
        raise node.fail(f"y_zero_point is {zero_point.dtype}; uint8 or int8 is supported")
    args = {"axis": 1, "block_size": 0, "saturate": 1,
            "to": "INT8" if zero_point.dtype == np.int8 else "UINT8"}
    fake_quantize(node, product, node.outputs[0], float32_input(node, y_index),
                  float32_input(node, y_index + 1) if node.has_input(y_index + 1) else "", args,
                  params)
    if params is not None:
        for name in (product, node.outputs[0]):
            node.graph.imported_quant.setdefault(name, params)


def _output_params(node: Node, index: int) -> QuantParams | None:
    zero_point = node.const(index + 1, "y_zero_point") if node.has_input(index + 1) \
        else np.zeros(1, np.uint8)
    scale = scales(node, index, "y_scale")
    if scale.size != 1 or zero_point.size != 1:
        raise node.fail("per-axis output scales are not supported")
    return _scalar_params(node, float(scale.reshape(-1)[0]), zero_point)


@converter("QLinearMatMul")
def qlinear_matmul(node: Node) -> None:
    """A MatMul on dequantized values (a FullyConnected when B is a constant
    matrix). An int8 constant B with zero zero points keeps its per-column
    scales for the uint8 pass."""
    from mace_converter.frontends.onnx_nn import matmul
    if any(node.has_input(i) and not node.known(i) for i in (1, 2, 4, 5, 6, 7)):
        _qlinear_float(node, matmul, "MatMul", (0, 3), 6)
        return
    a, a_params = _linear_input(node, 0, "a")
    b_scale = scales(node, 4, "b_scale")
    if node.is_const(3) and b_scale.size > 1:
        b_values = node.const(3, "b").astype(np.float64)
        b_zp = node.const(5, "b_zero_point").astype(np.float64) if node.has_input(5) \
            else np.zeros(1)
        if b_values.ndim != 2 or b_scale.size != b_values.shape[1]:
            raise node.fail(f"b_scale has {b_scale.size} values; per-column scales of a "
                            f"{list(b_values.shape)} matrix need {b_values.shape[-1]}")
        b = f"{node.inputs[3]}_dequantized"
        node.values[b] = ((b_values - b_zp.reshape(1, -1)) * b_scale.astype(np.float64)
                          .reshape(1, -1)).astype(np.float32)
        b_params = None
    else:
        b, b_params = _linear_input(node, 3, "b")
    inner = _float_op(node, "MatMul", [a, b], [a_params, b_params])
    count = len(node.graph.ops)
    matmul(inner)
    if node.is_const(3) and node.const(3).dtype == np.int8 and \
            not (node.has_input(5) and np.any(node.const(5))):
        emitted = node.graph.ops[count:]
        if len(emitted) == 1 and emitted[0].type == "FullyConnected":
            node.graph.imported_weight_scales[emitted[0].inputs[1]] = \
                np.asarray(b_scale, dtype=np.float32).reshape(-1)
    _requantize(node, inner.outputs[0], 6, _output_params(node, 6))


def _qlinear_float(node: Node, convert, op_type: str, operands: tuple[int, int], y_index: int,
                   bias: int = -1) -> None:
    """A QLinear op with scales or zero points computed at run time, in the
    float domain: DequantizeLinear of both operands (the second per output
    channel, axis 0, for a Conv), the float op, QuantizeLinear to y's type
    (the quantized values carried in float32). A Conv's int32 bias is
    dequantized with x_scale * w_scale."""
    def dequantized(index: int, axis: int) -> str:
        if node.inputs[index] in getattr(node.graph, "dequantized_values", ()):
            raise node.fail(f"'{node.inputs[index]}' holds dequantized values in a float "
                            "conversion; run-time scales need its integers")
        inputs = [node.tensor(index), node.tensor(index + 1)]
        if node.has_input(index + 2):
            inputs.append(node.tensor(index + 2))
        return node.emit("DequantizeLinear", inputs, {"axis": axis}).outputs[0]

    first = dequantized(operands[0], 1)
    second = dequantized(operands[1], 0 if op_type == "Conv" else 1)
    inputs = [first, second]
    if bias >= 0 and node.has_input(bias):
        unit = node.emit("Eltwise", [node.tensor(1), node.tensor(4)], {"type": 2}).outputs[0]
        inputs.append(node.emit("DequantizeLinear", [node.tensor(bias), unit],
                                {"axis": 0}).outputs[0])
    product = f"{node.outputs[0]}_float"
    inner = Node(node.graph, op_type, node.name, node.index, inputs, [product],
                 node.attrs if op_type == "Conv" else {}, node.values, node.ir_consts,
                 node.opset)
    convert(inner)
    # y's type is its zero point's (uint8 without one); one computed by
    # other ops has no stated type: y's declared one.
    y_type = (_onnx_type(node, node.inputs[y_index + 1]) or _onnx_type(node, node.outputs[0])
              if node.has_input(y_index + 1) else 2)
    if y_type != 2:
        # The engine saturates, as ONNX Runtime does. ONNX's reference wraps
        # out-of-range results and its int8 node tests expect wrapped values,
        # so only uint8 (where ONNX Runtime's uint8 kernels agree) is taken.
        raise node.fail(f"{node.op_type} with run-time scales to ONNX element type {y_type} "
                        "is not supported (uint8 is)")
    inputs = [product, node.tensor(y_index)]
    if node.has_input(y_index + 1):
        inputs.append(node.tensor(y_index + 1))
    node.emit_out("QuantizeLinear", inputs, {"to": _QUANTIZED_TYPES[y_type], "axis": 1})


@converter("QLinearAdd", "QLinearMul")
def qlinear_binary(node: Node) -> None:
    """com.microsoft QLinearAdd / QLinearMul: an Add or Mul on dequantized
    values (broadcasting as the float op does)."""
    from mace_converter.frontends.onnx_nn import binary
    a, a_params = _linear_input(node, 0, "A")
    b, b_params = _linear_input(node, 3, "B")
    op_type = node.op_type[len("QLinear"):]
    inner = _float_op(node, op_type, [a, b], [a_params, b_params])
    binary(inner)
    _requantize(node, inner.outputs[0], 6, _output_params(node, 6))


def _scalar_params(node: Node, scale: float, zero_point: np.ndarray) -> QuantParams | None:
    """uint8 parameters of a per-tensor uint8 or int8 quantization, or
    None. An int8 quantization is the uint8 one with the zero point moved
    up by 128: q_uint8 = q_int8 + 128 covers [0, 255] as q_int8 covers
    [-128, 127], with the same real values, so it is exact."""
    if zero_point.dtype not in (np.uint8, np.int8):
        return None
    if not (np.isfinite(scale) and scale > 0):
        raise node.fail(f"scale {scale} must be finite and positive")
    zp = int(zero_point.reshape(-1)[0]) + (128 if zero_point.dtype == np.int8 else 0)
    return QuantParams(scale=scale, zero_point=zp, minval=scale * -zp, maxval=scale * (255 - zp))


def _unary_qlinear(node: Node, op_type: str, convert) -> None:
    """A com.microsoft QLinear op of one input (X, X_scale, X_zero_point,
    Y_scale, Y_zero_point): the float op on dequantized values, then the
    output's fake quantization."""
    x, x_params = _linear_input(node, 0, "X")
    inner = _float_op(node, op_type, [x], [x_params])
    convert(inner)
    _requantize(node, inner.outputs[0], 3, _output_params(node, 3))


@converter("QLinearSigmoid")
def qlinear_sigmoid(node: Node) -> None:
    from mace_converter.frontends.onnx_nn import sigmoid
    _unary_qlinear(node, "Sigmoid", sigmoid)


@converter("QLinearLeakyRelu")
def qlinear_leaky_relu(node: Node) -> None:
    from mace_converter.frontends.onnx_nn import leaky_relu
    _unary_qlinear(node, "LeakyRelu", leaky_relu)


@converter("QLinearGlobalAveragePool")
def qlinear_global_average_pool(node: Node) -> None:
    from mace_converter.frontends.onnx_nn import global_pool
    if int(node.attr("channels_last", 0)):
        raise node.fail("channels_last 1 is not supported (the input must be NCHW)")
    _unary_qlinear(node, "GlobalAveragePool", global_pool)


@converter("QLinearConcat")
def qlinear_concat(node: Node) -> None:
    """com.microsoft QLinearConcat(Y_scale, Y_zero_point, X1, X1_scale,
    X1_zero_point, ...): a Concat of the dequantized inputs, requantized."""
    from mace_converter.frontends.onnx_tensor import concat
    if (len(node.inputs) - 2) % 3 or len(node.inputs) < 5:
        raise node.fail(f"has {len(node.inputs)} inputs; it needs Y_scale, Y_zero_point and "
                        "a (tensor, scale, zero point) triple per input")
    pairs = [_linear_input(node, index, f"X{index // 3}")
             for index in range(2, len(node.inputs), 3)]
    inner = _float_op(node, "Concat", [name for name, _ in pairs],
                      [params for _, params in pairs])
    concat(inner)
    _requantize(node, inner.outputs[0], 0, _output_params(node, 0))


@converter("QGemm")
def qgemm(node: Node) -> None:
    """com.microsoft QGemm(A, a_scale, a_zero_point, B, b_scale,
    b_zero_point, C, y_scale, y_zero_point): a Gemm on dequantized A and B
    (B constant, its scale per tensor or per output column) plus C, an
    int32 bias in units of a_scale * b_scale; float output without
    y_scale, else requantized."""
    from mace_converter.frontends.onnx_nn import gemm
    a, a_params = _linear_input(node, 0, "A")
    if not node.is_const(3):
        raise node.fail("B must be a constant")
    trans_b = int(node.attr("transB", 0))
    b_values = node.const(3, "B").astype(np.float64)
    b_scale = scales(node, 4, "b_scale").astype(np.float64).reshape(-1)
    b_zero = node.const(5, "b_zero_point").astype(np.float64).reshape(-1) \
        if node.has_input(5) else np.zeros(1)
    column = (-1, 1) if trans_b else (1, -1)     # along B's output axis
    b = f"{node.inputs[3]}_dequantized"
    node.values[b] = ((b_values - b_zero.reshape(column if b_zero.size > 1 else (1, 1)))
                      * b_scale.reshape(column if b_scale.size > 1 else (1, 1))
                      ).astype(np.float32)
    inputs = [a, b]
    if node.has_input(6):
        if not node.is_const(6):
            raise node.fail("C must be a constant")
        a_scale = float(scales(node, 1, "a_scale").reshape(-1)[0])
        c = f"{node.inputs[6]}_dequantized"
        node.values[c] = (node.const(6, "C").astype(np.float64) * a_scale * b_scale
                          ).astype(np.float32)
        inputs.append(c)
    attrs = {key: node.attrs[key] for key in ("alpha", "transA", "transB") if key in node.attrs}
    if not node.has_input(7):
        gemm(Node(node.graph, "Gemm", node.name, node.index, inputs, node.outputs, attrs,
                  node.values, node.ir_consts, node.opset))
        if a_params is not None:
            node.graph.imported_quant.setdefault(a, a_params)
        return
    inner = _float_op(node, "Gemm", inputs, [a_params])
    inner.attrs = attrs
    gemm(inner)
    _requantize(node, inner.outputs[0], 7, _output_params(node, 7))
