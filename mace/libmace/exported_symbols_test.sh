#!/usr/bin/env bash
# libmace.so exports the C API and the public C++ API only: every dynamic
# symbol it defines must be one of them (libmace.lds). An internal symbol
# (an op, a runtime, protobuf, the engine's Impl) fails the test.
set -euo pipefail
lib="$1"
allowed='^(mace_c_[a-z0-9_]+'
allowed+='|mace::(MaceStatus|MaceTensor|MaceEngineConfig|MaceEngine|MaceContext)::(~?[A-Za-z_]+|operator=)(\[abi:cxx11\])?\('
allowed+='|mace::(CreateMaceEngineFromProto|MaceVersion|TensorDataTypeSize|TensorDataTypeName)\('
allowed+='|(typeinfo|typeinfo name|vtable) for mace::CustomOp(Context)?)'
# Local entries (lower-case types but u) are not exports: gold keeps hidden
# TLS symbols of the static C++ runtime and protobuf there.
symbols="$(nm -D --defined-only -C "${lib}" | awk '$2 !~ /^[a-tv-z]$/' | cut -d' ' -f3-)"
count="$(printf '%s\n' "${symbols}" | grep -c .)"
bad="$(printf '%s\n' "${symbols}" | grep -Ev "${allowed}" || true)"
if [[ -n "${bad}" ]]; then
  echo "libmace.so exports symbols outside the public API:"
  printf '%s\n' "${bad}"
  exit 1
fi
for needed in mace_c_engine_run 'mace::MaceEngine::Run(' 'mace::CreateMaceEngineFromProto('; do
  if ! printf '%s\n' "${symbols}" | grep -qF "${needed}"; then
    echo "libmace.so does not export ${needed}"
    exit 1
  fi
done
echo "libmace.so: ${count} exported symbols, all public API"
