# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""runtime/src/isa.c: the per-microarchitecture preferences of "auto".

The preference table and the CPUID signature (runtime/src/cpu_signature.h) are static,
so a small driver #includes isa.c and links the rest of the built static library
($AESGEN_BUILD, set by tests/run.py; make test builds it first).
"""

import os
import re
import subprocess
import tempfile
import unittest

from repo import BUILD, REPO, cpuinfo, have

LIBRARY = os.path.join(BUILD, "libaesgen.a")

DRIVER = r"""
#include "isa.c"
#include <stdio.h>

static int passed, failed;
static void expect(int ok, const char *what)
{
    if (ok) passed++; else { failed++; printf("FAIL %s\n", what); }
}

int main(void)
{
    aesgen_isa_id i256 = AESGEN_ISA_AVX10_256, i512 = AESGEN_ISA_AVX10_512;
    aesgen_isa_id skx = aesgen_isa_id_usable(i256) ? i256 : i512;
    expect(uarch_preferred_isa("GenuineIntel", 6, 0x55, i512) == skx,
           "Skylake-SP/Cascade Lake prefers avx10_256 over avx10_512");
    expect(uarch_preferred_isa("GenuineIntel", 6, 0x55, AESGEN_ISA_VAES_AVX2) ==
           AESGEN_ISA_VAES_AVX2, "only avx10_512 is avoided");
    expect(uarch_preferred_isa("GenuineIntel", 6, 0x8f, i512) == i512,
           "Sapphire Rapids keeps avx10_512");
    expect(uarch_preferred_isa("AuthenticAMD", 6, 0x55, i512) == i512,
           "the vendor must match too");
    char vendor[13];
    unsigned family, model;
    aesgen_cpu_signature(vendor, &family, &model);
    printf("signature %s %u %u\n", vendor, family, model);
    printf("auto %s\n", aesgen_isa_name());
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
"""


@unittest.skipUnless(os.path.exists(LIBRARY) and have("cc"),
                     f"needs {LIBRARY} (make test builds it)")
class AutoPreferences(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        source = os.path.join(cls.tmp.name, "driver.c")
        binary = os.path.join(cls.tmp.name, "driver")
        with open(source, "w") as handle:
            handle.write(DRIVER)
        build = subprocess.run(
            ["cc", "-std=c11", "-O1", "-I" + os.path.join(REPO, "runtime", "include"),
             "-I" + os.path.join(REPO, "runtime", "src"), "-I" + os.path.join(REPO, "gen"),
             "-o", binary, source, LIBRARY],
            capture_output=True, text=True)
        if build.returncode != 0:
            raise AssertionError(f"driver build failed:\n{build.stderr}")
        env = {k: v for k, v in os.environ.items() if k != "AESGEN_ISA"}
        cls.result = subprocess.run([binary], capture_output=True, text=True, env=env)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_preference_table(self):
        self.assertRegex(self.result.stdout, r"(^|\n)4 passed, 0 failed\n$", self.result.stdout)

    def test_signature_matches_proc_cpuinfo(self):
        facts = cpuinfo()
        match = re.search(r"signature (\S+) (\d+) (\d+)", self.result.stdout)
        self.assertIsNotNone(match, self.result.stdout)
        self.assertEqual(match.group(1), facts.get("vendor_id"))
        self.assertEqual(int(match.group(2)), int(facts["cpu family"]))
        self.assertEqual(int(match.group(3)), int(facts["model"]))

    def test_auto_on_this_cpu(self):
        """avx10_256 only on family 6 model 0x55; elsewhere the widest usable ISA."""
        auto = re.search(r"auto (\S+)", self.result.stdout).group(1)
        facts = cpuinfo()
        flags = facts.get("flags", "").split()
        if {"avx512f", "avx512bw", "avx512vl", "vaes"} <= set(flags):
            skx = facts.get("vendor_id") == "GenuineIntel" and facts.get("cpu family") == "6" \
                and facts.get("model") == str(0x55)
            self.assertEqual(auto, "avx10_256" if skx else "avx10_512")
        else:
            self.assertNotEqual(auto, "avx10_512")


if __name__ == "__main__":
    unittest.main()
