"""The markdown report and the JSON of raw numbers. Pure formatting: no
engine, no subprocess."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Optional, Sequence

from mace_tools.peer_bench.options import (COSINE_THRESHOLD, ENGINES, INT8_PEERS,
                                           MODEL_GROUPS, PEERS, QUANTIZED_ENGINES,
                                           UINT8_COSINE_THRESHOLD)
from mace_tools.peer_bench.peak import FmaPeak
from mace_tools.peer_bench.results import FAILED, UNCHECKED, WRONG, EngineRun
from mace_tools.peer_bench.stats import fastest, geometric_mean, ratio

TITLE = "MACE and its peers on the CPU"
AVX2_CAP_TITLE = ", as an AVX2-only host"
# The longest reason a failed table cell quotes; the Problems section has it whole.
CELL_REASON_CHARS = 100
# Each model group's latency heading; the first is the CNN table's.
GROUP_HEADINGS = {"cnn": "Latency (median ms, lower is better)",
                  "transformers": "Transformers: latency (median ms, lower is better)"}


@dataclass
class OpShare:
    op_type: str
    count: int
    ms: float
    share: float       # of the sum of op medians, 0..1


@dataclass
class RunInfo:
    command: str
    started: str
    duration_s: float
    cpu_model: str
    cores: int
    isa: list[str]
    load_start: tuple[float, float, float]
    load_end: tuple[float, float, float]
    versions: dict[str, str]
    seed: int
    rounds: int
    repeats: int
    models: list[str]
    engines: list[str]
    threads: list[int]
    notes: list[str] = field(default_factory=list)
    fma_peak: Optional[FmaPeak] = None
    peak_error: str = ""
    multiply_adds: dict[str, int] = field(default_factory=dict)
    # Every engine answered cpuid as an AVX2-only host (--avx2-cap).
    avx2_cap: bool = False


def fmt_ms(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if value >= 100 else f"{value:.2f}"


def fmt_ratio(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}x"


def fmt_mib(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1f}"


def fmt_duration(seconds: float) -> str:
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def failure_reason(run: EngineRun) -> str:
    """A failed run's error, short enough for a table cell: without the log
    path, at most CELL_REASON_CHARS, pipes escaped."""
    text = run.error.split("; log: ")[0].strip() or "no reason recorded"
    if len(text) > CELL_REASON_CHARS:
        text = text[:CELL_REASON_CHARS - 3].rstrip() + "..."
    return text.replace("|", "\\|")


def failed_cell(run: Optional[EngineRun]) -> str:
    return "failed" if run is None else f"failed: {failure_reason(run)}"


def latency_cell(run: Optional[EngineRun]) -> str:
    if run is None or run.status == FAILED:
        return failed_cell(run)
    if run.status == WRONG:
        return "wrong output"
    text = fmt_ms(run.median_ms)
    return text + " (unchecked)" if run.status == UNCHECKED else text


def fastest_peer(runs: dict[str, EngineRun],
                 peers: Sequence[str] = PEERS) -> Optional[tuple[str, float]]:
    """The peer (fp32 unless `peers` says otherwise) with the lowest
    quotable median."""
    return fastest({engine: runs[engine].median_ms for engine in peers
                    if engine in runs and runs[engine].timed})


def mace_ratio(runs: dict[str, EngineRun], engine: str = "mace",
               peers: Sequence[str] = PEERS) -> Optional[float]:
    """`engine`'s median over the fastest of `peers`."""
    best = fastest_peer(runs, peers)
    mace = runs.get(engine)
    if best is None or mace is None or not mace.timed:
        return None
    return ratio(mace.median_ms, best[1])


def median_ratio(runs: dict[str, EngineRun], engine: str, other: str) -> Optional[float]:
    """`engine`'s median over `other`'s, both timed in this run."""
    first, second = runs.get(engine), runs.get(other)
    if first is None or second is None or not first.timed or not second.timed:
        return None
    return ratio(first.median_ms, second.median_ms)


