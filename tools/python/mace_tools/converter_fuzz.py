"""Mutation fuzzing of the converter's input parsers: deployment YAML files,
ONNX models, TensorFlow GraphDefs and Caffe prototxt/caffemodel pairs.

The rule under test: bad input ends in one of the converter's own errors
(UserError, which includes ConfigError, or ConversionError), which the
command line turns into a message and exit code 1; never another exception
(a traceback) and never a hang. Each target starts from valid seeds (the
zoo's deployment files, the zoo's tiny TensorFlow and Caffe models, a small
ONNX network) and applies byte mutations, text mutations (lines, numbers,
YAML/prototxt punctuation) and, for ONNX, field mutations of the parsed
model. A fixed seed makes a run repeatable; a time or case budget bounds it.
"""
from __future__ import annotations

import dataclasses
import random
import signal
import tempfile
import time
import traceback
import warnings
from pathlib import Path
from typing import Callable

import numpy as np

from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.config import load_config
from mace_converter.convert import convert
from mace_converter.progress import UserError
from mace_tools import converter_structure_fuzz as structure

REPO = Path(__file__).resolve().parents[3]
KNOWN_ERRORS = (UserError, ConversionError)
EXTREME_NUMBERS = [b"0", b"-1", b"1", b"2147483648", b"-2147483649", b"99999999999999999999",
                   b"1e309", b"-1e309", b"nan", b"inf", b"0x10", b"1.5", b"-0"]
TEXT_TOKENS = [b"{", b"}", b"[", b"]", b":", b",", b"&a ", b"*a", b"!!python/object:os.system",
               b"\t", b"'", b'"', b"\\", b"#", b"- ", b"~", b"null", b"true", b"\xff", b"\x00",
               b"<<: *a", b"!!binary", b"%YAML 1.1\n"]


class Timeout(Exception):
    """Raised by the alarm inside a case that runs too long."""


@dataclasses.dataclass
class Finding:
    target: str
    index: int
    kind: str       # "traceback" or "hang"
    detail: str
    data: bytes


@dataclasses.dataclass
class Target:
    name: str
    seeds: list[bytes]
    run: Callable[[bytes, Path], None]
    text: bool
    structured: Callable[[bytes, random.Random], bytes] | None = None
    # Structure-aware targets generate whole cases: (input, why it must be
    # refused or ""); a refused case that converts is a "silent" finding.
    generate: Callable[[random.Random], tuple[bytes, str]] | None = None


# --- seeds and runners ----------------------------------------------------------------------

