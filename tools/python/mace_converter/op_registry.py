"""model_specific_library: 1 links only the ops a deployment's models use.

The built-in ops register themselves in Register<Op>(OpRegistry*) functions,
one file per op in mace/ops/, each its own Bazel library //mace/ops:op_<file>;
mace/ops/registry.cc calls all of them. For a model-specific library the
converter reads which op types the converted models hold, finds the
functions that register them, and writes a registry that calls only those
(mace/codegen/op_registry/registry.cc) with a Bazel target that links only
their libraries, and the deployment's libraries and mace_run over it
(mace/codegen/deploy.bzl), which tools/converter.py build then builds.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from mace_converter.progress import REPO, UserError

REGISTRY_DIR = REPO / "mace" / "codegen" / "op_registry"
REGISTRY_PACKAGE = "//mace/codegen/op_registry"
# Every registry registers the CPU's storage converters (blocked layouts).
_CONVERTERS = ("RegisterCpuConverters", "blocked_layout_convert")
# If, Loop and Scan are run by the core (mace/core/control_flow.cc, in every
# engine's link); a registry has them only when a model needs them.
_CONTROL_FLOW = ("RegisterControlFlow", "")
_GENERATOR = "tools/python/mace_converter/op_registry.py"
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
# A call that registers an op: registry->Register(...) or RegisterOp<T>(registry, ...).
CALL = re.compile(r"->\s*Register\s*\(|\bRegisterOp\s*<[^>]*>\s*\(\s*\w+\s*,")
NAMED_CALL = re.compile(r"(?:->\s*Register\s*\(|\bRegisterOp\s*<[^>]*>\s*\(\s*\w+\s*,)"
                        r"\s*\"(\w+)\"")
_REGISTER_FN = r"MaceStatus (Register\w+)\(OpRegistry\*\s*\w+\)"


def function_bodies(source: str, signature: str) -> dict[str, str]:
    """The bodies of the functions whose signature (up to the brace) matches
    `signature`, whose group 1 names them; comments removed."""
    source = _COMMENT.sub("", source)
    bodies = {}
    for match in re.finditer(signature + r"\s*\{", source):
        depth, end = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(source[end], 0)
            end += 1
        bodies[match.group(1)] = source[match.end():end - 1]
    return bodies


def registered_types(body: str, name: str) -> set[str]:
    """The op types a Register<Op> function registers; every call must name
    its type with a string literal."""
    named = NAMED_CALL.findall(body)
    if not named or len(named) != len(CALL.findall(body)):
        raise ValueError(f"{name}: cannot read the op type of every registration call")
    return set(named)


@dataclass(frozen=True)
class Registration:
    function: str   # RegisterConv2D
    library: str    # conv_2d, the op's file and //mace/ops:op_conv_2d ("": the core)


def registrations(repo: Path = REPO) -> dict[str, Registration]:
    """Each built-in op type and the function (and op library) registering it."""
    found: dict[str, Registration] = {}
    for path in sorted((repo / "mace" / "ops").glob("*.cc")):
        if path.name.endswith("_test.cc") or path.name == "registry.cc":
            continue
        for name, body in function_bodies(path.read_text(), _REGISTER_FN).items():
            for op_type in registered_types(body, name):
                found[op_type] = Registration(name, path.stem)
    return found


def control_flow_types(repo: Path = REPO) -> set[str]:
    """The op types the core runs itself (mace/core/control_flow.cc)."""
    body = function_bodies((repo / "mace/core/control_flow.cc").read_text(),
                           r"bool (IsControlFlowOp)\(const std::string& \w+\)")
    return set(re.findall(r'== "(\w+)"', body["IsControlFlowOp"]))


def graph_op_types(graph: Path) -> set[str]:
    """The op types of a converted model (.pb), its subgraphs included."""
    from mace_tools import proto
    net = proto.load().NetDef()
    try:
        net.ParseFromString(graph.read_bytes())
    except (OSError, ValueError) as error:
        raise UserError(f"cannot read the converted model {graph}: {error}") from None
    types: set[str] = set()
    pending = [net]
    while pending:
        current = pending.pop()
        types.update(op.type for op in current.op)
        pending.extend(current.subgraphs)
    return types


def select(op_types: set[str], repo: Path = REPO) -> list[Registration]:
    """The registrations `op_types` need, sorted, the converters' first;
    the core's control flow when a type is If, Loop or Scan. Types no
    built-in op registers are custom ops the app registers; the engine
    reports any that is not."""
    known = registrations(repo)
    chosen = {known[op_type] for op_type in op_types if op_type in known}
    if op_types & control_flow_types(repo):
        chosen.add(Registration(*_CONTROL_FLOW))
    return [Registration(*_CONVERTERS)] + sorted(chosen, key=lambda r: r.function)


def render(deployment: str, chosen: list[Registration], engine: str,
           c_api: bool = True) -> dict[str, str]:
    """registry.cc and BUILD.bazel of the model-specific registry; the
    libraries link `engine` (//mace/libmace:engine or :engine_cpu), and the
    C API when `c_api`."""
    header = (f"Generated by {_GENERATOR} for the deployment '{deployment}'.\n"
              "Do not edit: build the library again with tools/converter.py instead.")
    calls = "".join(f"      {r.function},\n" for r in chosen[1:])
    source = f"""// {header.replace(chr(10), chr(10) + '// ')}
#include "mace/ops/op_set.h"
#include "mace/ops/registry.h"

namespace mace {{
namespace ops {{

MaceStatus RegisterAllOps(OpRegistry* registry) {{
  using RegisterFn = MaceStatus (*)(OpRegistry*);
  static const RegisterFn kRegisterFns[] = {{
{calls}  }};
  for (RegisterFn fn : kRegisterFns) MACE_RETURN_IF_ERROR(fn(registry));
  return MaceStatus();
}}

const char* ModelSpecificOpSet() {{ return "{deployment}"; }}

}}  // namespace ops
}}  // namespace mace
"""
    libraries = sorted({r.library for r in chosen if r.library})
    deps = "".join(f'        "//mace/ops:op_{name}",\n' for name in libraries)
    build = f"""# {header.replace(chr(10), chr(10) + '# ')}
load("//mace/codegen:deploy.bzl", "deployment_libraries")

package(default_visibility = ["//visibility:public"])

cc_library(
    name = "op_registry",
    srcs = ["registry.cc"],
    tags = ["manual"],
    deps = [
        "//mace/ops:common",
        "//mace/ops:op_set",
        "//mace/ops:registry_decls",
{deps}    ],
)

deployment_libraries(
    c_api = {c_api},
    engine = "{engine}",
    registry = ":op_registry",
)
"""
    return {"registry.cc": source, "BUILD.bazel": build, ".gitignore": "*\n"}


def write(deployment: str, graphs: list[Path], engine: str, c_api: bool = True) -> list[str]:
    """Writes the registry for the models `graphs`, and the libraries over
    it and `engine` (with the C API when `c_api`); returns the op types the
    models use."""
    types: set[str] = set()
    for graph in graphs:
        types |= graph_op_types(graph)
    chosen = select(types)
    REGISTRY_DIR.mkdir(parents=True, exist_ok=True)
    for name, content in render(deployment, chosen, engine, c_api).items():
        path = REGISTRY_DIR / name
        if not path.exists() or path.read_text() != content:
            path.write_text(content)
    return sorted(types - control_flow_types())
