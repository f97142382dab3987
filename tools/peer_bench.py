#!/usr/bin/env python3
"""Times the model-zoo models in MACE and in onnxruntime, ncnn and MNN in one
run, each engine in its own process, and writes docs/reports/cpu_peers.md
(a run of every model, engine and thread count) or, for a partial run,
build/peer_bench/cpu_peers.md; --report chooses another path.

    tools/peer_bench.py [--models mobilenet_v2,resnet18] [--threads 1,2] [--rounds 50]

The peers are pinned in tools/requirements-bench.txt. It runs with the
project's virtualenv (.venv); started with another interpreter it switches to
that one. See docs/how-to/benchmark.md.
"""
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent / "python"))
    from mace_tools.launcher import run_in_venv
    sys.exit(run_in_venv(__file__, "mace_tools.peer_bench.main"))
