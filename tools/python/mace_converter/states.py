"""State tensors (NetDef.state_tensors, docs/how-to/streaming_state.md):
tensors a streaming model keeps from one run to the next.

A frontend declares each state with its initial value (`declare`) and
names the tensor that holds the state's new value at the end of a run
(`assign`); ops read the state by its name. Through the transforms the new
values are kept alive as extra graph outputs (`protect`), so that no
transform prunes or renames them; `finish` then takes them out of the
outputs again and appends one Assign op per state, after every reader.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from mace_converter.api import ConversionError
from mace_converter.ir import FLOAT32, INT32, Graph, Op, Tensor
from mace_converter.shape_inference import fail, rule


@dataclass
class State:
    name: str
    initial: np.ndarray          # float32 or int32, the state's shape
    zeros: bool                  # the initial value is all zeros (no blob bytes)
    value: Optional[str] = None  # the tensor assigned at the end of a run
    origin: str = ""             # for messages: where the model defines it


def declare(graph: Graph, name: str, initial: np.ndarray, origin: str = "") -> str:
    """A state tensor `name` holding `initial` before the first run."""
    array = np.asarray(initial)
    if array.size == 0:
        raise ConversionError(f"{origin}: state '{name}' is empty (shape {list(array.shape)})")
    if array.dtype.kind == "f":
        array, dtype = np.array(array, dtype=np.float32, order="C"), FLOAT32
    elif array.dtype.kind in "iub" and array.min() >= -2**31 and array.max() < 2**31:
        array, dtype = np.array(array, dtype=np.int32, order="C"), INT32
    else:
        raise ConversionError(f"{origin}: state '{name}' has type {array.dtype}, which a "
                              "state tensor cannot hold (float32 or int32)")
    graph.reserve([name])
    graph.tensors[name] = Tensor(name, tuple(int(d) for d in array.shape), dtype)
    graph.states[name] = State(name, array, not np.any(array), origin=origin)
    return name


def assign(graph: Graph, name: str, value: str) -> None:
    """`value` is the state's new value from here on in graph order."""
    state = graph.states[name]
    tensor = graph.tensor(value)
    if tensor.shape != tuple(state.initial.shape):
        raise ConversionError(f"{state.origin}: state '{name}' has shape "
                              f"{list(state.initial.shape)} but is assigned '{value}' of shape "
                              f"{list(tensor.shape or ())}")
    state.value = None if value == name else value


def bind_io_pairs(graph: Graph, pairs: list[tuple[str, str]]) -> None:
    """Deployment-file state pairs: each input stops being a model input and
    becomes a state tensor, zeros at first, that takes the output's value
    at the end of every run. The output stays a model output."""
    for input_name, output_name in pairs:
        where = f"state pair {{input: {input_name}, output: {output_name}}}"
        if input_name not in graph.inputs:
            raise ConversionError(f"{where}: '{input_name}' is not an input of the converted "
                                  "model")
        if output_name not in graph.outputs:
            raise ConversionError(f"{where}: '{output_name}' is not an output of the "
                                  "converted model")
        tensor = graph.tensor(input_name)
        if graph.data_format(input_name) != graph.data_format(output_name):
            raise ConversionError(f"{where}: the input is {graph.data_format(input_name)} and "
                                  f"the output {graph.data_format(output_name)}; give both "
                                  "the same data format")
        graph.inputs.remove(input_name)
        initial = np.zeros(graph.shape(input_name), np.int32 if tensor.dtype == INT32
                           else np.float32)
        graph.states[input_name] = State(input_name, initial, True, origin=where)
        assign(graph, input_name, output_name)


def protect(graph: Graph) -> list[str]:
    """Makes every assigned value a graph output for the transforms; returns
    the names added, for `finish`."""
    added = []
    for state in graph.states.values():
        if state.value is not None and state.value not in graph.outputs:
            graph.outputs.append(state.value)
            added.append(state.value)
    return added


def finish(graph: Graph, added: list[str]) -> None:
    """Drops the outputs `protect` added and appends the Assign ops."""
    graph.outputs = [name for name in graph.outputs if name not in added]
    for state in graph.states.values():
        if state.value is None:
            continue
        value = graph.tensor(state.value)
        if value.dtype != graph.tensor(state.name).dtype:
            raise ConversionError(f"{state.origin}: state '{state.name}' is "
                                  f"{graph.tensor(state.name).dtype} but is assigned "
                                  f"'{state.value}' of type {value.dtype}")
        graph.ops.append(Op("Assign", graph.unique_op_name(f"assign/{state.name}"),
                            [state.name, state.value], [], {}, state.origin))


@rule("Assign")
def _assign(op: Op, shapes, graph: Graph) -> list:
    if len(shapes) != 2 or shapes[0] != shapes[1]:
        raise fail(op, f"assigns a value of shape {shapes[-1]} to a state of shape {shapes[0]}")
    return []
