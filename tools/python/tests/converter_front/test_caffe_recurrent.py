"""Caffe's LSTM and RNN layers: converted models against the numpy Caffe
reference (caffe_reference.py, which runs Caffe's unrolled equations with
any cont), and the layers the frontend refuses."""
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_converter import protos
from mace_converter.api import ConversionError, ConvertOptions, TensorSpec
from mace_converter.convert import convert
from mace_converter.numpy_runner import run, run_caffe
from tests.converter_front.helpers import cosine, rng

# name, type, x shape, num_output, expose_hidden
LAYERS = (("seq", "LSTM", [5, 3, 4], 6, False),
         ("one_step", "LSTM", [1, 1, 2, 2], 3, False),
         ("exposed", "LSTM", [4, 2, 3], 5, True),
         ("rnn", "RNN", [6, 2, 3], 4, False),
         ("rnn_exposed", "RNN", [1, 3, 2, 2], 5, True))
_STATES = {"LSTM": ("h", "c"), "RNN": ("h",)}


def _tops(name: str, kind: str, expose: bool) -> list[str]:
    return [f"{name}_h"] + ([f"{name}_{s}T" for s in _STATES[kind]] if expose else [])


def net_prototxt(layers=LAYERS, cont_input: bool = False) -> str:
    lines = ['name: "recurrent"']
    for name, kind, shape, hidden, expose in layers:
        lines.append(f'input: "{name}_x"')
        lines.append("input_shape { " + " ".join(f"dim: {d}" for d in shape) + " }")
        if expose:
            for state in (f"{s}0" for s in _STATES[kind]):
                lines.append(f'input: "{name}_{state}"')
                lines.append(f"input_shape {{ dim: 1 dim: {shape[1]} dim: {hidden} }}")
    if cont_input:
        lines.append('input: "cont"')
        lines.append("input_shape { dim: %d dim: %d }" % tuple(layers[0][2][:2]))
    for name, kind, shape, hidden, expose in layers:
        bottoms = [f"{name}_x", "cont"] + ([f"{name}_{s}0" for s in _STATES[kind]]
                                           if expose else [])
        tops = _tops(name, kind, expose)
        lines.append(f'layer {{ name: "{name}" type: "{kind}" '
                     + " ".join(f'bottom: "{b}"' for b in bottoms) + " "
                     + " ".join(f'top: "{t}"' for t in tops)
                     + f" recurrent_param {{ num_output: {hidden}"
                     + (" expose_hidden: true" if expose else "") + " } }")
    return "\n".join(lines) + "\n"


def write_net(directory: Path, layers=LAYERS, cont_input: bool = False) -> tuple[Path, Path]:
    r = rng(46)
    net = protos.load("caffe").NetParameter()
    for name, kind, shape, hidden, _ in layers:
        size = int(np.prod(shape[2:]))
        layer = net.layer.add()
        layer.name = name
        gates = 4 if kind == "LSTM" else 1
        arrays = [r.standard_normal((gates * hidden, size)) * 0.6,
                  r.standard_normal(gates * hidden) * 0.5,
                  r.standard_normal((gates * hidden, hidden)) * 0.6]
        if kind == "RNN":   # W_ho, b_o
            arrays += [r.standard_normal((hidden, hidden)) * 0.6, r.standard_normal(hidden) * 0.5]
        for array in arrays:
            blob = layer.blobs.add()
            blob.shape.dim.extend(array.shape)
            blob.data.extend(array.astype(np.float32).reshape(-1).tolist())
    prototxt, weights = directory / "recurrent.prototxt", directory / "recurrent.caffemodel"
    prototxt.write_text(net_prototxt(layers, cont_input))
    weights.write_bytes(net.SerializeToString())
    return prototxt, weights


def net_inputs() -> dict[str, list[int]]:
    inputs = {}
    for name, kind, shape, hidden, expose in LAYERS:
        inputs[f"{name}_x"] = shape
        for state in _STATES[kind] if expose else ():
            inputs[f"{name}_{state}0"] = [1, shape[1], hidden]
    return inputs


def net_outputs() -> list[str]:
    return [top for name, kind, _, _, expose in LAYERS for top in _tops(name, kind, expose)]


def net_feeds(seed: int) -> dict[str, np.ndarray]:
    return {name: rng(seed + i).uniform(-2, 2, shape).astype(np.float32)
            for i, (name, shape) in enumerate(net_inputs().items())}


