"""tools/peer_bench.py without engines: the command line, the statistics, the
ratio math, how repeated processes combine, the report, the ONNX Split fix
the child-process runner and LiteRT's layouts and ONNX preparation. Needs
neither the peer packages (ncnn, pnnx, MNN, onnx2tf) nor Bazel; onnx and onnxruntime come from tools/requirements.txt."""
import argparse
import contextlib
import io
import json
import sys
import unittest
from pathlib import Path

import numpy as np

from mace_tools.peer_bench import onnx_split, peak, report
from mace_tools.peer_bench.children import run_child
from mace_tools.peer_bench.inputs import ModelInput
from mace_tools.peer_bench.mace_engine import op_shares
from mace_tools.peer_bench.options import MODELS, engine_list, model_list, parse_args, thread_list
from mace_tools.peer_bench.results import FAILED, OK, UNCHECKED, WRONG, EngineRun, combine
from mace_tools.peer_bench.stats import (cosine, fastest, geometric_mean, median, ratio,
                                         rotated, summarize)


REPO_ROOT = Path(__file__).resolve().parents[3]


def parse_quietly(argv):
    with contextlib.redirect_stderr(io.StringIO()):
        return parse_args(argv)


class OptionsTest(unittest.TestCase):
    def test_defaults_cover_every_model_engine_and_two_thread_counts(self):
        options = parse_args([])
        self.assertEqual(options.models, list(MODELS))
        self.assertEqual(options.engines, ["mace", "ort", "ncnn", "mnn", "litert", "ncnn_default"])
        self.assertEqual(options.threads, [1, 2])
        self.assertEqual(options.rounds, 50)
        self.assertEqual(options.repeats, 1)
        self.assertEqual(str(options.json_path), "docs/reports/cpu_peers.json")

    def test_a_partial_run_keeps_the_checked_in_report(self):
        partial = parse_args(["--models", "mobilenet_v2", "--rounds", "5"])
        self.assertEqual(partial.report, Path("build/peer_bench/cpu_peers.md"))
        self.assertEqual(parse_args(["--threads", "1"]).report,
                         Path("build/peer_bench/cpu_peers.md"))
        self.assertEqual(parse_args(["--engines", "mace,ort", "--work-dir", "/tmp/w"]).report,
                         Path("/tmp/w/cpu_peers.md"))
        full = parse_args(["--rounds", "30", "--repeats", "10", "--threads", "2,1"])
        self.assertEqual(full.report, Path("docs/reports/cpu_peers.md"))
        chosen = parse_args(["--models", "resnet18", "--report", "docs/reports/cpu_peers.md"])
        self.assertEqual(chosen.report, Path("docs/reports/cpu_peers.md"))

    def test_lists_take_commas_aliases_and_keep_a_canonical_order(self):
        self.assertEqual(model_list("resnet18, shufflenet_v2,resnet18"),
                         ["resnet18", "shufflenet_v2_x1_0"])
        self.assertEqual(engine_list("mnn,mace"), ["mace", "mnn"])
        self.assertEqual(thread_list("2,1,2"), [1, 2])

    def test_bad_values_are_usage_errors(self):
        for argv in (["--models", "alexnet"], ["--engines", "tflite"], ["--threads", "0"],
                     ["--threads", "two"], ["--rounds", "0"], ["--models", ","]):
            with self.subTest(argv=argv), self.assertRaises(SystemExit) as raised:
                parse_quietly(argv)
            self.assertEqual(raised.exception.code, 2)

    def test_a_baseline_runner_adds_the_baseline_engine(self):
        runner = Path(__file__)  # any existing file stands in for a mace_run binary
        options = parse_args(["--engines", "mace,ort", "--baseline-runner", str(runner)])
        self.assertEqual(options.engines, ["mace", "ort", "mace_base"])
        self.assertEqual(options.baseline_runner, runner.resolve())
        self.assertEqual(options.report, Path("build/peer_bench/cpu_peers.md"))
        # A comparison of two builds never replaces the checked-in report.
        self.assertEqual(parse_args(["--baseline-runner", str(runner)]).report,
                         Path("build/peer_bench/cpu_peers.md"))
        for argv in (["--engines", "mace,mace_base"],
                     ["--baseline-runner", "/nonexistent/mace_run"],
                     ["--engines", "ort", "--baseline-runner", str(runner)]):
            with self.subTest(argv=argv), self.assertRaises(SystemExit):
                parse_quietly(argv)

    def test_uint8_adds_the_quantized_engines(self):
        options = parse_args(["--uint8"])
        self.assertTrue(options.uint8)
        self.assertEqual(options.engines, ["mace", "ort", "ncnn", "mnn", "litert", "ncnn_default",
                                           "mace_u8", "ort_qdq", "mnn_int8"])
        # A full run with the uint8 columns still refreshes the checked-in report.
        self.assertEqual(options.report, Path("docs/reports/cpu_peers.md"))
        # Each quantized peer comes with its float engine only.
        self.assertEqual(parse_args(["--engines", "mace,ncnn", "--uint8"]).engines,
                         ["mace", "ncnn", "mace_u8"])
        self.assertEqual(parse_args(["--engines", "mnn,mace", "--uint8"]).engines,
                         ["mace", "mnn", "mace_u8", "mnn_int8"])
        self.assertFalse(parse_args([]).uint8)
        for argv in (["--engines", "mace,mace_u8"], ["--engines", "mace,mnn_int8"],
                     ["--engines", "ort", "--uint8"]):
            with self.subTest(argv=argv), self.assertRaises(SystemExit):
                parse_quietly(argv)

    def test_model_groups_select_the_cnns_or_the_transformers(self):
        from mace_tools.peer_bench.options import CNN_MODELS, TRANSFORMER_MODELS
        self.assertEqual(model_list("transformers"), list(TRANSFORMER_MODELS))
        self.assertEqual(model_list("cnn"), list(CNN_MODELS))
        self.assertEqual(model_list("bert_torch,transformers"),
                         ["bert_torch", "bert_tf", "vit_tiny", "whisper_tiny_encoder"])
        self.assertEqual(set(MODELS), set(CNN_MODELS) | set(TRANSFORMER_MODELS))
        for name, path in MODELS.items():
            self.assertTrue((REPO_ROOT / path).is_file(), path)
        # The CNN set alone is a partial run; every model is the full one.
        self.assertEqual(parse_args(["--models", "cnn"]).report,
                         Path("build/peer_bench/cpu_peers.md"))
        self.assertEqual(parse_args(["--models", "cnn,transformers"]).report,
                         Path("docs/reports/cpu_peers.md"))

    def test_a_prebuilt_mace_runner(self):
        options = parse_args(["--mace-runner", sys.executable])
        self.assertEqual(options.mace_runner, Path(sys.executable).absolute())
        self.assertIsNone(parse_args([]).mace_runner)
        for argv in (["--mace-runner", "/nonexistent/mace_run"],
                     ["--mace-runner", sys.executable, "--uint8"]):
            with self.subTest(argv=argv), self.assertRaises(SystemExit) as raised:
                parse_quietly(argv)
            self.assertIn("error:", str(raised.exception))

    def test_list_parsers_name_the_choices(self):
        with self.assertRaisesRegex(argparse.ArgumentTypeError, "mobilenet_v2"):
            model_list("alexnet")