def baseline_ratio(runs: dict[str, EngineRun]) -> Optional[float]:
    """MACE's median over the baseline build's, both in this run."""
    return median_ratio(runs, "mace", "mace_base")


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]],
                   align: str = "") -> str:
    """A pipe table. `align` has one letter per column, l or r; missing
    letters mean: the first column left, the others right."""
    align = align.ljust(len(headers), "r") if align else "l" + "r" * (len(headers) - 1)
    widths = [max(3, *(len(str(cell)) for cell in column)) for column in zip(headers, *rows)]
    rule = ["-" * w if a == "l" else "-" * (w - 1) + ":" for w, a in zip(widths, align)]

    def line(cells: Sequence[str]) -> str:
        padded = [str(c).ljust(w) if a == "l" else str(c).rjust(w)
                  for c, w, a in zip(cells, widths, align)]
        return "| " + " | ".join(padded) + " |"

    return "\n".join([line(headers), "| " + " | ".join(rule) + " |"]
                     + [line(row) for row in rows])


def _cells(runs: Sequence[EngineRun]) -> dict[tuple[str, int], dict[str, EngineRun]]:
    table: dict[tuple[str, int], dict[str, EngineRun]] = {}
    for run in runs:
        table.setdefault((run.model, run.threads), {})[run.engine] = run
    return table


