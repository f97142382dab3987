"""Link options of the shared libraries that carry the engine."""

# gold with safe identical code folding: functions whose machine code is
# identical and whose address is never taken or compared (template
# instantiations that compile to the same instructions for different types,
# complete and base object constructors and destructors, small helpers
# repeated in several ops) are kept once. Link time only: every object file,
# and so every kernel's code, is the same as without it. The host toolchain
# already links with gold; the cross toolchains name it here.
LIBRARY_LINKOPTS = [
    "-fuse-ld=gold",
    "-Wl,--icf=safe",
]
