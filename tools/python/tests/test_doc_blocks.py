"""The extractor behind tools/docs_test.py: fences, languages, markers and the
check for command blocks left without a language."""
import unittest
from pathlib import Path

from mace_tools.doc_blocks import MarkerError, extract, untagged_commands
from mace_tools.docs_runner import changed_paths, doc_files

DOC = Path("docs/example.md")


def blocks_of(text):
    return extract(text, DOC)


class ExtractTest(unittest.TestCase):
    def test_languages_lines_and_text(self):
        blocks = blocks_of("# Title\n\n```bash\necho one\necho two\n```\n\n"
                           "```c++\nint main() { return 0; }\n```\n\n"
                           "```yaml\nkey: value\n```\n\n```sh\nls\n```\n")
        self.assertEqual([(b.line, b.language, b.checked) for b in blocks],
                         [(3, "bash", True), (8, "cpp", True), (12, "yaml", False),
                          (16, "bash", True)])
        self.assertEqual(blocks[0].text, "echo one\necho two\n")
        self.assertEqual(blocks[0].where, "docs/example.md:3")

    def test_indented_fences_in_list_items_are_dedented(self):
        blocks = blocks_of("1. Step:\n\n   ```cpp\n   int x = 1;\n     int y;\n   ```\n")
        self.assertEqual(blocks[0].language, "cpp")
        self.assertEqual(blocks[0].text, "int x = 1;\n  int y;\n")

    def test_a_longer_fence_holds_a_shorter_one(self):
        blocks = blocks_of("````text\n```bash\nnot a block\n```\n````\n\n```bash\ntrue\n```\n")
        self.assertEqual([(b.line, b.language) for b in blocks], [(1, "text"), (7, "bash")])
        self.assertIn("```bash", blocks[0].text)

    def test_an_unclosed_fence_runs_to_the_end(self):
        blocks = blocks_of("```bash\necho a\n")
        self.assertEqual(blocks[0].text, "echo a\n")

    def test_markers_stack_above_the_fence(self):
        blocks = blocks_of("<!-- docs-test: timeout 900 -->\n"
                           "<!-- docs-test: skip (the whole suite, 20 minutes) -->\n"
                           "```bash\nbash tools/test.sh\n```\n")
        self.assertEqual(blocks[0].skip_reason, "the whole suite, 20 minutes")
        self.assertEqual(blocks[0].timeout, 900)

    def test_a_marker_separated_by_text_does_not_apply(self):
        blocks = blocks_of("<!-- docs-test: skip (old) -->\nSome text.\n```bash\ntrue\n```\n")
        self.assertIsNone(blocks[0].skip_reason)

    def test_save_as_is_for_cpp_under_build(self):
        text = "<!-- docs-test: save-as build/app.cc -->\n```c++\nint main() {}\n```\n"
        block = blocks_of(text)[0]
        self.assertEqual(block.save_as, "build/app.cc")
        for marker, fence in (("save-as app.cc", "c++"), ("save-as build/../app.cc", "c++"),
                              ("save-as /tmp/app.cc", "c++"), ("save-as build/a.sh", "bash")):
            with self.subTest(marker=marker), self.assertRaises(MarkerError):
                blocks_of(f"<!-- docs-test: {marker} -->\n```{fence}\nx\n```\n")

    def test_bad_markers_name_the_file_and_line(self):
        with self.assertRaisesRegex(MarkerError, r"docs/example.md:2: .*needs a reason"):
            blocks_of("text\n<!-- docs-test: skip () -->\n```bash\ntrue\n```\n")
        with self.assertRaisesRegex(MarkerError, "unknown docs-test marker 'sometimes'"):
            blocks_of("<!-- docs-test: sometimes -->\n```bash\ntrue\n```\n")


class UntaggedTest(unittest.TestCase):
    def test_command_blocks_without_a_language_are_found(self):
        blocks = blocks_of("```\nbazel build //mace/tools:mace_plan\n```\n\n"
                           "```\nmace/public/   the header\n```\n\n"
                           "```\nMACE_FULL_ZOO=1 tools/test.sh\n```\n\n"
                           "```text\nmace_plan --strategy=naive\n```\n\n"
                           "```\ntools/converter.py build\n```\n")
        self.assertEqual([b.line for b in untagged_commands(blocks)], [1, 9, 17])


class TreeStateTest(unittest.TestCase):
    def test_new_changed_and_removed_paths(self):
        before = {"a.md": " M 10 1", "b.py": "?? 3 1"}
        after = {"a.md": " M 11 2", "c.json": "?? 5 1"}
        self.assertEqual(changed_paths(before, after), ["a.md", "b.py", "c.json"])
        self.assertEqual(changed_paths(before, dict(before)), [])


class RepositoryDocsTest(unittest.TestCase):
    def test_every_doc_parses_and_tags_its_commands(self):
        repo = Path(__file__).resolve().parents[3]
        docs = [repo / path for path in doc_files(repo)]
        self.assertIn(repo / "docs" / "reference" / "ops" / "spatial.md", docs)
        for path in docs:
            with self.subTest(doc=str(path.relative_to(repo))):
                blocks = extract(path.read_text(encoding="utf-8"), path)
                self.assertEqual(untagged_commands(blocks), [])
                for block in blocks:
                    if block.skip_reason is not None:
                        self.assertTrue(block.checked, block.where)


if __name__ == "__main__":
    unittest.main()
