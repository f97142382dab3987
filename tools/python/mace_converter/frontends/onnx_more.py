"""ONNX converters: comparisons and logic, Mod, Where, ArgMin, indexing,
and the LayerNorm family (LayerNormalization, InstanceNormalization,
GroupNormalization).

Booleans and integers travel through the engine as float32 values (exact
up to 2^24), so comparisons produce 0 and 1, and Where reads any nonzero
condition as true.
"""
from __future__ import annotations

import numpy as np

from mace_converter.api import ConversionError
# onnx_tensor registers its converters first, so the Gather here replaces
# (and falls back on) its Slice-only one.
from mace_converter.frontends import onnx_tensor
from mace_converter.frontends.node import Node
from mace_converter.frontends.onnx_common import (computed, converter, float_input,
                                                  normalize_axis, planned_shape)
from mace_converter.shape_rules import TRANSPOSE_PERM

_COMPARE_TYPES = {"Equal": "equal", "Less": "less", "Greater": "greater",
                  "LessOrEqual": "less_equal", "GreaterOrEqual": "greater_equal",
                  "And": "and", "Or": "or", "Xor": "xor"}
ELTWISE_PROD, ELTWISE_SUM, ELTWISE_NEG = 2, 0, 6


# Integer and bool constants as float32 (onnx_common.float_input).
_value = float_input


@converter(*_COMPARE_TYPES)
def compare(node: Node) -> None:
    node.emit_out("Compare", [_value(node, 0), _value(node, 1)],
                  {"type": _COMPARE_TYPES[node.op_type]})


@converter("Not")
def logical_not(node: Node) -> None:
    node.emit_out("Compare", [_value(node, 0)], {"type": "not"})


@converter("Mod")
def mod(node: Node) -> None:
    args = {"fmod": 1} if int(node.attr("fmod", 0)) else {}
    node.emit_out("Mod", [_value(node, 0), _value(node, 1)], args)


@converter("Where")
def where(node: Node) -> None:
    node.emit_out("Where", [_value(node, 0), _value(node, 1), _value(node, 2)])


@converter("ArgMin")
def arg_min(node: Node) -> None:
    """ArgMin is ArgMax of the negated input: the order reverses exactly,
    ties stay ties."""
    rank = node.rank(0)
    args = {"axis": normalize_axis(node, int(node.attr("axis", 0)), rank),
            "keepdims": int(node.attr("keepdims", 1))}
    if node.attr("select_last_index", 0):
        args["select_last_index"] = 1
    negated = node.emit("Eltwise", [_value(node, 0)], {"type": ELTWISE_NEG}).outputs[0]
    node.emit_out("ArgMax", [negated], args)


# ---- normalization -------------------------------------------------------------
@converter("LayerNormalization")
def layer_normalization(node: Node) -> None:
    rank = node.rank(0)
    axis = normalize_axis(node, int(node.attr("axis", -1)), rank)
    args = {"axis": axis, "epsilon": float(node.attr("epsilon", 1e-5))}
    inputs = [_value(node, 0), _value(node, 1)]
    if node.has_input(2):
        inputs.append(_value(node, 2))
    outputs = [o for o in node.outputs]
    while outputs and not outputs[-1]:
        outputs.pop()
    if "" in outputs:
        # Mean unused but InvStdDev wanted: name the unused output.
        outputs = [o or f"{node.name}_unused_{i}" for i, o in enumerate(outputs)]
    node.emit("LayerNorm", inputs, args, outputs=outputs)


def _per_channel(node: Node, index: int, shape: list[int]) -> str:
    """Input `index` (a per-channel vector) reshaped to `shape` for
    broadcasting over the spatial axes."""
    if node.is_const(index):
        return node.weight(f"{node.inputs[index]}_bcast",
                           node.const(index).astype(np.float32).reshape(shape))
    return node.emit("Reshape", [node.tensor(index)], {"shape": shape}).outputs[0]


