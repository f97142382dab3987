"""Link options of the shared libraries that carry the engine."""

# LLVM's lld (Debian's lld-14; -B points the GNU drivers at it, as their
# cross drivers would look for a triple-prefixed ld.lld), the linker of the
# Android NDK, with identical code folding of every section: functions (and
# read-only data) whose bytes and relocations are identical are kept once:
# template instantiations that compile to the same instructions for
# different types, complete and base object constructors and destructors,
# small helpers repeated in several ops. GCC writes no address-significance
# tables, so lld's "safe" mode would fold nothing; "all" may give two
# functions one address. The engine compares a function's address only to
# choose a path for that function (mace_tools.layer_rules lists where), and
# a function folded into it has the same code, so the same path is right.
# Link time only: every object file, and so every kernel's code, is the
# same as without it. lld also lays the read-only and writable segments out
# without the padding GNU gold leaves to align the end of RELRO to a 64 KiB
# page.
#
# The C++ runtime goes in statically and, like protobuf-lite (built from
# source, see third_party/protobuf), stays local (--exclude-libs, by name:
# the cross toolchains link the engine's own archives too), so the
# libraries need only the C library, libm and libdl at run time: an Android
# app ships no libstdc++.so, and two copies of a C++ runtime must never
# interpose on each other. --as-needed drops NEEDED entries of libraries
# nothing calls (libpthread, which glibc 2.34+ folds into libc). The host
# toolchain names -lstdc++ on every link, which -static-libstdc++ does not
# change, so the archive is named too and resolves everything first.
LIBRARY_LINKOPTS = [
    "-B/usr/lib/llvm-14/bin/",
    "-fuse-ld=lld",
    "-Wl,--icf=all",
    "-static-libstdc++",
    "-static-libgcc",
    "-l:libstdc++.a",
    "-Wl,--exclude-libs=libstdc++.a:libgcc.a:libgcc_eh.a:libprotobuf_lite_objects.a",
    "-Wl,--as-needed",
]