class StatsTest(unittest.TestCase):
    def test_median_of_odd_and_even_counts(self):
        self.assertEqual(median([3.0, 1.0, 2.0]), 2.0)
        self.assertEqual(median([4.0, 1.0, 3.0, 2.0]), 2.5)
        with self.assertRaises(ValueError):
            median([])

    def test_summary(self):
        summary = summarize([5.0, 1.0, 3.0, 7.0])
        self.assertEqual((summary.count, summary.min, summary.median, summary.max,
                          summary.mean), (4, 1.0, 4.0, 7.0, 4.0))

    def test_cosine(self):
        a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
        self.assertAlmostEqual(cosine(a, a), 1.0, places=12)
        self.assertAlmostEqual(cosine(a, 10 * a.reshape(1, 3)), 1.0, places=12)
        self.assertAlmostEqual(cosine([1.0, 0.0], [0.0, 1.0]), 0.0)
        self.assertAlmostEqual(cosine(a, -a), -1.0, places=12)
        self.assertEqual(cosine([0.0, 0.0], [0.0, 0.0]), 1.0)
        self.assertEqual(cosine([0.0, 0.0], [1.0, 0.0]), 0.0)
        self.assertEqual(cosine([np.nan, 1.0], [1.0, 1.0]), 0.0)
        with self.assertRaises(ValueError):
            cosine([1.0], [1.0, 2.0])

    def test_fastest_skips_missing_values_and_keeps_the_first_of_a_tie(self):
        self.assertEqual(fastest({"ort": 5.0, "ncnn": None, "mnn": 4.0}), ("mnn", 4.0))
        self.assertEqual(fastest({"ort": 4.0, "mnn": 4.0}), ("ort", 4.0))
        self.assertIsNone(fastest({"ort": None}))

    def test_ratio_and_geometric_mean(self):
        self.assertEqual(ratio(6.0, 4.0), 1.5)
        self.assertIsNone(ratio(None, 4.0))
        self.assertIsNone(ratio(6.0, 0.0))
        self.assertAlmostEqual(geometric_mean([2.0, 8.0, None]), 4.0)
        self.assertIsNone(geometric_mean([None]))

    def test_rotation_moves_a_different_engine_first(self):
        engines = ["mace", "ort", "ncnn"]
        self.assertEqual(rotated(engines, 0), engines)
        self.assertEqual(rotated(engines, 1), ["ort", "ncnn", "mace"])
        self.assertEqual(rotated(engines, 5), ["ncnn", "mace", "ort"])
        self.assertEqual(rotated([], 3), [])


def make_run(engine, median_ms, threads=1, model="m", status=OK, **extra):
    return EngineRun(model=model, engine=engine, threads=threads, status=status,
                     median_ms=median_ms, init_ms=extra.pop("init_ms", 10.0),
                     peak_rss_mib=extra.pop("peak_rss_mib", 50.0),
                     base_rss_mib=extra.pop("base_rss_mib", 20.0), rounds=10, **extra)


class CombineTest(unittest.TestCase):
    def test_repeats_take_medians_extremes_and_the_worst_cosine(self):
        runs = [make_run("ort", 3.0, min_ms=2.0, max_ms=9.0, cosine=0.9999),
                make_run("ort", 1.0, min_ms=0.5, max_ms=4.0, cosine=1.0, peak_rss_mib=70.0),
                make_run("ort", 2.0, min_ms=1.5, max_ms=3.0, cosine=0.99995)]
        combined = combine(runs)
        self.assertEqual(combined.median_ms, 2.0)
        self.assertEqual((combined.min_ms, combined.max_ms), (0.5, 9.0))
        self.assertEqual(combined.peak_rss_mib, 70.0)
        self.assertEqual(combined.cosine, 0.9999)
        self.assertEqual((combined.rounds, combined.processes, combined.status), (30, 3, OK))

    def test_one_failed_process_fails_the_cell(self):
        bad = EngineRun(model="m", engine="mnn", threads=1, error="boom")
        combined = combine([make_run("mnn", 1.0), bad])
        self.assertEqual((combined.status, combined.error, combined.processes),
                         (FAILED, "boom", 2))
        self.assertFalse(combined.timed)

    def test_unchecked_stays_unchecked_and_cells_must_match(self):
        self.assertEqual(combine([make_run("ort", 1.0),
                                  make_run("ort", 2.0, status=UNCHECKED)]).status, UNCHECKED)
        with self.assertRaises(ValueError):
            combine([make_run("ort", 1.0), make_run("ort", 1.0, threads=2)])

    def test_json_round_trip(self):
        run = make_run("mace", 1.25, cosine=0.999999)
        self.assertEqual(EngineRun.from_json(json.loads(json.dumps(run.to_json()))), run)


def make_info(**changes):
    info = report.RunInfo(
        command="tools/peer_bench.py --rounds 5", started="2026-01-02T03:04:05+00:00",
        duration_s=90.0, cpu_model="Test CPU", cores=2, isa=["avx2", "fma"],
        load_start=(1.0, 0.5, 0.25), load_end=(2.0, 1.0, 0.5),
        versions={"MACE": "abc", "onnxruntime": "1.20.1"}, seed=7, rounds=5, repeats=1,
        models=["m"], engines=["mace", "ort", "ncnn", "mnn", "ncnn_default"], threads=[1, 2])
    for key, value in changes.items():
        setattr(info, key, value)
    return info


def sample_runs():
    return [
        make_run("mace", 6.0), make_run("ort", 4.0), make_run("ncnn", 5.0),
        make_run("mnn", 3.0, status=WRONG, error="cosine 0.5"),
        make_run("ncnn_default", 1.0),
        make_run("mace", 2.0, threads=2), make_run("ort", 4.0, threads=2),
        EngineRun(model="m", engine="ncnn", threads=2, error="pnnx failed"),
        make_run("mnn", 2.5, threads=2, status=UNCHECKED),
        make_run("ncnn_default", 3.0, threads=2),
    ]


