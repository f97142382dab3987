"""Everything before the clock starts: the ONNX file, the shared input, the
MACE build and the ncnn, MNN and LiteRT conversions. Conversions are cached under the
work directory, keyed by the ONNX file's SHA-256."""
from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from mace_converter import fetch
from mace_converter.config import DeploymentConfig, ModelConfig, load_config
from mace_converter.progress import REPO, UserError
from mace_tools.peer_bench import inputs as shared_inputs
from mace_tools.peer_bench import dynamic, int8, litert, mace_engine
from mace_tools.peer_bench.children import run_child
from mace_tools.peer_bench.inputs import ModelInput
from mace_tools.peer_bench.mace_engine import MaceModel, PrepareError
from mace_tools.peer_bench.options import MODELS, Options

REQUIREMENTS = "tools/requirements-bench.txt"
INSTALL = f".venv/bin/pip install --no-deps -r {REQUIREMENTS}"
# Engine key -> the modules its process imports.
_MODULES = {"ort": ["onnxruntime"], "ort_qdq": ["onnxruntime"], "ort_dq": ["onnxruntime"],
            "ncnn": ["ncnn", "pnnx"],
            "ncnn_default": ["ncnn", "pnnx"], "mnn": ["MNN", "_tools"],
            "mnn_int8": ["MNN", "_tools"], "litert": ["ai_edge_litert", "onnx2tf"]}
# pnnx's inputshape type suffix per input type (float32 needs none).
_PNNX_TYPES = {"float32": "", "int32": "i32", "int64": "i64", "bool": "bool"}
# The ncnn blob name pnnx gives a graph's first output.
NCNN_OUTPUT = "out0"


@dataclass
class PreparedModel:
    name: str
    config: DeploymentConfig
    model: ModelConfig
    onnx: Path
    input_name: str
    output_name: str
    input_file: Path
    directory: Path
    mace: Optional[MaceModel] = None
    ncnn: Optional[tuple[Path, Path]] = None
    mnn: Optional[Path] = None
    litert: Optional[Path] = None
    mace_u8: Optional[MaceModel] = None
    ort_qdq: Optional[Path] = None
    mnn_int8: Optional[Path] = None
    mnn_int8_method: Optional[str] = None
    mace_dq: Optional[MaceModel] = None
    ort_dq: Optional[Path] = None
    errors: dict[str, str] = field(default_factory=dict)
    # Every input, the first being input_name / input_file.
    inputs: list[ModelInput] = field(default_factory=list)

    def ncnn_input_names(self) -> list[str]:
        """pnnx names a graph's inputs in0, in1, ... in order."""
        return [f"in{index}" for index in range(len(self.inputs))]


def missing_packages(engines: list[str]) -> list[str]:
    """Modules the chosen engines need that are not installed. The reference
    outputs always need onnxruntime."""
    wanted = ["onnxruntime"] + [m for engine in engines for m in _MODULES.get(engine, [])]
    return [name for name in dict.fromkeys(wanted) if importlib.util.find_spec(name) is None]


def prepare(name: str, options: Options, log) -> PreparedModel:
    """Raises UserError when the model itself is unusable; an engine that
    cannot run it is recorded in `errors` instead."""
    config = load_config(REPO / MODELS[name])
    model = _zoo_model(config, name)
    onnx, _ = fetch.model_files(config, model)
    if len(model.outputs) != 1:
        raise UserError(f"{name}: the benchmark compares one output; "
                        f"{config.path.name} lists {len(model.outputs)}")
    directory = _absolute(options.work_dir) / name
    drawn = shared_inputs.draw_inputs(model, shared_inputs.onnx_input_types(onnx),
                                      options.seed)
    written = shared_inputs.write_inputs(drawn, directory)
    arrays = {input_name: array for input_name, array, _ in drawn}
    prepared = PreparedModel(name=name, config=config, model=model, onnx=onnx,
                             input_name=written[0].name, output_name=model.outputs[0].name,
                             input_file=written[0].file, directory=directory,
                             inputs=written)
    digest = fetch.sha256_of(onnx)
    steps = {"mace": lambda: _prepare_mace(prepared, arrays, options, log),
             "ncnn": lambda: _prepare_ncnn(prepared, digest, log),
             "mnn": lambda: _prepare_mnn(prepared, digest, log),
             "litert": lambda: _prepare_litert(prepared, digest, options, log),
             "mace_u8": lambda: _prepare_mace_u8(prepared, arrays, options, log),
             "ort_qdq": lambda: _prepare_ort_qdq(prepared, digest, options, log),
             "mnn_int8": lambda: _prepare_mnn_int8(prepared, digest, options, log),
             "mace_dq": lambda: _prepare_mace_dq(prepared, arrays, options, log),
             "ort_dq": lambda: _prepare_ort_dq(prepared, digest, log)}
    wanted = {"ncnn_default": "ncnn"}
    for engine in dict.fromkeys(wanted.get(e, e) for e in options.engines):
        if engine not in steps:
            continue
        try:
            steps[engine]()
        except PrepareError as error:
            prepared.errors[engine] = str(error)
            log(f"    {engine}: {error}")
    if "ncnn" in prepared.errors:
        prepared.errors["ncnn_default"] = prepared.errors["ncnn"]
    return prepared


