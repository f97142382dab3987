"""A cross toolchain for Debian's g++-<triple> packages, or for clang.

With compiler = "clang", Debian's clang 14 compiles and links for the same
target, against the same GNU cross sysroot, libstdc++ and binutils: the
Android NDK builds the library with clang and its integrated assembler, and
this keeps the sources buildable by it.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
)

_COMPILE_ACTIONS = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
]

_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flags(actions, flags):
    return flag_set(actions = actions, flag_groups = [flag_group(flags = flags)])

def _impl(ctx):
    triple = ctx.attr.triple
    tools = ["ar", "cpp", "gcc", "gcov", "ld", "nm", "objcopy", "objdump", "strip"]
    tool_paths = [
        tool_path(name = t, path = "/usr/bin/%s-%s" % (triple, t))
        for t in tools
    ]
    tool_paths.append(tool_path(name = "compat-ld", path = "/usr/bin/%s-ld" % triple))
    clang = ctx.attr.compiler == "clang"
    driver = "/usr/bin/clang++-14" if clang else "/usr/bin/%s-g++" % triple
    tool_paths[2] = tool_path(name = "gcc", path = driver)

    # The GNU drivers know their target; clang is told it on every action.
    target_flags = ["--target=" + ctx.attr.clang_target] if clang else []
    builtin_includes = [
        "/usr/%s/include" % triple,
        "/usr/lib/gcc-cross/%s/12/include" % triple,
        "/usr/lib/gcc-cross/%s/12/include-fixed" % triple,
        "/usr/include",
        # Debian's googletest sources; local repositories resolve to them.
        "/usr/src/googletest",
    ]
    if clang:
        builtin_includes += [
            "/usr/lib/llvm-14/lib/clang/14.0.6/include",
            "/usr/local/include",
        ]

    features = [
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [
                _flags(_COMPILE_ACTIONS, target_flags + [
                    "-fPIC",
                    "-U_FORTIFY_SOURCE",
                    "-fstack-protector",
                    "-fno-omit-frame-pointer",
                    "-Wall",
                ] + ctx.attr.extra_compile_flags),
            ],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [
                # The C++ drivers add -lstdc++ themselves, and leave it out
                # with -static-libstdc++ (mace/libmace/linkopts.bzl).
                _flags(_LINK_ACTIONS, target_flags + ctx.attr.extra_link_flags + [
                    "-lm",
                    "-pthread",
                    "-Wl,-z,relro,-z,now",
                ]),
            ],
        ),
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        feature(
            name = "opt",
            flag_sets = [
                _flags(_COMPILE_ACTIONS, ["-O2", "-DNDEBUG", "-ffunction-sections", "-fdata-sections"]),
                _flags(_LINK_ACTIONS, ["-Wl,--gc-sections"]),
            ],
        ),
        feature(
            name = "dbg",
            flag_sets = [_flags(_COMPILE_ACTIONS, ["-g", "-O0"])],
        ),
    ]

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = builtin_includes,
        toolchain_identifier = triple + ("-clang" if clang else ""),
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = triple,
        target_cpu = ctx.attr.cpu,
        target_libc = "glibc",
        compiler = ctx.attr.compiler,
        abi_version = "unknown",
        abi_libc_version = "unknown",
        tool_paths = tool_paths,
    )

cross_toolchain_config = rule(
    implementation = _impl,
    attrs = {
        "triple": attr.string(mandatory = True),
        "cpu": attr.string(mandatory = True),
        "extra_compile_flags": attr.string_list(default = []),
        "extra_link_flags": attr.string_list(default = []),
        "compiler": attr.string(default = "gcc", values = ["gcc", "clang"]),
        # clang's --target; it finds the GNU cross toolchain of that triple.
        "clang_target": attr.string(default = ""),
    },
    provides = [CcToolchainConfigInfo],
)
