#!/usr/bin/env bash
# Checks that libmace_jni.so exports only the JNI entry points, then compiles
# the JUnit tests of java/test against mace.jar and runs them on the host JVM
# with -Xcheck:jni; a JNI warning fails the test like a failure.
#
#   run_java_tests.sh JAVAC JAVA MACE_JAR LIBMACE_JNI GRAPH WEIGHTS MACE_RUN JUNIT_JARS...
#
# MACE_JAVA_TESTS names the test classes to run (default com.mace.MaceEngineTest,
# whose model is test/c_api_model_gen.cc's; com.mace.MaceZooModelTest takes a
# converted zoo network, see tools/python/tests/test_java_zoo_model.py).
set -euo pipefail
javac="$1" java="$2" jar="$3" lib="$4" graph="$5" weights="$6" mace_run="$7"
shift 7
classpath="$(IFS=:; echo "$*")"
here="$(dirname "${BASH_SOURCE[0]}")"
# Local entries (lower-case types but u) are not exports: gold keeps hidden
# TLS symbols of the static C++ runtime and protobuf there.
exported="$(nm -D --defined-only "${lib}" | awk '$2 !~ /^[a-tv-z]$/ {print $3}')"
if printf '%s\n' "${exported}" | grep -v '^Java_com_mace_NativeMace_'; then
  echo "FAIL: libmace_jni.so exports the symbols above besides the JNI entry points"
  exit 1
fi
echo "libmace_jni.so: $(printf '%s\n' "${exported}" | grep -c .) exported symbols, all JNI"
work="${TEST_TMPDIR:-$(mktemp -d)}"
classes="${work}/classes"
mkdir -p "${classes}"
"${javac}" -Xlint:all -Werror -d "${classes}" -cp "${jar}:${classpath}" \
  "${here}"/test/com/mace/*.java
log="${work}/junit.log"
status=0
# A library built with AddressSanitizer (--config=asan) needs its runtime
# loaded before the JVM's own libraries; the JVM itself is not
# instrumented, handles SIGSEGV itself and never frees some of its memory.
asan_runtime="$(ldd "${lib}" | awk '/libasan/ {print $3}')"
if [[ -n "${asan_runtime}" ]]; then
  export LD_PRELOAD="${asan_runtime}"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+${ASAN_OPTIONS}:}detect_leaks=0:handle_segv=0:allow_user_segv_handler=1"
fi
"${java}" -Xcheck:jni -Djava.io.tmpdir="${work}" \
  -Dmace.jni.library="$(realpath "${lib}")" \
  -Dmace.test.graph="$(realpath "${graph}")" -Dmace.test.weights="$(realpath "${weights}")" \
  -Dmace.test.mace_run="$(realpath "${mace_run}")" \
  -cp "${jar}:${classpath}:${classes}" org.junit.runner.JUnitCore ${MACE_JAVA_TESTS:-com.mace.MaceEngineTest} \
  2>&1 | tee "${log}" || status=$?
if grep -q "WARNING in native method" "${log}"; then
  echo "FAIL: -Xcheck:jni reported misuse of JNI"
  exit 1
fi
exit "${status}"
