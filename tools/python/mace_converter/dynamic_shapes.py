"""Models with dynamic input dimensions (TensorSpec.max_shape).

The converter works at one shape: it folds the shape arithmetic of a model
(Shape -> Gather -> Concat -> Reshape) to constants and gives every Reshape
a fixed target, including the ones it adds itself (a 1-D Conv or Pool runs
as a 2-D op between two Reshapes). At another size of a dynamic dimension
such a constant is wrong. So a model with dynamic inputs is converted a
second time with every input at its largest shape, and the two models are
compared: what is equal in both is taken as constant over the range;
a Reshape target that differs gets, where it differs, 0 (copy the input's
dimension) when it equals the input's dimension in both, else -1 (infer),
so the engine resolves it at every run. Anything else that differs (an
argument of another op, a constant tensor, the ops themselves) depends on
the size in a way the engine cannot follow, and the conversion is refused
naming it, rather than giving a model that is wrong at other sizes.

Two sizes cannot prove a value constant: a target entry that happens to be
equal at the planned and at the largest size but not between them (say,
min(T, 16) with T planned at 16) is kept as it is; the engine then refuses
the sizes it does not fit, with the shapes in the message.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

from mace_converter.api import ConversionError, ConvertOptions

# ShapeOf(tensor name) -> its shape in one of the two conversions, or None.
ShapeOf = Callable[[str], Optional[list[int]]]


def has_dynamic_inputs(options: ConvertOptions) -> bool:
    return any(spec.max_shape is not None and
               [int(d) for d in spec.max_shape] != [int(d) for d in spec.shape]
               for spec in options.inputs)


def largest_options(options: ConvertOptions) -> ConvertOptions:
    """The same conversion with every input at its largest shape."""
    inputs = [dataclasses.replace(spec, shape=[int(d) for d in spec.max_shape],
                                  max_shape=None) if spec.max_shape is not None else spec
              for spec in options.inputs]
    return dataclasses.replace(options, inputs=inputs)


def _arg_value(arg: Any) -> tuple:
    return (arg.f, arg.i, arg.s, tuple(arg.floats), tuple(arg.ints), tuple(arg.strings))


def _describe(op: Any) -> str:
    return f"{op.type} op '{op.name}'"


def _reshape_target(op: Any, planned: list[int], largest: list[int],
                    input_planned: Optional[list[int]], input_largest: Optional[list[int]]
                    ) -> list[int]:
    """The target that gives `planned` and `largest` at the two sizes (see
    the module's comment), or a ConversionError."""
    if len(planned) != len(largest):
        raise ConversionError(f"{_describe(op)}: its target has rank {len(planned)} at the "
                              f"planned input shapes but {len(largest)} at the largest ones")
    target = list(planned)
    inferred = [d for d, value in enumerate(planned) if value == -1]
    for d, (small, large) in enumerate(zip(planned, largest)):
        if small == large:
            continue
        if input_planned is not None and input_largest is not None and \
                d < len(input_planned) and d < len(input_largest) and \
                input_planned[d] == small and input_largest[d] == large:
            target[d] = 0
        else:
            inferred.append(d)
            target[d] = -1
    if len(inferred) > 1:
        raise ConversionError(
            f"{_describe(op)}: its target {planned} at the planned input shapes becomes "
            f"{largest} at the largest ones; more than one of its dimensions follows the "
            "dynamic input dimensions in a way the engine cannot infer")
    return target


def _compare_ops(planned_net: Any, largest_net: Any, shape_planned: ShapeOf,
                 shape_largest: ShapeOf) -> int:
    """Makes planned_net's Reshape targets follow the input; returns how many
    it changed."""
    if len(planned_net.op) != len(largest_net.op):
        raise ConversionError(
            f"the model converts to {len(planned_net.op)} ops at the planned input shapes but "
            f"{len(largest_net.op)} at the largest ones; its structure depends on the size of "
            "its dynamic dimensions")
    consts = {tensor.name for tensor in planned_net.tensors}
    changed = 0
    for op, other in zip(planned_net.op, largest_net.op):
        if (op.type, op.name, list(op.input), list(op.output)) != \
                (other.type, other.name, list(other.input), list(other.output)):
            raise ConversionError(
                f"{_describe(op)} at the planned input shapes is {_describe(other)} at the "
                "largest ones; the model's structure depends on the size of its dynamic "
                "dimensions")
        args = {arg.name: arg for arg in op.arg}
        other_args = {arg.name: arg for arg in other.arg}
        if set(args) != set(other_args):
            raise ConversionError(f"{_describe(op)} has arguments {sorted(args)} at the planned "
                                  f"input shapes but {sorted(other_args)} at the largest ones")
        for name, arg in args.items():
            if _arg_value(arg) == _arg_value(other_args[name]):
                continue
            reshape_by_arg = op.type == "Reshape" and name == "shape" and (
                len(op.input) < 2 or op.input[1] in consts)
            if not reshape_by_arg:
                raise ConversionError(
                    f"{_describe(op)}: argument '{name}' is computed from the input shapes "
                    f"({list(arg.ints) or arg.i} at the planned ones, "
                    f"{list(other_args[name].ints) or other_args[name].i} at the largest); "
                    "the engine cannot recompute it for other sizes of the dynamic dimensions")
            target = _reshape_target(op, list(arg.ints), list(other_args[name].ints),
                                     shape_planned(op.input[0]), shape_largest(op.input[0]))
            del arg.ints[:]
            arg.ints.extend(target)
            changed += 1
    return changed


# Bytes per element of each mace.proto DataType.
_ELEMENT_BYTES = {1: 4, 2: 1, 3: 2, 4: 4, 5: 1}


def _tensor_bytes(tensor: Any, weights: bytes) -> bytes:
    size = int(tensor.data_size) * _ELEMENT_BYTES.get(int(tensor.data_type), 4)
    return weights[tensor.offset:tensor.offset + size]


def _compare_tensors(planned_net: Any, planned_weights: bytes, largest_net: Any,
                     largest_weights: bytes) -> None:
    largest = {tensor.name: tensor for tensor in largest_net.tensors}
    for tensor in planned_net.tensors:
        other = largest.get(tensor.name)
        same = other is not None and list(tensor.dims) == list(other.dims) and \
            tensor.data_type == other.data_type and \
            _tensor_bytes(tensor, planned_weights) == _tensor_bytes(other, largest_weights)
        if not same:
            raise ConversionError(
                f"constant '{tensor.name}' is computed from the input shapes (it differs at "
                "the largest input shapes); the engine cannot recompute it for other sizes of "
                "the dynamic dimensions")


def follow_dynamic_inputs(planned: tuple[Any, bytes, ShapeOf],
                          largest: tuple[Any, bytes, ShapeOf]) -> int:
    """Compares the model converted at the planned input shapes with the one
    converted at the largest, and makes the first follow the input at run
    time. Each argument is (NetDef, weights, ShapeOf). Returns the number of
    Reshape targets changed; raises ConversionError for what the engine
    cannot follow."""
    planned_net, planned_weights, shape_planned = planned
    largest_net, largest_weights, shape_largest = largest
    changed = _compare_ops(planned_net, largest_net, shape_planned, shape_largest)
    if len(planned_net.subgraphs) != len(largest_net.subgraphs):
        raise ConversionError("the model has a different number of subgraphs at the largest "
                              "input shapes")
    for sub, other in zip(planned_net.subgraphs, largest_net.subgraphs):
        changed += _compare_ops(sub, other, shape_planned, shape_largest)
    _compare_tensors(planned_net, planned_weights, largest_net, largest_weights)
    for sub, other in zip(planned_net.subgraphs, largest_net.subgraphs):
        _compare_tensors(sub, planned_weights, other, largest_weights)
    return changed
