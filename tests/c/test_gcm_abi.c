/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * GCM ABI tests (group gcm-abi): the generated aesgen_gcm_ghash_<isa>,
 * aesgen_gcm_enc_update_<isa> and aesgen_gcm_dec_update_<isa> called directly
 * through the checking thunk (abi_thunk.S: callee-saved registers, rsp, DF,
 * MXCSR, x87 control word, XINUSE), with a key made by aesgen_gcm_init under
 * that ISA, for lengths 0, 16, 32, 48, 64, 256, 496..528 (the 32 stored powers
 * of H), 4096 and k x stride - 16, k x stride, k x stride + 16 (k = 1..3), where
 * the stride is the ISA's main-loop iteration (bytes per iteration of gen/<isa>/gcm.S,
 * from gen/manifest.json through gen/aesgen_gen.h).  Outputs against the tests' own
 * reference (CTR with inc32 from AES-ECB, GHASH bit by bit, accumulators in
 * asm_abi.h's reflected form), counters whose low 32 bits wrap inside the call,
 * in place; nothing but dst and acc may change (src, ctr, key, guard bytes).
 * Every function set the file holds is tested: the primary one and the alternates
 * gen/manifest.json lists for it, which must be linked; a last check per function the
 * manifest lists for gen/<isa>/gcm.S says it went through the thunk.
 * The record functions (a whole message per call) likewise, for every length up to
 * two iterations + 80 bytes with AAD of 0..512 bytes, J0 near the 32-bit wrap, in
 * place (the VEX ISAs with their padded contract, see asm_abi.h); nothing but dst,
 * rec->tag (and for VEX rec->tail) may change.
 * Then the public streaming functions of every ISA (the generic one too)
 * through the same thunk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "check.h"
#include "gcm_harness.h"
#include "harness.h"
#include "isa.h"
#include "tests.h"

enum { MAX_LENGTHS = 40 };

static size_t add_length(size_t *lens, size_t n, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (lens[i] == len)
            return n;
    if (n < MAX_LENGTHS)
        lens[n++] = len;
    return n;
}

static size_t abi_lengths(const struct test_isa *isa, size_t *lens)
{
    static const size_t fixed[] = { 0, 16, 32, 48, 64, 256, 496, 512, 528, 4096 };
    size_t stride = isa->gcm_stride, n = 0;
    check(stride > 0 && stride % 16 == 0, "gcm abi %s: gen/manifest.json gives the main-loop "
          "stride (%zu bytes)", isa->name, stride);
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        n = add_length(lens, n, fixed[i]);
    for (size_t k = 1; k <= 3 && stride > 0; k++) {
        n = add_length(lens, n, k * stride - 16);
        n = add_length(lens, n, k * stride);
        n = add_length(lens, n, k * stride + 16);
    }
    check_note("gcm abi %s: main-loop stride %zu bytes (UNROLL=%u), %zu lengths", isa->name,
               stride, isa->gcm_unroll, n);
    return n;
}

struct abi_key {
    const char *isa;
    uint8_t raw[32];
    size_t key_len;
    aesgen_gcm_key gk, copy;
    uint8_t h[16];
};

static bool key_intact(const struct abi_key *k)
{
    return memcmp(&k->gk, &k->copy, sizeof k->gk) == 0;
}

/* acc = GHASH continued over data: the reference works in GCM order. */
static void ref_ghash_reflected(const uint8_t h[16], uint8_t acc[16], const uint8_t *data,
                                size_t len)
{
    uint8_t y[16];
    gcm_reflect(acc, y);
    gcm_ref_ghash(h, y, data, len);
    gcm_reflect(y, acc);
}

static void direct_ghash(const struct test_isa *isa, const struct test_gcm_set *set,
                         struct abi_key *k, size_t len, size_t misalign, const uint8_t *random)
{
    char name[160];
    snprintf(name, sizeof name, "%s%s gcm aes-%u direct ghash len=%zu%s", isa->name, set->suffix,
             key_bits(k->key_len), len, misalign ? " misaligned" : "");
    struct guarded data = guarded_alloc(len, misalign), acc = guarded_alloc(16, misalign);
    uint8_t want[16];
    memcpy(data.data, random, len);
    rng_fill(acc.data, 16);
    memcpy(want, acc.data, 16);
    ref_ghash_reflected(k->h, want, random, len);
    uint64_t args[6] = { (uintptr_t)&k->gk, (uintptr_t)acc.data, (uintptr_t)data.data, len };
    struct abi_call c = abi_call_through_thunk((void (*)(void))set->ghash, args);
    const char *why = abi_violation(&c);
    check(why == NULL, "%s: ABI (%s)", name, why ? why : "");
    check_bytes(acc.data, want, 16, "%s: accumulator matches the reference", name);
    check(guarded_intact(&data) && guarded_intact(&acc) && memcmp(data.data, random, len) == 0
          && key_intact(k), "%s: writes nothing but acc (data, key, guard bytes intact)", name);
    guarded_free(&data);
    guarded_free(&acc);
}

/* Counter blocks: random, the 32-bit counter wrapping mid-call, on the first
 * block, on the second; the first 12 bytes random. */
static void counter_block(size_t len, int variant, uint8_t ctr[16])
{
    uint32_t blocks = (uint32_t)(len / 16), low;
    rng_fill(ctr, 16);
    switch (variant) {
    case 0: low = (uint32_t)rng_next(); break;
    case 1: low = 0xffffffffu - blocks / 2; break;
    case 2: low = 0xffffffffu; break;
    default: low = 0xfffffffeu; break;
    }
    for (int b = 0; b < 4; b++)
        ctr[12 + b] = (uint8_t)(low >> (24 - 8 * b));
}

static void direct_update(const struct test_isa *isa, const struct test_gcm_set *set,
                          struct abi_key *k, enum gcm_dir dir,
                          size_t len, int variant, bool in_place, const uint8_t *random)
{
    char name[200];
    struct guarded dst = guarded_alloc(len, len / 16 % 16), src = guarded_alloc(len, 3);
    struct guarded ctr = guarded_alloc(16, variant), acc = guarded_alloc(16, variant == 3 ? 8 : 0);
    counter_block(len, variant, ctr.data);
    snprintf(name, sizeof name, "%s%s gcm aes-%u direct %s_update len=%zu ctr ..%02x%02x%02x%02x%s",
             isa->name, set->suffix, key_bits(k->key_len), dir == GCM_ENCRYPT ? "enc" : "dec", len,
             ctr.data[12], ctr.data[13], ctr.data[14], ctr.data[15], in_place ? " in place" : "");
    uint8_t ctr_copy[16], want_acc[16];
    uint8_t *want = xmalloc(len);
    memcpy(ctr_copy, ctr.data, 16);
    memcpy(src.data, random, len);
    rng_fill(acc.data, 16);
    memcpy(want_acc, acc.data, 16);
    gcm_ref_ctr32(k->raw, k->key_len, ctr.data, want, random, len);
    ref_ghash_reflected(k->h, want_acc, dir == GCM_ENCRYPT ? want : random, len);
    uint8_t *out = in_place ? src.data : dst.data;
    uint64_t args[6] = { (uintptr_t)&k->gk, (uintptr_t)out, (uintptr_t)src.data, len,
                         (uintptr_t)ctr.data, (uintptr_t)acc.data };
    aesgen_gcm_update_fn *fn = dir == GCM_ENCRYPT ? set->enc_update : set->dec_update;
    struct abi_call c = abi_call_through_thunk((void (*)(void))fn, args);
    const char *why = abi_violation(&c);
    check(why == NULL, "%s: ABI (%s)", name, why ? why : "");
    check_bytes(out, want, len, "%s: output matches CTR with inc32", name);
    check_bytes(acc.data, want_acc, 16, "%s: accumulator matches GHASH over the %s", name,
                dir == GCM_ENCRYPT ? "ciphertext (dst)" : "ciphertext (src)");
    check(guarded_intact(&dst) && guarded_intact(&src) && guarded_intact(&ctr)
          && guarded_intact(&acc) && memcmp(ctr.data, ctr_copy, 16) == 0
          && (in_place || memcmp(src.data, random, len) == 0) && key_intact(k),
          "%s: writes nothing but dst and acc (src, ctr, key, guard bytes intact)", name);
    free(want);
    guarded_free(&dst);
    guarded_free(&src);
    guarded_free(&ctr);
    guarded_free(&acc);
}

/* The record functions (EVEX ISAs): a whole message per call.  The reference: CTR with
 * inc32 from J0 + 1, GHASH over the zero-padded AAD, the zero-padded ciphertext and the
 * lengths block, XOR E_K(J0) (the CTR keystream of J0 itself). */
static void ref_record(const struct abi_key *k, enum gcm_dir dir, const uint8_t j0[16],
                       const uint8_t *aad, size_t aad_len, const uint8_t *src, uint8_t *out,
                       size_t len, uint8_t tag[16])
{
    uint8_t ctr[16], y[16] = { 0 }, lengths[16], zero[16] = { 0 }, mask[16];
    memcpy(ctr, j0, 16);
    uint32_t low = (uint32_t)ctr[12] << 24 | ctr[13] << 16 | ctr[14] << 8 | ctr[15];
    low += 1;
    for (int b = 0; b < 4; b++)
        ctr[12 + b] = (uint8_t)(low >> (24 - 8 * b));
    gcm_ref_ctr32(k->raw, k->key_len, ctr, out, src, len);
    const uint8_t *cipher = dir == GCM_ENCRYPT ? out : src;
    uint8_t *padded = xmalloc(aad_len + len + 32);
    size_t aad_padded = (aad_len + 15) / 16 * 16, text_padded = (len + 15) / 16 * 16;
    memset(padded, 0, aad_len + len + 32);
    memcpy(padded, aad, aad_len);
    memcpy(padded + aad_padded, cipher, len);
    gcm_ref_ghash(k->h, y, padded, aad_padded + text_padded);
    for (int b = 0; b < 8; b++) {
        lengths[b] = (uint8_t)((uint64_t)aad_len * 8 >> (56 - 8 * b));
        lengths[8 + b] = (uint8_t)((uint64_t)len * 8 >> (56 - 8 * b));
    }
    gcm_ref_ghash(k->h, y, lengths, 16);
    gcm_ref_ctr32(k->raw, k->key_len, j0, mask, zero, 16);
    for (int b = 0; b < 16; b++)
        tag[b] = y[b] ^ mask[b];
    free(padded);
}

/* pads: the VEX contract (asm_abi.h): the AAD zero-padded to whole blocks, whole text
 * blocks in len, the partial block zero-padded in rec->tail with its counter block. */
static void direct_record(const struct test_isa *isa, const struct test_gcm_set *set,
                          struct abi_key *k, enum gcm_dir dir,
                          size_t len, size_t aad_len, int variant, bool pads,
                          const uint8_t *random)
{
    char name[200];
    const bool in_place = variant == 3;
    const size_t aad_given = pads ? (aad_len + 15) / 16 * 16 : aad_len;
    const size_t whole = pads ? len / 16 * 16 : len, part = len - whole;
    struct guarded dst = guarded_alloc(len, len / 16 % 16), src = guarded_alloc(len, 5);
    struct guarded aad = guarded_alloc(aad_given, 1 + aad_len % 7);
    struct guarded rec = guarded_alloc(sizeof(aesgen_gcm_record), variant == 2 ? 8 : 0);
    aesgen_gcm_record *r = (aesgen_gcm_record *)(void *)rec.data;
    uint8_t j0[16], want_tag[16];
    counter_block(len, variant, j0);
    snprintf(name, sizeof name, "%s%s gcm aes-%u direct %s_record len=%zu aad=%zu j0 ..%02x%02x%02x%02x%s",
             isa->name, set->suffix, key_bits(k->key_len), dir == GCM_ENCRYPT ? "enc" : "dec", len, aad_len,
             j0[12], j0[13], j0[14], j0[15], in_place ? " in place" : "");
    uint8_t *want = xmalloc(len + 1);
    memcpy(src.data, random, len);
    memset(aad.data, 0, aad_given);
    memcpy(aad.data, random + 1000 % (len + 1), aad_len);
    ref_record(k, dir, j0, aad.data, aad_len, src.data, want, len, want_tag);
    memset(r, 0, sizeof *r);
    memcpy(r->j0, j0, 16);
    r->lengths[0] = (uint64_t)len * 8;
    r->lengths[1] = (uint64_t)aad_len * 8;
    r->aad = aad_given ? aad.data : NULL;
    r->aad_len = aad_given;
    rng_fill(r->tag, 16);
    if (pads) {
        r->tail_len = part;
        memcpy(r->tail, src.data + whole, part);
        memcpy(r->tail_ctr, j0, 16);
        uint32_t low = (uint32_t)j0[12] << 24 | j0[13] << 16 | j0[14] << 8 | j0[15];
        low += 1 + (uint32_t)(whole / 16);
        for (int b = 0; b < 4; b++)
            r->tail_ctr[12 + b] = (uint8_t)(low >> (24 - 8 * b));
    }
    aesgen_gcm_record copy = *r;
    uint8_t *out = in_place ? src.data : dst.data;
    uint64_t args[6] = { (uintptr_t)&k->gk, (uintptr_t)(len ? out : NULL),
                         (uintptr_t)(len ? src.data : NULL), whole, (uintptr_t)r };
    aesgen_gcm_record_fn *fn = dir == GCM_ENCRYPT ? set->enc_record : set->dec_record;
    struct abi_call c = abi_call_through_thunk((void (*)(void))fn, args);
    const char *why = abi_violation(&c);
    check(why == NULL, "%s: ABI (%s)", name, why ? why : "");
    check_bytes(out, want, whole, "%s: output matches CTR with inc32 from J0 + 1", name);
    if (part != 0)
        check_bytes(r->tail, want + whole, part, "%s: the partial block's output in rec->tail",
                    name);
    check_bytes(r->tag, want_tag, 16, "%s: tag matches GHASH(AAD, ciphertext, lengths) ^ E(J0)",
                name);
    check(memcmp(r, &copy, offsetof(aesgen_gcm_record, tag)) == 0
          && memcmp(r->tail_ctr, copy.tail_ctr, 16) == 0 && r->tail_len == copy.tail_len
          && (pads || memcmp(r->tail, copy.tail, 16) == 0)
          && guarded_intact(&rec) && guarded_intact(&dst) && guarded_intact(&src)
          && guarded_intact(&aad) && (in_place || memcmp(src.data, random, len) == 0)
          && key_intact(k),
          "%s: writes nothing but dst, rec->tag%s (src, AAD, record, key, guards intact)",
          name, pads ? " and rec->tail" : "");
    free(want);
    guarded_free(&dst);
    guarded_free(&src);
    guarded_free(&aad);
    guarded_free(&rec);
}

/* The EVEX ISAs mask partial blocks; the VEX ones take the padded contract. */
static bool records_pad(const struct test_isa *isa)
{
    return strncmp(isa->name, "avx10_", 6) != 0;
}

/* Every length up to two main-loop iterations + a few, with the AAD lengths that matter
 * (none, partial, whole, several vectors, the largest the record accepts). */
static void run_direct_records(const struct test_isa *isa, const struct test_gcm_set *set,
                               struct abi_key *k, size_t stride, const uint8_t *random)
{
    const bool pads = records_pad(isa);
    static const size_t aad_lengths[] = { 0, 1, 13, 16, 17, 63, 64, 65, 200,
                                          AESGEN_GCM_RECORD_MAX_AAD };
    const bool linked = set->enc_record != NULL && set->dec_record != NULL;
    if (!check(linked, "gcm asm %s: aesgen_gcm_{enc,dec}_record_%s%s are linked", isa->name,
               isa->name, set->suffix))
        return;
    size_t i = 0;
    for (size_t len = 0; len <= 2 * stride + 80; len += len < 130 ? 1 : 15, i++) {
        const size_t aad_len = aad_lengths[i % (sizeof aad_lengths / sizeof aad_lengths[0])];
        direct_record(isa, set, k, (enum gcm_dir)(i % 2), len, aad_len, (int)(i % 4), pads,
                      random);
    }
    for (size_t a = 0; a < sizeof aad_lengths / sizeof aad_lengths[0]; a++)
        for (int d = 0; d < 2; d++)
            direct_record(isa, set, k, (enum gcm_dir)d, 4096 + 17, aad_lengths[a], a % 4, pads,
                          random);
    /* Without a bulk loop, AAD + text + lengths blocks up to 32 share one GHASH sum (the
     * powers stored): records right at 32 blocks and one past it. */
    static const size_t texts[] = { 1, 16, 100 };
    const size_t last_iteration[] = { stride - 16, stride };
    for (size_t t = 0; t < 5; t++) {
        const size_t len = t < 3 ? texts[t] : last_iteration[t - 3];
        const size_t text_blocks = (len + 15) / 16, fold_blocks = 31 - text_blocks;
        const size_t aads[] = { 16 * fold_blocks - 15, 16 * fold_blocks,
                                16 * fold_blocks + 1, 16 * fold_blocks + 16 };
        for (size_t a = 0; a < 4; a++)
            if (aads[a] <= AESGEN_GCM_RECORD_MAX_AAD)
                direct_record(isa, set, k, (enum gcm_dir)(a % 2), len, aads[a], (int)a, pads,
                              random);
    }
}


/* The entry's set: the ISA's own, or a variant's, which gen/manifest.json lists, so it
 * must be linked. */
static size_t gcm_sets(const struct test_isa *isa, struct test_gcm_set sets[1])
{
    struct test_gcm_set set = isa_gcm_primary(isa);
    if (!check(gcm_set_complete(&set), "gcm asm %s: the functions%s of gen/%s/gcm.S are "
               "linked (gen/manifest.json lists them)", isa_label(isa), set.suffix, isa->name))
        return 0;
    sets[0] = set;
    return 1;
}

static void run_direct(const struct test_isa *isa, const uint8_t *random)
{
    size_t lens[MAX_LENGTHS];
    size_t n = abi_lengths(isa, lens);
    struct test_gcm_set sets[1];
    size_t set_count = gcm_sets(isa, sets);
    if (!isa_select(isa))
        return;
    for (size_t ks = 0; ks < 3; ks++) {
        struct abi_key k = { .isa = isa->name, .key_len = key_sizes[ks] };
        if (!gcm_make_key(&k.gk, k.raw, k.key_len, isa->name))
            continue;
        k.copy = k.gk;
        gcm_ref_hash_key(k.raw, k.key_len, k.h);
        for (size_t s = 0; s < set_count; s++) {
            const struct test_gcm_set *set = &sets[s];
            for (size_t l = 0; l < n; l++) {
                direct_ghash(isa, set, &k, lens[l], 0, random);
                direct_ghash(isa, set, &k, lens[l], 1 + l % 15, random);
                for (int d = 0; d < 2; d++)
                    for (int variant = 0; variant < 4; variant++)
                        direct_update(isa, set, &k, (enum gcm_dir)d, lens[l], variant,
                                      variant == 3, random);
            }
            run_direct_records(isa, set, &k, isa->gcm_stride, random);
        }
    }
}

/* The public streaming functions through the thunk (the one-shot ones take more
 * than six arguments, which the thunk cannot pass). */
static void run_api_calls(const struct test_isa *isa, const uint8_t *random)
{
    static const size_t lengths[] = { 0, 1, 16, 17, 500, 4096 + 3 };
    if (!isa_select(isa))
        return;
    uint8_t raw[32], iv[12], tag[16];
    aesgen_gcm_key gk;
    rng_fill(raw, sizeof raw);
    rng_fill(iv, sizeof iv);
    uint64_t init_args[6] = { (uintptr_t)&gk, (uintptr_t)raw, 32 };
    struct abi_call c = abi_call_through_thunk((void (*)(void))aesgen_gcm_init, init_args);
    const char *why = abi_violation(&c);
    check(why == NULL, "%s aesgen_gcm_init through the thunk: ABI (%s)", isa->name,
          why ? why : "");
    for (int d = 0; d < 2; d++) {
        enum gcm_dir dir = (enum gcm_dir)d;
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            size_t len = lengths[l];
            aesgen_gcm_ctx ctx;
            uint8_t *dst = xmalloc(len);
            struct { const char *fn; void (*call)(void); uint64_t args[6]; } steps[] = {
                { "start", (void (*)(void))aesgen_gcm_start,
                  { (uintptr_t)&ctx, (uintptr_t)&gk, (uintptr_t)iv, 12 } },
                { "aad", (void (*)(void))aesgen_gcm_aad,
                  { (uintptr_t)&ctx, (uintptr_t)random, 13 + len % 50 } },
                { dir == GCM_ENCRYPT ? "encrypt_update" : "decrypt_update",
                  dir == GCM_ENCRYPT ? (void (*)(void))aesgen_gcm_encrypt_update
                                     : (void (*)(void))aesgen_gcm_decrypt_update,
                  { (uintptr_t)&ctx, (uintptr_t)dst, (uintptr_t)random, len } },
                { dir == GCM_ENCRYPT ? "encrypt_final" : "decrypt_final",
                  dir == GCM_ENCRYPT ? (void (*)(void))aesgen_gcm_encrypt_final
                                     : (void (*)(void))aesgen_gcm_decrypt_final,
                  { (uintptr_t)&ctx, (uintptr_t)tag, 16 } },
            };
            for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
                c = abi_call_through_thunk(steps[s].call, steps[s].args);
                why = abi_violation(&c);
                check(why == NULL, "%s aesgen_gcm_%s (%s len=%zu) through the thunk: ABI (%s)",
                      isa->name, steps[s].fn, gcm_dir_name(dir), len, why ? why : "");
            }
            free(dst);
        }
    }
}

void test_gcm_abi(const struct test_config *config)
{
    (void)config;
    check_set_group("gcm-abi");
    abi_key_schedule_self_test();
    abi_harness_self_test();
    enum { BUF = 4096 + 64 * 16 };
    uint8_t *random = xmalloc(BUF);
    rng_fill(random, BUF);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_gcm) {
        if (isa_asm_callable(isa) && isa->gcm_ghash_fn)   /* vperm_ssse3: no gcm.S */
            run_direct(isa, random);
        run_api_calls(isa, random);
    }
    /* after the variant entries, which call the variants' functions */
    FOR_EACH_RUNNABLE_ISA(isa)
        if (isa_asm_callable(isa) && isa->gcm_ghash_fn)
            abi_check_every_function_called(isa->name, "gcm");
    free(random);
}
