# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The names Bazel 4's own C++ toolchain and JDK packages load from @rules_cc
(tests/vendor/bazel/offline/README.md)."""

def cc_binary(**attrs):
    native.cc_binary(**attrs)

def cc_library(**attrs):
    native.cc_library(**attrs)

def cc_toolchain(**attrs):
    native.cc_toolchain(**attrs)

def cc_toolchain_suite(**attrs):
    native.cc_toolchain_suite(**attrs)
