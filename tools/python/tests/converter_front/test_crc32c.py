"""The converter's CRC-32C: published check values, the lane-parallel path
against the plain loop across its threshold, and the value serialize()
stores in the model."""
import unittest

import numpy as np

from mace_converter import crc32c as crc
from tests.converter_front.helpers import convert_model, rng
from tests.converter_front.test_serialize import INPUTS, _model


def bitwise(data: bytes) -> int:
    """The definition, one bit at a time."""
    register = 0xFFFFFFFF
    for byte in data:
        register ^= byte
        for _ in range(8):
            register = (register >> 1) ^ (crc.POLYNOMIAL if register & 1 else 0)
    return register ^ 0xFFFFFFFF


class Crc32cTest(unittest.TestCase):
    def test_check_values(self):
        self.assertEqual(crc.crc32c(b"123456789"), 0xE3069283)
        self.assertEqual(crc.crc32c(b""), 0)
        # The iSCSI test patterns (RFC 3720, B.4).
        self.assertEqual(crc.crc32c(bytes(32)), 0x8A9136AA)
        self.assertEqual(crc.crc32c(b"\xff" * 32), 0x62A8AB43)
        self.assertEqual(crc.crc32c(bytes(range(32))), 0x46DD794E)
        self.assertEqual(crc.crc32c(bytes(range(31, -1, -1))), 0x113FDB5C)

    def test_small_inputs_match_the_definition(self):
        data = rng(70).integers(0, 256, 300, dtype=np.uint8).tobytes()
        for size in range(0, 300, 7):
            self.assertEqual(crc.crc32c(data[:size]), bitwise(data[:size]), size)

    def test_lanes_match_the_plain_loop(self):
        threshold = crc._LANES * crc._MIN_LANE_BYTES
        data = rng(71).integers(0, 256, threshold * 3 + 11, dtype=np.uint8).tobytes()
        for size in (threshold - 1, threshold, threshold + 1, threshold * 3 + 11):
            plain = crc._bytewise(0xFFFFFFFF, data[:size]) ^ 0xFFFFFFFF
            self.assertEqual(crc.crc32c(data[:size]), plain, size)
        self.assertEqual(crc.crc32c(bytearray(data)), crc.crc32c(data))

    def test_serialize_stores_the_blob_checksum(self):
        converted = convert_model(_model(), INPUTS, ["logits"])
        self.assertTrue(converted.net_def.HasField("weights_crc32c"))
        self.assertEqual(converted.net_def.weights_crc32c, bitwise(converted.weights))
        self.assertTrue(any(f"CRC32C 0x{converted.net_def.weights_crc32c:08X}" in line
                            for line in converted.log))


if __name__ == "__main__":
    unittest.main()
