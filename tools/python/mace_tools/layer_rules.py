"""The kernel layer's structural rules, checked over the source tree:

- the CPU drivers in mace/ops/cpu are ISA-free: no preprocessor test of an
  instruction set, no inline asm, no intrinsics or ISA vector types and no
  calls into the per-ISA namespaces (arm::, x86::); per-ISA code lives in
  mace/ops/arm and mace/ops/x86 and is reached through the kernel configs;
- environment variables are read in few places (debugging overrides only);
- the CPU and OS are asked which instructions exist (cpuid,
  __builtin_cpu_supports, getauxval(AT_HWCAP)) in one place, CpuFeatures
  (mace/runtimes/cpu/cpu_features.cc); the rest reads HostCpuFeatures();
- a function's address is compared with a named function only where that
  only picks a path for that function (FUNCTION_COMPARE_FILES): the shared
  libraries fold identical code (mace/libmace/linkopts.bzl), so two
  functions may share an address, which is harmless only there;
- a file under mace/ops that .bazelrc compiles for size (-Os: the ops'
  front ends) reads no tensor's elements: loops over elements stay at -O2.

    PYTHONPATH=tools/python .venv/bin/python -m mace_tools.layer_rules

prints every violation (file:line: rule: text) and exits 1 when there is one
outside PENDING_ISA_FILES, or when a pending file has become ISA-free (then
drop it from the list).
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
CPU_DRIVERS = "mace/ops/cpu"
SOURCE_SUFFIXES = (".cc", ".h", ".inc")
# The converter's code-mode output (models as C++ sources, git-ignored):
# not the project's code, and not in a fresh clone.
GENERATED = "mace/codegen/generated"

ISA_MACRO = re.compile(
    r"__aarch64__|__ARM_NEON|__arm__|__ARM_ARCH|__ARM_FEATURE|__x86_64__|__i386__|"
    r"__AVX\w*|__SSE\w*|__F16C__|__FMA__|MACE_ENABLE_NEON|__hexagon__|__HVX__")
PREPROCESSOR_TEST = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif)\b")
RULES: list[tuple[str, re.Pattern[str]]] = [
    ("inline asm", re.compile(r"\b(__asm__|asm)\s*(volatile\s*)?\(|\basm\s+volatile\b")),
    ("intrinsic header", re.compile(r"#\s*include\s*<(arm_neon|arm_fp16|immintrin|x86intrin|"
                                    r"[a-z]*mmintrin|hexagon_\w+)\.h>")),
    ("intrinsic", re.compile(r"\b_mm(256|512)?_\w+\s*\(|\bv(ld|st)[1-4]q?_\w+\s*\(|"
                             r"\bv(fma|mla|add|mul|dup|get|set)q?_\w+\s*\(")),
    ("ISA vector type", re.compile(r"\b__m(128|256|512)[id]?\b|\b(float|int|uint)(8|16|32|64)"
                                   r"x\d+(x\d)?_t\b|\bfloat16x\d+_t\b")),
    ("per-ISA call", re.compile(r"(?<![\w:])(arm|x86)::\w")),
]
FEATURE_PROBE = re.compile(r"\b__builtin_cpu_(supports|is|init)\b|\b__get_cpuid\w*|\b__cpuid\w*|"
                           r"<cpuid\.h>|\bgetauxval\s*\(|\bAT_HWCAP2?\b")
# Where the CPU's features may be probed: CpuFeatures, its test (which
# checks it against libgcc's probe where the kernel's flags are not this
# process's cpuid), and CRC-32C's choice of hardware instructions in
# mace/utils, which lies below the CPU runtime (that depends on it) and so
# cannot read CpuFeatures.
FEATURE_PROBE_FILES = frozenset({
    "mace/runtimes/cpu/cpu_features.cc",
    "mace/runtimes/cpu/cpu_features_test.cc",
    "mace/utils/crc32c.cc",
})
# A comparison with a function named in CamelCase (the house style names
# functions and types so, constants kName and variables snake_case), not
# called, not a scope and not a template.
FUNCTION_COMPARE = re.compile(r"(==|!=)\s*&?(\w+::)*[A-Z][a-z]\w*\b(?!\s*[(<:])|"
                              r"&(\w+::)*[A-Z][a-z]\w*\s*(==|!=)")
# Where the engine compares a kernel pointer with one kernel, to run that
# kernel a special way (whole planes, a wide bias, VBMI blocks). A function
# folded into it at the link has its very code, so the path stays right.
FUNCTION_COMPARE_FILES = frozenset({
    "mace/ops/arm/depthwise_conv_2d_3x3_aarch64.cc",
    "mace/ops/arm/depthwise_conv_2d_3x3_armv7.cc",
    "mace/ops/arm/gemm_port_aarch64.cc",
    "mace/ops/x86/depthwise_uint8_block_variants_x86_64.cc",
})
# How a file reads or writes a tensor's elements.
ELEMENT_ACCESS = re.compile(r"\b(mutable_)?data<|\b(mutable_)?raw_data\(|\.data\(\)|\bmemcpy\(|"
                            r"\bstd::copy(_n)?\(")
# A --per_file_copt line of .bazelrc that compiles files for size.
SIZE_COPT = re.compile(r"^build\s+--per_file_copt=(\S+)@-Os\s*$")
GETENV = re.compile(r"\b(std::)?(secure_)?getenv\s*\(")
# Files that only tests and test harnesses build.
TEST_FILE = re.compile(r"(_test|_tests|_benchmark|_fuzz)\.(cc|h)$|/testing/|/test_util\.")
MAX_GETENV_FILES = 2
# Drivers that still hold per-ISA code, waiting to move into their ports.
# The list only shrinks: a file on it that is ISA-free fails the check.
PENDING_ISA_FILES: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    rule: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.text.strip()}"


def _code(line: str) -> str:
    """The line without a trailing // comment (string literals with // are
    not in these files' ISA lines)."""
    return line.split("//", 1)[0]