class ReportTest(unittest.TestCase):
    def test_fastest_peer_is_fp32_only_and_skips_wrong_outputs(self):
        cells = {run.engine: run for run in sample_runs()[:5]}
        self.assertEqual(report.fastest_peer(cells), ("ort", 4.0))
        self.assertEqual(report.mace_ratio(cells), 1.5)

    def test_latency_table_rows(self):
        table = report.latency_table(make_info(), sample_runs()).splitlines()
        self.assertEqual(len(table), 4)
        header = [cell.strip() for cell in table[0].strip("|").split("|")]
        self.assertEqual(header, ["model", "threads", "MACE ms", "ORT ms", "ncnn ms", "MNN ms",
                                  "fastest peer", "MACE / fastest", "ncnn defaults ms"])
        one = [cell.strip() for cell in table[2].strip("|").split("|")]
        self.assertEqual(one, ["m", "1", "6.00", "4.00", "5.00", "wrong output", "ORT",
                               "1.50x", "1.00"])
        two = [cell.strip() for cell in table[3].strip("|").split("|")]
        self.assertEqual(two, ["m", "2", "2.00", "4.00", "failed: pnnx failed",
                               "2.50 (unchecked)", "MNN", "0.80x", "3.00"])
        rule = [cell.strip() for cell in table[1].strip("|").split("|")]
        self.assertTrue(rule[0].endswith("-") and rule[1].endswith(":"))
        self.assertTrue(rule[6].endswith("-"))  # fastest peer: text, left-aligned

    def test_ratio_summary_is_a_geometric_mean_per_thread_count(self):
        line = report.ratio_summary(make_info(), sample_runs())[0]
        self.assertIn("1 thread: 1.50x over 1 model", line)
        self.assertIn("2 threads: 0.80x over 1 model", line)
        self.assertEqual(report.ratio_summary(make_info(engines=["ort"]), []), [])

    def test_baseline_ratios(self):
        runs = [make_run("mace", 6.0), make_run("ort", 4.0), make_run("mace_base", 5.0),
                make_run("mace", 2.0, threads=2), make_run("ort", 4.0, threads=2),
                make_run("mace_base", 2.5, threads=2)]
        info = make_info(engines=["mace", "ort", "mace_base"])
        lines = report.ratio_summary(info, runs)
        self.assertEqual(len(lines), 3)
        self.assertIn("MACE / fastest peer, geometric mean: 1 thread: 1.50x", lines[0])
        self.assertIn("MACE baseline / fastest peer, geometric mean: 1 thread: 1.25x", lines[1])
        self.assertIn("MACE / MACE baseline, geometric mean: 1 thread: 1.20x", lines[2])
        self.assertIn("2 threads: 0.80x", lines[2])
        header = report.latency_table(info, runs).splitlines()[0]
        self.assertIn("MACE baseline ms", header)

    def test_uint8_table_and_summary(self):
        runs = sample_runs() + [
            make_run("mace_u8", 3.0, cosine=0.9912), make_run("ort_qdq", 2.5),
            make_run("mnn_int8", 2.0),
            make_run("mace_u8", 1.0, threads=2),
            make_run("ort_qdq", 1.0, threads=2, status=WRONG, error="cosine 0.2"),
            EngineRun(model="m", engine="mnn_int8", threads=2, error="mnnquant failed")]
        info = make_info(engines=["mace", "ort", "ncnn", "mnn", "ncnn_default", "mace_u8",
                                  "ort_qdq", "mnn_int8"])
        # The float table keeps its columns.
        self.assertEqual(report.latency_table(info, runs),
                         report.latency_table(make_info(), sample_runs()))
        table = report.uint8_table(info, runs).splitlines()
        self.assertEqual([c.strip() for c in table[0].strip("|").split("|")],
                         ["model", "threads", "MACE fp32 ms", "MACE uint8 ms", "ORT QDQ ms",
                          "MNN int8 ms", "fastest int8", "MACE uint8 / fastest int8",
                          "MACE uint8 / fp32", "MACE uint8 cosine"])
        self.assertEqual([c.strip() for c in table[2].strip("|").split("|")],
                         ["m", "1", "6.00", "3.00", "2.50", "2.00", "MNN int8", "1.50x",
                          "0.50x", "0.9912"])
        self.assertEqual([c.strip() for c in table[3].strip("|").split("|")],
                         ["m", "2", "2.00", "1.00", "wrong output", "failed: mnnquant failed",
                          "-", "-", "0.50x", "-"])
        rule = [c.strip() for c in table[1].strip("|").split("|")]
        self.assertTrue(rule[6].endswith("-") and rule[7].endswith(":"))
        lines = report.uint8_summary(info, runs)
        self.assertIn("MACE uint8 / fastest int8 peer, geometric mean: 1 thread: 1.50x over "
                      "1 model; 2 threads: - over 0 models.", lines[0])
        self.assertIn("MACE uint8 / MACE fp32, geometric mean: 1 thread: 0.50x over 1 model; "
                      "2 threads: 0.50x over 1 model.", lines[1])
        text = report.markdown(info, runs)
        self.assertIn("## uint8 (median ms", text)
        self.assertNotIn("## uint8", report.markdown(make_info(), sample_runs()))
        # MACE uint8 is never its own peer, nor is an fp32 engine an int8 one.
        cells = {run.engine: run for run in runs if run.threads == 1}
        self.assertEqual(report.fastest_peer(cells, report.INT8_PEERS), ("mnn_int8", 2.0))
        self.assertEqual(report.fastest_peer(cells), ("ort", 4.0))

    def test_uint8_geometric_mean_over_models(self):
        runs = [make_run("mace", 4.0, model="a"), make_run("mace_u8", 2.0, model="a"),
                make_run("ort_qdq", 1.0, model="a"),
                make_run("mace", 2.0, model="b"), make_run("mace_u8", 4.0, model="b"),
                make_run("ort_qdq", 4.0, model="b")]
        info = make_info(models=["a", "b"], engines=["mace", "ort", "mace_u8", "ort_qdq"],
                         threads=[1])
        lines = report.uint8_summary(info, runs)
        # sqrt(2.0 * 1.0) and sqrt(0.5 * 2.0)
        self.assertIn("fastest int8 peer, geometric mean: 1 thread: 1.41x over 2 models.",
                      lines[0])
        self.assertIn("MACE uint8 / MACE fp32, geometric mean: 1 thread: 1.00x over 2 models.",
                      lines[1])

    def test_init_and_memory_tables(self):
        init = report.init_table(make_info(), sample_runs()).splitlines()
        self.assertEqual([c.strip() for c in init[0].strip("|").split("|")],
                         ["model", "threads", "MACE", "ORT", "ncnn", "MNN", "ncnn defaults"])
        self.assertEqual([c.strip() for c in init[3].strip("|").split("|")][2:],
                         ["10.00", "10.00", "failed: pnnx failed", "10.00", "10.00"])
        memory = report.memory_table(make_info(), sample_runs()).splitlines()
        self.assertEqual([c.strip() for c in memory[0].strip("|").split("|")],
                         ["model", "threads", "MACE", "ORT", "ncnn", "MNN", "ncnn defaults",
                          "MACE / ORT"])
        self.assertIn("50.0 (+30.0)", memory[2])
        self.assertIn("failed: pnnx failed", memory[3])

    def test_memory_ratio_is_mace_over_ort(self):
        runs = [make_run("mace", 6.0, peak_rss_mib=30.0), make_run("ort", 4.0, peak_rss_mib=60.0),
                make_run("mace", 2.0, threads=2, peak_rss_mib=45.0),
                EngineRun(model="m", engine="ort", threads=2, error="load failed")]
        info = make_info(engines=["mace", "ort"])
        table = report.memory_table(info, runs).splitlines()
        self.assertEqual([c.strip() for c in table[2].strip("|").split("|")],
                         ["m", "1", "30.0 (+10.0)", "60.0 (+40.0)", "0.50x"])
        self.assertEqual([c.strip() for c in table[3].strip("|").split("|")],
                         ["m", "2", "45.0 (+25.0)", "failed: load failed", "-"])
        # Without ORT there is nothing to divide by, and no column.
        self.assertNotIn("MACE / ORT", report.memory_table(make_info(engines=["mace"]), runs))

    def test_a_failed_cell_gives_a_short_reason(self):
        run = EngineRun(model="m", engine="ncnn", threads=1,
                        error="pnnx failed (Unsupported op Einsum | x); log: /w/convert.log")
        self.assertEqual(report.latency_cell(run), "failed: pnnx failed (Unsupported op "
                                                   "Einsum \\| x)")
        run.error = "x" * 200
        cell = report.latency_cell(run)
        self.assertTrue(cell.endswith("..."))
        self.assertEqual(len(cell), len("failed: ") + report.CELL_REASON_CHARS)
        run.error = ""
        self.assertEqual(report.latency_cell(run), "failed: no reason recorded")

    def test_transformers_get_their_own_latency_section(self):
        runs = [make_run("mace", 6.0, model="resnet18"), make_run("ort", 4.0, model="resnet18"),
                make_run("mace", 9.0, model="bert_torch"), make_run("ort", 3.0, model="bert_torch")]
        info = make_info(models=["resnet18", "bert_torch"], engines=["mace", "ort"],
                         threads=[1])
        self.assertEqual(report.model_groups(info.models),
                         [("cnn", ["resnet18"]), ("transformers", ["bert_torch"])])
        text = report.markdown(info, runs)
        cnn, _, rest = text.partition("## Transformers: latency")
        self.assertIn("## Latency (median ms", cnn)
        self.assertIn("| resnet18 ", cnn.split("## Latency (median ms")[1])
        self.assertNotIn("| bert_torch ", cnn.split("## Latency (median ms")[1])
        transformers = rest.split("##")[0]
        row = next(line for line in transformers.splitlines() if line.startswith("| bert"))
        self.assertEqual([c.strip() for c in row.strip("|").split("|")],
                         ["bert_torch", "1", "9.00", "3.00", "ORT", "3.00x"])
        self.assertIn("MACE / fastest peer, geometric mean: 1 thread: 3.00x over 1 model.",
                      transformers)
        self.assertIn("same inputs (floats uniform in [-1, 1), integer inputs as the Notes "
                      "say; one generator per model, seed 7)", text)
        # A run of CNNs only has no transformer section.
        cnn_only = report.markdown(make_info(), sample_runs())
        self.assertNotIn("Transformers", cnn_only)
        self.assertIn("same input (uniform in [-1, 1), seed 7)", cnn_only)
        # A model of no group goes with the CNNs.
        self.assertEqual(report.model_groups(["m", "vit_tiny"]),
                         [("cnn", ["m"]), ("transformers", ["vit_tiny"])])

    def test_table_alignment(self):
        table = report.markdown_table(["name", "n", "who"], [["a", "10", "x"]], "lrl")
        self.assertEqual(table.splitlines(), ["| name |   n | who |",
                                              "| ---- | --: | --- |",
                                              "| a    |  10 | x   |"])

    def test_markdown_has_the_header_the_tables_and_the_problems(self):
        profiles = {"m": [report.OpShare("Conv2D", 3, 4.5, 0.75),
                          report.OpShare("Pooling", 1, 1.5, 0.25)]}
        text = report.markdown(make_info(notes=["a note"]), sample_runs(), profiles)
        for fragment in ("# MACE and its peers", "`tools/peer_bench.py --rounds 5`",
                         "Test CPU, 2 cores (avx2, fma)", "1.00 / 0.50 / 0.25 at the start",
                         "seed 7", "onnxruntime 1.20.1", "## Latency", "## Init time",
                         "## Peak memory", "the run took 1 min 30 s",
                         "- m: Conv2D 75% (3 ops, 4.50 ms), Pooling 25%", "- a note",
                         "## Problems", "ncnn: pnnx failed", "MNN: cosine 0.5",
                         "## Every run"):
            self.assertIn(fragment, text)

    def test_a_loaded_host_is_named_in_the_load_line(self):
        quiet = report.markdown(make_info(), sample_runs())
        self.assertIn("1.00 / 0.50 / 0.25 at the start, 2.00 / 1.00 / 0.50 at the end\n",
                      quiet)
        for start, end in (((2.5, 1.0, 1.0), (1.0, 1.0, 1.0)),
                           ((1.0, 1.0, 1.0), (18.0, 15.0, 9.0))):
            with self.subTest(start=start, end=end):
                loaded = report.markdown(make_info(load_start=start, load_end=end),
                                         sample_runs())
                self.assertIn("at the end; more runnable tasks than the 2 cores", loaded)
        self.assertEqual(report.load_warning(make_info(load_end=(2.0, 9.0, 9.0))), "")

    def test_json_holds_every_run(self):
        document = json.loads(report.json_text(make_info(), sample_runs()))
        self.assertEqual(len(document["runs"]), 10)
        self.assertEqual(document["info"]["seed"], 7)

    def test_number_formats(self):
        self.assertEqual(report.fmt_ms(123.456), "123.5")
        self.assertEqual(report.fmt_ms(1.234), "1.23")
        self.assertEqual(report.fmt_ms(None), "-")
        self.assertEqual(report.fmt_ratio(0.5), "0.50x")


