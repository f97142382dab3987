"""mace_tools.dsp_memory: the arena and its tensors from mace_run
--memory_report."""
import unittest

from mace_tools.dsp_memory import parse_report

# The report's shape (MobileNet v2 on the Hexagon engine), with an alias
# row added: aliases share another tensor's bytes and are not counted.
REPORT = """\
memory plan (greedy_by_size, planned in 0.020 ms)
  CPU_BUFFER arena :       752640 bytes (0.718 MiB)
  persistent arena :            0 bytes (0.000 MiB, packed weights)
  naive sum        :       757696 bytes
  memory type runtime              strategy          planned bytes    naive bytes    lower bound  blocks
  CPU_BUFFER  CPU                  greedy_by_size           752640         757696         752640       1
  tensor                           memory      offset/image        bytes  lifetime  alias of
  input                            CPU_BUFFER             0       602112    0..66   
  input_u8                         CPU_BUFFER        602112       150528    0..1    
  output_u8                        CPU_BUFFER        606144         1024   65..66   
  reshaped                         CPU_BUFFER            -1         1024   65..66   output_u8
  output                           CPU_BUFFER        602112         4032   66..66   
"""


class ParseReportTest(unittest.TestCase):
    def test_arena_and_placed_tensors(self):
        self.assertEqual(parse_report(REPORT), (752640, 4))

    def test_a_report_without_the_arena_line_is_an_error(self):
        with self.assertRaises(SystemExit):
            parse_report(REPORT.replace("CPU_BUFFER arena", "arena"))


if __name__ == "__main__":
    unittest.main()