def _sources(directory: Path) -> list[Path]:
    return sorted(
        p
        for p in directory.rglob("*")
        if p.suffix in SOURCE_SUFFIXES and p.is_file() and GENERATED not in p.as_posix()
    )


def isa_violations(repo: Path = REPO) -> list[Violation]:
    """Per-ISA code in the CPU drivers."""
    found = []
    for path in _sources(repo / CPU_DRIVERS):
        relative = str(path.relative_to(repo))
        in_block_comment = False
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            stripped = line.strip()
            if in_block_comment:
                in_block_comment = "*/" not in stripped
                continue
            if stripped.startswith("/*"):
                in_block_comment = "*/" not in stripped
                continue
            code = _code(line)
            if PREPROCESSOR_TEST.match(code) and ISA_MACRO.search(code):
                found.append(Violation(relative, number, "ISA preprocessor test", line))
            for rule, pattern in RULES:
                if pattern.search(code):
                    found.append(Violation(relative, number, rule, line))
    return found


def layering_problems(violations: list[Violation],
                      pending: frozenset[str] = PENDING_ISA_FILES) -> list[str]:
    """Violations outside the pending files, and pending files that no
    longer need to be listed."""
    problems = [str(v) for v in violations if v.path not in pending]
    offending = {v.path for v in violations}
    problems += [f"{path}: ISA-free now; remove it from PENDING_ISA_FILES"
                 for path in sorted(pending - offending)]
    return problems


def _lines_matching(repo: Path, pattern: re.Pattern[str], rule: str, skip) -> list[Violation]:
    """Lines of the sources under mace/ whose code matches `pattern`, in the
    files `skip` (given the repository-relative path) does not skip."""
    found = []
    for path in _sources(repo / "mace"):
        relative = str(path.relative_to(repo))
        if skip(relative):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if pattern.search(_code(line)):
                found.append(Violation(relative, number, rule, line))
    return found


def feature_probe_violations(repo: Path = REPO) -> list[Violation]:
    """CPU feature probes under mace/ outside FEATURE_PROBE_FILES."""
    return _lines_matching(repo, FEATURE_PROBE, "CPU feature probe outside CpuFeatures",
                           lambda relative: relative in FEATURE_PROBE_FILES)


def function_compare_violations(repo: Path = REPO) -> list[Violation]:
    """Comparisons with a named function under mace/ (tests aside) outside
    FUNCTION_COMPARE_FILES."""
    return _lines_matching(
        repo, FUNCTION_COMPARE, "function address compared",
        lambda relative: relative in FUNCTION_COMPARE_FILES or TEST_FILE.search(relative))


def size_compiled(relative: str, bazelrc: str) -> bool:
    """Whether a `build --per_file_copt=...@-Os` line of `bazelrc` matches
    the source `relative`: one of its patterns matches and none of its
    excluding (-) patterns does, as Bazel reads them."""
    for line in bazelrc.splitlines():
        match = SIZE_COPT.match(line.strip())
        if not match:
            continue
        patterns = match.group(1).split(",")
        included = [p for p in patterns if not p.startswith("-")]
        excluded = [p[1:] for p in patterns if p.startswith("-")]
        if (any(re.search(p, relative) for p in included)
                and not any(re.search(p, relative) for p in excluded)):
            return True
    return False


def size_compiled_element_access(repo: Path = REPO) -> list[Violation]:
    """Lines that read or write tensor elements in the files under mace/ops
    that .bazelrc compiles for size."""
    bazelrc = (repo / ".bazelrc").read_text()
    return _lines_matching(
        repo, ELEMENT_ACCESS, "tensor elements in a file compiled for size (.bazelrc)",
        lambda relative: not (relative.startswith("mace/ops/") and relative.endswith(".cc")
                              and size_compiled(relative, bazelrc)))


def getenv_files(repo: Path = REPO) -> list[str]:
    """Non-test library and tool sources under mace/ that read the
    environment."""
    files = []
    for path in _sources(repo / "mace"):
        relative = str(path.relative_to(repo))
        if TEST_FILE.search(relative):
            continue
        if any(GETENV.search(_code(line)) for line in path.read_text(errors="replace").splitlines()):
            files.append(relative)
    return files


def main() -> int:
    violations = isa_violations()
    for violation in violations:
        print(violation)
    problems = layering_problems(violations) + [str(v) for v in feature_probe_violations()]
    problems += [str(v) for v in function_compare_violations()]
    problems += [str(v) for v in size_compiled_element_access()]
    readers = getenv_files()
    pending = len({v.path for v in violations})
    print(f"{len(violations)} per-ISA line(s) in {CPU_DRIVERS}, in {pending} pending file(s); "
          f"{len(readers)} non-test file(s) read the environment: {', '.join(readers)}")
    for problem in problems:
        print(f"problem: {problem}")
    return 1 if problems or len(readers) > MAX_GETENV_FILES else 0


if __name__ == "__main__":
    sys.exit(main())
