/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * XTS known answers: every case of normalized/xts.jsonl (IEEE 1619 Annex B,
 * NIST CAVP XTSGen, Wycheproof) and derived/xts.jsonl (long and stride-crossing
 * lengths, sector-number tweaks, AES-192), encrypt and decrypt, out of place and
 * in place, on every ISA.  The tests' own ECB-built XTS reference (used where
 * OpenSSL has no XTS: AES-192, direct asm calls) must reproduce them all too.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "isa.h"
#include "reference.h"
#include "tests.h"
#include "vectors.h"
#include "xts_harness.h"

struct xts_kat {
    char id[200];
    uint8_t key[64];
    size_t key_len;            /* K1 || K2 */
    uint8_t tweak[16];
    uint8_t *pt, *ct;
    size_t len;
};

static const struct vector_file xts_kat_files[] = {
    { "normalized/xts.jsonl", false, 2942 },
    { "derived/xts.jsonl", false, 135 },
};

/* keybits is the size of each of the two keys; key is K1 || K2. */
static bool kat_from_json(const struct json_object *o, struct xts_kat *k, const char *where)
{
    const char *mode = json_string(o, "mode"), *id = json_string(o, "id");
    const char *src = json_string(o, "src"), *key_hex = json_string(o, "key");
    const char *result = json_string(o, "result");
    long keybits = 0;
    size_t ct_len = 0;
    snprintf(k->id, sizeof k->id, "%s %s", src ? src : "?", id ? id : "?");
    k->key_len = key_hex ? strlen(key_hex) / 2 : 0;
    k->pt = k->ct = NULL;
    bool ok = mode && strcmp(mode, "xts") == 0 && result && strcmp(result, "valid") == 0
              && json_integer(o, "keybits", &keybits) && (size_t)keybits * 2 == k->key_len * 8
              && (k->key_len == 32 || k->key_len == 48 || k->key_len == 64)
              && vector_hex_fixed(o, "key", k->key, k->key_len)
              && vector_hex_fixed(o, "iv", k->tweak, 16)
              && vector_hex(o, "pt", &k->pt, &k->len) && vector_hex(o, "ct", &k->ct, &ct_len)
              && ct_len == k->len && k->len >= 16;
    return check(ok, "%s: well-formed XTS vector \"%s\"", where, k->id);
}

static void kat_free(struct xts_kat *k)
{
    free(k->pt);
    free(k->ct);
}

struct xts_kat_list {
    struct xts_kat *cases;
    size_t count, cap;
    size_t per_size[3];        /* AES-128, -192, -256 cases of the file being read */
};

/* vector_case_fn: appends the line's case to the xts_kat_list. */
static bool add_xts_kat(const struct json_object *o, const char *where, void *ctx)
{
    struct xts_kat_list *list = ctx;
    list->cases = vector_grow(list->cases, list->count, &list->cap, sizeof *list->cases);
    struct xts_kat *k = &list->cases[list->count];
    if (!kat_from_json(o, k, where)) {
        kat_free(k);
        return false;
    }
    list->per_size[k->key_len / 16 - 2]++;
    list->count++;
    return true;
}

static void load_file(const char *dir, const struct vector_file *file, struct xts_kat_list *list)
{
    size_t used;
    memset(list->per_size, 0, sizeof list->per_size);
    if (vector_file_read(dir, file, add_xts_kat, list, &used))
        check_note("vectors: %s: %zu XTS cases (AES-128 %zu, AES-192 %zu, AES-256 %zu)",
                   file->path, used, list->per_size[0], list->per_size[1], list->per_size[2]);
}

/* The ECB-built reference must match the published answers before it may judge
 * the code under test (AES-192 differential, direct asm calls). */