class Int8PrepareTest(unittest.TestCase):
    def test_calibration_set_is_fixed_and_apart_from_the_timed_input(self):
        from mace_converter.api import TensorSpec
        from mace_tools.peer_bench import int8
        spec = TensorSpec("input", [1, 3, 4, 4], (-1.0, 1.0))
        first, again = int8.calibration_set(spec, 7), int8.calibration_set(spec, 7)
        self.assertEqual(len(first), int8.CALIBRATION_COUNT)
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b)
        timed = np.random.default_rng(7).uniform(-1.0, 1.0, size=spec.shape)
        self.assertFalse(any(np.allclose(a, timed) for a in first))
        self.assertTrue(all(a.dtype == np.float32 and a.min() >= -1 and a.max() < 1
                            for a in first))

    def test_uint8_deployment_file(self):
        import tempfile
        from mace_converter.config import load_config
        from mace_converter.progress import REPO
        from mace_tools.peer_bench import int8
        config = load_config(REPO / "models" / "mobilenet_v2.yml")
        model = config.models["mobilenet_v2"]
        with tempfile.TemporaryDirectory() as tmp:
            calibration = Path(tmp) / "calibration"
            path = int8.uint8_deployment(config, model, REPO / "build/zoo/mobilenet_v2.onnx",
                                         calibration, Path(tmp) / "u8" / "m.yml")
            derived = load_config(path)
        self.assertEqual(derived.library_name, "mobilenet_v2_peer_uint8")
        twin = derived.models["mobilenet_v2"]
        self.assertEqual(twin.data_type, "uint8")
        self.assertEqual(twin.quantize.calibration_inputs, [str(calibration.resolve())])
        self.assertEqual(twin.quantize.range_method, "minmax")
        self.assertEqual([s.shape for s in twin.inputs], [s.shape for s in model.inputs])


