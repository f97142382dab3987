"""Deployment files: one YAML file describes a library and the models in it.

`load_config` checks every key and turns the file into dataclasses. Any
problem (unknown or missing key, wrong type, bad value) is one ConfigError
whose message names the file and the key, e.g.
`models/x.yml: models.mobilenet_v2.runtime: expected one of cpu, gpu, ...`.
"""
from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import yaml

from mace_converter.api import IO_DATA_TYPES, MAX_DIM, TensorSpec
from mace_converter.progress import UserError

ABIS = ("host", "arm64-v8a", "armeabi-v7a")
PLATFORMS = ("onnx", "tensorflow", "caffe", "tflite")
RUNTIMES = ("cpu", "gpu", "dsp", "cpu+gpu")
DATA_TYPES = ("fp32_fp32", "fp16_fp32", "fp16_fp16", "bf16_fp32", "uint8")
DATA_FORMATS = ("NCHW", "NHWC", "NONE")
BUILD_TYPES = ("proto", "code")

TOP_KEYS = ("library_name", "target_abis", "target_socs", "embed_model_data",
            "build_type", "linkshared", "java", "android_aar", "model_specific_library",
            "c_api", "models")
SUBGRAPH_KEYS = ("input_tensors", "input_shapes", "input_max_shapes", "output_tensors",
                 "output_shapes",
                 "input_ranges", "input_data_formats", "output_data_formats",
                 "input_data_types", "output_data_types", "validation_inputs_data")
QUANTIZE_KEYS = ("quantize", "quantize_range_file", "quantize_range_method",
                 "quantize_percentile", "calibration_inputs", "quantize_uint8_io")
RANGE_METHODS = ("minmax", "percentile", "kl")
MODEL_KEYS = ("platform", "model_file_path", "model_sha256_checksum", "weight_file_path",
              "weight_sha256_checksum", "subgraphs", "runtime", "data_type",
              "limit_opencl_kernel_time", "nnlib_graph_mode", "obfuscate",
              "winograd", "dynamic_quantize", "state") + QUANTIZE_KEYS + SUBGRAPH_KEYS

_ALIASES = {"runtime": {"cpu_gpu": "cpu+gpu"}, "data_type": {"fp32": "fp32_fp32"}}
_DEFAULT_DATA_TYPE = {"cpu": "fp32_fp32", "gpu": "fp16_fp32", "cpu+gpu": "fp16_fp32",
                      "dsp": "uint8"}
# The GPU's image storages (MaceEngineConfig::SetGPUDataType).
GPU_DATA_TYPES = ("fp16_fp32", "fp32_fp32")
# Names become file names and C++ identifiers, so they match in full
# (re.fullmatch: a trailing newline is not part of a name) and stay short.
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
_LIBRARY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_MODEL_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
_CPP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ConfigError(UserError):
    """A deployment file problem; the message names the file and the key."""


@dataclass
class QuantizeConfig:
    """`quantize: 1` and its keys (docs/how-to/quantize.md)."""
    range_file: Optional[str] = None          # quantize_range_file
    range_method: str = "minmax"              # or "percentile", "kl"
    percentile: float = 99.99                 # for "percentile"
    calibration_inputs: list[str] = field(default_factory=list)
    uint8_io: bool = False                    # quantize_uint8_io


