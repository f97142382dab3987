"""CRC-32C (Castagnoli) of a weights blob, the value NetDef.weights_crc32c
holds and the engine checks at init (mace/utils/crc32c.h): reflected
polynomial 0x82F63B78, initial value and final XOR 0xFFFFFFFF.

A byte-at-a-time loop in Python needs seconds for a large model. So a long
blob is cut into many equal lanes whose CRC registers numpy advances
together, one byte of every lane per step. Feeding n zero bytes to a CRC
register is linear over GF(2), so the lanes' registers are then joined in
order: register(A + B) = zeros_|B|(register(A)) ^ register_from_0(B).
"""
from __future__ import annotations

import numpy as np

POLYNOMIAL = 0x82F63B78  # 0x1EDC6F41, bit-reversed
_MASK = 0xFFFFFFFF
_LANES = 8192
# Below this many bytes per lane the plain loop is about as fast.
_MIN_LANE_BYTES = 16


def _byte_table() -> np.ndarray:
    """table[b]: the register after byte b, starting from zero."""
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(POLYNOMIAL), table >> 1)
    return table.astype(np.uint32)


_TABLE = _byte_table()
_TABLE_INTS = [int(value) for value in _TABLE]


def _bytewise(register: int, data: bytes) -> int:
    for byte in data:
        register = _TABLE_INTS[(register ^ byte) & 0xFF] ^ (register >> 8)
    return register


def _advance(registers: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Feeds rows[t, i] to registers[i] for t = 0, 1, ...: one lane per column."""
    for row in rows:
        registers = _TABLE[(registers ^ row) & 0xFF] ^ (registers >> 8)
    return registers


def _zeros_operator(count: int) -> list[list[int]]:
    """Four 256-entry tables that together map a register to the register
    after `count` zero bytes: one table per byte of the register."""
    basis = np.left_shift(np.uint32(1), np.arange(32, dtype=np.uint32))
    images = _advance(basis, np.zeros((count, 32), dtype=np.uint8))
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1
    return [[int(v) for v in np.bitwise_xor.reduce(
                np.where(bits, images[8 * part:8 * part + 8], np.uint32(0)), axis=1)]
            for part in range(4)]


def crc32c(data: bytes) -> int:
    """The CRC-32C of `data`, as an unsigned 32-bit int."""
    view = np.frombuffer(data, dtype=np.uint8)
    lane_bytes = len(view) // _LANES
    if lane_bytes < _MIN_LANE_BYTES:
        return _bytewise(_MASK, bytes(data)) ^ _MASK
    head = len(view) - lane_bytes * _LANES
    starts = np.zeros(_LANES, dtype=np.uint32)
    starts[0] = _bytewise(_MASK, view[:head].tobytes())
    rows = np.ascontiguousarray(view[head:].reshape(_LANES, lane_bytes).T)
    lanes = _advance(starts, rows)
    t0, t1, t2, t3 = _zeros_operator(lane_bytes)
    register = 0
    for lane in lanes.tolist():
        register = (t0[register & 0xFF] ^ t1[(register >> 8) & 0xFF] ^
                    t2[(register >> 16) & 0xFF] ^ t3[register >> 24] ^ lane)
    return register ^ _MASK