class OrtQdqTest(unittest.TestCase):
    def test_float_op_types_leave_the_registry(self):
        from mace_tools.peer_bench import int8
        registry = {"Conv": 1, "Softmax": 2, "Gemm": 3, "Add": 4}
        self.assertEqual(int8.quantized_op_types(registry, int8.FLOAT_OP_TYPES),
                         ["Add", "Conv", "Gemm"])
        self.assertEqual(int8.quantized_op_types(registry, ()), ["Add", "Conv", "Gemm",
                                                                  "Softmax"])

    def test_softmax_stays_float_in_the_qdq_model(self):
        import tempfile
        import onnx
        from onnx import TensorProto, helper, numpy_helper
        from mace_tools.peer_bench import int8
        weights = np.random.default_rng(1).normal(size=(4, 6)).astype(np.float32)
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm"),
             helper.make_node("Softmax", ["y"], ["z"], name="sm", axis=-1)],
            "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
            [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 6])],
            [numpy_helper.from_array(weights, "w")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        feeds = [{"x": np.random.default_rng(i).uniform(-1, 1, (1, 4)).astype(np.float32)}
                 for i in range(4)]
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "m.onnx"
            onnx.save(model, str(source))
            for float_ops, quantized in (((), True), (int8.FLOAT_OP_TYPES, False)):
                target = Path(tmp) / f"q{len(float_ops)}.onnx"
                with contextlib.redirect_stderr(io.StringIO()):
                    int8.quantize_qdq(source, target, iter(feeds), float_ops)
                nodes = onnx.load(str(target)).graph.node
                producer = {out: node.op_type for node in nodes for out in node.output}
                with self.subTest(float_ops=float_ops):
                    # A quantized Softmax output comes from a DequantizeLinear.
                    self.assertEqual(producer["z"] == "DequantizeLinear", quantized)
                    self.assertIn("QuantizeLinear", producer.values())


class MnnCalibrationTest(unittest.TestCase):
    """The shared calibration set as the 8-bit images mnnquant reads."""

    def test_pixel_mapping_sends_the_range_ends_to_0_and_255(self):
        from mace_tools.peer_bench import int8
        for low, high in ((-1.0, 1.0), (0.0, 1.0), (0.0, 255.0), (-2.5, 0.5)):
            mean, normal = int8.pixel_mapping((low, high))
            self.assertAlmostEqual((0 - mean) * normal, low, places=9)
            self.assertAlmostEqual((255 - mean) * normal, high, places=9)
        with self.assertRaisesRegex(ValueError, "empty"):
            int8.pixel_mapping((1.0, 1.0))

    def test_pixels_are_within_half_a_level_and_rgb_ordered(self):
        from mace_tools.peer_bench import int8
        sample = np.random.default_rng(3).uniform(-1, 1, size=(1, 3, 5, 7)).astype(np.float32)
        sample[0, 0, 0, 0], sample[0, 2, 4, 6] = -1.0, 1.0
        pixels = int8.to_pixels(sample, (-1.0, 1.0))
        self.assertEqual((pixels.shape, pixels.dtype), ((5, 7, 3), np.uint8))
        self.assertEqual((pixels[0, 0, 0], pixels[4, 6, 2]), (0, 255))
        mean, normal = int8.pixel_mapping((-1.0, 1.0))
        back = (pixels.astype(np.float64) - mean) * normal
        error = np.abs(back - sample[0].transpose(1, 2, 0))
        self.assertLessEqual(error.max(), normal / 2 + 1e-6)
        for shape in ((3, 5, 7), (2, 3, 5, 7), (1, 4, 5, 7)):
            with self.subTest(shape=shape), self.assertRaisesRegex(ValueError, "NCHW"):
                int8.to_pixels(np.zeros(shape, np.float32), (-1.0, 1.0))

    def test_png_holds_the_pixels(self):
        import struct
        import zlib
        from mace_tools.peer_bench import int8
        for channels, color in ((3, 2), (1, 0)):
            image = np.random.default_rng(channels).integers(0, 256, (4, 6, channels),
                                                             dtype=np.uint8)
            data = int8.png_bytes(image)
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
            chunks, offset = {}, 8
            while offset < len(data):
                length, = struct.unpack(">I", data[offset:offset + 4])
                kind = data[offset + 4:offset + 8]
                body = data[offset + 8:offset + 8 + length]
                crc, = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])
                self.assertEqual(crc, zlib.crc32(kind + body) & 0xFFFFFFFF)
                chunks[kind] = body
                offset += 12 + length
            self.assertEqual(struct.unpack(">IIBBBBB", chunks[b"IHDR"]), (6, 4, 8, color, 0, 0, 0))
            self.assertIn(b"IEND", chunks)
            rows = zlib.decompress(chunks[b"IDAT"])
            stride = 1 + 6 * channels
            self.assertEqual(len(rows), 4 * stride)
            self.assertTrue(all(rows[y * stride] == 0 for y in range(4)))   # filter: none
            decoded = np.frombuffer(b"".join(rows[y * stride + 1:(y + 1) * stride]
                                             for y in range(4)), np.uint8)
            np.testing.assert_array_equal(decoded.reshape(image.shape), image)
        with self.assertRaises(ValueError):
            int8.png_bytes(np.zeros((2, 2, 4), np.uint8))

    def test_mnnquant_configuration(self):
        import tempfile
        from mace_converter.api import TensorSpec
        from mace_tools.peer_bench import int8
        spec = TensorSpec("input", [1, 3, 8, 6], (-1.0, 1.0))
        with tempfile.TemporaryDirectory() as tmp:
            images = int8.write_calibration_images(int8.calibration_set(spec, 7),
                                                   spec.value_range, Path(tmp) / "img")
            self.assertEqual(sorted(p.name for p in images.iterdir()),
                             [f"{i:03d}.png" for i in range(int8.CALIBRATION_COUNT)])
            path = int8.write_mnnquant_config(Path(tmp) / "q.json", images, spec, 8)
            config = json.loads(path.read_text())
        self.assertEqual((config["format"], config["width"], config["height"]), ("RGB", 6, 8))
        self.assertEqual(config["used_image_num"], 8)
        self.assertEqual(config["feature_quantize_method"], "KL")
        self.assertEqual(int8.mnnquant_config(images, spec, 8, "EMA")["feature_quantize_method"],
                         "EMA")
        self.assertAlmostEqual(config["mean"][2], 127.5)
        self.assertAlmostEqual(config["normal"][0], 2 / 255)
        self.assertTrue(config["path"].endswith("img/"))
        gray = int8.mnnquant_config(Path("x"), TensorSpec("g", [1, 1, 4, 4], (0.0, 1.0)), 2)
        self.assertEqual((gray["format"], gray["mean"], len(gray["normal"])), ("GRAY", [0.0], 1))


