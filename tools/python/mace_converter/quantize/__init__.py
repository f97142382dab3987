"""Post-training uint8 quantization: activation ranges (ranges.py), the
scheme's arithmetic (scheme.py), the graph pass (graph_pass.py), calibration
through mace_run (calibration.py) and the import of ONNX QDQ graphs (qdq.py).
docs/how-to/quantize.md describes the workflow."""