def _affine(node: Node, normed: str, scale_shape: list[int], out_shape: list[int],
            final: bool) -> str:
    scale = _per_channel(node, 1, scale_shape)
    bias = _per_channel(node, 2, scale_shape)
    scaled = node.emit("Eltwise", [normed, scale], {"type": ELTWISE_PROD}).outputs[0]
    if final:
        node.emit_out("Eltwise", [scaled, bias], {"type": ELTWISE_SUM})
        return node.outputs[0]
    return node.emit("Eltwise", [scaled, bias], {"type": ELTWISE_SUM}).outputs[0]


@converter("InstanceNormalization")
def instance_normalization(node: Node) -> None:
    shape = list(node.shape(0))
    if len(shape) < 3:
        raise node.fail(f"input has shape {shape}; InstanceNormalization needs [N, C, ...]")
    normed = node.emit("LayerNorm", [_value(node, 0)],
                       {"axis": 2, "epsilon": float(node.attr("epsilon", 1e-5))}).outputs[0]
    _affine(node, normed, [shape[1]] + [1] * (len(shape) - 2), shape, True)


@converter("GroupNormalization")
def group_normalization(node: Node) -> None:
    shape = list(node.shape(0))
    groups = int(node.attr("num_groups"))
    if len(shape) < 3:
        raise node.fail(f"input has shape {shape}; GroupNormalization needs [N, C, ...]")
    if groups <= 0 or shape[1] % groups:
        raise node.fail(f"num_groups {groups} does not divide the {shape[1]} channels")
    if int(node.attr("stash_type", 1)) != 1:
        raise node.fail("stash_type other than float32 is not supported")
    grouped = [shape[0], groups, int(np.prod(shape[1:])) // groups]
    flat = node.emit("Reshape", [_value(node, 0)], {"shape": grouped}).outputs[0]
    normed = node.emit("LayerNorm", [flat],
                       {"axis": 2, "epsilon": float(node.attr("epsilon", 1e-5))}).outputs[0]
    if node.opset < 21:   # opset 18: scale and bias per group
        out = _affine(node, normed, [groups, 1], grouped, False)
        node.emit_out("Reshape", [out], {"shape": shape})
        return
    restored = node.emit("Reshape", [normed], {"shape": shape}).outputs[0]
    _affine(node, restored, [shape[1]] + [1] * (len(shape) - 2), shape, True)


# ---- indexing --------------------------------------------------------------------
@converter("Gather")
def gather(node: Node) -> None:
    """Constant indices that pick one index or a contiguous run stay a
    Slice; any other indices go to the Gather op."""
    if node.is_const(1):
        try:
            onnx_tensor.gather(node)
            return
        except ConversionError:
            pass
    axis = normalize_axis(node, int(node.attr("axis", 0)), node.rank(0))
    node.emit_out("Gather", [_value(node, 0), _value(node, 1)], {"axis": axis})


@converter("GatherElements")
def gather_elements(node: Node) -> None:
    axis = normalize_axis(node, int(node.attr("axis", 0)), node.rank(0))
    node.emit_out("GatherElements", [_value(node, 0), _value(node, 1)], {"axis": axis})


@converter("GatherND")
def gather_nd(node: Node) -> None:
    args = {"batch_dims": int(node.attr("batch_dims", 0))} if node.attr("batch_dims", 0) else {}
    node.emit_out("GatherND", [_value(node, 0), _value(node, 1)], args)


def _reduction(node: Node) -> dict:
    reduction = node.attr("reduction", "none")
    if reduction not in ("none", "add", "mul", "max", "min"):
        raise node.fail(f"reduction '{reduction}' is not supported")
    return {"reduction": reduction} if reduction != "none" else {}


@converter("ScatterElements", "Scatter")
def scatter_elements(node: Node) -> None:
    args = _reduction(node)
    args["axis"] = normalize_axis(node, int(node.attr("axis", 0)), node.rank(0))
    node.emit_out("ScatterElements", [_value(node, 0), _value(node, 1), _value(node, 2)], args)


@converter("ScatterND")
def scatter_nd(node: Node) -> None:
    node.emit_out("ScatterND", [_value(node, 0), _value(node, 1), _value(node, 2)],
                  _reduction(node))


# ---- axis ops --------------------------------------------------------------------
@converter("Trilu")
def trilu(node: Node) -> None:
    args = {"upper": int(node.attr("upper", 1))}
    inputs = [_value(node, 0)]
    if node.rank(0) < 2:
        raise node.fail(f"input has shape {list(node.shape(0))}; Trilu needs rank 2 or more")
    if node.is_const(1):
        args["k"] = int(np.asarray(node.const(1, "k")).reshape(-1)[0])
    elif node.has_input(1):
        inputs.append(_value(node, 1))
    node.emit_out("Trilu", inputs, args)


@converter("CumSum")
def cum_sum(node: Node) -> None:
    args, inputs = {}, [_value(node, 0)]
    if node.is_const(1):
        axis = int(np.asarray(node.const(1, "axis")).reshape(-1)[0])
        args["axis"] = normalize_axis(node, axis, node.rank(0))
    else:   # read by the engine at run time
        inputs.append(_value(node, 1))
    for key in ("exclusive", "reverse"):
        if int(node.attr(key, 0)):
            args[key] = 1
    node.emit_out("CumSum", inputs, args)


def _repeat_arg(node: Node, repeats: list[int]) -> None:
    if any(r < 1 for r in repeats):
        raise node.fail(f"repeats {repeats} must all be >= 1 (zero-size outputs are not "
                        "supported)")


@converter("Tile")
def tile(node: Node) -> None:
    if computed(node, 1):
        # Repeats computed at run time: planned from the declared shape; the
        # engine's Tile checks each run's repeats give it.
        planned = planned_shape(node, "repeats")
        shape = list(node.shape(0))
        if len(planned) != len(shape) or any(p % d for p, d in zip(planned, shape)):
            raise node.fail(f"the declared output shape {list(planned)} is not a tiling of "
                            f"{shape}")
        repeats = [p // d for p, d in zip(planned, shape)]
        node.emit_out("Tile", [_value(node, 0), node.tensor(1)], {"repeats": repeats},
                      planned=[planned])
        return
    repeats = [int(r) for r in node.const(1, "repeats")]
    if len(repeats) != node.rank(0):
        raise node.fail(f"repeats {repeats} need one value per dimension of "
                        f"{list(node.shape(0))}")
    _repeat_arg(node, repeats)
    if all(r == 1 for r in repeats):
        node.emit_out("Identity", [_value(node, 0)])
        return
    node.emit_out("Tile", [_value(node, 0)], {"repeats": repeats})


@converter("Expand")
def expand(node: Node) -> None:
    """Expand broadcasts to a constant shape: a Reshape to the output's rank,
    then a Tile of the dimensions of size 1."""
    shape = list(node.shape(0))
    if computed(node, 1):
        _expand_computed(node)
        return
    target = [int(d) for d in node.const(1, "shape")]
    rank = max(len(shape), len(target))
    full = [1] * (rank - len(shape)) + shape
    target = [1] * (rank - len(target)) + target
    out = []
    for a, b in zip(full, target):
        if a != b and a != 1 and b != 1:
            raise node.fail(f"shape {list(node.shape(0))} does not broadcast to {target}")
        out.append(max(a, b))
    repeats = [o // a for o, a in zip(out, full)]
    source = _value(node, 0)
    if full != shape:
        source = node.emit("Reshape", [source], {"shape": full}).outputs[0]
    if all(r == 1 for r in repeats):
        node.emit_out("Identity", [source])
        return
    node.emit_out("Tile", [source], {"repeats": repeats})


def _expand_computed(node: Node) -> None:
    """Expand to a shape computed at run time: planned from the declared
    shape, as a Reshape to its rank and a Tile in `expand` mode, which
    checks on every run that the input broadcast to the shape input gives
    the planned shape."""
    planned = list(planned_shape(node, "the target shape"))
    shape = list(node.shape(0))
    if len(node.shape(1)) != 1 or node.shape(1)[0] > len(planned) or len(shape) > len(planned):
        raise node.fail(f"the shape input has shape {list(node.shape(1))}; the declared output "
                        f"shape {planned} must have its rank and the input's")
    full = [1] * (len(planned) - len(shape)) + shape
    if any(a != p and a != 1 for a, p in zip(full, planned)):
        raise node.fail(f"shape {shape} does not broadcast to the declared output shape {planned}")
    source = _value(node, 0)
    if full != shape:
        source = node.emit("Reshape", [source], {"shape": full}).outputs[0]
    node.emit_out("Tile", [source, node.tensor(1)],
                  {"repeats": [p // a for p, a in zip(planned, full)], "expand": 1},
                  planned=[tuple(planned)])


@converter("TopK")
def top_k(node: Node) -> None:
    rank = node.rank(0)
    axis = normalize_axis(node, int(node.attr("axis", -1)), rank)
    inputs = [_value(node, 0)]
    planned = None
    if node.opset >= 10 and computed(node, 1):
        # k computed at run time: planned from the declared shape; the
        # engine's TopK checks each run's k gives it.
        shape = planned_shape(node, "k")
        if len(shape) != rank or any(d != s for i, (d, s) in enumerate(zip(shape, node.shape(0)))
                                     if i != axis):
            raise node.fail(f"the declared output shape {list(shape)} is not the input "
                            f"{list(node.shape(0))} cut along axis {axis}")
        k = int(shape[axis])
        inputs.append(node.tensor(1))
        planned = [shape, shape]
    elif node.opset >= 10:
        k = int(np.asarray(node.const(1, "k")).reshape(-1)[0])
    else:
        k = int(node.attr("k"))
    if not 1 <= k <= node.shape(0)[axis]:
        raise node.fail(f"k {k} must be 1 to {node.shape(0)[axis]} (zero-size outputs are "
                        "not supported)")
    if node.attr("sorted", 1) == 0:
        pass  # sorted output is one of the orders unsorted allows
    args = {"k": k, "axis": axis}
    if not int(node.attr("largest", 1)):
        args["largest"] = 0
    outputs = [o or f"{node.name}_unused_{i}" for i, o in enumerate(node.outputs)]
    node.emit("TopK", inputs, args, outputs=outputs, planned=planned)


# ---- Einsum ------------------------------------------------------------------------
class _Chain:
    """Emits a chain of shape ops on one IR tensor, skipping no-ops."""

    def __init__(self, node: Node, tensor: str, shape: list[int]):
        self.node, self.tensor, self.shape = node, tensor, list(shape)

    def transpose(self, perm: list[int]) -> None:
        if perm != sorted(perm):
            self.tensor = self.node.emit("Transpose", [self.tensor],
                                         {TRANSPOSE_PERM: perm}).outputs[0]
            self.shape = [self.shape[p] for p in perm]

    def reshape(self, shape: list[int]) -> None:
        if shape != self.shape:
            self.tensor = self.node.emit("Reshape", [self.tensor], {"shape": shape}).outputs[0]
            self.shape = list(shape)

    def reduce_sum(self, axes: list[int]) -> None:
        if axes:
            kept = [d for i, d in enumerate(self.shape) if i not in axes]
            self.tensor = self.node.emit("Reduce", [self.tensor], {
                "reduce_type": 4, "axis": sorted(axes), "keepdims": 0}).outputs[0]
            self.shape = kept

    def diagonal(self, first: int, second: int) -> None:
        """Keeps the diagonal of axes `first` < `second` (of equal size n),
        dropping `second`: both moved last and merged into n * n values, of
        which every (n + 1)-th is on the diagonal."""
        rank, n = len(self.shape), self.shape[first]
        rest = [i for i in range(rank) if i not in (first, second)]
        self.transpose(rest + [first, second])
        self.reshape(self.shape[:-2] + [n * n])
        self.tensor = self.node.emit("Slice", [self.tensor], {
            "starts": [0], "ends": [n * n], "axes": [rank - 2],
            "steps": [n + 1]}).outputs[0]
        self.shape[-1] = n
        order = rest + [first]     # back to the operand's order without `second`
        self.transpose([order.index(i) for i in range(rank) if i != second])


# Letters for the axes an ellipsis covers: named axes here are lower-case
# letters, so upper-case ones are free.
_ELLIPSIS_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _expand_ellipsis(node: Node, terms: list[str], equation: str) -> tuple[list[str], str]:
    """Replaces each operand's '...' by letters for the axes it covers,
    which the operand's static rank gives; every ellipsis must cover as
    many axes (no broadcasting between them). Also returns those letters."""
    counts, expanded = set(), []
    for index, term in enumerate(terms):
        if "..." not in term:
            expanded.append(term)
            continue
        count = node.rank(index) - (len(term) - 3)
        if count < 0 or term.count("...") != 1:
            raise node.fail(f"equation '{equation}': '{term}' does not match operand {index} "
                            f"of shape {list(node.shape(index))}")
        counts.add(count)
        expanded.append(term.replace("...", _ELLIPSIS_LETTERS[:count]))
    if len(counts) > 1:
        raise node.fail(f"equation '{equation}': ellipses covering different numbers of "
                        "axes (broadcasting) are not supported")
    return expanded, _ELLIPSIS_LETTERS[:counts.pop()] if counts else ""


def _einsum_terms(node: Node) -> tuple[list[str], str]:
    equation = str(node.attr("equation", "")).replace(" ", "")
    inputs, output = equation.split("->") if "->" in equation else (equation, None)
    terms, covered = _expand_ellipsis(node, inputs.split(","), equation)
    if output is None:
        letters = "".join(terms)
        output = covered + "".join(sorted(c for c in set(letters)
                                          if letters.count(c) == 1 and c.islower()))
    else:
        output = output.replace("...", covered)
    if len(terms) != len([i for i in node.inputs if i]) or len(terms) > 2:
        raise node.fail(f"equation '{equation}': only one or two operands are supported")
    for term in terms + [output]:
        if not term.isalpha() and term:
            raise node.fail(f"equation '{equation}': subscripts must be letters")
    if len(set(output)) != len(output):
        raise node.fail(f"equation '{equation}': the output repeats a subscript")
    for index, term in enumerate(terms):
        if len(term) != node.rank(index):
            raise node.fail(f"equation '{equation}': '{term}' does not match operand {index} "
                            f"of shape {list(node.shape(index))}")
        if any(term.count(c) > 2 for c in term):
            raise node.fail(f"equation '{equation}': a subscript appears more than twice in "
                            f"'{term}'")
    return terms, output


def _take_diagonals(node: Node, chain: _Chain, term: str) -> str:
    """Reduces a letter repeated in one operand ('ii') to its diagonal;
    returns the operand's subscripts after that."""
    for letter in sorted(set(c for c in term if term.count(c) == 2)):
        first, second = term.index(letter), term.rindex(letter)
        chain.diagonal(first, second)
        term = term[:second] + term[second + 1:]
    return term


@converter("Einsum")
def einsum(node: Node) -> None:
    """One operand: a sum over the dropped letters and a Transpose. Two: a
    MatMul of [batch, free_a, summed] by [batch, summed, free_b] views."""
    terms, output = _einsum_terms(node)
    sizes: dict[str, int] = {}
    for index, term in enumerate(terms):
        for letter, size in zip(term, node.shape(index)):
            if sizes.setdefault(letter, size) != size:
                raise node.fail(f"subscript '{letter}' has sizes {sizes[letter]} and {size}")
    chains = []
    for index, term in enumerate(terms):
        chain = _Chain(node, _value(node, index), list(node.shape(index)))
        term = _take_diagonals(node, chain, term)
        others = "".join(t for i, t in enumerate(terms) if i != index) + output
        # Letters nowhere else are summed away first.
        chain.reduce_sum([i for i, c in enumerate(term) if c not in others])
        chains.append((chain, "".join(c for c in term if c in others)))
    if len(chains) == 1:
        chain, term = chains[0]
        chain.transpose([term.index(c) for c in output])
        node.emit_out("Identity", [chain.tensor])
        return
    (a, ta), (b, tb) = chains
    batch = [c for c in ta if c in tb and c in output]
    summed = [c for c in ta if c in tb and c not in output]
    free_a = [c for c in ta if c not in tb]
    free_b = [c for c in tb if c not in ta]

    def size(letters):
        return int(np.prod([sizes[c] for c in letters])) if letters else 1

    a.transpose([ta.index(c) for c in batch + free_a + summed])
    a.reshape([size(batch), size(free_a), size(summed)])
    b.transpose([tb.index(c) for c in batch + summed + free_b])
    b.reshape([size(batch), size(summed), size(free_b)])
    product = _Chain(node, node.emit("MatMul", [a.tensor, b.tensor]).outputs[0],
                     [size(batch), size(free_a), size(free_b)])
    letters = batch + free_a + free_b
    product.reshape([sizes[c] for c in letters])
    product.transpose([letters.index(c) for c in output])
    node.emit_out("Identity", [product.tensor])


# ---- Cast and CastLike ---------------------------------------------------------------
@converter("Cast")
def cast(node: Node) -> None:
    """Integer and bool constants are given as float32 values (_value)."""
    onnx_tensor.emit_cast(node, _value(node, 0), int(node.attr("to")),
                          int(node.attr("saturate", 1)))


@converter("CastLike")
def cast_like(node: Node) -> None:
    """CastLike to the type of a constant second input or of a graph input."""
    if node.is_const(1):
        from onnx import helper
        kind = np.asarray(node.const(1)).dtype
        try:
            elem = helper.np_dtype_to_tensor_dtype(kind)
        except (KeyError, TypeError, ValueError):
            raise node.fail(f"CastLike to {kind} is not supported") from None
    else:
        elem = getattr(node.graph, "onnx_input_types", {}).get(node.inputs[1])
        if not elem:
            raise node.fail("CastLike's target must be a constant or a graph input, so its "
                            "element type is known")
    onnx_tensor.emit_cast(node, _value(node, 0), int(elem), int(node.attr("saturate", 1)))


# ---- compositions of the ops above ----------------------------------------------------
def _scalar(node: Node, what: str, value: float) -> str:
    return node.weight(f"{node.name}_{what}", np.array([value], np.float32))


def _compare(node: Node, kind: str, a: str, b: str = None) -> str:
    return node.emit("Compare", [a] if b is None else [a, b], {"type": kind}).outputs[0]


@converter("IsNaN")
def is_nan(node: Node) -> None:
    node.emit_out("Compare", [_compare(node, "equal", _value(node, 0), _value(node, 0))],
                  {"type": "not"})


@converter("IsInf")
def is_inf(node: Node) -> None:
    x = _value(node, 0)
    found = []
    if int(node.attr("detect_positive", 1)):
        found.append(_compare(node, "equal", x, _scalar(node, "inf", np.inf)))
    if int(node.attr("detect_negative", 1)):
        found.append(_compare(node, "equal", x, _scalar(node, "minus_inf", -np.inf)))
    if not found:   # neither sign asked for: all false
        node.emit_out("Compare", [x, _scalar(node, "nan", np.nan)], {"type": "equal"})
    elif len(found) == 1:
        node.emit_out("Identity", found)
    else:
        node.emit_out("Compare", found, {"type": "or"})


@converter("Shrink")
def shrink(node: Node) -> None:
    """x + bias below -lambd, x - bias above lambd, 0 between."""
    lambd, bias = float(node.attr("lambd", 0.5)), float(node.attr("bias", 0.0))
    x = _value(node, 0)
    low = _compare(node, "less", x, _scalar(node, "minus_lambd", -lambd))
    high = _compare(node, "greater", x, _scalar(node, "lambd", lambd))
    plus = node.emit("Eltwise", [x], {"type": ELTWISE_SUM, "scalar_input": bias}).outputs[0]
    minus = node.emit("Eltwise", [x], {"type": ELTWISE_SUM, "scalar_input": -bias}).outputs[0]
    upper = node.emit("Where", [high, minus, _scalar(node, "zero", 0.0)]).outputs[0]
    node.emit_out("Where", [low, plus, upper])


@converter("Hardmax")
def hardmax(node: Node) -> None:
    """1 at the first maximum along the axis: x == max(x), kept only where
    the running count of maxima is 1."""
    shape = list(node.shape(0))
    rank = len(shape)
    axis = normalize_axis(node, int(node.attr("axis", -1 if node.opset >= 13 else 1)), rank)
    x = _value(node, 0)
    if node.opset < 13:   # the input viewed as 2D at axis, as ONNX defined it then
        x = node.emit("Reshape", [x], {"shape": [int(np.prod(shape[:axis])),
                                                 int(np.prod(shape[axis:]))]}).outputs[0]
        axis = 1
    peak = node.emit("Reduce", [x], {"reduce_type": 2, "axis": [axis],
                                     "keepdims": 1}).outputs[0]
    maxima = _compare(node, "equal", x, peak)
    count = node.emit("CumSum", [maxima], {"axis": axis}).outputs[0]
    first = _compare(node, "equal", count, _scalar(node, "one", 1.0))
    if node.opset < 13:
        flat = _compare(node, "and", maxima, first)
        node.emit_out("Reshape", [flat], {"shape": shape})
        return
    node.emit_out("Compare", [maxima, first], {"type": "and"})


@converter("LpNormalization")
def lp_normalization(node: Node) -> None:
    axis = normalize_axis(node, int(node.attr("axis", -1)), node.rank(0))
    p = int(node.attr("p", 2))
    if p not in (1, 2):
        raise node.fail(f"p {p} is not 1 or 2")
    x = _value(node, 0)
    if p == 1:
        powered = node.emit("Eltwise", [x], {"type": 7}).outputs[0]
    else:
        powered = node.emit("Eltwise", [x, x], {"type": ELTWISE_PROD}).outputs[0]
    total = node.emit("Reduce", [powered], {"reduce_type": 4, "axis": [axis],
                                             "keepdims": 1}).outputs[0]
    if p == 2:
        total = node.emit("Eltwise", [total], {"type": 9, "scalar_input": 0.5}).outputs[0]
    node.emit_out("Eltwise", [x, total], {"type": 3})


@converter("MeanVarianceNormalization")
def mean_variance_normalization(node: Node) -> None:
    """(x - mean) / sqrt(var + 1e-9) over `axes`: LayerNorm with those axes
    moved last."""
    rank = node.rank(0)
    axes = sorted({normalize_axis(node, a, rank) for a in node.ints("axes", [0, 2, 3])})
    kept = [i for i in range(rank) if i not in axes]
    chain = _Chain(node, _value(node, 0), list(node.shape(0)))
    chain.transpose(kept + axes)
    normed = node.emit("LayerNorm", [chain.tensor],
                       {"axis": len(kept), "epsilon": 1e-9}).outputs[0]
    back = _Chain(node, normed, chain.shape)
    order = kept + axes
    back.transpose([order.index(i) for i in range(rank)])
    node.emit_out("Identity", [back.tensor])


@converter("Mean")
def mean(node: Node) -> None:
    names = [_value(node, i) for i in range(len(node.inputs)) if node.has_input(i)]
    total = names[0]
    for other in names[1:]:
        total = node.emit("Eltwise", [total, other], {"type": ELTWISE_SUM}).outputs[0]
    node.emit_out("Eltwise", [total], {"type": ELTWISE_PROD, "scalar_input": 1.0 / len(names)})


_GRID_MODES = {"bilinear": "bilinear", "linear": "bilinear", "nearest": "nearest",
               "bicubic": "bicubic", "cubic": "bicubic"}


@converter("GridSample")
def grid_sample(node: Node) -> None:
    """GridSample on [N, C, H, W] with a [N, H_out, W_out, 2] grid (opset 16
    names its modes bilinear and bicubic, opset 20 linear and cubic), or on
    [N, C, D, H, W] with a [N, D_out, H_out, W_out, 3] grid (linear and
    nearest)."""
    if (node.rank(0), node.rank(1)) not in ((4, 4), (5, 5)):
        raise node.fail(f"X {list(node.shape(0))} and grid {list(node.shape(1))}: 2-D or "
                        "3-D sampling takes X and grid of rank 4, or both of rank 5")
    mode = str(node.attr("mode", "bilinear" if node.opset < 20 else "linear"))
    if node.rank(0) == 5 and mode in ("bicubic", "cubic"):
        raise node.fail("cubic mode samples 2-D only; ONNX defines no volumetric cubic")
    padding = str(node.attr("padding_mode", "zeros"))
    if mode not in _GRID_MODES:
        raise node.fail(f"mode '{mode}' is not linear, nearest or cubic")
    if padding not in ("zeros", "border", "reflection"):
        raise node.fail(f"padding_mode '{padding}' is not zeros, border or reflection")
    node.emit_out("GridSample", [node.tensor(0), node.tensor(1)],
                  {"mode": _GRID_MODES[mode], "padding_mode": padding,
                   "align_corners": int(node.attr("align_corners", 0))})