@dataclass
class ModelConfig:
    name: str
    platform: str
    model_file_path: str
    model_sha256_checksum: str
    weight_file_path: Optional[str]
    weight_sha256_checksum: Optional[str]
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    validation_inputs_data: list[str]
    runtime: str
    data_type: str
    limit_opencl_kernel_time: bool = False
    nnlib_graph_mode: int = 0
    obfuscate: bool = False
    winograd: int = 0
    dynamic_quantize: bool = False
    quantize: Optional[QuantizeConfig] = None
    # Whether input_ranges was given: without it, integer inputs take their
    # own defaults (input_values.py) instead of the float -1,1.
    input_ranges_given: bool = False
    # `state`: (input, output) pairs kept by the engine between runs
    # (docs/how-to/streaming_state.md).
    states: list[tuple[str, str]] = field(default_factory=list)

    def devices(self) -> list[str]:
        """The runtimes `run` tries, in order."""
        return ["cpu", "gpu"] if self.runtime == "cpu+gpu" else [self.runtime]

    def device_data_type(self, device: str) -> str:
        """The data type `device` runs: a cpu+gpu model's data_type is its
        GPU storage, and its CPU side computes float32."""
        return "fp32_fp32" if self.runtime == "cpu+gpu" and device == "cpu" else self.data_type


@dataclass
class DeploymentConfig:
    path: Path
    library_name: str
    target_abis: list[str]
    build_type: str
    target_socs: list[str] = field(default_factory=list)
    embed_model_data: bool = False
    linkshared: bool = False
    java: bool = False          # pack the Java API (mace.jar, libmace_jni.so)
    android_aar: bool = False   # and zip it as an Android Archive (aar.py)
    # Link only the ops the models use (op_registry.py).
    model_specific_library: bool = False
    # The C API in the deployment's libraries (and mace_c.h in the package);
    # 0 only with model_specific_library.
    c_api: bool = True
    models: dict[str, ModelConfig] = field(default_factory=dict)
    sha256: str = ""            # of the file's bytes, to notice stale builds

    def error(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: {problem}")

    def select(self, model_name: Optional[str]) -> list[ModelConfig]:
        if not model_name:
            return list(self.models.values())
        if model_name not in self.models:
            raise ConfigError(f"--model_name {model_name}: no such model in {self.path} "
                              f"(it has: {', '.join(self.models)})")
        return [self.models[model_name]]

    def abis(self, target_abi: Optional[str]) -> list[str]:
        if not target_abi:
            return list(self.target_abis)
        if target_abi not in self.target_abis:
            raise ConfigError(f"--target_abi {target_abi}: {self.path} builds only "
                              f"{', '.join(self.target_abis)} (target_abis)")
        return [target_abi]


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe loader that refuses a key given twice in one mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key '{key}' appears twice (first on line {seen[key]})",
                    key_node.start_mark)
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def load_config(path: Path) -> DeploymentConfig:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the deployment file: {error.strerror}") from None
    try:
        document = yaml.load(raw.decode("utf-8"), Loader=_UniqueKeyLoader)
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a UTF-8 text file") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{path}: {where}not valid YAML: {problem}") from None
    return _Parser(path).deployment(document, hashlib.sha256(raw).hexdigest())


