"""Runs a .tflite model in LiteRT (one thread, the default XNNPACK delegate)
a given number of times, for tools/arm_insn_count.sh, which runs this file
with an arm64 Python under qemu-aarch64:

    python3.11 litert_invoke.py MODEL.tflite FEEDS.npz INVOKES

FEEDS.npz holds one array per model input, keyed by the input's tensor
index, already in the shape and type the interpreter takes. It prints the
first output's sum, so that two runs can be checked against each other.
Only numpy and ai_edge_litert are imported: the guest has nothing else.
"""
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter


def main(argv: list) -> int:
    if len(argv) != 4 or not argv[3].isdigit() or int(argv[3]) < 1:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    model, feeds_path, invokes = argv[1], argv[2], int(argv[3])
    interpreter = Interpreter(model_path=model, num_threads=1)
    interpreter.allocate_tensors()
    with np.load(feeds_path) as feeds:
        for detail in interpreter.get_input_details():
            key = str(detail["index"])
            if key not in feeds:
                print(f"litert_invoke: {feeds_path} has no array for input tensor {key}",
                      file=sys.stderr)
                return 1
            interpreter.set_tensor(detail["index"], feeds[key])
    for _ in range(invokes):
        interpreter.invoke()
    output = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    print(f"litert_invoke: output sum {float(np.sum(output, dtype=np.float64)):.6g}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
