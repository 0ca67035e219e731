/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* One bundle: kat.c's checks.  Usage: kat VECTORS EXPECTED_ISA (tests/python/test_vendor.py). */
#include <stdio.h>

int kat_run(const char *vectors, const char *expect_isa);

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s VECTORS EXPECTED_ISA\n", argv[0]);
        return 2;
    }
    return kat_run(argv[1], argv[2]) == 0 ? 0 : 1;
}
