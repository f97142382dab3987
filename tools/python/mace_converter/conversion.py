"""The convert step: each model of a deployment file goes through the
converter (mace_converter.convert) and lands in the work directory as
<name>.pb (the NetDef), <name>.data (the weights) and <name>.json (what the
engine's inputs and outputs look like, for run and validation).
"""
from __future__ import annotations

import copy
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from mace_converter import fetch, files
from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.config import DeploymentConfig, ModelConfig
from mace_converter.progress import UserError, build_root, say, step

# NetDef InputOutputInfo.data_format values (mace::DataFormat).
_FORMAT_NAMES = {1: "NHWC", 2: "NCHW"}


@dataclass
class ModelArtifacts:
    name: str
    pb: Path
    data: Path
    source_inputs: list[TensorSpec]      # as the deployment file gives them
    source_outputs: list[TensorSpec]
    engine_inputs: list[TensorSpec]      # as the engine sees them
    engine_outputs: list[TensorSpec]
    model_file: Path
    weight_file: Path | None
    config_sha256: str


def work_dir(config: DeploymentConfig) -> Path:
    """Build products that are not part of the library package."""
    return build_root() / ".work" / config.library_name


def convert_models(config: DeploymentConfig,
                   models: list[ModelConfig]) -> dict[str, ModelArtifacts]:
    frontend = _frontend()
    out_dir = work_dir(config) / "models"
    out_dir.mkdir(parents=True, exist_ok=True)
    results = {}
    for model in models:
        model_file, weight_file = fetch.model_files(config, model)
        with step(f"convert {model.name} ({model.platform} -> MACE, runtime {model.runtime}, "
                  f"{model.data_type})"):
            options = ConvertOptions(
                platform=model.platform, model_file=model_file, weight_file=weight_file,
                inputs=copy.deepcopy(model.inputs), outputs=copy.deepcopy(model.outputs),
                runtime=model.runtime, data_type=model.data_type, winograd=model.winograd,
                dynamic_quantize=model.dynamic_quantize, obfuscate=model.obfuscate, model_name=model.name, states=model.states)
            if model.quantize is not None and model.quantize.range_file is not None:
                _check_range_file(config, model)
            try:
                if model.quantize is not None:
                    from mace_converter.quantize.workflow import quantize_settings
                    options.quantize = quantize_settings(config, model, options, out_dir)
                converted = frontend.convert(options)
            except ConversionError as error:
                raise UserError(f"{config.path}: models.{model.name}: cannot convert "
                                f"{model_file.name}: {error}") from None
            net = converted.net_def
            artifacts = ModelArtifacts(
                name=model.name, pb=out_dir / f"{model.name}.pb",
                data=out_dir / f"{model.name}.data",
                source_inputs=model.inputs, source_outputs=model.outputs,
                engine_inputs=converted.inputs or _infos(net.input_info, model.inputs),
                engine_outputs=converted.outputs or _infos(net.output_info, model.outputs),
                model_file=model_file, weight_file=weight_file, config_sha256=config.sha256)
            _write_if_changed(artifacts.pb, net.SerializeToString(deterministic=True))
            _write_if_changed(artifacts.data, bytes(converted.weights))
            _save_meta(artifacts, out_dir / f"{model.name}.json")
            for line in converted.log:
                say(f"    {line}")
            say(f"    {len(net.op)} ops, {len(net.tensors)} weight tensors "
                f"({len(converted.weights) / 2**20:.2f} MiB) -> {artifacts.pb.name}, "
                f"{artifacts.data.name}")
        results[model.name] = artifacts
    return results


# A range file line (quantize/ranges.py): blank, a comment, or
# name@@min,max with two numbers.
_RANGE_LINE = re.compile(r"\s*(#.*)?|\s*\S.*@@\s*[-+0-9.eEinfa]+\s*,\s*[-+0-9.eEinfa]+\s*")


def _check_range_file(config: DeploymentConfig, model: ModelConfig) -> None:
    """Refuses a quantize_range_file that is not a range file before it is
    parsed, naming the line but never quoting it: the path may name any
    file the user can read."""
    assert model.quantize is not None and model.quantize.range_file is not None
    key = f"models.{model.name}.quantize_range_file"
    location = model.quantize.range_file
    try:
        data = files.regular_file(fetch.local_path(location)).read_bytes()
    except (files.FileRefused, OSError) as error:
        raise config.error(key, f"{location}: {getattr(error, 'strerror', None) or error}"
                           ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise config.error(key, f"{location}: not a UTF-8 text file") from None
    for number, line in enumerate(text.splitlines(), 1):
        if not _RANGE_LINE.fullmatch(line):
            raise config.error(key, f"{location}, line {number}: not a range line "
                                    "(expected tensor@@min,max)")


def load_artifacts(config: DeploymentConfig, model: ModelConfig) -> ModelArtifacts:
    meta_path = work_dir(config) / "models" / f"{model.name}.json"
    if not meta_path.exists():
        raise UserError(f"model {model.name} of {config.path} is not built yet; run "
                        f"`tools/converter.py build --config {config.path}` first")
    meta = json.loads(meta_path.read_text())
    specs = {key: [TensorSpec(name=s["name"], shape=list(s["shape"]),
                              value_range=tuple(s["value_range"]),
                              data_format=s["data_format"],
                              max_shape=s.get("max_shape")) for s in meta[key]]
             for key in ("source_inputs", "source_outputs", "engine_inputs", "engine_outputs")}
    artifacts = ModelArtifacts(
        name=meta["name"], pb=Path(meta["pb"]), data=Path(meta["data"]),
        model_file=Path(meta["model_file"]),
        weight_file=Path(meta["weight_file"]) if meta["weight_file"] else None,
        config_sha256=meta["config_sha256"], **specs)
    if artifacts.config_sha256 != config.sha256:
        say(f"warning: {config.path} changed since model {model.name} was built; "
            "run build again to pick up the changes")
    return artifacts


def _frontend():
    try:
        from mace_converter import convert as frontend
    except ImportError as error:
        raise UserError(f"the model converter (mace_converter.convert) cannot be loaded: "
                        f"{error}") from None
    return frontend


def _infos(infos, fallback: list[TensorSpec]) -> list[TensorSpec]:
    """Engine-side specs from the NetDef when the converter did not list them."""
    by_name = {spec.name: spec for spec in fallback}
    specs = []
    for info in infos:
        dims = list(info.dims)
        source = by_name.get(info.name)
        data_format = _FORMAT_NAMES.get(info.data_format, "NONE") if len(dims) == 4 else "NONE"
        specs.append(TensorSpec(name=info.name, shape=dims, data_format=data_format,
                                value_range=source.value_range if source else (-1.0, 1.0)))
    return specs or copy.deepcopy(fallback)


def _save_meta(artifacts: ModelArtifacts, path: Path) -> None:
    meta = asdict(artifacts)
    for key in ("pb", "data", "model_file", "weight_file"):
        meta[key] = str(meta[key]) if meta[key] is not None else None
    path.write_text(json.dumps(meta, indent=1) + "\n")


def _write_if_changed(path: Path, content: bytes) -> None:
    """Keeps the file (and its timestamp) when the bytes are the same."""
    if path.exists() and path.stat().st_size == len(content) and path.read_bytes() == content:
        return
    path.write_bytes(content)
