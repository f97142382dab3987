"""Rules that turn libmace and its dependencies into files an app links
against: one static archive, and the linker flags that archive still needs
(system libraries such as protobuf-lite)."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("//mace/libmace:linkopts.bzl", "LIBRARY_LINKOPTS")

def _collect(deps):
    archives = []
    flags = []
    for dep in deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            for flag in linker_input.user_link_flags:
                if flag not in flags:
                    flags.append(flag)
            for library in linker_input.libraries:
                # PIC objects let apps link the archive into their own shared
                # libraries (an Android JNI library, for instance).
                archive = library.pic_static_library or library.static_library
                if archive != None and archive not in archives:
                    archives.append(archive)
    return archives, flags

def _static_archive_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    archives, _ = _collect(ctx.attr.deps)
    out = ctx.actions.declare_file(ctx.attr.name + ".a")
    script = ctx.actions.declare_file(ctx.attr.name + ".mri")
    lines = ["create " + out.path]
    lines += ["addlib " + archive.path for archive in archives]
    lines += ["save", "end"]
    ctx.actions.write(script, "\n".join(lines) + "\n")
    ctx.actions.run_shell(
        inputs = depset(archives + [script], transitive = [cc_toolchain.all_files]),
        outputs = [out],
        command = "'%s' -M < '%s'" % (cc_toolchain.ar_executable, script.path),
        mnemonic = "MaceStaticArchive",
        progress_message = "Merging %d archives into %s" % (len(archives), out.short_path),
    )
    return [DefaultInfo(files = depset([out]))]

static_archive = rule(
    implementation = _static_archive_impl,
    doc = "Merges the static libraries of `deps` and all they depend on into one archive.",
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)

def _link_flags_impl(ctx):
    _, flags = _collect(ctx.attr.deps)
    out = ctx.actions.declare_file(ctx.attr.name + ".txt")
    ctx.actions.write(out, " ".join(flags) + "\n")
    return [DefaultInfo(files = depset([out]))]

link_flags = rule(
    implementation = _link_flags_impl,
    doc = "Writes the linker flags `deps` ask of the final link, on one line.",
    attrs = {"deps": attr.label_list(providers = [CcInfo])},
)

def deployment_libraries(engine, registry, mace_run = True, c_api = True):
    """What tools/converter.py builds for a deployment, over `engine` (every
    runtime, or the CPU only) with the ops `registry` registers: libmace
    (models as .pb files) and libmace_code (models compiled in,
    //mace/codegen:models), each as one static archive, its link flags and a
    shared library, with the C API when `c_api`; and with `mace_run`,
    mace_run on the same engine and ops. Every target is manual."""
    tags = ["manual"]
    engine_deps = [engine, registry]
    for name, models in [("libmace", []), ("libmace_code", ["//mace/codegen:models"])]:
        deps = engine_deps + (["//mace/libmace:c_api"] if c_api else []) + models
        static_archive(name = name, tags = tags, deps = deps)
        link_flags(name = name + "_link_flags", tags = tags, deps = deps)
        native.cc_import(
            name = name + "_whole",
            static_library = ":" + name,
            alwayslink = True,
            tags = tags,
        )
        native.cc_binary(
            name = name + ".so",
            additional_linker_inputs = ["//mace/libmace:libmace.lds"],
            linkopts = [
                "-Wl,-soname,libmace.so",
                "-Wl,--version-script=$(location //mace/libmace:libmace.lds)",
            ] + LIBRARY_LINKOPTS,
            linkshared = True,
            linkstatic = True,
            tags = tags,
            deps = [
                ":" + name + "_whole",
                "//mace/libmace:terminate_handler",
                "@com_google_protobuf//:protobuf_lite",
            ],
        )
    if mace_run:
        native.cc_binary(
            name = "mace_run",
            tags = tags,
            deps = ["//mace/tools:mace_run_main"] + engine_deps,
        )
