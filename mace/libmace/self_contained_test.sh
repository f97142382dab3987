#!/usr/bin/env bash
# A shared library MACE ships is self-contained: it needs only the C
# library, libm, libdl (glibc's or bionic's names) and glibc's dynamic
# loader at run time, imports nothing from a C++ runtime or
# protobuf, and exports nothing but its own API. Android has no
# libstdc++.so or libprotobuf-lite.so, and an app's own copies must not
# interpose on ours. Works on any ELF target (readelf), so the arm64 and
# armv7 builds are checked on the host.
#
#   self_contained_test.sh LIBRARY EXPORT_REGEX
#
# EXPORT_REGEX matches the mangled name of every symbol LIBRARY may define
# in its dynamic symbol table.
set -euo pipefail
lib="$1"
exports="$2"
name="$(basename "${lib}")"
fail=0

allowed_needed='^(libc\.so(\.6)?|libm\.so(\.6)?|libdl\.so(\.2)?|ld-linux[-a-z0-9_]*\.so\.[0-9]+)$'
needed="$(readelf -dW "${lib}" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
echo "${name} NEEDED: $(echo ${needed})"

# A sanitizer build (--config=asan, --config=tsan) also needs the
# sanitizer's runtime, which replaces operator new and delete and
# intercepts __cxa_atexit: those imports are the sanitizer's, not the C++
# runtime's. Such a build is never shipped; the rest is checked as usual.
sanitizer_needed='^lib(asan|ubsan|tsan)\.so\.[0-9]+$'
sanitizer_imports='^(_Znwm|_Znam|_ZdlPv|_ZdaPv)[A-Za-z0-9_]*$|^__cxa_atexit$'
if printf '%s\n' "${needed}" | grep -Eq "${sanitizer_needed}"; then
  echo "${name} is a sanitizer build: its runtime library and operator new/delete imports are allowed"
  allowed_needed="${allowed_needed}|${sanitizer_needed}"
else
  sanitizer_imports='^$'
fi
bad="$(printf '%s\n' "${needed}" | grep -Ev "${allowed_needed}" || true)"
if [[ -n "${bad}" ]]; then
  echo "${name} needs libraries other than libc, libm, libdl and the loader:"
  printf '  %s\n' ${bad}
  fail=1
fi

# readelf --dyn-syms -W: Num Value Size Type Bind Vis Ndx Name[@version].
# LOCAL entries (gold keeps hidden TLS symbols there for their relocations)
# are neither imports nor exports; weak undefined ones (transactional
# memory hooks of libstdc++) resolve to null when absent.
dynsyms="$(readelf --dyn-syms -W "${lib}" | awk 'NR > 3 && $8 != "" {print $5, $7, $8}')"
imported="$(printf '%s\n' "${dynsyms}" | awk '$1 == "GLOBAL" && $2 == "UND" {print $3}')"
runtime_imports="$(printf '%s\n' "${imported}" |
  grep -E '@(GLIBCXX|CXXABI|GCC)_|^(_Z|__cxa_|__gxx_|_Unwind_)[^@]*$' |
  grep -Ev "${sanitizer_imports}" || true)"
if [[ -n "${runtime_imports}" ]]; then
  echo "${name} imports C++ runtime or protobuf symbols:"
  printf '  %s\n' ${runtime_imports}
  fail=1
fi

# No C++ stream is set up: a file that includes <iostream> gets a static
# std::ios_base::Init, whose constructor links the runtime's standard
# streams and every locale facet (several hundred KiB; protobuf-lite's
# headers are compiled without it, third_party/protobuf). Checked in the
# static symbol table, which a stripped library no longer has.
if readelf -SW "${lib}" | grep -q ' \.symtab '; then
  stream_init="$(readelf -sW "${lib}" | grep -Ec ' _ZNSt8ios_base4InitC[12]Ev$' || true)"
  if (( stream_init > 0 )); then
    echo "${name} constructs the C++ standard streams (std::ios_base::Init): a file includes <iostream>"
    fail=1
  fi
  # The runtime's verbose terminate handler demangles the uncaught
  # exception's type, which links the demangler (about 40 KiB); the
  # libraries define that handler themselves (terminate_handler.cc).
  demangler="$(readelf -sW "${lib}" | grep -Ec ' __cxa_demangle$' || true)"
  if (( demangler > 0 )); then
    echo "${name} links the C++ runtime's verbose terminate handler and its demangler"
    fail=1
  fi
else
  echo "${name} is stripped: the standard streams and the terminate handler were not checked"
fi

defined="$(printf '%s\n' "${dynsyms}" |
  awk '$1 != "LOCAL" && $2 != "UND" {sub(/@.*/, "", $3); print $3}')"
count="$(printf '%s\n' "${defined}" | grep -c . || true)"
echo "${name} exports ${count} symbols"
if (( count == 0 )); then
  echo "${name} exports nothing: its API was made local too"
  fail=1
fi
extra="$(printf '%s\n' "${defined}" | grep -Ev "${exports}" || true)"
if [[ -n "${extra}" ]]; then
  echo "${name} exports symbols outside its API:"
  printf '%s\n' ${extra} | head -20 | sed 's/^/  /'
  fail=1
fi
exit "${fail}"