def _onnx_seed() -> bytes:
    import onnx  # pylint: disable=import-outside-toplevel
    from onnx import TensorProto, helper, numpy_helper  # pylint: disable=import-outside-toplevel
    rng = np.random.default_rng(3)

    def init(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1],
                         strides=[1, 1], kernel_shape=[3, 3]),
        helper.make_node("BatchNormalization", ["c", "s", "o", "m", "v"], ["n"], name="bn"),
        helper.make_node("Relu", ["n"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Concat", ["p", "p"], ["cat"], name="cat", axis=1),
        helper.make_node("GlobalAveragePool", ["cat"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flat", axis=1),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["y"], name="softmax", axis=1),
    ]
    inits = [init("w", (4, 3, 3, 3)), init("b", (4,)), init("s", (4,)), init("o", (4,)),
             init("m", (4,)), numpy_helper.from_array(np.ones(4, np.float32), "v"),
             init("fw", (5, 8)), init("fb", (5,))]
    graph = helper.make_graph(
        nodes, "fuzz_seed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def _onnx_fields(data: bytes, rng: random.Random) -> bytes:
    """One field mutation of a parsed ONNX model (bytes that do not parse,
    or whose strings are not UTF-8 once read, are returned unchanged, for
    the byte mutators)."""
    try:
        return _onnx_field_mutation(data, rng)
    except UnicodeDecodeError:
        return data


def _onnx_field_mutation(data: bytes, rng: random.Random) -> bytes:
    import onnx  # pylint: disable=import-outside-toplevel
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception:  # pylint: disable=broad-except
        return data
    graph = model.graph
    choice = rng.randrange(8)
    if choice == 0 and graph.node:
        node = rng.choice(list(graph.node))
        if node.attribute:
            attr = rng.choice(list(node.attribute))
            if attr.ints:
                attr.ints[rng.randrange(len(attr.ints))] = rng.choice(
                    [0, -1, 2**31, -2**63, 2**63 - 1, 7, 100000])
            else:
                attr.i = rng.choice([0, -1, 2**31, 2**63 - 1, 9, -9])
    elif choice == 1 and graph.node:
        rng.choice(list(graph.node)).op_type = rng.choice(
            ["Conv", "Relu", "Reshape", "Gemm", "Concat", "Pad", "Slice", "Transpose", "Resize",
             "Unsqueeze", "Split", "Constant", "Nope", ""])
    elif choice == 2 and graph.initializer:
        tensor = rng.choice(list(graph.initializer))
        if tensor.dims:
            tensor.dims[rng.randrange(len(tensor.dims))] = rng.choice([0, -1, 2**40, 3, 1])
        else:
            tensor.dims.append(rng.choice([0, 2]))
    elif choice == 3 and graph.initializer:
        tensor = rng.choice(list(graph.initializer))
        tensor.raw_data = tensor.raw_data[:rng.randrange(len(tensor.raw_data) + 1)]
        if rng.random() < 0.3:
            tensor.data_type = rng.choice([0, 2, 6, 7, 8, 10, 11, 16, 99])
    elif choice == 4 and graph.node:
        node = rng.choice(list(graph.node))
        names = ["x", "y", "missing", ""] + [n for other in graph.node for n in other.output]
        if node.input and rng.random() < 0.5:
            node.input[rng.randrange(len(node.input))] = rng.choice(names)
        elif node.output:
            node.output[rng.randrange(len(node.output))] = rng.choice(names)
    elif choice == 5 and (graph.input or graph.output):
        info = rng.choice(list(graph.input) + list(graph.output))
        dims = info.type.tensor_type.shape.dim
        if dims:
            dim = dims[rng.randrange(len(dims))]
            if rng.random() < 0.5:
                dim.dim_value = rng.choice([0, -1, 2**40, 1, 13])
            else:
                dim.dim_param = "N"
        info.type.tensor_type.elem_type = rng.choice([1, 1, 1, 7, 10, 0])
    elif choice == 6 and graph.node:
        i, j = rng.randrange(len(graph.node)), rng.randrange(len(graph.node))
        a, b = onnx.NodeProto(), onnx.NodeProto()
        a.CopyFrom(graph.node[i])
        b.CopyFrom(graph.node[j])
        graph.node[i].CopyFrom(b)
        graph.node[j].CopyFrom(a)
    elif model.opset_import:
        model.opset_import[0].version = rng.choice([1, 6, 11, 13, 18, 21, 99, -1])
    return model.SerializeToString()


def _convert(platform: str, model: Path, weights: Path | None, inputs, outputs) -> None:
    convert(ConvertOptions(platform=platform, model_file=model, weight_file=weights,
                           inputs=inputs, outputs=outputs, model_name="fuzz"))


def _run_yaml(data: bytes, tmp: Path) -> None:
    path = tmp / "deploy.yml"
    path.write_bytes(data)
    load_config(path)


def _run_onnx(data: bytes, tmp: Path) -> None:
    path = tmp / "model.onnx"
    path.write_bytes(data)
    _convert("onnx", path, None, [TensorSpec("x", [1, 3, 8, 8])], [TensorSpec("y", [1, 5])])


def _tiny():
    from zoo import tiny  # pylint: disable=import-outside-toplevel
    return tiny


def _tf_specs():
    tiny = _tiny()
    inputs = [TensorSpec("input", list(tiny.TF_INPUT), data_format="NHWC")]
    outputs = [TensorSpec(name, list(shape), data_format="NHWC" if len(shape) == 4 else "NONE")
               for name, shape in tiny.TF_OUTPUTS.items()]
    return inputs, outputs


def _run_tf(data: bytes, tmp: Path) -> None:
    path = tmp / "model.pb"
    path.write_bytes(data)
    _convert("tensorflow", path, None, *_tf_specs())


def _caffe_specs():
    tiny = _tiny()
    return ([TensorSpec("data", list(tiny.CAFFE_INPUT))],
            [TensorSpec(name, list(shape)) for name, shape in tiny.CAFFE_OUTPUTS.items()])


_CAFFE_FILES: dict[str, bytes] = {}


def _caffe_seed_files() -> dict[str, bytes]:
    if not _CAFFE_FILES:
        with tempfile.TemporaryDirectory() as tmp:
            prototxt, weights = _tiny().write_caffe(Path(tmp))
            _CAFFE_FILES["prototxt"] = prototxt.read_bytes()
            _CAFFE_FILES["caffemodel"] = weights.read_bytes()
    return _CAFFE_FILES


def _run_caffe(which: str) -> Callable[[bytes, Path], None]:
    def run(data: bytes, tmp: Path) -> None:
        files = dict(_caffe_seed_files())
        files[which] = data
        prototxt, weights = tmp / "model.prototxt", tmp / "model.caffemodel"
        prototxt.write_bytes(files["prototxt"])
        weights.write_bytes(files["caffemodel"])
        _convert("caffe", prototxt, weights, *_caffe_specs())
    return run


def _tf_seed() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        return _tiny().write_tensorflow(Path(tmp))[0].read_bytes()


def targets() -> dict[str, Target]:
    yaml_seeds = [path.read_bytes() for path in sorted((REPO / "models").glob("*.yml"))]
    structured = {name: Target(name, [seed()], run, text=False, generate=generate)
                  for name, (generate, run, seed) in structure.GENERATORS.items()}
    return {**structured,
        "yaml": Target("yaml", yaml_seeds, _run_yaml, text=True),
        "onnx": Target("onnx", [_onnx_seed()], _run_onnx, text=False, structured=_onnx_fields),
        "tf": Target("tf", [_tf_seed()], _run_tf, text=False),
        "caffe_prototxt": Target("caffe_prototxt", [_caffe_seed_files()["prototxt"]],
                                 _run_caffe("prototxt"), text=True),
        "caffe_model": Target("caffe_model", [_caffe_seed_files()["caffemodel"]],
                              _run_caffe("caffemodel"), text=False),
    }


# --- mutation -------------------------------------------------------------------------------

def _bytes_mutation(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    choice = rng.randrange(7)
    if not out:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    position = rng.randrange(len(out))
    if choice == 0:
        out[position] ^= 1 << rng.randrange(8)
    elif choice == 1:
        del out[position:position + rng.randint(1, 16)]
    elif choice == 2:
        out[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    elif choice == 3:
        out = out[:position]
    elif choice == 4:
        length = rng.randint(1, 64)
        out[position:position] = out[position:position + length]
    elif choice == 5:
        out[position] = rng.choice([0x00, 0xff, 0x7f, 0x80, 0x01])
    else:
        width = rng.choice([1, 2, 4, 8])
        value = rng.choice([0, 1, -1, 2**31 - 1, -2**31, 2**63 - 1]) & ((1 << (8 * width)) - 1)
        out[position:position + width] = value.to_bytes(width, "little")
    return bytes(out)


def _text_mutation(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    choice = rng.randrange(7)
    k = rng.randrange(len(lines))
    if choice == 0:
        del lines[k]
    elif choice == 1:
        lines.insert(k, lines[rng.randrange(len(lines))])
    elif choice == 2:
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    elif choice == 3:
        # A number in the line becomes an extreme one.
        words = lines[k].replace(b",", b" , ").split(b" ")
        numbers = [i for i, w in enumerate(words) if w[:1].isdigit() or w[:1] == b"-"]
        if numbers:
            words[rng.choice(numbers)] = rng.choice(EXTREME_NUMBERS)
            lines[k] = b" ".join(words).replace(b" , ", b",")
    elif choice == 4:
        line = lines[k]
        at = rng.randrange(len(line) + 1)
        lines[k] = line[:at] + rng.choice(TEXT_TOKENS) + line[at:]
    elif choice == 5:
        # A word copied from elsewhere in the file.
        words = [w for w in data.replace(b"\n", b" ").split(b" ") if w]
        parts = lines[k].split(b" ")
        if words and parts:
            parts[rng.randrange(len(parts))] = rng.choice(words)
            lines[k] = b" ".join(parts)
    else:
        return _bytes_mutation(data, rng)
    return b"\n".join(lines)


def mutate(target: Target, rng: random.Random) -> bytes:
    data = rng.choice(target.seeds)
    for _ in range(rng.choice([1, 1, 2, 3, 5])):
        roll = rng.random()
        if target.structured is not None and roll < 0.5:
            data = target.structured(data, rng)
        elif target.text and roll < 0.8:
            data = _text_mutation(data, rng)
        else:
            data = _bytes_mutation(data, rng)
    return data


# --- running --------------------------------------------------------------------------------

def _on_alarm(_signum, _frame):
    raise Timeout()


def run_one(target: Target, data: bytes, tmp: Path, timeout: float) -> tuple[str, str]:
    """Returns (outcome, detail): outcome is "ok", "error", "traceback",
    "hang" or "silent" (a rule about leftovers broken)."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        target.run(data, tmp)
        return "ok", ""
    except KNOWN_ERRORS as error:
        message = str(error)
        if not message.strip():
            return "traceback", f"{type(error).__name__} with an empty message"
        return "error", message
    except structure.Violation as error:
        return "silent", str(error)
    except Timeout:
        return "hang", f"no answer in {timeout} s"
    except RecursionError:
        return "traceback", "RecursionError:\n" + traceback.format_exc(limit=-8)
    except Exception:  # pylint: disable=broad-except
        return "traceback", traceback.format_exc(limit=-8)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def fuzz(target: Target, seed: int, seconds: float, max_cases: int | None, timeout: float,
         findings_dir: Path | None = None) -> tuple[dict[str, int], list[Finding]]:
    """Runs mutated inputs until the time or case budget is spent. Returns the
    outcome counts and the findings (one per distinct last traceback line)."""
    rng = random.Random(f"{seed}/{target.name}")
    # Mutated weights overflow and turn into NaN; numpy's warnings about it
    # are expected noise here.
    warnings.simplefilter("ignore", RuntimeWarning)
    tally = {"ok": 0, "error": 0, "traceback": 0, "hang": 0, "silent": 0}
    findings: list[Finding] = []
    seen: set[str] = set()
    deadline = time.monotonic() + seconds
    index = 0
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        # The seeds must convert, or the mutations test nothing.
        for data in target.seeds:
            outcome, detail = run_one(target, data, tmp, timeout)
            if outcome != "ok":
                raise RuntimeError(f"{target.name}: a seed does not convert: {detail}")
        while time.monotonic() < deadline and (max_cases is None or index < max_cases):
            must_refuse = ""
            if target.generate is not None:
                data, must_refuse = target.generate(rng)
            else:
                data = mutate(target, rng)
            outcome, detail = run_one(target, data, tmp, timeout)
            if outcome == "ok" and must_refuse:
                outcome, detail = "silent", f"converted although it has {must_refuse}"
            tally[outcome] += 1
            if outcome in ("traceback", "hang", "silent"):
                key = outcome + ":" + detail.strip().splitlines()[-1] if detail.strip() else outcome
                if key not in seen:
                    seen.add(key)
                    findings.append(Finding(target.name, index, outcome, detail, data))
                    if findings_dir is not None:
                        findings_dir.mkdir(parents=True, exist_ok=True)
                        (findings_dir / f"{target.name}-{index}").write_bytes(data)
            index += 1
    return tally, findings
