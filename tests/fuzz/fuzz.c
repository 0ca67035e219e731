/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* The fuzz targets' shared input decoding, ISA choice, buffers and failure. */
#include "fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesgen.h"

uint8_t fuzz_byte(struct fuzz_input *in)
{
    if (in->size == 0)
        return 0;
    in->size--;
    return *in->data++;
}

uint16_t fuzz_u16(struct fuzz_input *in)
{
    uint16_t lo = fuzz_byte(in);
    return (uint16_t)(lo | fuzz_byte(in) << 8);
}

void fuzz_bytes(struct fuzz_input *in, uint8_t *out, size_t n)
{
    size_t have = n < in->size ? n : in->size;
    memcpy(out, in->data, have);
    memset(out + have, 0, n - have);
    in->data += have;
    in->size -= have;
}

size_t fuzz_len(struct fuzz_input *in, size_t max)
{
    uint16_t v = fuzz_u16(in);
    /* The top bit picks a small length (0..127), so short and boundary cases
     * stay as easy to reach as long ones. */
    size_t n = v & 0x8000 ? (size_t)(v & 127) : v;
    return n % (max + 1);
}

const uint8_t *fuzz_rest(struct fuzz_input *in, size_t *len)
{
    const uint8_t *p = in->data;
    *len = in->size;
    in->data += in->size;
    in->size = 0;
    return p;
}

size_t fuzz_chunks(struct fuzz_input *in, size_t *chunks, size_t cap, size_t max)
{
    size_t count = fuzz_byte(in) % (cap + 1);
    for (size_t i = 0; i < count; i++)
        chunks[i] = fuzz_len(in, max);
    return count;
}

enum { ISA_MAX = 5, LEN_BUCKETS = 96, DETAILS = 16 };
static unsigned selected_isa;

/* libFuzzer reads this section as extra coverage features (any nonzero byte). */
static uint8_t shape_counters[ISA_MAX][LEN_BUCKETS + 16 + DETAILS]
    __attribute__((used, section("__libfuzzer_extra_counters")));

void fuzz_cover_shape(size_t len, unsigned detail)
{
    size_t blocks = (len + 15) / 16;
    size_t bucket = blocks < 64 ? blocks : 64 + (blocks - 64) / 16;
    if (bucket >= LEN_BUCKETS)
        bucket = LEN_BUCKETS - 1;
    uint8_t *row = shape_counters[selected_isa];
    row[bucket]++;
    row[LEN_BUCKETS + len % 16]++;
    row[LEN_BUCKETS + 16 + detail % DETAILS]++;
}

static const char *const all_isas[] = {
    "generic", "aesni_avx", "vaes_avx2", "avx10_256", "avx10_512",
};

const char *fuzz_select_isa(uint8_t choice)
{
    static const char *runnable[sizeof all_isas / sizeof all_isas[0]];
    static size_t count;
    if (count == 0) {
        for (size_t i = 0; i < sizeof all_isas / sizeof all_isas[0]; i++)
            if (aesgen_isa_supported(all_isas[i]))
                runnable[count++] = all_isas[i];
        if (count == 0)
            fuzz_fail("none", "no ISA is supported, not even generic");
    }
    const char *isa = runnable[choice % count];
    for (size_t i = 0; i < sizeof all_isas / sizeof all_isas[0]; i++)
        if (all_isas[i] == isa)
            selected_isa = (unsigned)i;
    int rc = aesgen_select_isa(isa);
    if (rc != AESGEN_OK)
        fuzz_fail(isa, "aesgen_select_isa returned %d", rc);
    return isa;
}

struct fuzz_buffer fuzz_alloc(size_t len, size_t misalign)
{
    struct fuzz_buffer b;
    /* Exactly misalign + len bytes, so ASan reports a C access one byte past the end. */
    size_t size = misalign % 16 + len;
    b.base = malloc(size ? size : 1);
    if (b.base == NULL) {
        fprintf(stderr, "aesgen fuzz: out of memory\n");
        abort();
    }
    b.data = b.base + misalign % 16;
    return b;
}

void fuzz_free(struct fuzz_buffer *b)
{
    free(b->base);
    b->base = b->data = NULL;
}

void fuzz_fail(const char *isa, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "aesgen fuzz: FAIL [isa %s] ", isa);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void fuzz_expect_bytes(const char *isa, const uint8_t *got, const uint8_t *want, size_t len,
                       const char *what)
{
    for (size_t i = 0; i < len; i++)
        if (got[i] != want[i])
            fuzz_fail(isa, "%s: %zu bytes differ from OpenSSL's from offset %zu "
                      "(got %02x, want %02x)", what, len, i, got[i], want[i]);
}

void fuzz_expect_int(const char *isa, long got, long want, const char *what)
{
    if (got != want)
        fuzz_fail(isa, "%s: returned %ld, want %ld", what, got, want);
}