class MnnQuantFallbackTest(unittest.TestCase):
    """Which mnnquant method the MNN int8 column ends up with, without MNN:
    the conversion step is replaced by one that fails for chosen methods."""

    def run_prepare(self, failing, directory):
        from unittest import mock
        from mace_converter.api import TensorSpec
        from mace_tools.peer_bench import int8, prepare as prep
        from mace_tools.peer_bench.mace_engine import PrepareError
        calls = []

        def fake_convert(command, out, key, products, what, env=None):
            method = json.loads(Path(command[-1]).read_text())["feature_quantize_method"]
            calls.append(method)
            if method in failing:
                raise PrepareError(f"{what} failed")
            for path in products:
                path.write_bytes(b"model")
            (out / "onnx.sha256").write_text(key + "\n")

        model = SimpleModel([TensorSpec("input", [1, 3, 4, 4], (-1.0, 1.0))])
        prepared = prep.PreparedModel(
            name="m", config=None, model=model, onnx=Path("m.onnx"), input_name="input",
            output_name="output", input_file=Path("in.npy"), directory=directory,
            mnn=directory / "model.mnn",
            inputs=[ModelInput("input", "float32", Path("in.npy"), "input in [-1, 1)")])
        options = parse_args(["--uint8"])
        with mock.patch.object(prep, "_convert", fake_convert):
            try:
                prep._prepare_mnn_int8(prepared, "digest", options, lambda text: None)
            except PrepareError as error:
                return prepared, calls, str(error)
        self.assertEqual(len(list((directory / "mnn_int8" / "images").glob("*.png"))),
                         int8.CALIBRATION_COUNT)
        return prepared, calls, ""

    def test_kl_first_then_ema_then_an_error(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            prepared, calls, error = self.run_prepare(set(), Path(tmp) / "a")
            self.assertEqual((calls, prepared.mnn_int8_method, error), (["KL"], "KL", ""))
            self.assertTrue(prepared.mnn_int8.exists())
            # Cached: nothing runs again, and the method is remembered.
            prepared, calls, _ = self.run_prepare({"KL", "EMA"}, Path(tmp) / "a")
            self.assertEqual((calls, prepared.mnn_int8_method), ([], "KL"))
            prepared, calls, error = self.run_prepare({"KL"}, Path(tmp) / "b")
            self.assertEqual((calls, prepared.mnn_int8_method, error),
                             (["KL", "EMA"], "EMA", ""))
            prepared, calls, error = self.run_prepare({"KL", "EMA"}, Path(tmp) / "c")
            self.assertEqual((calls, prepared.mnn_int8, prepared.mnn_int8_method),
                             (["KL", "EMA"], None, None))
            self.assertEqual(error, "mnnquant (KL) failed; mnnquant (EMA) failed")


class SimpleModel:
    def __init__(self, inputs):
        self.inputs = inputs


class MaceOutputTest(unittest.TestCase):
    def test_op_shares_sum_the_per_op_table_by_type(self):
        stdout = "\n".join([
            "runs: 10  min 1.000 ms  median 1.100 ms  max 1.500 ms", "",
            "   #  type                   name                              median ms   share"
            "         MACs  output shape",
            "   0  Conv2D                 conv_0                               0.6000  60.00%"
            "      1000000  [1,8,4,4]",
            "   1  Pooling                pool                                 0.1000  10.00%"
            "            0  [1,8,2,2]",
            "   2  Conv2D                 conv_1                               0.3000  30.00%"
            "       500000  [1,8,2,2]",
            "sum of op medians: 1.000 ms"])
        shares = op_shares(stdout)
        self.assertEqual([(s.op_type, s.count) for s in shares], [("Conv2D", 2), ("Pooling", 1)])
        self.assertAlmostEqual(shares[0].share, 0.9)
        self.assertEqual(op_shares("no table"), [])


def benchmark_entry(isa, flops, aggregate="median", error=False):
    name = f"BM_FmaPeak/{isa}/1"
    entry = {"name": f"{name}_{aggregate}" if aggregate else name, "run_name": name,
             "run_type": "aggregate" if aggregate else "iteration", "repetitions": 5,
             "FLOP/s": flops}
    if aggregate:
        entry["aggregate_name"] = aggregate
    if error:
        entry.update(error_occurred=True, error_message="this CPU lacks these kernels")
    return entry


class FmaPeakTest(unittest.TestCase):
    def parse(self, *entries):
        return peak.parse(json.dumps({"context": {}, "benchmarks": list(entries)}))

    def test_the_widest_isa_median_is_the_peak(self):
        found = self.parse(benchmark_entry("avx2", 90e9), benchmark_entry("avx2", 80e9, "mean"),
                           benchmark_entry("avx512", 180e9, "mean"),
                           benchmark_entry("avx512", 188.4e9),
                           benchmark_entry("avx512", 2e9, "stddev"))
        self.assertEqual(found.benchmark, "BM_FmaPeak/avx512/1")
        self.assertAlmostEqual(found.gflops, 188.4)
        self.assertEqual(found.repetitions, 5)

    def test_a_skipped_isa_falls_back_to_the_next(self):
        found = self.parse(benchmark_entry("avx512", 0, error=True),
                           benchmark_entry("avx2", 95e9))
        self.assertEqual(found.benchmark, "BM_FmaPeak/avx2/1")
        self.assertAlmostEqual(found.gflops, 95.0)

    def test_single_runs_and_other_thread_counts(self):
        single = self.parse(benchmark_entry("neon", 30e9, aggregate=None))
        self.assertEqual((single.benchmark, single.repetitions), ("BM_FmaPeak/neon/1", 1))
        two = dict(benchmark_entry("avx512", 300e9), run_name="BM_FmaPeak/avx512/2/real_time")
        self.assertIsNone(self.parse(two))
        self.assertIsNone(self.parse(benchmark_entry("avx512", 0, error=True)))
        with self.assertRaises(ValueError):
            peak.parse("not json")

    def test_command_asks_for_json_aggregates(self):
        argv = peak.command(Path("/b/cpu_gemm_benchmark"), repetitions=3)
        self.assertEqual(argv[0], "/b/cpu_gemm_benchmark")
        self.assertIn("--benchmark_format=json", argv)
        self.assertIn("--benchmark_repetitions=3", argv)
        self.assertIn(f"--benchmark_filter={peak.FILTER}", argv)

    def test_node_multiply_adds(self):
        # 3x3 conv, 32 -> 64 channels, 112x112 out: 64*112*112 outputs of 32*9 each.
        self.assertEqual(peak.node_multiply_adds("Conv", [64, 32, 3, 3], [1, 64, 112, 112], {}),
                         64 * 112 * 112 * 32 * 9)
        # Depthwise: the weight's second dimension is 1.
        self.assertEqual(peak.node_multiply_adds("Conv", [32, 1, 3, 3], [1, 32, 56, 56], {}),
                         32 * 56 * 56 * 9)
        self.assertEqual(peak.node_multiply_adds("Gemm", [1000, 1024], [1, 1000],
                                                 {"transB": 1}), 1024 * 1000)
        self.assertEqual(peak.node_multiply_adds("Gemm", [1024, 10], [2, 10], {"transA": 1}),
                         2 * 10 * 1024)
        self.assertEqual(peak.node_multiply_adds("MatMul", [4, 5], [2, 3, 5], {}),
                         2 * 3 * 5 * 4)
        self.assertEqual(peak.node_multiply_adds("MatMul", [7, 4, 5], [7, 3, 5], {}),
                         7 * 3 * 5 * 4)

    def test_model_multiply_adds_use_shape_inference(self):
        import tempfile
        import onnx
        from onnx import TensorProto, helper, numpy_helper
        weights = [numpy_helper.from_array(np.zeros(shape, np.float32), name)
                   for name, shape in (("w", [8, 3, 3, 3]), ("d", [8, 1, 3, 3]),
                                       ("f", [10, 8]))]
        weights += [numpy_helper.from_array(np.array(v, np.int64), name)
                    for name, v in (("z", [0]), ("o", [1]), ("m1", [-1]))]
        nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
                 helper.make_node("Conv", ["c", "d"], ["e"], group=8, pads=[1, 1, 1, 1]),
                 helper.make_node("GlobalAveragePool", ["e"], ["g"]),
                 helper.make_node("Shape", ["g"], ["s"]),
                 helper.make_node("Slice", ["s", "z", "o"], ["t"]),
                 helper.make_node("Concat", ["t", "m1"], ["u"], axis=0),
                 helper.make_node("Reshape", ["g", "u"], ["h"]),
                 helper.make_node("Gemm", ["h", "f"], ["y"], transB=1)]
        graph = helper.make_graph(
            nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 9, 9])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], weights)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "tiny.onnx"
            onnx.save(model, str(path))
            # 9x9 stride 2 pad 1 -> 5x5.
            self.assertEqual(peak.multiply_adds(path), 8 * 25 * 27 + 8 * 25 * 9 + 80)

    def test_report_gives_gflops_and_share_of_the_peak(self):
        info = make_info(multiply_adds={"m": 569_000_000},
                         fma_peak=peak.FmaPeak("BM_FmaPeak/avx512/1", 188.4, 5))
        runs = sample_runs()
        lines = report.peak_summary(info, runs)
        self.assertEqual(lines[0], "FMA peak (BM_FmaPeak/avx512/1, one core, CPU time, "
                                   "median of 5): 188.4 GFLOP/s.")
        # 1.138 GFLOP in 6 ms: 189.7 GFLOP/s, 101 % of 188.4.
        self.assertEqual(lines[1], "m at 1 thread: 6.00 ms, 189.7 GFLOP/s, 101 % of the FMA "
                                   "peak.")
        # The op profile's medians add up to 7.6 ms: 149.7 GFLOP/s, 79 %.
        profiles = {"m": [report.OpShare("Conv2D", 3, 7.0, 0.92),
                          report.OpShare("Softmax", 1, 0.6, 0.08)]}
        self.assertEqual(report.peak_summary(info, runs, profiles)[1],
                         "m at 1 thread: 6.00 ms, 189.7 GFLOP/s, 101 % of the FMA peak (sum "
                         "of op medians 7.60 ms: 79 %).")
        section = "\n".join(report.peak_section(info, runs, profiles))
        self.assertIn("| m     |             569 |               6.00 |   189.7 |", section)
        self.assertIn("|                   7.60 |        79 % |", section)
        unprofiled = "\n".join(report.peak_section(info, runs))
        self.assertIn("|                      - |           - |", unprofiled)
        self.assertIn("## MACE against the FMA peak (1 thread)", report.markdown(info, runs))
        self.assertIn('"gflops": 188.4', report.json_text(info, runs))
        # A model without a count or a one-thread MACE run has no row.
        self.assertEqual(report.peak_rows(make_info(fma_peak=info.fma_peak), runs), [])

    def test_report_without_a_peak_says_why(self):
        info = make_info(peak_error="could not build")
        self.assertEqual(report.peak_summary(info, sample_runs()),
                         ["FMA peak: not measured (could not build)."])
        self.assertIn("The FMA peak was not measured: could not build.",
                      report.peak_section(info, sample_runs()))
        self.assertEqual(report.peak_summary(make_info(threads=[2]), sample_runs()), [])
        self.assertFalse(parse_args(["--no-fma-peak"]).fma_peak)
        self.assertTrue(parse_args([]).fma_peak)