def _prepare_mace(prepared: PreparedModel, arrays: dict[str, np.ndarray], options: Options,
                  log) -> None:
    _mace_files(prepared.config, prepared.directory / "mace", options, log)
    prepared.mace = mace_engine.locate(prepared.config, prepared.model, arrays,
                                       prepared.directory / "mace", options.mace_runner)


def _mace_files(config: DeploymentConfig, directory: Path, options: Options, log,
                what: str = "") -> None:
    """Builds the library and mace_run, or with --mace-runner only converts
    the model; nothing with --skip-mace-build."""
    if options.skip_mace_build:
        return
    directory.mkdir(parents=True, exist_ok=True)
    build_log = directory / "build.log"
    if options.mace_runner is not None:
        log(f"    mace: tools/converter.py convert --config {config.path} (mace_run: "
            f"{options.mace_runner}; log: {build_log})")
        mace_engine.convert(config, build_log, timeout=max(options.timeout, 3600.0))
        return
    log(f"    mace: tools/converter.py build --config {config.path} --target_abi host "
        f"{what}(waits while another Bazel command holds the server; log: {build_log})")
    mace_engine.build(config, build_log, timeout=max(options.timeout, 3600.0))


def _calibration(prepared: PreparedModel, options: Options) -> Path:
    """The fixed calibration set both quantizers read (written once per run)."""
    _one_float_input(prepared)
    directory = prepared.directory / "calibration"
    samples = int8.calibration_set(prepared.model.inputs[0], options.seed)
    return int8.write_calibration_set(samples, directory)


def _prepare_mace_u8(prepared: PreparedModel, arrays: dict[str, np.ndarray],
                     options: Options, log) -> None:
    """The zoo model quantized by the converter (quantize: 1, calibrated on
    the shared set) through a derived deployment file."""
    target = prepared.directory / "mace_u8" / f"{prepared.name}_uint8.yml"
    path = int8.uint8_deployment(prepared.config, prepared.model, prepared.onnx,
                                 _calibration(prepared, options), target)
    config = load_config(path)
    model = config.models[prepared.model.name]
    _mace_files(config, prepared.directory / "mace_u8", options, log,
                f"(quantize: 1, {int8.CALIBRATION_COUNT} calibration inputs) ")
    prepared.mace_u8 = mace_engine.locate(config, model, arrays,
                                          prepared.directory / "mace_u8", options.mace_runner)


def _prepare_mace_dq(prepared: PreparedModel, arrays: dict[str, np.ndarray],
                     options: Options, log) -> None:
    """The zoo model with dynamic_quantize: 1, through a derived deployment
    file, built (or converted) and located like the float one."""
    directory = prepared.directory / "mace_dq"
    path = dynamic.dynamic_deployment(prepared.config, prepared.model, prepared.onnx,
                                      directory / f"{prepared.name}_dq.yml")
    config = load_config(path)
    _mace_files(config, directory, options, log, "(dynamic_quantize: 1) ")
    prepared.mace_dq = mace_engine.locate(config, config.models[prepared.model.name], arrays,
                                          directory, options.mace_runner)


def _prepare_ort_dq(prepared: PreparedModel, digest: str, log) -> None:
    """onnxruntime's quantize_dynamic of the same ONNX file."""
    out = prepared.directory / "ort_dq"
    model = out / "model.dynamic.onnx"
    key = f"{digest} dynamic {','.join(dynamic.ORT_OP_TYPES)} per-channel QInt8"
    if not _fresh(out, key, [model]):
        command = [sys.executable, "-m", "mace_tools.peer_bench.dynamic", str(prepared.onnx),
                   str(model)]
        log(f"    ort_dq: quantize_dynamic {prepared.onnx.name} -> {model.name} "
            f"({dynamic.ORT_SETTINGS})")
        _convert(command, out, key, [model], "quantize_dynamic", env=_child_env())
    prepared.ort_dq = model


