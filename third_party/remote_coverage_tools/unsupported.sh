#!/bin/sh
echo "bazel coverage is unsupported in this offline build; use gcov flags instead" >&2
exit 1
