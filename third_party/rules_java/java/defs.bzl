"""Offline stand-in for rules_java: forwards to the native Java rules."""

_TAG = "__JAVA_RULES_MIGRATION_DO_NOT_USE_WILL_BREAK__"

def _tagged(attrs):
    attrs["tags"] = attrs.get("tags", []) + [_TAG]
    return attrs

def java_binary(**attrs):
    native.java_binary(**_tagged(attrs))

def java_library(**attrs):
    native.java_library(**_tagged(attrs))

def java_import(**attrs):
    native.java_import(**_tagged(attrs))

def java_test(**attrs):
    native.java_test(**_tagged(attrs))

def java_toolchain(**attrs):
    native.java_toolchain(**_tagged(attrs))

def java_runtime(**attrs):
    native.java_runtime(**_tagged(attrs))

def java_plugin(**attrs):
    native.java_plugin(**_tagged(attrs))

def java_package_configuration(**attrs):
    native.java_package_configuration(**_tagged(attrs))
