#!/usr/bin/env bash
# End to end checks of mace_plan: the JSON for each mode on small inputs,
# and one error line plus exit code 1 for every kind of bad input.
#
#   mace_plan_test.sh MACE_PLAN RUNNER
# RUNNER runs the binary directly, or under qemu when it is an ARM build.
set -uo pipefail
plan="$1"
runner="$2"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# check_json NAME PYTHON_ASSERTIONS ARGS...: runs mace_plan, parses stdout
# as JSON into `d` and evaluates the assertions.
check_json() {
  local name="$1" assertions="$2"
  shift 2
  local out
  if ! out="$("${runner}" "${plan}" "$@" 2>"${dir}/stderr")"; then
    fail "${name}: exit code $? ($(cat "${dir}/stderr"))"
    return
  fi
  if ! python3 -c "import json, sys
d = json.loads(sys.argv[1])
${assertions}" "${out}"; then
    fail "${name}: ${out}"
  fi
}

# check_error NAME EXPECTED_TEXT ARGS...: mace_plan must exit 1 and print
# exactly one line, naming the problem, on stderr and nothing on stdout.
check_error() {
  local name="$1" expected="$2"
  shift 2
  "${runner}" "${plan}" "$@" >"${dir}/stdout" 2>"${dir}/stderr"
  local code=$?
  [[ ${code} -eq 1 ]] || fail "${name}: exit code ${code}, expected 1"
  [[ ! -s "${dir}/stdout" ]] || fail "${name}: wrote to stdout"
  [[ "$(wc -l <"${dir}/stderr")" -eq 1 ]] || fail "${name}: stderr is not one line: $(cat "${dir}/stderr")"
  grep -q "^mace_plan: error: .*${expected}" "${dir}/stderr" ||
    fail "${name}: stderr lacks '${expected}': $(cat "${dir}/stderr")"
}

printf 'size,first,last\n10,0,1\n8,1,2\n6,2,3\n' >"${dir}/gap.csv"
printf 'size,first,last\n16,0,1\n8,1,2\n64,2,3\n32,3,4\n8,4,5\n' >"${dir}/chain.csv"
printf 'width,height,first,last\n4,4,0,0\n2,8,0,0\n2,2,1,1\n4,8,2,2\n' >"${dir}/image.csv"
printf 'id,lower,upper,size\na,0,2,10\nb,1,3,8\nc,2,4,6\n' >"${dir}/minimalloc.csv"
printf 'alloc a 32 2047\nalloc b 32 2047\nalloc c 32 2047\nfree a\nalloc d 32 1023\nalloc e 32 2047\nfree b\nalloc f 32 1023\n' >"${dir}/trace.txt"

check_json "offsets" '
assert d["strategy"] == "greedy_by_size" and d["mode"] == "offsets"
assert d["offsets"] == [0, 10, 0] and d["total"] == 18 and d["lower_bound"] == 18
assert d["optimal"] is True and d["time_ms"] >= 0
assert "object_ids" not in d' \
  --strategy=greedy_by_size --mode=offsets "${dir}/gap.csv"
check_json "objects" '
assert d["mode"] == "objects"
assert d["object_ids"] == [0, 1, 0, 1, 0] and d["object_sizes"] == [64, 32]
assert d["offsets"] == [0, 64, 0, 64, 0]
assert d["total"] == 96 and d["lower_bound"] == 96 and d["optimal"] is True' \
  --strategy=greedy_in_order --mode=objects "${dir}/chain.csv"
check_json "naive objects" '
assert d["total"] == 128 and d["optimal"] is None' \
  --strategy=naive --mode=objects "${dir}/chain.csv"
check_json "image" '
assert d["object_ids"] == [0, 1, 0, 2]
assert d["object_sizes"] == [[4, 4], [2, 8], [4, 8]]
assert d["total"] == 64 and d["lower_bound"] == 48' \
  --strategy=greedy_in_order --mode=objects "${dir}/image.csv"
