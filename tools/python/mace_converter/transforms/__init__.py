"""The graph transforms, run in a fixed order by `run_pipeline`."""
from __future__ import annotations

from mace_converter.api import ConvertOptions
from mace_converter.ir import Graph
from mace_converter.shape_inference import infer_graph
from mace_converter.transforms.data_dependent import follow_data_dependent_rows
from mace_converter.transforms.dynamic_quantize import dynamic_quantize
from mace_converter.transforms.channel_shuffle import (fold_shuffle_into_readers,
                                                       fuse_channel_shuffle, fuse_shuffle_split)
from mace_converter.transforms.fold_affine import fold_affine, fold_bias_through_reshape
from mace_converter.transforms.find_attention import find_attention
from mace_converter.transforms.fold_constants import fold_constants
from mace_converter.transforms.fuse_activation import CPU_SEPARATE, fuse_activation
from mace_converter.transforms.fuse_fake_quantize import fuse_fake_quantize
from mace_converter.transforms.fuse_gelu import fuse_gelu
from mace_converter.transforms.fuse_layer_norm import fuse_layer_norm
from mace_converter.transforms.obfuscate import obfuscate
from mace_converter.transforms.pack_qkv import pack_qkv
from mace_converter.transforms.remove_noops import remove_noops
from mace_converter.transforms.winograd import mark_winograd


def separate_activations(options: ConvertOptions) -> tuple[str, ...]:
    """The activations fuse_activation leaves standalone: sigmoid and tanh
    in a float model for the CPU, whose vector kernels run them as
    Activation ops (the uint8 pass and the GPU and DSP kernels take them
    fused)."""
    if options.keep_activations is not None:
        return tuple(options.keep_activations)
    return CPU_SEPARATE if options.runtime == "cpu" and options.quantize is None else ()


def run_pipeline(graph: Graph, options: ConvertOptions) -> None:
    """Rewrites `graph` in place into the form serialization writes."""
    fold_constants(graph)
    remove_noops(graph)
    if options.quantize is None:
        # Before the attention fusion, which takes in the fused pairs
        # around a Softmax; the uint8 pass reads the pairs as they are.
        fuse_fake_quantize(graph)
    fuse_layer_norm(graph)
    fuse_gelu(graph)
    find_attention(graph)
    fold_affine(graph)
    fold_bias_through_reshape(graph)
    pack_qkv(graph)
    fuse_activation(graph, separate_activations(options))
    fuse_channel_shuffle(graph)
    if options.runtime == "cpu":
        fuse_shuffle_split(graph)
        fold_shuffle_into_readers(graph)
    fold_constants(graph)
    remove_noops(graph)
    removed = graph.prune()
    if removed:
        graph.log.append(f"removed {removed} op(s) whose results no output uses")
    if follow_data_dependent_rows(graph):
        graph.log.append("Reshapes after NonMaxSuppression infer their first dimension")
    infer_graph(graph)
    mark_winograd(graph, options.winograd)
    if options.dynamic_quantize:
        dynamic_quantize(graph)
    if options.obfuscate:
        obfuscate(graph)
