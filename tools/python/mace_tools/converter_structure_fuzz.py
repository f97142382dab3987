"""Structure-aware fuzz targets for the converter (tools/converter_fuzz.py):
deployment files mutated as YAML documents, and ONNX graphs mutated as
graphs. Each generated case carries what it breaks; a case that breaks a rule
the engine or the deployment-file grammar enforces must be refused, so its
conversion succeeding is a finding ("silent accept"), like a traceback or a
hang.

deploy      a deployment file around a small ONNX model, driven through
            load_config and the convert step (fetching and converting) with
            keys removed, values of the wrong type, huge numbers, odd strings,
            odd model names and hostile paths and URLs. Besides the outcome,
            every case checks what the converter leaves behind: no partial
            download, no copy more readable than its original, no error
            message that quotes a file, no copy past the input limit.
onnx_graph  a small ONNX network (Conv, MaxPool, Relu, an If on a computed
            condition) with attributes set to odd values, an output written
            twice, an input read from nowhere, bad input dimensions and Ifs
            nested up to 12 deep.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import os
import random
import resource
import shutil
import signal
import stat
from pathlib import Path
from typing import Any, Callable

import numpy as np
import yaml

from mace_converter.api import MAX_SUBGRAPH_DEPTH, ConvertOptions, TensorSpec

SECRET = "TOPSECRET-first-line"
# The input limit the deploy target sets, and the file-size ceiling behind
# it: a copy that reaches the ceiling went past the limit.
FUZZ_LIMIT_MB = 8
FILE_SIZE_CEILING = 64 << 20
ODD_VALUES: list[Any] = [None, True, [], {}, [[]], 0, -1, 2**31, 2**64, -2**63, 1e309, "",
                         " ", "\n", "a\nb", "x" * 5000, "\x00", "\u202e", "../../etc/passwd",
                         "{{", "%s%n", "*", "~", "NaN"]
ODD_NAMES = ["tiny\n", "tiny\n\n", "\ntiny", "../tiny", "a b", "a/b", "x" * 300, "", 123,
             "-x", ".", "t\x00y", "模型", "tiny "]
NAME_REFUSED = {"tiny\n", "tiny\n\n", "\ntiny", "../tiny", "a b", "a/b", "x" * 300, "", "-x",
                ".", "t\x00y", "模型", "tiny "}
HOSTILE_PATHS = {  # location -> why it must be refused ("" when it may convert)
    "file:///dev/zero": "a file URL to a device",
    "/dev/zero": "a device",
    "@TMP@/loop1": "a symlink loop",
    "file://@TMP@/loop1": "a file URL to a symlink loop",
    "@TMP@/adir": "a directory",
    "file://@TMP@/adir": "a file URL to a directory",
    "ftp://example.invalid/model.onnx": "an ftp URL",
    "gopher://example.invalid/model.onnx": "a gopher URL",
    "file://elsewhere@TMP@/model.onnx": "a file URL on another host",
    "http://[::1": "a broken URL",
    "file://@TMP@/private.onnx": "",
    "@TMP@/link.onnx": "",
}
SHAPE_VALUES: list[tuple[Any, str]] = [  # (value, why it must be refused, or "")
    ("1,3,4,4\n", ""), ("1,3,2147483648,4", "a dimension of 2^31"),
    ("1,3,4,1099511627776", "a dimension of 2^40"), ("1,-3,4,4", "a negative dimension"),
    ([1, 3, 4, 4.5], "a fractional dimension"), ([[1, 3, 4, 2**63]], "a dimension of 2^63")]


class Violation(Exception):
    """A rule about what the converter leaves behind was broken."""


# --- deploy ---------------------------------------------------------------------------------

def _relu_model() -> bytes:
    import onnx  # pylint: disable=import-outside-toplevel
    from onnx import TensorProto, helper  # pylint: disable=import-outside-toplevel
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="act")], "fuzz_deploy",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 4, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def _deploy_seed() -> dict:
    return {
        "library_name": "fuzzlib", "target_abis": ["host"], "build_type": "proto",
        "models": {"tiny": {
            "platform": "onnx", "model_file_path": "@TMP@/model.onnx",
            "model_sha256_checksum": hashlib.sha256(_relu_model()).hexdigest(),
            "subgraphs": [{"input_tensors": "x", "input_shapes": "1,3,4,4",
                           "output_tensors": "y", "output_shapes": "1,3,4,4"}],
            "runtime": "cpu"}}}


def _mappings(document: Any, path: tuple = ()) -> list[tuple[tuple, dict]]:
    """Every mapping in the document with its path of keys."""
    found = []
    if isinstance(document, dict):
        found.append((path, document))
        for key, value in document.items():
            found.extend(_mappings(value, path + (key,)))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found.extend(_mappings(value, path + (index,)))
    return found


def _model(document: dict) -> dict | None:
    models = document.get("models")
    if isinstance(models, dict) and isinstance(models.get("tiny"), dict):
        return models["tiny"]
    return None


def _subgraph(document: dict) -> dict | None:
    model = _model(document)
    graphs = model.get("subgraphs") if model else None
    if isinstance(graphs, list) and graphs and isinstance(graphs[0], dict):
        return graphs[0]
    return None


def _deploy_mutation(document: dict, rng: random.Random) -> str:
    """Mutates `document` in place; returns why it must be refused, or ""."""
    choice = rng.randrange(8)
    mappings = [m for _, m in _mappings(document) if m]
    if choice == 0 and mappings:
        mapping = rng.choice(mappings)
        del mapping[rng.choice(list(mapping))]
        return ""
    if choice == 1 and mappings:
        mapping = rng.choice(mappings)
        mapping[rng.choice(list(mapping))] = copy.deepcopy(rng.choice(ODD_VALUES))
        return ""
    if choice == 2 and mappings:
        rng.choice(mappings)[rng.choice(["extra", "model_file", "Runtime", 7])] = 1
        return "an unknown key"
    model = _model(document)
    if choice == 3 and isinstance(document.get("models"), dict) and model is not None:
        name = rng.choice(ODD_NAMES)
        document["models"] = {name: model}
        return "the model name" if name in NAME_REFUSED else ""
    if choice == 4 and model is not None:
        location = rng.choice(list(HOSTILE_PATHS))
        model["model_file_path"] = location
        return HOSTILE_PATHS[location]
    if choice == 5 and model is not None:
        model["quantize"] = 1
        model["quantize_range_file"] = "@TMP@/secret.txt"
        return "a range file that is not one"
    subgraph = _subgraph(document)
    if choice == 6 and subgraph is not None:
        shape, reason = rng.choice(SHAPE_VALUES)
        subgraph[rng.choice(["input_shapes", "output_shapes"])] = copy.deepcopy(shape)
        return reason
    if choice == 7:
        document["library_name"] = rng.choice(ODD_NAMES)
        return "the library name" if document["library_name"] in NAME_REFUSED else ""
    return ""


def _deploy_generate(rng: random.Random) -> tuple[bytes, str]:
    document = _deploy_seed()
    reasons = [_deploy_mutation(document, rng) for _ in range(rng.choice([1, 1, 2, 3]))]
    text = yaml.safe_dump(document, allow_unicode=True, sort_keys=False)
    # Only the last mutation's reason surely holds: nothing changes its key
    # afterwards, and what earlier ones broke can only add refusals.
    return text.encode(), reasons[-1]


def _deploy_files(tmp: Path) -> None:
    for name in ("loop1", "loop2", "link.onnx", "model.onnx", "private.onnx", "secret.txt"):
        (tmp / name).unlink(missing_ok=True)
    model = _relu_model()
    (tmp / "model.onnx").write_bytes(model)
    (tmp / "private.onnx").write_bytes(model)
    (tmp / "private.onnx").chmod(0o640)
    (tmp / "secret.txt").write_text(SECRET + "\nmore secrets\n")
    (tmp / "secret.txt").chmod(0o640)
    os.symlink(tmp / "loop2", tmp / "loop1")
    os.symlink(tmp / "loop1", tmp / "loop2")
    os.symlink(tmp / "model.onnx", tmp / "link.onnx")
    (tmp / "adir").mkdir(exist_ok=True)


@contextlib.contextmanager
def bounded_files():
    """A file-size ceiling for the process, so that a copy without a limit
    ends in EFBIG instead of filling the disk."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    ceiling = FILE_SIZE_CEILING if hard == resource.RLIM_INFINITY else min(hard,
                                                                          FILE_SIZE_CEILING)
    resource.setrlimit(resource.RLIMIT_FSIZE, (ceiling, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def _check_leftovers(build: Path, tmp: Path, message: str) -> None:
    downloads = build / "downloads"
    for path in downloads.rglob("*") if downloads.exists() else []:
        if path.name.endswith(".part"):
            raise Violation(f"a partial download is left: {path.name}")
        if path.is_file():
            mode = stat.S_IMODE(path.stat().st_mode)
            if mode & 0o077:
                raise Violation(f"the download {path.name} has mode {mode:o}; the original "
                                f"has {stat.S_IMODE((tmp / 'private.onnx').stat().st_mode):o}")
    if SECRET in message:
        raise Violation("an error message quotes a file the deployment file names")
    if "File too large" in message or os.strerror(27) in message:
        raise Violation("a copy went past the input limit (stopped by the file-size ceiling)")


def _run_deploy(data: bytes, tmp: Path) -> None:
    # pylint: disable=import-outside-toplevel
    from unittest import mock
    from mace_converter import conversion
    from mace_converter.config import load_config
    _deploy_files(tmp)
    build = tmp / "build"
    shutil.rmtree(build, ignore_errors=True)
    path = tmp / "deploy.yml"
    path.write_bytes(data.replace(b"@TMP@", str(tmp).encode()))
    environment = {"MACE_BUILD_DIR": str(build),
                   "MACE_CONVERTER_MAX_INPUT_MB": str(FUZZ_LIMIT_MB)}
    message = ""
    try:
        with mock.patch.dict(os.environ, environment), bounded_files(), \
                contextlib.redirect_stdout(io.StringIO()):
            config = load_config(path)
            conversion.convert_models(config, list(config.models.values()))
    except Exception as error:
        message = str(error)
        raise
    finally:
        _check_leftovers(build, tmp, message)


# --- onnx_graph -----------------------------------------------------------------------------

def _graph_seed(depth: int = 1):
    """x [1,3,8,8] -> Conv -> MaxPool -> Relu -> If(cond) nested `depth`
    deep, each branch an Identity or a Neg of the pooled tensor -> y."""
    from onnx import TensorProto, helper, numpy_helper  # pylint: disable=import-outside-toplevel
    rng = np.random.default_rng(11)
    weights = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    info = helper.make_tensor_value_info

    def branch(level: int, suffix: str):
        out = f"b{level}{suffix}"
        if level >= depth:
            node = helper.make_node("Identity" if suffix == "t" else "Neg", ["r"], [out],
                                    name=f"leaf{level}{suffix}")
        else:
            node = _if(level + 1, out)
        return helper.make_graph([node], f"g{level}{suffix}", [],
                                 [info(out, TensorProto.FLOAT, [1, 4, 4, 4])])

    def _if(level: int, out: str):
        return helper.make_node("If", ["cond"], [out], name=f"if{level}",
                                then_branch=branch(level, "t"), else_branch=branch(level, "e"))

    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], strides=[1, 1], dilations=[1, 1]),
        helper.make_node("MaxPool", ["c"], ["p"], name="pool", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Relu", ["p"], ["r"], name="relu"),
        _if(1, "y"),
    ]
    graph = helper.make_graph(
        nodes, "fuzz_graph",
        [info("x", TensorProto.FLOAT, [1, 3, 8, 8]), info("cond", TensorProto.BOOL, [1])],
        [info("y", TensorProto.FLOAT, [1, 4, 4, 4])], [weights])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