check_json "optimal" '
assert d["strategy"] == "optimal" and d["total"] == 18 and d["optimal"] is True' \
  --strategy=optimal --mode=offsets --time_limit_ms=1000 "${dir}/gap.csv"
check_json "optimal, step limit" '
assert d["strategy"] == "optimal" and d["total"] == 18 and d["optimal"] is True' \
  --strategy=optimal --mode=offsets --step_limit=100000 "${dir}/gap.csv"
check_json "aligned" '
assert all(o % 16 == 0 for o in d["offsets"]) and d["total"] >= d["lower_bound"]' \
  --strategy=mincostflow --mode=offsets --alignment=16 "${dir}/chain.csv"
check_json "minimalloc" '
assert d["offsets"] == [0, 10, 0] and d["total"] == 18' \
  --strategy=greedy_by_size --mode=offsets "${dir}/minimalloc.csv"
check_json "arena trace" '
assert d == {"offsets": {"a": 0, "b": 2048, "c": 4096, "d": 0, "e": 6144, "f": 1024},
             "high_water_mark": 8191}' \
  --arena_trace="${dir}/trace.txt" --arena_alignment=64

"${runner}" "${plan}" --help | grep -q "usage: mace_plan" || fail "--help"

printf 'bytes,from,to\n1,2,3\n' >"${dir}/bad_header.csv"
printf 'size,first,last\n8,3,1\n' >"${dir}/bad_row.csv"
printf 'size,first,last\n8,x,1\n' >"${dir}/bad_number.csv"
printf 'alloc a 32\n' >"${dir}/bad_trace.txt"
check_error "missing file" "cannot open" --strategy=naive --mode=objects "${dir}/none.csv"
check_error "directory" "is a directory" --mode=offsets "${dir}"
mkfifo "${dir}/fifo.csv"
check_error "fifo" "not a regular file" --mode=offsets "${dir}/fifo.csv"
check_error "fifo trace" "not a regular file" --arena_trace="${dir}/fifo.csv"
head -c 200 "${plan}" >"${dir}/binary.csv"
check_error "binary file" "unknown header" --mode=offsets "${dir}/binary.csv"
check_error "bad header" "unknown header" --mode=offsets "${dir}/bad_header.csv"
check_error "bad row" "bad_row.csv:2: first > last" --mode=offsets "${dir}/bad_row.csv"
check_error "bad number" "first must be an integer" --mode=offsets "${dir}/bad_number.csv"
check_error "unknown strategy" "unknown strategy" --strategy=fast "${dir}/gap.csv"
check_error "bad mode" "--mode must be" --mode=arena "${dir}/gap.csv"
check_error "optimal objects" "only plans offsets" --strategy=optimal --mode=objects "${dir}/gap.csv"
check_error "image offsets" "only be planned as objects" --mode=offsets "${dir}/image.csv"
check_error "image strategy" "not supported for 2D" --strategy=greedy_by_size --mode=objects \
  "${dir}/image.csv"
check_error "bad alignment" "--alignment must be" --alignment=0 "${dir}/gap.csv"
check_error "bad time limit" "--time_limit_ms" --time_limit_ms=-5 "${dir}/gap.csv"
check_error "bad step limit" "--step_limit" --step_limit=-5 "${dir}/gap.csv"
check_error "unknown flag" "unknown flag .--fast." --fast=1 "${dir}/gap.csv"
check_error "flag without value" "needs =VALUE" --strategy "${dir}/gap.csv"
check_error "two files" "more than one" "${dir}/gap.csv" "${dir}/chain.csv"
check_error "no file" "no records file"
check_error "bad trace" "bad_trace.txt:1: expected" --arena_trace="${dir}/bad_trace.txt"
check_error "trace with csv" "takes no records file" --arena_trace="${dir}/trace.txt" \
  "${dir}/gap.csv"
check_error "bad arena alignment" "power of two" --arena_trace="${dir}/trace.txt" \
  --arena_alignment=48

if [[ ${failures} -ne 0 ]]; then
  echo "${failures} check(s) failed" >&2
  exit 1
fi
echo "all mace_plan checks passed"
