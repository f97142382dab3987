"""peer_bench --avx2-cap: every engine process (mace_run, the peers' Python
workers, the reference and the FMA peak benchmark) runs with its cpuid
answered as on an AVX2-only host (mace_tools.avx2_cap), so each engine picks
the kernels it would pick there, on this core, in the same run.

Each capped process reports how many cpuid instructions the cap answered; a
process that asked none chose its kernels some other way, and its run fails
rather than pass as an AVX2 number."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

from mace_tools import avx2_cap
from mace_tools.peer_bench.children import ChildResult

# The top-level modules each worker engine imports for its kernels.
ENGINE_MODULES = {
    "ort": ("onnxruntime",),
    "ncnn": ("ncnn",),
    "mnn": ("MNN", "_mnncengine"),
    "litert": ("ai_edge_litert",),
}
# Worker engines that run another one's package.
ENGINE_PACKAGES = {"reference": "ort", "ort_qdq": "ort", "ort_dq": "ort",
                   "ncnn_default": "ncnn", "mnn_int8": "mnn"}
REPORT_LINE = re.compile(r"^avx2_cap: (\d+) cpuid emulated$", re.MULTILINE)
# The ISA flags /proc/cpuinfo lists that the cap hides.
HIDDEN_FLAG_PREFIXES = ("avx512", "avx_vnni", "avx10", "amx", "avx_ifma", "avx_ne_convert")


@dataclass
class Cap:
    library: Path
    site: Path
    work: Path
    rewritten: int                        # cpuid instructions in the mirrored modules
    runners: dict[Path, tuple[Path, int]] = field(default_factory=dict)

    def binary(self, path: Path) -> Path:
        """A rewritten copy of an executable (made once per path)."""
        if path not in self.runners:
            target = self.work / "bin" / avx2_cap.source_key(path) / path.name
            self.runners[path] = (target, avx2_cap.capped_copy(path, target))
        return self.runners[path][0]

    @staticmethod
    def answered(stderr: str) -> int:
        return answered(stderr) or 0

    def environment(self, env: Optional[dict[str, str]] = None) -> dict[str, str]:
        found = avx2_cap.preload_environment(self.library, self.site, env)
        found[avx2_cap.REPORT_VARIABLE] = "1"
        return found


def modules_for(engines: Iterable[str]) -> list[str]:
    """The packages to mirror for these engines; onnxruntime always (the
    reference output)."""
    keys = {"ort"} | {ENGINE_PACKAGES.get(engine, engine) for engine in engines}
    return [module for key in ENGINE_MODULES if key in keys for module in ENGINE_MODULES[key]]


def prepare_cap(engines: Iterable[str], work: Path, log: Callable[[str], None]) -> Cap:
    """Builds the preload library and mirrors the engines' packages."""
    library = avx2_cap.build_library(work)
    modules = modules_for(engines)
    site, rewritten = avx2_cap.mirror_modules(modules, work)
    log(f"    avx2 cap: {rewritten} cpuid instruction(s) rewritten in "
        f"{', '.join(modules)}")
    return Cap(library=library, site=site, work=work, rewritten=rewritten)


def answered(stderr: str) -> Optional[int]:
    """How many cpuid the cap answered, from a process's stderr (None when
    it printed no count, e.g. when it was killed)."""
    matches = REPORT_LINE.findall(stderr)
    return int(matches[-1]) if matches else None


def emulated(result: ChildResult) -> tuple[ChildResult, Optional[int]]:
    """The result without the cap's report line, and the count it gave."""
    count = answered(result.stderr)
    if count is None:
        return result, None
    return dataclasses.replace(result, stderr=REPORT_LINE.sub("", result.stderr)), count


def check_emulated(result: ChildResult, what: str) -> tuple[ChildResult, str]:
    """The result without the report line, and an error when the process
    exited normally but the cap answered no cpuid."""
    stripped, count = emulated(result)
    if result.returncode == 0 and not result.timed_out and not count:
        return stripped, (f"{what} asked the AVX2 cap no cpuid: its kernels were not "
                          "chosen through it")
    return stripped, ""


def visible_flags(flags: Iterable[str]) -> list[str]:
    """The ISA flags a capped process sees."""
    return [flag for flag in flags if not flag.startswith(HIDDEN_FLAG_PREFIXES)]