_WINDOW_ATTRS = {"kernel_shape": "a window of", "strides": "a stride of",
                 "dilations": "a dilation of", "pads": "a padding of"}


def _graph_mutation(model: Any, rng: random.Random, choices: list[int]) -> str:
    """Mutates `model` in place; returns why it must be refused, or ""."""
    graph = model.graph
    choice = rng.choice(choices)
    if choice == 0:
        node = rng.choice([node for node in graph.node if node.op_type in ("Conv", "MaxPool")])
        attribute = rng.choice([a for a in node.attribute if a.name in _WINDOW_ATTRS])
        value = rng.choice([0, -1, -7, 2**31, 2**40, 2, 5])
        attribute.ints[rng.randrange(len(attribute.ints))] = value
        if (value < 0 or value > 2**31 - 1 or
                (value == 0 and attribute.name != "pads")):
            return f"{_WINDOW_ATTRS[attribute.name]} {value}"
        return ""
    if choice == 1:
        i, j = rng.sample(range(len(graph.node)), 2)
        graph.node[j].output[0] = graph.node[i].output[0]
        return "two nodes write one tensor"
    if choice == 2:
        node = rng.choice(list(graph.node))
        node.input[0] = rng.choice(["ghost", "c_typo"])
        return "a node reads a tensor nobody writes"
    if choice == 3:
        dim = graph.input[0].type.tensor_type.shape.dim[rng.randrange(4)]
        value = rng.choice([2**40, 2**31, -1, -5])
        dim.dim_value = value
        # A negative dim_value is a dynamic dimension (Paddle2ONNX writes
        # -1); the deployment file gives its size.
        return f"an input dimension of {value}" if value > 0 else ""
    if choice == 4:
        del graph.initializer[:]
        return "the weights are missing"
    node = rng.choice(list(graph.node))
    if node.attribute:
        attribute = rng.choice(list(node.attribute))
        if attribute.ints:
            attribute.ints.append(rng.choice([0, 1, 3]))
            return "a window of 0" if attribute.ints[-1] == 0 and \
                attribute.name in ("kernel_shape", "strides", "dilations") else ""
        if attribute.HasField("g"):
            del attribute.g.output[:]
    return ""