def model_groups(models: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The groups of MODEL_GROUPS that `models` draw on, each with its
    chosen models in run order; a model of no group joins the first."""
    groups = {name: [m for m in models if m in members] for name, members in MODEL_GROUPS.items()}
    first = next(iter(MODEL_GROUPS))
    grouped = {m for members in groups.values() for m in members}
    groups[first] = [m for m in models if m in groups[first] or m not in grouped]
    return [(name, chosen) for name, chosen in groups.items() if chosen]


def latency_table(info: RunInfo, runs: Sequence[EngineRun],
                  models: Optional[Sequence[str]] = None) -> str:
    cells = _cells(runs)
    peers = [e for e in info.engines if e in PEERS]
    extras = [e for e in info.engines if e != "mace" and e not in PEERS
              and e not in QUANTIZED_ENGINES]
    headers = ["model", "threads"]
    headers += ["MACE ms"] if "mace" in info.engines else []
    headers += [f"{ENGINES[e]} ms" for e in peers]
    headers += ["fastest peer", "MACE / fastest"] if "mace" in info.engines and peers else []
    headers += [f"{ENGINES[e]} ms" for e in extras]
    align = "lr" + "".join("l" if h == "fastest peer" else "r" for h in headers[2:])
    rows = []
    for model in info.models if models is None else models:
        for threads in info.threads:
            row_runs = cells.get((model, threads), {})
            row = [model, str(threads)]
            if "mace" in info.engines:
                row.append(latency_cell(row_runs.get("mace")))
            row += [latency_cell(row_runs.get(e)) for e in peers]
            if "mace" in info.engines and peers:
                best = fastest_peer(row_runs)
                row.append(ENGINES[best[0]] if best else "-")
                row.append(fmt_ratio(mace_ratio(row_runs)))
            row += [latency_cell(row_runs.get(e)) for e in extras]
            rows.append(row)
    return markdown_table(headers, rows, align)


def ratio_summary(info: RunInfo, runs: Sequence[EngineRun],
                  models: Optional[Sequence[str]] = None) -> list[str]:
    """Per thread count, the geometric mean of MACE / fastest peer (and, with
    a baseline build, of the baseline / fastest peer and MACE / baseline)
    over `models` (default: all of the run's)."""
    if "mace" not in info.engines:
        return []
    cells = _cells(runs)
    peers = any(e in PEERS for e in info.engines)
    measures = []
    if peers:
        measures.append(("MACE / fastest peer", lambda r: mace_ratio(r)))
    if "mace_base" in info.engines:
        if peers:
            measures.append(("MACE baseline / fastest peer",
                             lambda r: mace_ratio(r, "mace_base")))
        measures.append(("MACE / MACE baseline", baseline_ratio))
    return _mean_lines(info, cells, measures, models)


def _mean_lines(info: RunInfo, cells: dict, measures,
                models: Optional[Sequence[str]] = None) -> list[str]:
    """One line per (label, measure): the measure's geometric mean over the
    models, per thread count."""
    lines = []
    for label, measure in measures:
        parts = []
        for threads in info.threads:
            ratios = [measure(cells.get((model, threads), {}))
                      for model in (info.models if models is None else models)]
            mean = geometric_mean(ratios)
            counted = sum(r is not None for r in ratios)
            parts.append(f"{threads} thread{'s' if threads > 1 else ''}: {fmt_ratio(mean)} "
                         f"over {counted} model{'s' if counted != 1 else ''}")
        lines.append(f"{label}, geometric mean: " + "; ".join(parts) + ".")
    return lines


def uint8_ratio(runs: dict[str, EngineRun]) -> Optional[float]:
    """MACE uint8's median over the fastest int8 peer's."""
    return mace_ratio(runs, "mace_u8", INT8_PEERS)


def uint8_over_fp32(runs: dict[str, EngineRun]) -> Optional[float]:
    """MACE uint8's median over MACE fp32's: below 1 means uint8 is faster."""
    return median_ratio(runs, "mace_u8", "mace")


def uint8_table(info: RunInfo, runs: Sequence[EngineRun]) -> str:
    """MACE uint8 against the int8 peers and against MACE fp32."""
    cells = _cells(runs)
    peers = [e for e in INT8_PEERS if e in info.engines]
    headers = ["model", "threads", "MACE fp32 ms", "MACE uint8 ms"]
    headers += [f"{ENGINES[e]} ms" for e in peers]
    headers += ["fastest int8", "MACE uint8 / fastest int8"] if peers else []
    headers += ["MACE uint8 / fp32", "MACE uint8 cosine"]
    rows = []
    for model in info.models:
        for threads in info.threads:
            row_runs = cells.get((model, threads), {})
            quantized = row_runs.get("mace_u8")
            row = [model, str(threads), latency_cell(row_runs.get("mace")),
                   latency_cell(quantized)]
            row += [latency_cell(row_runs.get(e)) for e in peers]
            if peers:
                best = fastest_peer(row_runs, INT8_PEERS)
                row += [ENGINES[best[0]] if best else "-", fmt_ratio(uint8_ratio(row_runs))]
            row.append(fmt_ratio(uint8_over_fp32(row_runs)))
            row.append(cosine_cell(quantized))
            rows.append(row)
    align = "lr" + "".join("l" if h == "fastest int8" else "r" for h in headers[2:])
    return markdown_table(headers, rows, align)


def uint8_summary(info: RunInfo, runs: Sequence[EngineRun]) -> list[str]:
    """Per thread count, geometric means of MACE uint8 / fastest int8 peer
    and of MACE uint8 / MACE fp32."""
    cells = _cells(runs)
    measures = [("MACE uint8 / MACE fp32", uint8_over_fp32)]
    if any(e in info.engines for e in INT8_PEERS):
        measures.insert(0, ("MACE uint8 / fastest int8 peer", uint8_ratio))
    return _mean_lines(info, cells, measures)


def cosine_cell(run: Optional[EngineRun]) -> str:
    return "-" if run is None or run.cosine is None else f"{run.cosine:.4f}"


def dynamic_table(info: RunInfo, runs: Sequence[EngineRun]) -> str:
    """MACE dyn int8 against ORT dyn int8 and against MACE fp32, with each
    dyn int8 engine's cosine against the float reference."""
    cells = _cells(runs)
    ort = "ort_dq" in info.engines
    headers = ["model", "threads", "MACE fp32 ms", "MACE dyn int8 ms"]
    headers += ["ORT dyn int8 ms", "MACE dyn int8 / ORT dyn int8"] if ort else []
    headers += ["MACE dyn int8 / fp32", "MACE dyn int8 cosine"]
    headers += ["ORT dyn int8 cosine"] if ort else []
    rows = []
    for model in info.models:
        for threads in info.threads:
            row_runs = cells.get((model, threads), {})
            row = [model, str(threads), latency_cell(row_runs.get("mace")),
                   latency_cell(row_runs.get("mace_dq"))]
            if ort:
                row += [latency_cell(row_runs.get("ort_dq")),
                        fmt_ratio(median_ratio(row_runs, "mace_dq", "ort_dq"))]
            row += [fmt_ratio(median_ratio(row_runs, "mace_dq", "mace")),
                    cosine_cell(row_runs.get("mace_dq"))]
            row += [cosine_cell(row_runs.get("ort_dq"))] if ort else []
            rows.append(row)
    return markdown_table(headers, rows)


def dynamic_summary(info: RunInfo, runs: Sequence[EngineRun]) -> list[str]:
    """Per thread count, geometric means of MACE dyn int8 / ORT dyn int8 and
    of MACE dyn int8 / MACE fp32."""
    measures = [("MACE dyn int8 / MACE fp32", lambda r: median_ratio(r, "mace_dq", "mace"))]
    if "ort_dq" in info.engines:
        measures.insert(0, ("MACE dyn int8 / ORT dyn int8",
                            lambda r: median_ratio(r, "mace_dq", "ort_dq")))
    return _mean_lines(info, _cells(runs), measures)


def init_table(info: RunInfo, runs: Sequence[EngineRun]) -> str:
    """Init ms per engine."""
    def cell(run: Optional[EngineRun]) -> str:
        return failed_cell(run) if run is None or run.status == FAILED else fmt_ms(run.init_ms)
    return _per_engine_table(info, runs, cell)


def memory_ratio(runs: dict[str, EngineRun]) -> Optional[float]:
    """MACE's peak RSS over onnxruntime's, both having run."""
    mace, ort = runs.get("mace"), runs.get("ort")
    if mace is None or ort is None or FAILED in (mace.status, ort.status):
        return None
    return ratio(mace.peak_rss_mib, ort.peak_rss_mib)


def memory_table(info: RunInfo, runs: Sequence[EngineRun]) -> str:
    """Peak RSS MiB per engine, with the growth over the bare process, and
    MACE / ORT when both ran."""
    def cell(run: Optional[EngineRun]) -> str:
        if run is None or run.status == FAILED:
            return failed_cell(run)
        growth = run.rss_growth_mib
        return fmt_mib(run.peak_rss_mib) + (f" (+{growth:.1f})" if growth is not None else "")
    extra = None
    if "mace" in info.engines and "ort" in info.engines:
        extra = ("MACE / ORT", lambda row: fmt_ratio(memory_ratio(row)))
    return _per_engine_table(info, runs, cell, extra)


def _per_engine_table(info: RunInfo, runs: Sequence[EngineRun], cell, extra=None) -> str:
    """One column per engine; `extra` is (header, function of the row's
    runs by engine) for one more column."""
    cells = _cells(runs)
    headers = ["model", "threads"] + [ENGINES[e] for e in info.engines]
    headers += [extra[0]] if extra else []
    rows = []
    for model in info.models:
        for threads in info.threads:
            row_runs = cells.get((model, threads), {})
            row = [model, str(threads)] + [cell(row_runs.get(e)) for e in info.engines]
            rows.append(row + ([extra[1](row_runs)] if extra else []))
    return markdown_table(headers, rows)


def details_table(runs: Sequence[EngineRun]) -> str:
    headers = ["model", "threads", "engine", "status", "init ms", "first run ms", "min ms",
               "median ms", "max ms", "rounds", "peak RSS MiB", "base RSS MiB", "cosine"]
    rows = []
    for run in runs:
        rows.append([run.model, str(run.threads), ENGINES.get(run.engine, run.engine),
                     run.status, fmt_ms(run.init_ms), fmt_ms(run.first_run_ms),
                     fmt_ms(run.min_ms), fmt_ms(run.median_ms), fmt_ms(run.max_ms),
                     str(run.rounds), fmt_mib(run.peak_rss_mib), fmt_mib(run.base_rss_mib),
                     "-" if run.cosine is None else f"{run.cosine:.6f}"])
    return markdown_table(headers, rows, "lrll")


def op_profile_section(profiles: dict[str, list[OpShare]], top: int = 4) -> list[str]:
    lines = []
    for model, shares in profiles.items():
        if not shares:
            continue
        parts = [f"{s.op_type} {100 * s.share:.0f}% ({s.count} ops, {fmt_ms(s.ms)} ms)"
                 for s in shares[:top]]
        lines.append(f"- {model}: " + ", ".join(parts))
    return lines


def problems(runs: Sequence[EngineRun]) -> list[str]:
    lines = []
    for run in runs:
        if run.status in (FAILED, WRONG) or (run.status == UNCHECKED and run.error):
            label = ENGINES.get(run.engine, run.engine)
            lines.append(f"- {run.model}, {run.threads} thread(s), {label}: "
                         f"{run.error or run.status}")
    return lines


@dataclass
class PeakRow:
    model: str
    ms: float                       # MACE's one-thread median
    gflops: float
    share: Optional[float]          # of the FMA peak
    profile_ms: Optional[float]     # sum of the op profile's medians
    profile_share: Optional[float]


def peak_rows(info: RunInfo, runs: Sequence[EngineRun],
              profiles: Optional[dict[str, list[OpShare]]] = None) -> list[PeakRow]:
    """Per model with a one-thread MACE median and a multiply-add count: its
    GFLOP/s and share of the FMA peak, from the median and, where the model
    was profiled, from the sum of its per-op medians (steadier on a loaded
    host: a preempted op moves its own median, not every op's)."""
    rows = []
    cells = _cells(runs)
    peak = info.fma_peak.gflops if info.fma_peak else None
    for model in info.models:
        run = cells.get((model, 1), {}).get("mace")
        count = info.multiply_adds.get(model)
        if run is None or run.status == FAILED or not run.median_ms or not count:
            continue
        gflops = 2.0 * count / (run.median_ms * 1e6)
        shares = (profiles or {}).get(model)
        profile_ms = sum(share.ms for share in shares) if shares else None
        profile_share = (2.0 * count / (profile_ms * 1e6) / peak
                         if profile_ms and peak else None)
        rows.append(PeakRow(model, run.median_ms, gflops, gflops / peak if peak else None,
                            profile_ms, profile_share))
    return rows


def peak_summary(info: RunInfo, runs: Sequence[EngineRun],
                 profiles: Optional[dict[str, list[OpShare]]] = None) -> list[str]:
    """One line for the peak and one per model: MACE's one-thread speed."""
    if "mace" not in info.engines or 1 not in info.threads:
        return []
    if info.fma_peak is None:
        return [f"FMA peak: not measured ({info.peak_error or 'skipped'})."]
    peak = info.fma_peak
    lines = [f"FMA peak ({peak.benchmark}, one core, CPU time, median of "
             f"{peak.repetitions}): {peak.gflops:.1f} GFLOP/s."]
    for row in peak_rows(info, runs, profiles):
        line = (f"{row.model} at 1 thread: {fmt_ms(row.ms)} ms, {row.gflops:.1f} GFLOP/s, "
                f"{100 * row.share:.0f} % of the FMA peak")
        if row.profile_share is not None:
            line += (f" (sum of op medians {fmt_ms(row.profile_ms)} ms: "
                     f"{100 * row.profile_share:.0f} %)")
        lines.append(line + ".")
    return lines


def peak_section(info: RunInfo, runs: Sequence[EngineRun],
                 profiles: Optional[dict[str, list[OpShare]]] = None) -> list[str]:
    if "mace" not in info.engines or 1 not in info.threads:
        return []
    out = ["## MACE against the FMA peak (1 thread)", ""]
    if info.fma_peak is None:
        return out + [f"The FMA peak was not measured: {info.peak_error or 'skipped'}.", ""]
    peak = info.fma_peak
    out += [f"The peak is `{peak.benchmark}` of `cpu_gemm_benchmark`, run once in this run "
            f"before the engines (independent FMA chains in registers, one core, CPU time, "
            f"median of {peak.repetitions} repetitions): {peak.gflops:.1f} GFLOP/s. A "
            "model's GFLOP/s is 2 x the multiply-adds of its ONNX Conv, Gemm and MatMul "
            "nodes over MACE's one-thread wall-clock median (a Winograd layer does fewer "
            "multiply-adds than counted); the last two columns use the sum of the op "
            "profile's per-op medians instead, which a loaded host moves less.", ""]

    def percent(value: Optional[float]) -> str:
        return "-" if value is None else f"{100 * value:.0f} %"

    rows = [[row.model, f"{info.multiply_adds[row.model] / 1e6:.0f}", fmt_ms(row.ms),
             f"{row.gflops:.1f}", percent(row.share), fmt_ms(row.profile_ms),
             percent(row.profile_share)]
            for row in peak_rows(info, runs, profiles)]
    out += [markdown_table(["Model", "M multiply-adds", "MACE 1 thread (ms)", "GFLOP/s",
                            "of the FMA peak", "sum of op medians (ms)", "of the peak"],
                           rows, align="lrrrrrr"), ""]
    return out


def load_warning(info: RunInfo) -> str:
    """A remark for the load line when the one-minute load average exceeded
    the core count at the start or the end of the run."""
    peak = max(info.load_start[0], info.load_end[0])
    if not info.cores or peak <= info.cores:
        return ""
    return (f"; more runnable tasks than the {info.cores} cores, so the engines shared the "
            "CPU with other work: compare medians and ratios within this run only")


def _load(values: tuple[float, float, float]) -> str:
    return " / ".join(f"{v:.2f}" for v in values)


def _inputs_phrase(info: RunInfo) -> str:
    """What the protocol line says the engines were fed (without the seed)."""
    if any(group != "cnn" for group, _ in model_groups(info.models)):
        return ("inputs (floats uniform in [-1, 1), integer inputs as the Notes say; one "
                "generator per model")
    return "input (uniform in [-1, 1)"


def markdown(info: RunInfo, runs: Sequence[EngineRun],
             profiles: Optional[dict[str, list[OpShare]]] = None) -> str:
    versions = ", ".join(f"{name} {version}" for name, version in info.versions.items())
    out = [
        f"# {TITLE}" + (AVX2_CAP_TITLE if info.avx2_cap else ""), "",
        "Generated by `tools/peer_bench.py` (see [benchmarks](../how-to/benchmark.md)); run it "
        "again rather than editing this file.", "",
        f"- Command: `{info.command}`",
        f"- Date: {info.started}; the run took {fmt_duration(info.duration_s)}",
        f"- Machine: {info.cpu_model}, {info.cores} cores"
        + (f" ({', '.join(info.isa)})" if info.isa else "")
        + ("; AVX-512 hidden from every engine (see the notes)" if info.avx2_cap else ""),
        f"- Load average (1 / 5 / 15 min): {_load(info.load_start)} at the start, "
        f"{_load(info.load_end)} at the end{load_warning(info)}",
        f"- Versions: {versions}",
        f"- Protocol: each engine runs in its own process, one after the other in an order "
        f"that rotates from cell to cell; {info.repeats} process(es) per engine, model and "
        f"thread count; one warm-up run, then {info.rounds} timed runs; the median is "
        f"reported. All engines get the same {_inputs_phrase(info)}, seed {info.seed}) "
        f"and each output is checked against onnxruntime with graph optimizations off "
        f"(cosine > {COSINE_THRESHOLD}).",
        "",
    ]
    for group, models in model_groups(info.models):
        out += [f"## {GROUP_HEADINGS[group]}", "", latency_table(info, runs, models), ""]
        out += ratio_summary(info, runs, models)
        out += [""]
    out += ["MACE / fastest is MACE's median over the fastest fp32 peer's: above 1 "
            "means MACE is slower.", "",
            *_uint8_section(info, runs),
            *_dynamic_section(info, runs),
            *peak_section(info, runs, profiles),
            "## Init time (ms)", "",
            "Init is model load and engine creation (for MACE `CreateMaceEngineFromProto`, "
            "for onnxruntime `InferenceSession`, for ncnn `load_param` + `load_model`, for "
            "MNN `load_module_from_file`); conversion is not included.", "",
            init_table(info, runs), "",
            "## Peak memory (MiB)", "",
            "The process's peak resident set (VmHWM); in brackets, how much of it came "
            "after the engine library was loaded: model, arenas, packed weights. The peers "
            "run inside a Python interpreter, mace_run is a plain binary. MACE / ORT is "
            "MACE's peak over onnxruntime's: below 1 means MACE needs less memory.", "",
            memory_table(info, runs), ""]
    if profiles:
        section = op_profile_section(profiles)
        if section:
            out += ["## Where MACE spends its time (1 thread, op types by share)", ""]
            out += section + [""]
    if info.notes:
        out += ["## Notes", ""] + [f"- {note}" for note in info.notes] + [""]
    issues = problems(runs)
    if issues:
        out += ["## Problems", ""] + issues + [""]
    out += ["## Every run", "", details_table(runs), ""]
    return "\n".join(out)


def _uint8_section(info: RunInfo, runs: Sequence[EngineRun]) -> list[str]:
    if "mace_u8" not in info.engines:
        return []
    return ["## uint8 (median ms, lower is better)", "",
            "MACE uint8 is the zoo model quantized by the converter; the int8 peers run "
            "their own quantization of the same ONNX file, calibrated on the same inputs. "
            f"Outputs are checked against the float reference at cosine > "
            f"{UINT8_COSINE_THRESHOLD}.", "",
            uint8_table(info, runs), "", *uint8_summary(info, runs), "",
            "MACE uint8 / fastest int8 above 1 means MACE uint8 is slower than the fastest "
            "int8 peer; MACE uint8 / fp32 below 1 means uint8 is faster than MACE's own "
            "float run in the same run.", ""]


def _dynamic_section(info: RunInfo, runs: Sequence[EngineRun]) -> list[str]:
    if "mace_dq" not in info.engines:
        return []
    return ["## Dynamic int8 (median ms, lower is better)", "",
            "MACE dyn int8 is the zoo model converted with `dynamic_quantize: 1`; ORT dyn "
            "int8 runs onnxruntime's `quantize_dynamic` model of the same ONNX file. Both "
            "store int8 weights for the linear layers and quantize their inputs at run time "
            "(see the Notes). Outputs are checked against the float reference at cosine > "
            f"{UINT8_COSINE_THRESHOLD}.", "",
            dynamic_table(info, runs), "", *dynamic_summary(info, runs), "",
            "MACE dyn int8 / ORT dyn int8 above 1 means MACE is slower; MACE dyn int8 / fp32 "
            "below 1 means the int8 linear layers are faster than MACE's own float run in "
            "the same run.", ""]


def json_text(info: RunInfo, runs: Sequence[EngineRun],
              profiles: Optional[dict[str, list[OpShare]]] = None) -> str:
    document = {
        "info": asdict(info),
        "runs": [run.to_json() for run in runs],
        "mace_op_profile": {model: [asdict(s) for s in shares]
                            for model, shares in (profiles or {}).items()},
    }
    return json.dumps(document, indent=1) + "\n"
