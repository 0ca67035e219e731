/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Hooks of the constant-time check (`make ct-check`, tests/ct/).  That check runs
 * the library under valgrind with keys, plaintexts and tags marked undefined
 * (VALGRIND_MAKE_MEM_UNDEFINED, ctgrind style), so that memcheck reports every
 * branch or address that depends on them.  A few results are public by design
 * although computed from secrets (whether a GCM tag matched); the library
 * declassifies them here, which is a no-op unless the library is built with
 * -DAESGEN_CT_VALIDATION (only tests/ct/ct.mk does that).
 */
#ifndef AESGEN_CT_H
#define AESGEN_CT_H

#ifdef AESGEN_CT_VALIDATION
#include <valgrind/memcheck.h>
#define AESGEN_DECLASSIFY(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define AESGEN_DECLASSIFY(p, n) ((void)(p), (void)(n))
#endif

#endif
