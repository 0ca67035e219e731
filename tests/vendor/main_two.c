/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Two bundles (prefixes aa_ and bb_) in one program: kat.c compiled once against each
 * (as aa_kat and bb_kat), statically or each in its own shared object.  Usage:
 * two VECTORS EXPECTED_ISA_AA EXPECTED_ISA_BB (tests/python/test_vendor.py sets
 * AA_AESGEN_ISA and BB_AESGEN_ISA differently, and AESGEN_ISA, which neither may read).
 */
#include <stdio.h>

int aa_kat(const char *vectors, const char *expect_isa);
int bb_kat(const char *vectors, const char *expect_isa);

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s VECTORS EXPECTED_ISA_AA EXPECTED_ISA_BB\n", argv[0]);
        return 2;
    }
    int failures = aa_kat(argv[1], argv[2]);
    failures += bb_kat(argv[1], argv[3]);
    return failures == 0 ? 0 : 1;
}