def _graph_generate(rng: random.Random) -> tuple[bytes, str]:
    """A seed graph with Ifs nested 1 to 12 deep and one or two mutations;
    no mutation undoes another (at most one changes an attribute's value)."""
    depth = 1 if rng.random() < 0.6 else rng.randint(2, 12)
    model = _graph_seed(depth)
    reasons = [f"Ifs nested {depth} deep" if depth > MAX_SUBGRAPH_DEPTH else ""]
    if depth == 1 or rng.random() < 0.5:
        reasons.append(_graph_mutation(model, rng, [0, 1, 2, 3, 4, 5]))
        if rng.random() < 0.3:
            reasons.append(_graph_mutation(model, rng, [1, 2, 3, 4]))
    return model.SerializeToString(), next((r for r in reversed(reasons) if r), "")


def _run_graph(data: bytes, tmp: Path) -> None:
    import onnx  # pylint: disable=import-outside-toplevel
    from mace_converter.convert import convert  # pylint: disable=import-outside-toplevel
    path = tmp / "graph.onnx"
    path.write_bytes(data)
    model = onnx.load_from_string(data)
    inputs = [TensorSpec(info.name, [max(d.dim_value, 0) if d.HasField("dim_value") else 1
                                     for d in info.type.tensor_type.shape.dim],
                         data_format="NONE")
              for info in model.graph.input]
    convert(ConvertOptions(platform="onnx", model_file=path, weight_file=None, inputs=inputs,
                           outputs=[TensorSpec("y", [], data_format="NONE")],
                           model_name="fuzz"))


GENERATORS: dict[str, tuple[Callable[[random.Random], tuple[bytes, str]],
                            Callable[[bytes, Path], None], Callable[[], bytes]]] = {
    "deploy": (_deploy_generate, _run_deploy,
               lambda: yaml.safe_dump(_deploy_seed(), sort_keys=False).encode()),
    "onnx_graph": (_graph_generate, _run_graph, lambda: _graph_seed().SerializeToString()),
}