def net_reference(weights: Path,
                   feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Caffe's outputs for whole sequences: cont 0 at the first step and 1
    after it, or 1 throughout where initial states come in. Layers run one
    at a time, as each reads the one cont blob with its own shape."""
    expected = {}
    for layer in LAYERS:
        name, kind, shape, _, expose = layer
        with tempfile.TemporaryDirectory() as tmp:
            single = Path(tmp) / "single.prototxt"
            single.write_text(net_prototxt((layer,)))
            cont = np.ones(shape[:2], np.float32)
            if not expose:
                cont[0] = 0
            tops = _tops(name, kind, expose)
            layer_feeds = {k: v for k, v in feeds.items() if k.startswith(name + "_")}
            expected.update(run_caffe(single, weights, dict(layer_feeds, cont=cont),
                                      tops))
    return expected


def convert_net(prototxt: Path, weights: Path):
    return convert(ConvertOptions(
        "caffe", prototxt, weights, [TensorSpec(n, s) for n, s in net_inputs().items()],
        [TensorSpec(n, []) for n in net_outputs()]))


class CaffeRecurrentTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.directory = Path(self.tmp.name)

    def test_converted_layers_match_the_caffe_reference(self):
        prototxt, weights = write_net(self.directory)
        model = convert_net(prototxt, weights)
        types = [op.type for op in model.net_def.op]
        for kind in ("LSTM", "RNN"):
            self.assertEqual(types.count(kind), sum(layer[1] == kind for layer in LAYERS))
        feeds = net_feeds(80)
        got = run(model.net_def, model.weights, feeds)
        want = net_reference(weights, feeds)
        for name in net_outputs():
            with self.subTest(output=name):
                self.assertEqual(list(got[name].shape), list(want[name].shape))
                np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-5)
                self.assertGreater(cosine(got[name], want[name]), 0.9999)

    def test_reference_resets_the_state_where_cont_is_zero(self):
        """The reference honours cont: a 0 part-way restarts the sequence, so
        the steps from there equal a fresh run on the rest."""
        layer = LAYERS[0]
        prototxt, weights = write_net(self.directory, (layer,))
        x = rng(81).uniform(-2, 2, layer[2]).astype(np.float32)
        cont = np.ones(layer[2][:2], np.float32)
        cont[0] = cont[2] = 0
        whole = run_caffe(prototxt, weights, {"seq_x": x, "cont": cont}, ["seq_h"])["seq_h"]
        with tempfile.TemporaryDirectory() as tmp:
            rest_layer = ("seq", "LSTM", [3] + layer[2][1:], layer[3], False)
            rest_proto, _ = write_net(Path(tmp), (rest_layer,))
            rest = run_caffe(rest_proto, weights, {"seq_x": x[2:], "cont": cont[2:]},
                             ["seq_h"])["seq_h"]
        np.testing.assert_allclose(whole[2:], rest, rtol=1e-6)
        self.assertGreater(float(np.abs(whole[:2] - rest[:2]).max()), 1e-3)

    def _refused(self, fragment: str, text: str, inputs=None) -> None:
        prototxt, weights = write_net(self.directory, LAYERS[:1])
        prototxt.write_text(text)
        specs = inputs if inputs is not None else [TensorSpec("seq_x", LAYERS[0][2])]
        with self.assertRaises(ConversionError) as caught:
            convert(ConvertOptions("caffe", prototxt, weights, specs, []))
        message = str(caught.exception)
        self.assertIn("LSTM layer 'seq'", message.replace("LSTM node", "LSTM layer"))
        self.assertIn(fragment, message)

    def test_cont_as_an_input_is_refused(self):
        text = net_prototxt(LAYERS[:1], cont_input=True)
        self._refused("cont bottom 'cont' is an input or a computed blob", text,
                      [TensorSpec("seq_x", LAYERS[0][2]), TensorSpec("cont", [5, 3])])

    def test_static_input_and_missing_num_output_are_refused(self):
        text = net_prototxt(LAYERS[:1])
        self._refused("has 3 bottoms but needs 2 (x, cont); a static input bottom",
                      text.replace('bottom: "cont"', 'bottom: "cont" bottom: "seq_x"'))
        self._refused("num_output must be set", text.replace("num_output: 6", "num_output: 0"))


if __name__ == "__main__":
    unittest.main()
