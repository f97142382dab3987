"""One engine's numbers for one model and thread count, and how repeated
processes of the same cell combine."""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Optional, Sequence

from mace_tools.peer_bench.stats import median

OK = "ok"                 # ran, output agrees with the reference
FAILED = "failed"         # did not run (conversion, load or run error)
WRONG = "wrong output"    # ran, output disagrees with the reference
UNCHECKED = "unchecked"   # ran, but there was no reference to compare with


@dataclass
class EngineRun:
    model: str
    engine: str
    threads: int
    status: str = FAILED
    error: str = ""
    init_ms: Optional[float] = None
    first_run_ms: Optional[float] = None
    median_ms: Optional[float] = None
    min_ms: Optional[float] = None
    max_ms: Optional[float] = None
    rounds: int = 0
    processes: int = 1
    peak_rss_mib: Optional[float] = None
    # The process before it loads the model (interpreter, engine library).
    base_rss_mib: Optional[float] = None
    cosine: Optional[float] = None

    @property
    def timed(self) -> bool:
        """Whether the latency may be quoted."""
        return self.status in (OK, UNCHECKED) and self.median_ms is not None

    @property
    def rss_growth_mib(self) -> Optional[float]:
        if self.peak_rss_mib is None or self.base_rss_mib is None:
            return None
        return self.peak_rss_mib - self.base_rss_mib

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "EngineRun":
        names = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})


def combine(runs: Sequence[EngineRun]) -> EngineRun:
    """Repeated processes of one cell: medians of the latencies and init
    times, the widest min/max, the highest peak RSS and the worst cosine.
    Any failed or wrong process makes the cell fail, with its message."""
    if not runs:
        raise ValueError("nothing to combine")
    first = runs[0]
    if len(runs) == 1:
        return first
    for run in runs:
        if (run.model, run.engine, run.threads) != (first.model, first.engine, first.threads):
            raise ValueError("runs of different cells")
    bad = [run for run in runs if run.status in (FAILED, WRONG)]
    if bad:
        worst = bad[0]
        return EngineRun(**{**asdict(worst), "processes": len(runs)})
    timed = [run for run in runs if run.median_ms is not None]

    def med(name: str) -> Optional[float]:
        values = [getattr(run, name) for run in runs if getattr(run, name) is not None]
        return median(values) if values else None

    def extreme(name: str, pick) -> Optional[float]:
        values = [getattr(run, name) for run in runs if getattr(run, name) is not None]
        return pick(values) if values else None

    return EngineRun(
        model=first.model, engine=first.engine, threads=first.threads,
        status=UNCHECKED if any(run.status == UNCHECKED for run in runs) else OK,
        init_ms=med("init_ms"), first_run_ms=med("first_run_ms"),
        median_ms=med("median_ms"), min_ms=extreme("min_ms", min),
        max_ms=extreme("max_ms", max), rounds=sum(run.rounds for run in timed),
        processes=len(runs), peak_rss_mib=extreme("peak_rss_mib", max),
        base_rss_mib=med("base_rss_mib"), cosine=extreme("cosine", min))
