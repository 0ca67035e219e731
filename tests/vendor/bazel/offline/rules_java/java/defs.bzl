# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The names Bazel 4's own JDK package loads from @rules_java
(tests/vendor/bazel/offline/README.md)."""

def java_binary(**attrs):
    native.java_binary(**attrs)

def java_import(**attrs):
    native.java_import(**attrs)

def java_runtime(**attrs):
    native.java_runtime(**attrs)

def java_toolchain(**attrs):
    native.java_toolchain(**attrs)
