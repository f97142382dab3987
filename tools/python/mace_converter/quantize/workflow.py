"""Where a quantized model's activation ranges come from: an imported QDQ
model's own scales, the quantize_range_file, or a calibration run of the
float model (the ranges are then kept beside the converted model)."""
from __future__ import annotations

import copy
from pathlib import Path

from mace_converter import layout
from mace_converter.api import ConvertOptions
from mace_converter.config import DeploymentConfig, ModelConfig
from mace_converter.fetch import local_path
from mace_converter.progress import say
from mace_converter.quantize import calibration
from mace_converter.quantize.graph_pass import QuantizeSettings
from mace_converter.quantize.qdq import is_qdq_model
from mace_converter.quantize.ranges import read_ranges, write_ranges


def quantize_settings(config: DeploymentConfig, model: ModelConfig, options: ConvertOptions,
                      out_dir: Path) -> QuantizeSettings:
    settings = model.quantize
    assert settings is not None
    result = _ranges(config, model, options, out_dir)
    result.uint8_io = settings.uint8_io
    # runtime: dsp quantizes as runtime: cpu does (int8 weights per output
    # channel where the kernel has them): the DSP's kernels take both.
    return result


def _ranges(config: DeploymentConfig, model: ModelConfig, options: ConvertOptions,
            out_dir: Path) -> QuantizeSettings:
    settings = model.quantize
    assert settings is not None
    if options.platform == "onnx" and is_qdq_model(Path(options.model_file)):
        say(f"    {model.name}: a QDQ model: its own scales quantize it; no calibration")
        return QuantizeSettings(source=f"{Path(options.model_file).name} (QDQ)")
    if settings.range_file is not None:
        path = local_path(settings.range_file)
        say(f"    activation ranges from {path}")
        return QuantizeSettings(ranges=read_ranges(path), source=f"quantize_range_file {path}")
    ranges_path = calibrate(config, model, options, out_dir)
    return QuantizeSettings(ranges=read_ranges(ranges_path),
                            source=f"calibration ranges {ranges_path}")


def calibrate(config: DeploymentConfig, model: ModelConfig, options: ConvertOptions,
              out_dir: Path) -> Path:
    """Converts the float model, runs it over the calibration inputs with
    mace_run --quantize_stat and writes <name>.ranges; returns its path."""
    from mace_converter.convert import convert
    settings = model.quantize
    assert settings is not None
    from mace_converter.transforms import separate_activations
    float_options = copy.deepcopy(options)
    # The final model's fusions, so that its tensors are the ones calibrated.
    float_options.keep_activations = separate_activations(options)
    float_options.quantize, float_options.data_type = None, "fp32_fp32"
    float_options.runtime = "cpu"       # the float model calibrates on the CPU
    converted = convert(float_options)
    graph, weights = out_dir / f"{model.name}.float.pb", out_dir / f"{model.name}.float.data"
    graph.write_bytes(converted.net_def.SerializeToString(deterministic=True))
    weights.write_bytes(converted.weights)
    key = f"{config.path}: models.{model.name}.calibration_inputs"
    if settings.calibration_inputs:
        samples = calibration.load_samples(settings.calibration_inputs, model.inputs, key,
                                           config.path.parent)
        say(f"    calibration: {len(samples)} input(s) from "
            f"{', '.join(settings.calibration_inputs)}")
    else:
        say(calibration.random_warning(model.name, model.inputs))
        samples = calibration.random_samples(model.inputs)
    engine_samples = [layout.to_engine(sample, model.inputs, converted.inputs)
                      for sample in samples]
    method = settings.range_method
    ranges = calibration.collect_ranges(graph, weights, converted.inputs, engine_samples,
                                        method, settings.percentile)
    path = out_dir / f"{model.name}.ranges"
    write_ranges(path, ranges)
    detail = {"percentile": f"{settings.percentile:g}th percentile",
              "kl": "KL divergence"}.get(method, "min/max")
    say(f"    calibration: {len(ranges)} tensor ranges ({detail}) -> {path}")
    return path