def _prepare_ort_qdq(prepared: PreparedModel, digest: str, options: Options, log) -> None:
    """onnxruntime's quantize_static of the same ONNX file on the same set."""
    out = prepared.directory / "ort_qdq"
    model = out / "model.qdq.onnx"
    key = (f"{digest} seed {options.seed} count {int8.CALIBRATION_COUNT} "
           f"all but {','.join(int8.FLOAT_OP_TYPES)}")
    calibration = _calibration(prepared, options)
    if not _fresh(out, key, [model]):
        command = [sys.executable, "-m", "mace_tools.peer_bench.int8", str(prepared.onnx),
                   str(model), str(calibration), prepared.input_name]
        log(f"    ort_qdq: quantize_static {prepared.onnx.name} -> {model.name} "
            f"({int8.ORT_SETTINGS})")
        _convert(command, out, key, [model], "quantize_static", env=_child_env())
    prepared.ort_qdq = model


def _prepare_mnn_int8(prepared: PreparedModel, digest: str, options: Options,
                      log) -> None:
    """mnnquant of MNN's float conversion, calibrated on the shared set
    written as 8-bit images (mnnquant reads images)."""
    if "mnn" in prepared.errors:
        raise PrepareError(f"no float MNN model to quantize ({prepared.errors['mnn']})")
    if prepared.mnn is None:
        _prepare_mnn(prepared, digest, log)
    assert prepared.mnn is not None
    _one_float_input(prepared)
    out = prepared.directory / "mnn_int8"
    model = out / "model.int8.mnn"
    spec = prepared.model.inputs[0]
    samples = int8.calibration_set(spec, options.seed)
    try:
        images = int8.write_calibration_images(samples, spec.value_range, out / "images")
    except ValueError as error:
        raise PrepareError(f"mnnquant reads images: {error}") from None
    keys = {method: f"{digest} seed {options.seed} count {len(samples)} {method}"
            for method in int8.MNN_FEATURE_METHODS}
    cached = [method for method, key in keys.items() if _fresh(out, key, [model])]
    if cached:
        prepared.mnn_int8_method = cached[0]
    failures = []
    for method in ([] if cached else int8.MNN_FEATURE_METHODS):
        config = int8.write_mnnquant_config(out / "mnnquant.json", images, spec,
                                            len(samples), method)
        command = [sys.executable, "-c", "import sys, _tools; _tools.mnnquant(sys.argv)",
                   str(prepared.mnn), str(model), str(config)]
        log(f"    mnn_int8: mnnquant {prepared.mnn.name} -> {model.name} ({method} "
            "activation ranges, MAX_ABS int8 weights, the shared inputs as 8-bit images)")
        try:
            _convert(command, out, keys[method], [model], f"mnnquant ({method})")
        except PrepareError as error:
            failures.append(str(error))
            log(f"    mnn_int8: {error}")
            continue
        prepared.mnn_int8_method = method
        break
    else:
        if not cached:
            raise PrepareError("; ".join(failures))
    prepared.mnn_int8 = model


def _one_float_input(prepared: PreparedModel) -> None:
    if len(prepared.inputs) != 1 or prepared.inputs[0].dtype != "float32":
        raise PrepareError("the uint8 columns calibrate models with one float32 input; "
                           f"this one has {shared_inputs.describe_types(prepared.inputs)}")


def _prepare_ncnn(prepared: PreparedModel, digest: str, log) -> None:
    out = prepared.directory / "ncnn"
    param, weights = out / "model.ncnn.param", out / "model.ncnn.bin"
    if not _fresh(out, digest, [param, weights]):
        binary = _pnnx_binary()
        source = _explicit_splits(prepared, out, log)
        shapes = pnnx_input_shapes(prepared)
        # pnnx reads .onnx directly. Its Python wrapper imports torch, so the
        # converter binary it ships is called as it is.
        command = [str(binary), str(source), f"inputshape={shapes}", "fp16=0",
                   f"pnnxparam={out / 'model.pnnx.param'}", f"pnnxbin={out / 'model.pnnx.bin'}",
                   f"pnnxpy={out / 'model_pnnx.py'}", f"pnnxonnx={out / 'model.pnnx.onnx'}",
                   f"ncnnparam={param}", f"ncnnbin={weights}", f"ncnnpy={out / 'model_ncnn.py'}"]
        log(f"    ncnn: pnnx {prepared.onnx.name} -> {param.name}, {weights.name} (fp32)")
        _convert(command, out, digest, [param, weights], "pnnx")
    text = param.read_text()
    for blob in (*prepared.ncnn_input_names(), NCNN_OUTPUT):
        if f" {blob}" not in text:
            raise PrepareError(f"pnnx's {param.name} has no blob {blob}")
    prepared.ncnn = (param, weights)