static void reference_self_test(const struct xts_kat *cases, size_t count)
{
    size_t aes192 = 0;
    for (size_t i = 0; i < count; i++) {
        const struct xts_kat *k = &cases[i];
        uint8_t *out = xmalloc(k->len);
        ref_xts_ecb(1, k->key, k->key_len, k->tweak, out, k->pt, k->len);
        bool ok = memcmp(out, k->ct, k->len) == 0;
        ref_xts_ecb(0, k->key, k->key_len, k->tweak, out, k->ct, k->len);
        ok = ok && memcmp(out, k->pt, k->len) == 0;
        check(ok, "test reference (XTS from AES-ECB) reproduces \"%s\" both ways", k->id);
        aes192 += k->key_len == 48;
        free(out);
    }
    check(aes192 >= 45, "the vectors hold AES-192-XTS cases (%zu)", aes192);
}

/* One direction, out of place (guarded dst) and in place (guarded buffer). */
static void check_direction(const char *isa, const aesgen_xts_ctx *ctx, const struct xts_kat *k,
                            enum xts_dir dir)
{
    const uint8_t *in = dir == XTS_ENCRYPT ? k->pt : k->ct;
    const uint8_t *want = dir == XTS_ENCRYPT ? k->ct : k->pt;
    const char *d = xts_dir_name(dir);
    unsigned bits = xts_aes_bits(k->key_len);

    struct guarded out = guarded_alloc(k->len, k->len % 16);
    int rc = xts_api(ctx, dir, out.data, in, k->len, k->tweak);
    check(rc == AESGEN_OK && memcmp(out.data, want, k->len) == 0 && guarded_intact(&out),
          "%s xts aes-%u %s \"%s\" len=%zu: matches, nothing written outside dst (rc %d)",
          isa, bits, d, k->id, k->len, rc);
    guarded_free(&out);

    struct guarded buf = guarded_alloc(k->len, 3);
    memcpy(buf.data, in, k->len);
    rc = xts_api(ctx, dir, buf.data, buf.data, k->len, k->tweak);
    check(rc == AESGEN_OK && memcmp(buf.data, want, k->len) == 0 && guarded_intact(&buf),
          "%s xts aes-%u %s in place \"%s\" len=%zu (rc %d)", isa, bits, d, k->id, k->len, rc);
    guarded_free(&buf);
}

/* Vectors with K1 == K2 (IEEE 1619-2007 vector 1: all-zero keys) are refused by
 * aesgen_xts_init, as IEEE 1619-2018 asks; their known answers are checked through
 * aesgen_xts_init_allow_equal_keys, the documented call for such legacy keys. */
static void run_case(const char *isa, const struct xts_kat *k)
{
    aesgen_xts_ctx ctx;
    const size_t half = k->key_len / 2;
    int rc;
    if (memcmp(k->key, k->key + half, half) == 0) {
        fill_pattern(&ctx, sizeof ctx);
        rc = aesgen_xts_init(&ctx, k->key, k->key_len);
        check(rc == AESGEN_EINVAL && still_pattern(&ctx, sizeof ctx),
              "%s xts init refuses K1 == K2 of \"%s\" (rc %d), ctx untouched", isa, k->id, rc);
        rc = aesgen_xts_init_allow_equal_keys(&ctx, k->key, k->key_len, NULL);
    } else {
        rc = aesgen_xts_init(&ctx, k->key, k->key_len);
    }
    if (!check_int(rc, AESGEN_OK, "%s xts init \"%s\" (key_len %zu)", isa, k->id, k->key_len))
        return;
    check_direction(isa, &ctx, k, XTS_ENCRYPT);
    check_direction(isa, &ctx, k, XTS_DECRYPT);
}

void test_xts_known_answers(const struct test_config *config)
{
    check_set_group("xts-known-answer");
    struct xts_kat_list list = { NULL, 0, 0, { 0, 0, 0 } };
    for (size_t f = 0; f < sizeof xts_kat_files / sizeof xts_kat_files[0]; f++)
        load_file(config->vectors_dir, &xts_kat_files[f], &list);
    reference_self_test(list.cases, list.count);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_xts) {
        if (!isa_select(isa))
            continue;
        for (size_t i = 0; i < list.count; i++)
            run_case(isa->name, &list.cases[i]);
    }
    for (size_t i = 0; i < list.count; i++)
        kat_free(&list.cases[i]);
    free(list.cases);
}
