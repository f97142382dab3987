#!/usr/bin/env bash
# Runs every mace_plan strategy on the 11 MiniMalloc instances, one run at a
# time (single-threaded), and prints markdown tables of total / 1,048,576
# and planning time. docs/reports/memory_planning.md was made with it.
#
#   tools/plan_bench.sh [TIME_LIMIT_MS]
#
# TIME_LIMIT_MS is OPTIMAL's budget per instance (default 10000).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo}"
limit="${1:-10000}"
bazel build //mace/tools:mace_plan >&2
plan="$(bazel info bazel-bin 2>/dev/null)/mace/tools/mace_plan"
data=mace/core/memory/testdata
instances=(A B C D E F G H I J K)

# One cell: total / 1,048,576, a star if proven optimal, and the time.
cell() {
  python3 -c 'import json, sys
d = json.load(sys.stdin)
star = "*" if d["optimal"] is True else ""
ms = d["time_ms"]
time = "%.1f ms" % ms if ms < 1000 else "%.2f s" % (ms / 1000)
print("%.4f%s (%s)" % (d["total"] / 1048576, star, time))'
}

table() {
  local mode="$1"
  shift
  printf '| strategy |'
  printf ' %s |' "${instances[@]}"
  printf '\n|---|'
  printf -- '---|%.0s' "${instances[@]}"
  printf '\n'
  for strategy in "$@"; do
    printf '| %s |' "${strategy}"
    for instance in "${instances[@]}"; do
      value="$("${plan}" --strategy="${strategy}" --mode="${mode}" \
        --time_limit_ms="${limit}" "${data}/${instance}.1048576.csv" | cell)"
      printf ' %s |' "${value}"
    done
    printf '\n'
  done
}

lower_bounds() {
  printf '| max-live lower bound |'
  for instance in "${instances[@]}"; do
    value="$("${plan}" --strategy=naive --mode=offsets "${data}/${instance}.1048576.csv" |
      python3 -c 'import json, sys; print("%.4f" % (json.load(sys.stdin)["lower_bound"] / 1048576))')"
    printf ' %s |' "${value}"
  done
  printf '\n'
}

echo "### Offsets (one arena): total / 1,048,576"
echo
table offsets naive equality greedy_in_order greedy_by_breadth greedy_by_size greedy_best \
  mincostflow optimal
lower_bounds
echo
echo "### Shared objects: sum of object sizes / 1,048,576"
echo
table objects naive equality greedy_in_order greedy_by_breadth greedy_by_size greedy_best \
  mincostflow
