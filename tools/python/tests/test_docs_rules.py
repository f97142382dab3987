"""The rules that keep the docs a product (docs/contributing/README.md):
every relative link and anchor resolves, every MACE_* environment variable
the code reads and every mace_run and converter.py flag is in the reference,
no hand-written page is over 800 lines, no page cites a build output, and
before/after timings stay in the dated perf notes."""
from __future__ import annotations

import argparse
import re
import unittest
from pathlib import Path

from mace_converter import cli
from mace_tools.doc_rules import (
    broken_links, build_citations, converter_flags, documented, environment_variables,
    long_pages, mace_run_flags, measurements, pages, TOOL_OUTPUTS)

REPO = Path(__file__).resolve().parents[3]
ENVIRONMENT = REPO / "docs" / "reference" / "environment.md"
MACE_RUN_REFERENCE = REPO / "docs" / "reference" / "mace_run.md"
CONVERTER_REFERENCE = REPO / "docs" / "reference" / "converter_cli.md"


class RulesOnSamplesTest(unittest.TestCase):
    """Each rule finds what it must on a small sample, so it can fail."""

    def test_broken_link_and_anchor(self):
        texts = {Path("docs/a.md"): "# Title\n\n## Two words\n\n[x](b.md) [y](#two-words) "
                                    "[z](#nowhere) [w](a.md#title) [v](https://example.com)\n"}
        self.assertEqual(broken_links(texts, exists=lambda path: False),
                         ["docs/a.md: b.md (no such file)",
                          "docs/a.md: #nowhere (no such heading)"])

    def test_long_page(self):
        texts = {Path("docs/long.md"): "x\n" * 801, Path("docs/short.md"): "x\n" * 800,
                 Path("docs/reports/big.md"): "x\n" * 5000}
        self.assertEqual(long_pages(texts, limit=800), ["docs/long.md: 801 lines"])

    def test_build_citation(self):
        text = ("Measured with `--report build/run7.md` (see build/log.txt).\n"
                "<!-- docs-test: save-as build/app.cc -->\n```cpp\nint main() {}\n```\n"
                "Save it as `build/app.cc`, or see `build/<library_name>/lib/`.\n"
                "```bash\nmkdir -p build/plans\n```\nThe plan is in `build/plans/`.\n")
        self.assertEqual(build_citations({Path("docs/a.md"): text,
                                          Path("docs/reports/r.md"): "`build/x.md`\n"}),
                         ["docs/a.md:1: build/run7.md", "docs/a.md:1: build/log.txt"])

    def test_measurement_outside_the_notes(self):
        line = "The layer went 0.44 -> 0.32 ms (load average 4.2).\n"
        texts = {Path("docs/design/a.md"): line + "16 -> 96 -> 24 channels; quote the load "
                                                  "average the report records.\n",
                 Path("docs/perf/2026-11-x.md"): line, Path("docs/reports/r.md"): line,
                 Path("docs/design/b.md"): "```\n1.0 -> 2.0 ms\n```\nloads 267-274 -> "
                                           "241-251 us\n",
                 Path("docs/design/c.md"): "Its pools went from 3.0 M to 1.2 M.\nThe set went "
                                           "from\n45.5 to 47.6 MiB. The op went from the\n"
                                           "graph.\n"}
        self.assertEqual(measurements(texts),
                         ["docs/design/a.md:1: " + line.strip(),
                          "docs/design/b.md:4: loads 267-274 -> 241-251 us",
                          "docs/design/c.md:1: Its pools went from 3.0 M to 1.2 M.",
                          "docs/design/c.md:2: The set went from"])

    def test_environment_variables_found_in_sources(self):
        sources = {Path("a.cc"): 'const char* v = std::getenv("MACE_ONE");\n',
                   Path("b.py"): 'os.environ.get("MACE_TWO")\nx = "MACE_NOT_READ"\n',
                   Path("c.sh"): 'if [[ "${MACE_THREE:-0}" == 1 ]]; then :; fi\n',
                   Path("d.cc"): '"MACE_UNUSED";\n'}
        self.assertEqual(environment_variables(sources),
                         {"MACE_ONE", "MACE_TWO", "MACE_NOT_READ", "MACE_THREE"})

    def test_documented_needs_the_exact_name(self):
        self.assertEqual(documented({"MACE_CPU", "MACE_CPU_KERNELS"}, "`MACE_CPU_KERNELS`"),
                         ["MACE_CPU"])

    def test_mace_run_flags_from_the_table(self):
        source = '  const std::map<std::string, Setter> setters = {\n' \
                 '      {"model_file", string_flag(&f)},\n      {"round", int_flag(&r)},\n'
        self.assertEqual(mace_run_flags(source), ["model_file", "round"])

    def test_converter_flags_from_the_parser(self):
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers().add_parser("run")
        sub.add_argument("--config")
        sub.add_argument("--validate", action="store_true")
        self.assertEqual(converter_flags(parser), ["config", "validate"])


class RepositoryDocsTest(unittest.TestCase):
    """The rules on the repository's own docs."""

    @classmethod
    def setUpClass(cls):
        cls.texts = {path: (REPO / path).read_text(encoding="utf-8") for path in pages(REPO)}

    def test_links_and_anchors_resolve(self):
        self.assertEqual(broken_links(self.texts, exists=lambda p: (REPO / p).exists()), [])

    def test_no_measurements_outside_the_perf_notes(self):
        self.assertEqual(measurements(self.texts), [])

    def test_no_hand_written_page_over_800_lines(self):
        self.assertEqual(long_pages(self.texts, limit=800), [])

    def test_no_page_cites_a_build_output(self):
        self.assertEqual(build_citations(self.texts), [])
        for folder, tool in TOOL_OUTPUTS.items():
            with self.subTest(folder=folder):
                source = (REPO / tool).read_text(encoding="utf-8")
                self.assertTrue(folder in source or
                                " / ".join(f'"{part}"' for part in folder.split("/")[1:]) in source)

    def test_every_environment_variable_is_in_the_reference(self):
        sources = {}
        for top in ("mace", "tools", "java", ".ci"):
            for path in (REPO / top).rglob("*"):
                if path.suffix in (".cc", ".h", ".py", ".sh", ".java") or path.name == "run":
                    if path.is_file() and path.name != "test_docs_rules.py":
                        sources[path.relative_to(REPO)] = path.read_text(
                            encoding="utf-8", errors="replace")
        names = environment_variables(sources)
        self.assertIn("MACE_HUGE_PAGES", names)
        self.assertEqual(documented(names, ENVIRONMENT.read_text(encoding="utf-8")), [])

    def test_every_mace_run_flag_is_in_the_reference(self):
        flags = mace_run_flags((REPO / "mace" / "tools" / "run_flags.cc").read_text())
        self.assertIn("model_file", flags)
        text = MACE_RUN_REFERENCE.read_text(encoding="utf-8")
        self.assertEqual([f for f in flags if f"--{f}" not in text], [])

    def test_every_converter_flag_is_in_the_reference(self):
        flags = converter_flags(cli._parser())
        self.assertIn("validate_layers", flags)
        text = CONVERTER_REFERENCE.read_text(encoding="utf-8")
        self.assertEqual([f for f in flags if f"--{f}" not in text], [])


if __name__ == "__main__":
    unittest.main()
