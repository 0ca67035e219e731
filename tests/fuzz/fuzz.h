/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * What the libFuzzer targets (tests/fuzz/fuzz_<target>.c) share: reading the
 * fuzzer's bytes as a sequence of choices, the ISAs this CPU runs, buffers with
 * a chosen misalignment, and failing loudly.
 *
 * A target decodes its input into a key size, key, IV or tweak, an ISA, a
 * message and a sequence of split points / in-place / misalignment choices,
 * runs aesgen and OpenSSL's EVP (the tests' reference.c, gcm_harness.c) on it
 * and aborts on any difference, so libFuzzer saves the input as a reproducer.
 * Reading past the end of the input yields zeros: every input is valid.
 */
#ifndef AESGEN_FUZZ_H
#define AESGEN_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fuzz_input {
    const uint8_t *data;
    size_t size;
};

uint8_t fuzz_byte(struct fuzz_input *in);
uint16_t fuzz_u16(struct fuzz_input *in);            /* little-endian */
void fuzz_bytes(struct fuzz_input *in, uint8_t *out, size_t n);
/* A length in [0, max] (two bytes; small values are as likely as large ones). */
size_t fuzz_len(struct fuzz_input *in, size_t max);
/* What is left of the input, as the message; the input is then empty. */
const uint8_t *fuzz_rest(struct fuzz_input *in, size_t *len);

/* Up to cap chunk lengths (count from the input, each length in [0, max]);
 * returns the count. */
size_t fuzz_chunks(struct fuzz_input *in, size_t *chunks, size_t cap, size_t max);

/* Selects (aesgen_select_isa) one of the ISAs this CPU runs, generic included,
 * by the choice byte; returns its name.  Aborts if the selection fails. */
const char *fuzz_select_isa(uint8_t choice);

/* Tells libFuzzer (extra coverage counters) which shape of call the input made:
 * the ISA chosen last by fuzz_select_isa, with the length in blocks (fine up to
 * 1 KiB, coarser above), its remainder mod 16, and a target-specific detail
 * (0..15).  The generated assembly carries no coverage instrumentation, so
 * without this the fuzzer could not tell a new main-loop or tail path of an
 * ISA from one it has already seen. */
void fuzz_cover_shape(size_t len, unsigned detail);

/* A buffer of len bytes starting misalign % 16 bytes after malloc's 16-byte
 * alignment (ASan sees any C access outside it). */
struct fuzz_buffer {
    uint8_t *base;
    uint8_t *data;
};
struct fuzz_buffer fuzz_alloc(size_t len, size_t misalign);
void fuzz_free(struct fuzz_buffer *b);

/* Prints "aesgen fuzz: FAIL <what>" with the ISA and aborts (libFuzzer then
 * writes the input to its artifact path and prints it). */
_Noreturn void fuzz_fail(const char *isa, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Fails unless got == want over len bytes, naming the first differing offset. */
void fuzz_expect_bytes(const char *isa, const uint8_t *got, const uint8_t *want, size_t len,
                       const char *what);
void fuzz_expect_int(const char *isa, long got, long want, const char *what);

#endif
