"""ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, composed of
engine ops: the class scores picked by GatherElements at each target, their
class weights picked by Gather, targets equal to ignore_index masked out by
Compare and Where, and the reduction by Reduce.

Targets travel as float32 values (exact up to 2^24), like every integer
tensor of the engine; GatherElements and Gather refuse a target outside
[-C, C) on every run.
"""
from __future__ import annotations

from typing import Optional

from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import converter
from mace_converter.frontends.onnx_more import ELTWISE_PROD, _compare, _scalar, _value

_ELTWISE_DIV, _ELTWISE_NEG = 3, 6
_REDUCE_SUM = 4


def _reduce_all(node: Node, source: str, rank: int, outputs=None) -> str:
    """The sum of every element, as a rank-0 tensor."""
    return node.emit("Reduce", [source], {"reduce_type": _REDUCE_SUM,
                                          "axis": list(range(rank)), "keepdims": 0},
                     outputs=outputs).outputs[0]


def _weighted_loss(node: Node, log_prob: str, shape: tuple[int, ...], target: str,
                   weight: Optional[str], outputs: list[str]) -> None:
    """The loss of log-probabilities `log_prob` [N, C, d...] at `target`
    [N, d...], written to outputs[0] with the node's reduction."""
    if len(shape) < 2:
        raise node.fail(f"the input has shape {list(shape)}; it must be [N, C] or "
                        "[N, C, d1, ...]")
    reduction = node.attr("reduction", "mean")
    if isinstance(reduction, bytes):
        reduction = reduction.decode()
    if reduction not in ("none", "sum", "mean"):
        raise node.fail(f"reduction '{reduction}' is not none, sum or mean")
    per_item = [shape[0]] + list(shape[2:])
    ignore = node.attr("ignore_index", None)
    mask = None
    if ignore is not None:
        # An ignored target may lie outside [0, C); it reads class 0 instead.
        mask = _compare(node, "equal", target, _scalar(node, "ignore_index", float(ignore)))
        target = node.emit("Where", [mask, _scalar(node, "zero", 0.0), target]).outputs[0]
    index = node.emit("Reshape", [target], {"shape": [shape[0], 1] + list(shape[2:])}).outputs[0]
    picked = node.emit("GatherElements", [log_prob, index], {"axis": 1}).outputs[0]
    picked = node.emit("Reshape", [picked], {"shape": per_item}).outputs[0]
    loss = node.emit("Eltwise", [picked], {"type": _ELTWISE_NEG}).outputs[0]
    weights = None
    if weight is not None:
        weights = node.emit("Gather", [weight, target], {"axis": 0}).outputs[0]
    if mask is not None:
        kept = weights if weights is not None else _scalar(node, "one", 1.0)
        weights = node.emit("Where", [mask, _scalar(node, "zero", 0.0), kept]).outputs[0]
    if weights is not None:
        loss = node.emit("Eltwise", [loss, weights], {"type": ELTWISE_PROD}).outputs[0]
    if reduction == "none":
        node.emit("Identity", [loss], outputs=outputs[:1])
        return
    rank = len(per_item)
    if reduction == "sum":
        _reduce_all(node, loss, rank, outputs=outputs[:1])
        return
    if weights is None:   # the mean of the items
        node.emit("Reduce", [loss], {"reduce_type": 0, "axis": list(range(rank)),
                                     "keepdims": 0}, outputs=outputs[:1])
        return
    total = _reduce_all(node, loss, rank)
    norm = _reduce_all(node, weights, rank)
    node.emit("Eltwise", [total, norm], {"type": _ELTWISE_DIV}, outputs=outputs[:1])


@converter("NegativeLogLikelihoodLoss")
def negative_log_likelihood_loss(node: Node) -> None:
    weight = _value(node, 2) if node.has_input(2) else None
    _weighted_loss(node, node.tensor(0), node.shape(0), _value(node, 1), weight,
                   list(node.outputs))


@converter("SoftmaxCrossEntropyLoss")
def softmax_cross_entropy_loss(node: Node) -> None:
    """LogSoftmax over the class axis, then the NLL loss; the optional
    second output is the log-probabilities."""
    shape = node.shape(0)
    outputs = list(node.outputs)
    log_prob_name = outputs[1] if len(outputs) > 1 and outputs[1] else None
    log_prob = node.emit("Softmax", [node.tensor(0)], {"axis": 1, "use_log": 1},
                         outputs=[log_prob_name] if log_prob_name else None).outputs[0]
    weight = _value(node, 2) if node.has_input(2) else None
    _weighted_loss(node, log_prob, shape, _value(node, 1), weight, outputs)

