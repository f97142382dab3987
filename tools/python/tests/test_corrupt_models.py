"""The corrupt-model suite's case generator and classifier
(tools/corrupt_models.py), with a stand-in for mace_run whose behaviour
each test picks."""
import os
import stat
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import numpy as np

from mace_tools import corrupt_models

FAKE_MACE_RUN = f"""#!{sys.executable}
import os, signal, sys, time
import numpy as np
mode = os.environ["FAKE_MODE"]
prefix = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--output_file="))
if mode == "error":
    print("mace_run: error: INVALID_ARGS: something named", file=sys.stderr)
    sys.exit(1)
if mode == "quiet_error":
    sys.exit(3)
if mode == "signal":
    os.kill(os.getpid(), signal.SIGSEGV)
if mode == "sanitizer":
    print("==1==ERROR: AddressSanitizer: heap-buffer-overflow", file=sys.stderr)
    sys.exit(1)
if mode == "hang":
    time.sleep(30)
value = 1.0 if mode == "same" else 2.0
np.save(prefix + "_output.npy", np.full((1, 4), value, np.float32))
"""


class CorruptModelsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        cls.fake = cls.dir / "mace_run"
        cls.fake.write_text(FAKE_MACE_RUN)
        cls.fake.chmod(cls.fake.stat().st_mode | stat.S_IEXEC)
        cls.base = corrupt_models.Base(pb=b"graph", data=b"weights", npy=b"npy",
                                       input_shape=[1, 3, 2, 2], output_shape=[1, 4])
        cls.base_dir = cls.dir / "base"
        cls.base_dir.mkdir()
        cls.reference = np.ones((1, 4), np.float32)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def classify(self, mode, may_change=False, timeout=20.0):
        case = corrupt_models.Case(7, "fields", "test", b"other graph", self.base.data,
                                   self.base.npy, [], may_change_output=may_change)
        with mock.patch.dict(os.environ, {"FAKE_MODE": mode}):
            return corrupt_models.run_case(self.fake, case, self.base, self.base_dir,
                                           self.dir / mode, self.reference, timeout)

    def test_each_class(self):
        expected = {"error": "error", "quiet_error": "crash", "signal": "crash",
                    "sanitizer": "crash", "same": "legit", "different": "silent"}
        for mode, verdict in expected.items():
            with self.subTest(mode=mode):
                self.assertEqual(self.classify(mode).verdict, verdict)
        self.assertIn("something named", self.classify("error").message)

    def test_a_different_output_is_legit_when_the_mutation_may_change_it(self):
        self.assertEqual(self.classify("different", may_change=True).verdict, "legit")

    def test_hang(self):
        self.assertEqual(self.classify("hang", timeout=1.0).verdict, "hang")

    def test_cases_are_repeatable_and_varied(self):
        base = corrupt_models.make_base(size=16)
        cases = [corrupt_models.make_case(base, 1, i) for i in range(40)]
        again = [corrupt_models.make_case(base, 1, i) for i in range(40)]
        for one, two in zip(cases, again):
            self.assertEqual((one.what, one.pb, one.data, one.npy, one.flags),
                             (two.what, two.pb, two.data, two.npy, two.flags))
        self.assertGreaterEqual(len({case.family for case in cases}), 6)
        self.assertTrue(all(case.pb != base.pb for case in cases
                            if case.family in ("fields", "flip_pb", "truncate_pb")))


if __name__ == "__main__":
    unittest.main()
