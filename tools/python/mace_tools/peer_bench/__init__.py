"""tools/peer_bench.py: the zoo models in MACE and in onnxruntime, ncnn and
MNN, in one run, each engine in its own process, written up as a markdown
report (docs/how-to/benchmark.md)."""