class ExplicitSplitTest(unittest.TestCase):
    def make_model(self):
        from onnx import TensorProto, helper
        nodes = [helper.make_node("Relu", ["x"], ["r"]),
                 helper.make_node("Split", ["r"], ["a", "b"], name="even", axis=1),
                 helper.make_node("Concat", ["b", "a"], ["y"], axis=1)]
        graph = helper.make_graph(
            nodes, "splits", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6, 2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 2])])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])

    def test_even_splits_get_sizes_and_compute_the_same(self):
        import onnxruntime as ort
        from onnx import numpy_helper
        model = self.make_model()
        image = np.random.default_rng(3).standard_normal((1, 6, 2)).astype(np.float32)
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        before = session.run(None, {"x": image})[0]
        self.assertEqual(len(onnx_split.implicit_splits(model)), 1)
        self.assertEqual(onnx_split.make_explicit(model, image), 1)
        self.assertEqual(onnx_split.implicit_splits(model), [])
        sizes = {t.name: numpy_helper.to_array(t).tolist() for t in model.graph.initializer}
        self.assertEqual(list(sizes.values()), [[3, 3]])
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        np.testing.assert_array_equal(session.run(None, {"x": image})[0], before)
        self.assertEqual(onnx_split.make_explicit(model, image), 0)


