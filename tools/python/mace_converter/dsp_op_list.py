"""The Hexagon DSP's op types, as mace/dsp/ops.inc lists them.

Written by `python -m mace_tools.dsp_op_list` from that file; do not edit.
"""

# MACE op type -> DSP op type number (the graph format's wire number).
DSP_KERNELS = {
    "Conv2D": 1,
    "DepthwiseConv2d": 2,
    "Pooling": 3,
    "Eltwise": 4,
    "FullyConnected": 6,
    "Concat": 7,
    "Softmax": 8,
    "ResizeBilinear": 9,
}
# DSP op types no MACE op type is translated to.
DSP_KERNEL_ONLY = {
    "Clamp": 5,
}
# MACE op types the DSP runs as a rename of their input.
RENAMES = (
    "Reshape",
    "Squeeze",
    "Identity",
)