def pnnx_input_shapes(prepared: PreparedModel) -> str:
    """pnnx's inputshape: [1,3,224,224] for a float input, with the type
    after the brackets for others ([1,128]i64), comma-separated."""
    parts = []
    for spec, model_input in zip(prepared.model.inputs, prepared.inputs):
        suffix = _PNNX_TYPES.get(model_input.dtype)
        if suffix is None:
            raise PrepareError(f"pnnx takes no {model_input.dtype} input ({spec.name})")
        parts.append("[" + ",".join(str(d) for d in spec.shape) + "]" + suffix)
    return ",".join(parts)


def _explicit_splits(prepared: PreparedModel, out: Path, log) -> Path:
    """The ONNX file for pnnx: a copy with explicit Split sizes when the model
    has Splits without them (see onnx_split), else the model itself."""
    out.mkdir(parents=True, exist_ok=True)
    fixed = out / "model.splits.onnx"
    fixed.unlink(missing_ok=True)
    result = run_child([sys.executable, "-m", "mace_tools.peer_bench.onnx_split",
                        str(prepared.onnx), str(fixed),
                        *(str(model_input.file) for model_input in prepared.inputs)],
                       env=_child_env(), timeout=600)
    if result.returncode != 0:
        raise PrepareError(f"cannot make Split sizes explicit for pnnx: {result.last_line()}")
    changed = int(result.stdout.split()[-1]) if result.stdout.split() else 0
    if not changed:
        return prepared.onnx
    log(f"    ncnn: {changed} Split node(s) given explicit sizes first (pnnx drops "
        "even splits)")
    return fixed


def _child_env() -> dict[str, str]:
    """This environment, with the repository's Python packages importable."""
    python_path = os.pathsep.join(p for p in (str(REPO / "tools" / "python"),
                                              os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=python_path)


def _prepare_mnn(prepared: PreparedModel, digest: str, log) -> None:
    out = prepared.directory / "mnn"
    model = out / "model.mnn"
    if not _fresh(out, digest, [model]):
        # The converter's C entry point: the `mnnconvert` console script would
        # also try to pip-install and call a usage-logging service.
        command = [sys.executable, "-c", "import sys, _tools; _tools.mnnconvert(sys.argv)",
                   "-f", "ONNX", "--modelFile", str(prepared.onnx), "--MNNModel", str(model),
                   "--bizCode", "MNN"]
        log(f"    mnn: MNNConvert {prepared.onnx.name} -> {model.name} (fp32)")
        _convert(command, out, digest, [model], "MNNConvert")
    prepared.mnn = model


def _prepare_litert(prepared: PreparedModel, digest: str, options: Options, log) -> None:
    """onnx2tf's float32 .tflite of the ONNX file (see litert.py)."""
    out = prepared.directory / "litert"
    model = litert.model_path(out)
    if not _fresh(out, digest, [model]):
        out.mkdir(parents=True, exist_ok=True)
        litert.write_check_images(out, options.seed)
        source = litert.write_source(prepared.onnx, out)
        log(f"    litert: onnx2tf {prepared.onnx.name} -> {model.name} (fp32)")
        _convert(litert.convert_command(source, out), out, digest, [model], "onnx2tf",
                 env=_child_env())
    prepared.litert = model


def _convert(command: list[str], out: Path, digest: str, products: list[Path],
             what: str, env: Optional[dict[str, str]] = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    stamp = out / "onnx.sha256"
    stamp.unlink(missing_ok=True)
    for path in products:
        path.unlink(missing_ok=True)
    result = run_child(command, cwd=out, env=env, timeout=1800)
    log = out / "convert.log"
    log.write_text(result.stdout + result.stderr)
    if result.returncode != 0 or not all(p.exists() and p.stat().st_size for p in products):
        raise PrepareError(f"{what} failed ({result.last_line()}); log: {log}")
    stamp.write_text(digest + "\n")


def _fresh(out: Path, digest: str, products: list[Path]) -> bool:
    stamp = out / "onnx.sha256"
    return (stamp.exists() and stamp.read_text().strip() == digest
            and all(p.exists() for p in products))


def _pnnx_binary() -> Path:
    spec = importlib.util.find_spec("pnnx")
    if spec is None or not spec.submodule_search_locations:
        raise PrepareError(f"pnnx is not installed ({INSTALL})")
    binary = Path(list(spec.submodule_search_locations)[0]) / "pnnx"
    if not binary.exists():
        raise PrepareError(f"the pnnx package has no converter binary at {binary}")
    return binary


def _zoo_model(config: DeploymentConfig, name: str) -> ModelConfig:
    for model in config.models.values():
        if Path(model.model_file_path).name == f"{name}.onnx":
            return model
    raise UserError(f"{config.path} has no model made from {name}.onnx")


def _absolute(path: Path) -> Path:
    return path if path.is_absolute() else REPO / path