class _Parser:
    def __init__(self, path: Path):
        self.path = path

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: {problem}")

    # ---- structure ---------------------------------------------------------

    def mapping(self, value: Any, key: str, allowed: tuple[str, ...]) -> dict:
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a mapping of keys, got {_kind(value)}")
        for name in value:
            if not isinstance(name, str) or name not in allowed:
                hint = difflib.get_close_matches(str(name), allowed, n=1)
                suggestion = f" (did you mean '{hint[0]}'?)" if hint else ""
                raise self.fail(f"{key}.{name}" if key else str(name),
                                f"unknown key{suggestion}; known keys: {', '.join(allowed)}")
        return value

    def required(self, data: dict, name: str, prefix: str) -> Any:
        if name not in data or data[name] is None:
            raise self.fail(_join(prefix, name), "missing required key")
        return data[name]

    # ---- scalars -----------------------------------------------------------

    def string(self, value: Any, key: str) -> str:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(key, f"expected a string, got {_kind(value)}")
        text = str(value).strip()
        if not text:
            raise self.fail(key, "must not be empty")
        # No path or name the converter, the file system or the engine's
        # C strings take may hold one.
        if "\0" in text:
            raise self.fail(key, "must not contain a NUL character")
        return text

    def choice(self, value: Any, key: str, choices: tuple[str, ...], alias_group: str = "") -> str:
        text = self.string(value, key).lower()
        text = _ALIASES.get(alias_group, {}).get(text, text)
        if text not in choices:
            raise self.fail(key, f"'{value}' is not one of {', '.join(choices)}")
        return text

    def flag(self, value: Any, key: str) -> bool:
        if isinstance(value, bool) or value in (0, 1):
            return bool(value)
        raise self.fail(key, f"expected 0 or 1, got {value!r}")

    def integer(self, value: Any, key: str, allowed: tuple[int, ...]) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
            raise self.fail(key, f"expected one of {', '.join(map(str, allowed))}, got {value!r}")
        return value

    def checksum(self, value: Any, key: str) -> str:
        text = self.string(value, key)
        if not _SHA256.fullmatch(text):
            raise self.fail(key, "expected a SHA-256 checksum (64 hexadecimal digits), "
                                 f"got '{text}'")
        return text.lower()

    def string_list(self, value: Any, key: str) -> list[str]:
        """A list of strings, or one string with comma-separated items."""
        if isinstance(value, str):
            items = [part.strip() for part in value.split(",")]
            if any("\0" in item for item in items):
                raise self.fail(key, "must not contain a NUL character")
        elif isinstance(value, list):
            items = [self.string(item, f"{key}[{i}]") for i, item in enumerate(value)]
        else:
            items = [self.string(value, key)]
        if not items or any(not item for item in items):
            raise self.fail(key, "expected one or more non-empty names")
        return items

    # ---- tensors -----------------------------------------------------------

    def shapes(self, value: Any, key: str, count: int) -> list[list[int]]:
        """'1,224,224,3' | [1,224,224,3] | ['1,3', '1,4'] | [[1,3],[1,4]] | '1,3:1,4'."""
        if isinstance(value, str):
            groups: list[Any] = value.split(":")
        elif isinstance(value, list) and value and all(isinstance(v, int) and
                                                       not isinstance(v, bool) for v in value):
            groups = [value]
        elif isinstance(value, list):
            groups = value
        else:
            raise self.fail(key, f"expected a shape like 1,224,224,3, got {_kind(value)}")
        shapes = [self.shape(group, key) for group in groups]
        if len(shapes) != count:
            raise self.fail(key, f"gives {len(shapes)} shape(s) for {count} tensor(s)")
        return shapes

    def shape(self, value: Any, key: str) -> list[int]:
        """An empty string or list is a scalar (rank 0); a dimension may be 0."""
        if isinstance(value, str) and not value.strip():
            return []
        parts = value.split(",") if isinstance(value, str) else value
        if not isinstance(parts, list):
            raise self.fail(key, f"expected a shape like 1,224,224,3, got {value!r}")
        dims = []
        for part in parts:
            try:
                dim = int(str(part).strip())
            except ValueError:
                dim = -1
            if isinstance(part, (bool, float)) or dim < 0:
                raise self.fail(key, f"'{value}' is not a shape of non-negative integers")
            if dim > MAX_DIM:
                raise self.fail(key, f"dimension {dim} is above {MAX_DIM}, the engine's largest")
            dims.append(dim)
        return dims

    def ranges(self, value: Any, key: str, count: int) -> list[tuple[float, float]]:
        """'-1,1' or [-1, 1] for every input, or one such range per input."""
        if value is None:
            return [(-1.0, 1.0)] * count
        groups = value if isinstance(value, list) and value and not _is_number(value[0]) \
            else [value] * count
        if len(groups) != count:
            raise self.fail(key, f"gives {len(groups)} range(s) for {count} input(s)")
        result = []
        for group in groups:
            parts = group.split(",") if isinstance(group, str) else group
            try:
                low, high = (float(p) for p in parts)
            except (TypeError, ValueError):
                raise self.fail(key, f"expected a range like -1,1, got {group!r}") from None
            if not low < high:
                raise self.fail(key, f"range {group!r} is empty: low must be below high")
            result.append((low, high))
        return result

    def formats(self, value: Any, key: str, shapes: list[list[int]], default: str) -> list[str]:
        if value is None:
            return [default if len(shape) == 4 else "NONE" for shape in shapes]
        names = [name.upper() for name in self.string_list(value, key)]
        if len(names) == 1 and len(shapes) > 1:
            names = names * len(shapes)
        if len(names) != len(shapes):
            raise self.fail(key, f"gives {len(names)} format(s) for {len(shapes)} tensor(s)")
        for name in names:
            if name not in DATA_FORMATS:
                raise self.fail(key, f"'{name}' is not one of {', '.join(DATA_FORMATS)}")
        return names

    # ---- documents ---------------------------------------------------------

    def deployment(self, document: Any, sha256: str) -> DeploymentConfig:
        if document is None:
            raise ConfigError(f"{self.path}: the deployment file is empty")
        data = self.mapping(document, "", TOP_KEYS)
        raw_name = self.required(data, "library_name", "")
        library_name = self.string(raw_name, "library_name")
        if not _LIBRARY_NAME.fullmatch(str(raw_name)):
            raise self.fail("library_name", f"{raw_name!r} may use only letters, digits, "
                                            "'_', '.' and '-' (at most 128)")
        abis = self.string_list(self.required(data, "target_abis", ""), "target_abis")
        for abi in abis:
            if abi not in ABIS:
                raise self.fail("target_abis", f"'{abi}' is not one of {', '.join(ABIS)}")
        if len(set(abis)) != len(abis):
            raise self.fail("target_abis", "lists an ABI twice")
        build_type = self.choice(self.required(data, "build_type", ""), "build_type",
                                 BUILD_TYPES)
        config = DeploymentConfig(
            path=self.path, library_name=library_name, target_abis=abis, build_type=build_type,
            sha256=sha256,
            target_socs=self.string_list(data["target_socs"], "target_socs")
            if data.get("target_socs") is not None else [],
            embed_model_data=self.flag(data.get("embed_model_data", 0), "embed_model_data"),
            linkshared=self.flag(data.get("linkshared", 0), "linkshared"),
            java=self.flag(data.get("java", 0), "java"),
            android_aar=self.flag(data.get("android_aar", 0), "android_aar"),
            model_specific_library=self.flag(data.get("model_specific_library", 0),
                                             "model_specific_library"),
            c_api=self.flag(data.get("c_api", 1), "c_api"))
        if not config.c_api and not config.model_specific_library:
            raise self.fail("c_api", "0 needs model_specific_library: 1 (the libraries with "
                                     "every op carry the C API)")
        if config.android_aar and not config.java:
            raise self.fail("android_aar", "needs java: 1 (the archive holds the Java API)")
        if config.java and build_type != "proto":
            # The Java API loads .pb and .data files or buffers; it has no
            # way to reach models compiled into the library.
            raise self.fail("java", "needs build_type: proto (the Java API loads .pb and "
                                    ".data files)")
        models = self.required(data, "models", "")
        if not isinstance(models, dict) or not models:
            raise self.fail("models", "expected a mapping from model names to models")
        for name, model in models.items():
            key = f"models.{name}"
            if not isinstance(name, str) or not _MODEL_NAME.fullmatch(name):
                raise self.fail(f"models.{name!r}", "a model name may use only letters, digits, "
                                                    "'_', '.', '-' (at most 128)")
            if build_type == "code" and not _CPP_NAME.fullmatch(name):
                raise self.fail(key, "with build_type: code, a model name must be a C++ "
                                     "identifier (letters, digits and '_')")
            config.models[name] = self.model(name, model, key)
        return config

    def model(self, name: str, value: Any, prefix: str) -> ModelConfig:
        data = self.mapping(value, prefix, MODEL_KEYS)
        platform = self.choice(self.required(data, "platform", prefix), f"{prefix}.platform",
                               PLATFORMS)
        model_file_path = self.string(self.required(data, "model_file_path", prefix),
                                      f"{prefix}.model_file_path")
        model_checksum = self.checksum(self.required(data, "model_sha256_checksum", prefix),
                                       f"{prefix}.model_sha256_checksum")
        runtime = self.choice(self.required(data, "runtime", prefix), f"{prefix}.runtime",
                              RUNTIMES, "runtime")
        data_type = (self.choice(data["data_type"], f"{prefix}.data_type", DATA_TYPES,
                                 "data_type")
                     if data.get("data_type") is not None else _DEFAULT_DATA_TYPE[runtime])
        if runtime == "dsp" and data_type != "uint8":
            raise self.fail(f"{prefix}.data_type", "runtime dsp runs uint8 models only")
        if data_type == "uint8" and runtime not in ("dsp", "cpu"):
            raise self.fail(f"{prefix}.data_type", f"uint8 is for runtime cpu or dsp, "
                                                   f"not {runtime}")
        if runtime in ("gpu", "cpu+gpu") and data_type not in GPU_DATA_TYPES:
            raise self.fail(f"{prefix}.data_type", f"runtime {runtime} takes "
                                                   f"{' or '.join(GPU_DATA_TYPES)}, "
                                                   f"not {data_type}")
        weight_path = data.get("weight_file_path")
        weight_sum = data.get("weight_sha256_checksum")
        if platform == "caffe" and weight_path is None:
            raise self.fail(f"{prefix}.weight_file_path", "missing required key (a Caffe "
                                                          "model needs its .caffemodel)")
        if weight_path is not None and weight_sum is None:
            raise self.fail(f"{prefix}.weight_sha256_checksum",
                            "missing required key (weight_file_path is set)")
        subgraph = self.subgraph_data(data, prefix)
        inputs, outputs, validation = self.subgraph(subgraph[0], subgraph[1], platform)
        quantize = self.quantize(data, prefix, runtime)
        if quantize is not None:
            if data.get("data_type") is not None and data_type != "uint8":
                raise self.fail(f"{prefix}.data_type", f"quantize: 1 makes a uint8 model; "
                                                       f"drop data_type or set it to uint8, "
                                                       f"not {data_type}")
            data_type = "uint8"
        dynamic_quantize = self.flag(data.get("dynamic_quantize", 0), f"{prefix}.dynamic_quantize")
        if dynamic_quantize and (runtime != "cpu" or data_type != "fp32_fp32"):
            raise self.fail(f"{prefix}.dynamic_quantize", "int8 linear layers run on the CPU in "
                            f"fp32_fp32 models only, not runtime {runtime} with {data_type}"
                            + (" (quantize: 1)" if quantize is not None else ""))
        return ModelConfig(
            name=name, platform=platform,
            model_file_path=model_file_path, model_sha256_checksum=model_checksum,
            weight_file_path=self.string(weight_path, f"{prefix}.weight_file_path")
            if weight_path is not None else None,
            weight_sha256_checksum=self.checksum(weight_sum, f"{prefix}.weight_sha256_checksum")
            if weight_sum is not None else None,
            inputs=inputs, outputs=outputs, validation_inputs_data=validation,
            runtime=runtime, data_type=data_type,
            limit_opencl_kernel_time=self.flag(data.get("limit_opencl_kernel_time", 0),
                                               f"{prefix}.limit_opencl_kernel_time"),
            nnlib_graph_mode=self.integer(data.get("nnlib_graph_mode", 0),
                                          f"{prefix}.nnlib_graph_mode", (0, 1, 2)),
            obfuscate=self.flag(data.get("obfuscate", 0), f"{prefix}.obfuscate"),
            winograd=self.integer(data.get("winograd", 0), f"{prefix}.winograd", (0, 2, 4, 6)),
            dynamic_quantize=dynamic_quantize,
            quantize=quantize, input_ranges_given=subgraph[0].get("input_ranges") is not None,
            states=self.states(data.get("state"), f"{prefix}.state", inputs, outputs))

    def states(self, value: Any, key: str, inputs: list[TensorSpec],
               outputs: list[TensorSpec]) -> list[tuple[str, str]]:
        """`state`: one {input, output} mapping, or a list of them; each
        names a model input and a model output of the deployment file."""
        if value is None:
            return []
        entries = value if isinstance(value, list) else [value]
        pairs: list[tuple[str, str]] = []
        for index, entry in enumerate(entries):
            where = f"{key}[{index}]" if isinstance(value, list) else key
            pair = self.mapping(entry, where, ("input", "output"))
            names = []
            for part, specs in (("input", inputs), ("output", outputs)):
                if part not in pair:
                    raise self.fail(f"{where}.{part}", "missing required key")
                name = self.string(pair[part], f"{where}.{part}")
                if name not in [spec.name for spec in specs]:
                    raise self.fail(f"{where}.{part}", f"'{name}' is not one of the model's "
                                                       f"{part}_tensors")
                names.append(name)
            if names[0] in [p[0] for p in pairs] or names[1] in [p[1] for p in pairs]:
                raise self.fail(where, f"'{names[0]}' or '{names[1]}' is in another state "
                                       "pair already")
            pairs.append((names[0], names[1]))
        return pairs

    def quantize(self, data: dict, prefix: str, runtime: str) -> Optional[QuantizeConfig]:
        # runtime dsp runs uint8 models only, so it quantizes unless told not to.
        enabled = self.flag(data.get("quantize", 1 if runtime == "dsp" else 0),
                            f"{prefix}.quantize")
        if not enabled and runtime == "dsp":
            raise self.fail(f"{prefix}.quantize", "runtime dsp runs uint8 models, which "
                                                  "quantize: 1 makes; drop quantize: 0")
        if not enabled:
            for key in QUANTIZE_KEYS[1:]:
                if data.get(key) is not None:
                    raise self.fail(f"{prefix}.{key}", "has no effect without quantize: 1")
            return None
        if runtime not in ("cpu", "dsp"):
            raise self.fail(f"{prefix}.quantize", f"uint8 models run on runtime cpu or dsp "
                                                  f"(the uint8 kernels are CPU and DSP "
                                                  f"kernels), not {runtime}")
        config = QuantizeConfig()
        if data.get("quantize_range_file") is not None:
            config.range_file = self.string(data["quantize_range_file"],
                                            f"{prefix}.quantize_range_file")
        if data.get("quantize_range_method") is not None:
            config.range_method = self.choice(data["quantize_range_method"],
                                              f"{prefix}.quantize_range_method", RANGE_METHODS)
        if data.get("quantize_percentile") is not None:
            key = f"{prefix}.quantize_percentile"
            value = data["quantize_percentile"]
            if isinstance(value, bool) or not _is_number(value) or not 50 <= value < 100:
                raise self.fail(key, f"expected a percentile in [50, 100), got {value!r}")
            if config.range_method != "percentile":
                raise self.fail(key, "needs quantize_range_method: percentile")
            config.percentile = float(value)
        config.uint8_io = self.flag(data.get("quantize_uint8_io", 0),
                                    f"{prefix}.quantize_uint8_io")
        if data.get("calibration_inputs") is not None:
            config.calibration_inputs = self.string_list(data["calibration_inputs"],
                                                         f"{prefix}.calibration_inputs")
        return config

    def subgraph_data(self, data: dict, prefix: str) -> tuple[dict, str]:
        """The one subgraph: either `subgraphs: [ {...} ]` or its keys inline."""
        inline = {key: data[key] for key in SUBGRAPH_KEYS if key in data}
        if "subgraphs" not in data:
            return inline, prefix
        if inline:
            first = sorted(inline)[0]
            raise self.fail(f"{prefix}.{first}", "give the tensors either under subgraphs "
                                                 "or directly under the model, not both")
        graphs = data["subgraphs"]
        if not isinstance(graphs, list) or not graphs:
            raise self.fail(f"{prefix}.subgraphs", "expected a list with one subgraph")
        if len(graphs) > 1:
            raise self.fail(f"{prefix}.subgraphs", f"has {len(graphs)} subgraphs; "
                                                   "one per model is supported")
        key = f"{prefix}.subgraphs[0]"
        return self.mapping(graphs[0], key, SUBGRAPH_KEYS), key

    def subgraph(self, data: dict, prefix: str,
                 platform: str) -> tuple[list[TensorSpec], list[TensorSpec], list[str]]:
        image_format = "NHWC" if platform in ("tensorflow", "tflite") else "NCHW"
        specs = []
        for side in ("input", "output"):
            names = self.string_list(self.required(data, f"{side}_tensors", prefix),
                                     _join(prefix, f"{side}_tensors"))
            if len(set(names)) != len(names):
                raise self.fail(_join(prefix, f"{side}_tensors"), "names a tensor twice")
            shapes = self.shapes(self.required(data, f"{side}_shapes", prefix),
                                 _join(prefix, f"{side}_shapes"), len(names))
            formats = self.formats(data.get(f"{side}_data_formats"),
                                   _join(prefix, f"{side}_data_formats"), shapes, image_format)
            ranges = (self.ranges(data.get("input_ranges"), _join(prefix, "input_ranges"),
                                  len(names))
                      if side == "input" else [(-1.0, 1.0)] * len(names))
            types = _io_types(self, data.get(f"{side}_data_types"),
                                  _join(prefix, f"{side}_data_types"), names)
            specs.append([TensorSpec(name=n, shape=s, value_range=r, data_format=f, data_type=t)
                          for n, s, r, f, t in zip(names, shapes, ranges, formats, types)])
        if data.get("input_max_shapes") is not None:
            key = _join(prefix, "input_max_shapes")
            tops = self.shapes(data["input_max_shapes"], key, len(specs[0]))
            for spec, top in zip(specs[0], tops):
                if len(top) != len(spec.shape) or any(t < s for t, s in zip(top, spec.shape)):
                    raise self.fail(key, f"{top} for input '{spec.name}' must have the rank of "
                                         f"its input_shapes {spec.shape} and no smaller "
                                         "dimension")
                spec.max_shape = top
        validation: list[str] = []
        if data.get("validation_inputs_data") is not None:
            key = _join(prefix, "validation_inputs_data")
            validation = self.string_list(data["validation_inputs_data"], key)
            if len(validation) != len(specs[0]):
                raise self.fail(key, f"gives {len(validation)} file(s) for "
                                     f"{len(specs[0])} input(s)")
        return specs[0], specs[1], validation


def _io_types(config: "_Parser", value: Any, key: str, names: list[str]) -> list[Optional[str]]:
    """input_data_types / output_data_types: one type per tensor, parallel
    to its *_tensors list; absent, every entry is None (the default)."""
    if value is None:
        return [None] * len(names)
    if isinstance(value, str):  # a single tensor may be given without a list
        value = [value]
    if not isinstance(value, list):
        raise config.fail(key, f"expected a list of {', '.join(IO_DATA_TYPES)}, got "
                               f"{_kind(value)}")
    if len(value) != len(names):
        raise config.fail(key, f"gives {len(value)} type(s) for {len(names)} tensor(s) "
                               f"({', '.join(names)})")
    types = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or item not in IO_DATA_TYPES:
            raise config.fail(f"{key}[{i}]", f"expected one of {', '.join(IO_DATA_TYPES)}, "
                                             f"got {item!r}")
        types.append(item)
    return types


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)
