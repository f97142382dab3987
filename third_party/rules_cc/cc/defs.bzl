"""Offline stand-in for rules_cc: forwards to the native C++ rules."""

_TAG = "__CC_RULES_MIGRATION_DO_NOT_USE_WILL_BREAK__"

def _tagged(attrs):
    attrs["tags"] = attrs.get("tags", []) + [_TAG]
    return attrs

def cc_binary(**attrs):
    native.cc_binary(**_tagged(attrs))

def cc_library(**attrs):
    native.cc_library(**_tagged(attrs))

def cc_test(**attrs):
    native.cc_test(**_tagged(attrs))

def cc_import(**attrs):
    native.cc_import(**_tagged(attrs))

def cc_proto_library(**attrs):
    native.cc_proto_library(**_tagged(attrs))

def cc_toolchain(**attrs):
    native.cc_toolchain(**_tagged(attrs))

def cc_toolchain_suite(**attrs):
    native.cc_toolchain_suite(**_tagged(attrs))
