"""mace_tools.dsp_insn_count: packets, instructions and HVX instructions
from llvm-objdump's Hexagon disassembly."""
import unittest

from mace_tools.dsp_insn_count import parse_disassembly

# Shapes of llvm-objdump-14 output for a v67 image with 128-byte HVX: a
# one-word packet, a packet with a constant extender and a duplex word, an
# HVX packet with two multiplies ending a hardware loop, and a word
# objdump cannot decode.
TEXT = """\
00020c10 <_start>:
   20c10:\t00 c0 7d 70\t707dc000 { \tr0 = r29 } 
   20c14:\t1d f0 3d 76\t763df01d { \timmext(#65536)
   20c18:\t84 f4 00 5a\t5a00f484   \tr1 = add(r1,##65536)
   20c1c:\t00 c0 00 58\t5800c000   \tr2 = r3; r4 = r5 } 

00024e1c <kernel>:
   24e1c:\t02 42 19 1b\t1b194202 { \tv2 = valign(v2,v3,r1)
   24e20:\t23 c0 0e 28\t280ec023   \tv3.cur = vmem(r14+#0)
   24e24:\t81 62 0c 19\t190c6281   \tv1.uw += vrmpy(v2.ub,r12.ub)
   24e28:\t80 a2 19 19\t1919a280   \tv0.uw += vrmpy(v2.ub,r25.ub)
   24e2c:\t00 c0 00 7f\t7f00c000   \tnop }  :endloop1
   24e30:\t00 4c 86 d2\td2864c00 <unknown>
   24e34:\tc8 ff ff 59\t59ffffc8 { \tjump 0x24dc0 } 
"""


class ParseTest(unittest.TestCase):
    def test_packets(self):
        packets = parse_disassembly(TEXT)
        self.assertEqual(sorted(packets), [0x20c10, 0x20c14, 0x24e1c, 0x24e30, 0x24e34])
        counts = {a: (p.symbol, p.instructions, p.hvx, p.multiplies)
                  for a, p in packets.items()}
        self.assertEqual(counts[0x20c10], ("_start", 1, 0, 0))
        self.assertEqual(counts[0x20c14], ("_start", 3, 0, 0))
        self.assertEqual(counts[0x24e1c], ("kernel", 5, 4, 2))
        self.assertEqual(counts[0x24e30], ("kernel", 1, 0, 0))
        self.assertEqual(counts[0x24e34], ("kernel", 1, 0, 0))


if __name__ == "__main__":
    unittest.main()