class ChildTest(unittest.TestCase):
    def test_peak_rss_is_the_childs_own(self):
        # Not floored at this process's size (which wait4's ru_maxrss would be).
        ballast = bytearray(96 << 20)
        ballast[::4096] = b"x" * len(ballast[::4096])
        grow = ("import time; b = bytearray(64 << 20); b[::4096] = b'x' * len(b[::4096]); "
                "del b; time.sleep(0.3)")
        big = run_child([sys.executable, "-c", grow], timeout=60)
        small = run_child([sys.executable, "-S", "-c", "import time; time.sleep(0.3)"],
                          timeout=60)
        self.assertEqual(big.returncode, 0, big.stderr)
        self.assertGreater(big.peak_rss_kib, 64 << 10)
        self.assertGreater(small.peak_rss_kib, 0)
        self.assertLess(small.peak_rss_kib, 48 << 10)
        del ballast

    def test_failure_and_timeout_give_one_line(self):
        failed = run_child([sys.executable, "-c", "import sys; sys.exit('error: no model')"],
                           timeout=60)
        self.assertEqual((failed.returncode, failed.last_line()), (1, "error: no model"))
        slow = run_child([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
        self.assertTrue(slow.timed_out)
        self.assertLess(slow.wall_s, 20)
        self.assertEqual(slow.last_line(), "timed out")


class LiteRTTest(unittest.TestCase):
    def test_inputs_go_channels_last_and_outputs_come_back(self):
        from mace_tools.peer_bench import litert
        image = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
        moved = litert.channels_last(image)
        self.assertEqual(moved.shape, (2, 4, 5, 3))
        self.assertEqual(moved[1, 2, 3, 0], image[1, 0, 2, 3])
        ids = np.arange(6).reshape(1, 6)
        self.assertIs(litert.channels_last(ids), ids)
        self.assertEqual(litert.channels_last(np.zeros((1, 80, 30))).shape, (1, 30, 80))
        back = litert.to_onnx_layout(moved, [2, 3, 4, 5])
        np.testing.assert_array_equal(back, image)
        same = np.zeros((1, 1000), np.float32)
        self.assertIs(litert.to_onnx_layout(same, [1, 1000]), same)
        with self.assertRaisesRegex(ValueError, r"\[2, 4, 5, 3\] is not the ONNX output's"):
            litert.to_onnx_layout(moved, [2, 5, 4, 3])

    def test_inputs_are_ordered_by_their_index(self):
        from mace_tools.peer_bench import litert
        names = ["inputs_10", "inputs_2", "inputs_0:0"]
        self.assertEqual(sorted(names, key=litert.input_position),
                         ["inputs_0:0", "inputs_2", "inputs_10"])

    def test_the_source_has_folded_shape_arithmetic_and_inferred_shapes(self):
        import tempfile
        import onnx
        from onnx import TensorProto, helper
        from mace_tools.peer_bench import litert
        # A channel shuffle whose Reshape target comes from Shape, as exporters
        # write it: onnx2tf needs the target as a constant.
        nodes = [
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Gather", ["s", "i"], ["hw"], axis=0),
            helper.make_node("Concat", ["lead", "hw"], ["target"], axis=0),
            helper.make_node("Reshape", ["x", "target"], ["r"]),
            helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3, 4]),
            helper.make_node("Reshape", ["t", "flat"], ["y"]),
        ]
        graph = helper.make_graph(
            nodes, "shuffle",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 3, 5])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 3, 5])],
            [helper.make_tensor("i", TensorProto.INT64, [2], [2, 3]),
             helper.make_tensor("lead", TensorProto.INT64, [3], [1, 2, 2]),
             helper.make_tensor("flat", TensorProto.INT64, [4], [1, 4, 3, 5])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "in.onnx"
            onnx.save(model, str(source))
            before = source.read_bytes()
            written = onnx.load(str(litert.write_source(source, Path(tmp))))
            self.assertEqual(source.read_bytes(), before)
        kinds = [node.op_type for node in written.graph.node]
        self.assertNotIn("Shape", kinds)
        self.assertEqual(kinds.count("Reshape"), 2)
        shapes = {info.name for info in written.graph.value_info}
        self.assertIn("r", shapes)


if __name__ == "__main__":
    unittest.main()
