#!/usr/bin/env python3
"""Accuracy of uint8 quantization per model and range method (cosine and
top-1 agreement against the float model), the tables of
docs/reports/quant_accuracy.md. Needs the host mace_run (built when missing).

    tools/quant_accuracy.py [--models mobilenet_v2,ppocr_cls] [--methods minmax,kl] [--no-qdq] [--docs]

It runs with the project's virtualenv (.venv); started with another
interpreter it switches to that one.
"""
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent / "python"))
    from mace_tools.launcher import run_in_venv
    sys.exit(run_in_venv(__file__, "mace_tools.quant_accuracy"))
