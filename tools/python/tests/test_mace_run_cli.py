"""mace_run end to end on a small model: a correct run, and every kind of bad
input giving a non-zero exit and one clear message, never a crash.

Needs the host mace_run binary; tools/test.sh builds it first and passes its
path in MACE_RUN (default: bazel-bin/mace/tools/mace_run).
"""
import os
import re
import resource
import subprocess
import tempfile
import unittest
from pathlib import Path

import numpy as np

from mace_tools import builder

REPO = Path(__file__).resolve().parents[3]
MACE_RUN = Path(os.environ.get("MACE_RUN", REPO / "bazel-bin" / "mace" / "tools" / "mace_run"))


def make_model(directory: Path) -> tuple[Path, Path, np.ndarray]:
    """A 1x1 conv with bias and ReLU: 2 -> 3 channels on a 4x4 image."""
    rng = np.random.default_rng(7)
    weight = rng.standard_normal((3, 2, 1, 1)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    net = builder.NetBuilder("tiny")
    net.add_input("x", [1, 2, 4, 4])
    net.add_op("Conv2D", ["x", net.add_weight("w", weight), net.add_weight("b", bias)], "y",
               name="conv", activation="RELU")
    net.add_output("y", [1, 3, 4, 4])
    pb, data = directory / "tiny.pb", directory / "tiny.data"
    net.save(pb, data)
    return pb, data, (weight, bias)


class MaceRunCliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not MACE_RUN.exists():
            raise AssertionError(f"{MACE_RUN} is missing: build //mace/tools:mace_run first")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        cls.pb, cls.data, (cls.weight, cls.bias) = make_model(cls.dir)
        cls.image = np.random.default_rng(11).uniform(-1, 1, (1, 2, 4, 4)).astype(np.float32)
        np.save(cls.dir / "in_x.npy", cls.image)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_mace(self, *flags: str, pb: Path | None = None, data: Path | None = None,
                 memory_limit: int | None = None):
        def limit_memory():
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

        command = [str(MACE_RUN), f"--model_file={pb or self.pb}",
                   f"--model_data_file={data or self.data}", "--input_node=x",
                   "--input_shape=1,2,4,4", "--output_node=y", "--output_shape=1,3,4,4",
                   *flags]
        return subprocess.run(command, capture_output=True, text=True, timeout=60,
                              preexec_fn=limit_memory if memory_limit else None)

    def expect_failure(self, result, *fragments: str):
        self.assertNotEqual(result.returncode, 0, result.stdout)
        # A clean error exit, not a signal (crash) or an abort.
        self.assertGreater(result.returncode, 0, result.stderr)
        for fragment in fragments:
            self.assertIn(fragment, result.stderr)

    def test_runs_and_matches_numpy(self):
        result = self.run_mace(f"--input_file={self.dir / 'in'}",
                               f"--output_file={self.dir / 'out'}", "--round=3",
                               "--benchmark", "--memory_report")
        self.assertEqual(result.returncode, 0, result.stderr)
        got = np.load(self.dir / "out_y.npy")
        expected = np.einsum("oc,nchw->nohw", self.weight[:, :, 0, 0], self.image)
        expected = np.maximum(expected + self.bias[None, :, None, None], 0)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
        self.assertIn("Conv2D", result.stdout)   # the per-op table
        self.assertIn("median", result.stdout)   # latency statistics

    def test_scalar_and_empty_tensors(self):
        """A rank-0 input (an empty --input_shape entry) broadcast into a
        vector, and an input with a zero dimension whose empty result is
        written as an empty .npy."""
        net = builder.NetBuilder("scalars")
        net.add_input("s", [])
        net.add_input("e", [2, 0, 4])
        w = np.array([1.0, -2.0, 3.5], np.float32)
        net.add_op("Eltwise", ["s", net.add_weight("w", w)], "y", type=0)
        net.add_op("Cast", ["e"], "z", to="INT8")
        net.add_op("Cast", ["s"], "t", to="BFLOAT16")
        net.add_output("y", [3])
        net.add_output("z", [2, 0, 4])
        net.add_output("t", [])
        pb, data = self.dir / "scalars.pb", self.dir / "scalars.data"
        net.save(pb, data)
        np.save(self.dir / "sc_s.npy", np.array(1.00390625 + 2.0 ** -7, np.float32))
        np.save(self.dir / "sc_e.npy", np.zeros((2, 0, 4), np.float32))
        result = subprocess.run(
            [str(MACE_RUN), f"--model_file={pb}", f"--model_data_file={data}",
             "--input_node=s,e", "--input_shape=:2,0,4", "--output_node=y,z,t",
             "--output_shape=3:2,0,4:", f"--input_file={self.dir / 'sc'}",
             f"--output_file={self.dir / 'sc_out'}"], capture_output=True, text=True,
            timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        s = np.float32(1.00390625 + 2.0 ** -7)
        np.testing.assert_allclose(np.load(self.dir / "sc_out_y.npy"), s + w, rtol=1e-6)
        self.assertEqual(np.load(self.dir / "sc_out_z.npy").shape, (2, 0, 4))
        scalar = np.load(self.dir / "sc_out_t.npy")
        self.assertEqual(scalar.shape, ())
        # 1 + 2^-8 + 2^-7 is halfway between bfloat16's 1 + 2^-7 and 1 + 2^-6.
        self.assertEqual(float(scalar), 1.0 + 2.0 ** -6)
        # A scalar is not a one-element vector.
        result = subprocess.run(
            [str(MACE_RUN), f"--model_file={pb}", f"--model_data_file={data}",
             "--input_node=s,e", "--input_shape=1:2,0,4"], capture_output=True, text=True,
            timeout=60)
        self.expect_failure(result, "--input_shape [1] for input 's' differs from the "
                                    "model's shape []")

    def test_corrupt_graph(self):
        bad = self.dir / "corrupt.pb"
        bad.write_bytes(b"\xff\xff\xff\xff not a protobuf")
        self.expect_failure(self.run_mace(pb=bad), "corrupt.pb")

    def test_truncated_graph(self):
        bad = self.dir / "truncated.pb"
        bad.write_bytes(self.pb.read_bytes()[:-7])
        self.expect_failure(self.run_mace(pb=bad))

    def test_weights_shorter_than_offsets(self):
        short = self.dir / "short.data"
        short.write_bytes(self.data.read_bytes()[:20])
        self.expect_failure(self.run_mace(data=short), "weight", "bytes")

    def test_missing_files(self):
        self.expect_failure(self.run_mace(pb=self.dir / "absent.pb"), "absent.pb")
        self.expect_failure(self.run_mace(data=self.dir / "absent.data"), "absent.data")

    def test_unknown_op(self):
        net = builder.NetBuilder("unknown")
        net.add_input("x", [1, 2, 4, 4])
        net.add_op("FrobnicateOp", ["x"], "y", name="mystery")
        net.add_output("y", [1, 2, 4, 4])
        pb, data = self.dir / "unknown.pb", self.dir / "unknown.data"
        net.save(pb, data)
        self.expect_failure(self.run_mace(pb=pb, data=data), "FrobnicateOp", "mystery")

    def test_wrong_input_shape(self):
        result = self.run_mace("--input_shape=1,5,4,4")
        # The flags name the shape twice; the engine must refuse, not guess.
        self.expect_failure(result, "x")

    def test_wrong_input_name(self):
        self.expect_failure(self.run_mace("--input_node=nope"), "nope")

    def test_wrong_input_file_size(self):
        raw = self.dir / "small_x"
        raw.write_bytes(b"\0" * 12)
        self.expect_failure(self.run_mace(f"--input_file={self.dir / 'small'}"), "small_x")

    def write_input(self, prefix: str, array: np.ndarray) -> str:
        """Saves `array` where --input_file=<returned prefix> finds it for x."""
        np.save(self.dir / f"{prefix}_x.npy", array)
        return f"--input_file={self.dir / prefix}"

    def test_directories_as_files(self):
        # Each used to end in an uncaught std::ios_base::failure (an abort).
        folder = self.dir / "a_directory"
        folder.mkdir(exist_ok=True)
        self.expect_failure(self.run_mace(pb=folder), "--model_file", str(folder), "directory")
        self.expect_failure(self.run_mace(data=folder), "--model_data_file", str(folder),
                            "directory")
        self.expect_failure(self.run_mace(f"--input_file={folder}"), "--input_file", str(folder),
                            "directory")

    def test_fifo_as_files(self):
        # Reading a FIFO would wait for a writer forever.
        fifo = self.dir / "a_fifo"
        if not fifo.exists():
            os.mkfifo(fifo)
        self.expect_failure(self.run_mace(pb=fifo), "--model_file", str(fifo),
                            "not a regular file")
        self.expect_failure(self.run_mace(f"--input_file={fifo}"), "--input_file", str(fifo),
                            "not a regular file")

    @unittest.skipIf(os.geteuid() == 0, "root reads files whatever their mode")
    def test_unreadable_files(self):
        locked = self.dir / "locked.pb"
        locked.write_bytes(self.pb.read_bytes())
        locked.chmod(0)
        self.expect_failure(self.run_mace(pb=locked), "--model_file", str(locked),
                            "Permission denied")

    def test_missing_input_file_names_every_candidate(self):
        prefix = self.dir / "nowhere"
        self.expect_failure(self.run_mace(f"--input_file={prefix}"), "--input_file",
                            f"{prefix}_x.npy")

    def test_huge_input_shape_is_refused_before_allocating(self):
        # Used to throw std::bad_alloc: the input was allocated before the
        # engine compared its shape with the model's.
        for shape in ("1,3,224,2147483648", "1,3,224,500000"):
            result = self.run_mace(f"--input_shape={shape}")
            self.expect_failure(result, f"--input_shape [{shape}]", "[1,2,4,4]")

    def test_out_of_memory_is_an_error_not_an_abort(self):
        # A 1 GiB model file (sparse: no disk used) read under a 512 MiB
        # address-space limit: std::bad_alloc used to escape main.
        big = self.dir / "sparse.pb"
        with open(big, "wb") as f:
            f.truncate(1 << 30)
        result = self.run_mace(pb=big, memory_limit=512 << 20)
        self.expect_failure(result, "--model_file", "cannot allocate 1073741824 bytes", str(big))

    def test_npy_shape_must_match_not_just_its_size(self):
        flat = self.image.reshape(32)
        self.expect_failure(self.run_mace(self.write_input("flat", flat)), "flat_x.npy", "[32]",
                            "[1,2,4,4]")
        swapped = self.image.reshape(1, 4, 4, 2)
        self.expect_failure(self.run_mace(self.write_input("nhwc", swapped)), "nhwc_x.npy",
                            "[1,4,4,2]", "[1,2,4,4]")

    def test_npy_wrong_dtype_and_order(self):
        self.expect_failure(self.run_mace(self.write_input("f64", self.image.astype(np.float64))),
                            "f64_x.npy", "'<f8'")
        fortran = np.asfortranarray(self.image)
        self.expect_failure(self.run_mace(self.write_input("fortran", fortran)),
                            "fortran_x.npy", "Fortran")

    def test_npy_truncated_and_malformed(self):
        flag = self.write_input("cut", self.image)
        path = self.dir / "cut_x.npy"
        path.write_bytes(path.read_bytes()[:-4])
        self.expect_failure(self.run_mace(flag), "cut_x.npy", "truncated")
        flag = self.write_input("garbled", self.image)
        path = self.dir / "garbled_x.npy"
        path.write_bytes(path.read_bytes().replace(b"'shape': (", b"'shape': [", 1))
        self.expect_failure(self.run_mace(flag), "garbled_x.npy", "'shape' value is malformed")

    def test_soak_reports_memory_and_drift(self):
        result = self.run_mace("--soak_rounds=50")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("soak: 50 rounds on one engine", result.stdout)
        self.assertRegex(result.stdout, r"soak: VmRSS start \d+ kB, end \d+ kB")
        self.assertIn("latency median first 5 rounds", result.stdout)

    def test_soak_does_not_measure_itself(self):
        # The round times once grew the process by 8 bytes a round.
        result = self.run_mace("--soak_rounds=300000", "--omp_num_threads=1")
        self.assertEqual(result.returncode, 0, result.stderr)
        growth = re.search(r"VmRSS start \d+ kB, end \d+ kB \(([+-]\d+) kB\)", result.stdout)
        self.assertIsNotNone(growth, result.stdout)
        self.assertLess(int(growth.group(1)), 1024, result.stdout)

    def test_bad_flags(self):
        self.expect_failure(self.run_mace("--round=-3"), "round")
        self.expect_failure(self.run_mace("--no_such_flag=1"), "no_such_flag")
        self.expect_failure(self.run_mace("--input_shape=1,a,4"), "input_shape")
        self.expect_failure(self.run_mace("--memory_strategy=fastest"), "memory_strategy")
        self.expect_failure(self.run_mace("--device=TPU"), "TPU")
        self.expect_failure(self.run_mace("--soak_rounds=0"), "soak_rounds")


if __name__ == "__main__":
    unittest.main()
