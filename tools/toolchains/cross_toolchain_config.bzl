"""A GCC cross toolchain for Debian's g++-<triple> packages."""

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
    tool_paths[2] = tool_path(name = "gcc", path = "/usr/bin/%s-g++" % triple)

    features = [
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [
                _flags(_COMPILE_ACTIONS, [
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
                _flags(_LINK_ACTIONS, [
                    "-lstdc++",
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
        cxx_builtin_include_directories = [
            "/usr/%s/include" % triple,
            "/usr/lib/gcc-cross/%s/12/include" % triple,
            "/usr/lib/gcc-cross/%s/12/include-fixed" % triple,
            "/usr/include",
            # Debian's googletest sources; local repositories resolve to them.
            "/usr/src/googletest",
        ],
        toolchain_identifier = triple,
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = triple,
        target_cpu = ctx.attr.cpu,
        target_libc = "glibc",
        compiler = "gcc",
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
    },
    provides = [CcToolchainConfigInfo],
)
