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
#include "jsonl.h"
#include "reference.h"
#include "tests.h"
#include "xts_harness.h"

struct xts_kat {
    char id[200];
    uint8_t key[64];
    size_t key_len;            /* K1 || K2 */
    uint8_t tweak[16];
    uint8_t *pt, *ct;
    size_t len;
};

struct xts_kat_file {
    const char *path;          /* relative to the vectors directory */
    size_t min_cases;          /* fewer means the file is not what the tests expect */
};

static const struct xts_kat_file xts_kat_files[] = {
    { "normalized/xts.jsonl", 2942 },
    { "derived/xts.jsonl", 135 },
};

static bool hex_field(const struct json_object *o, const char *key, uint8_t **out, size_t *len)
{
    const char *hex = json_string(o, key);
    if (!hex)
        return false;
    size_t cap = strlen(hex) / 2;
    *out = xmalloc(cap);
    long n = hex_decode(hex, *out, cap);
    if (n < 0) {
        free(*out);
        *out = NULL;
        return false;
    }
    *len = (size_t)n;
    return true;
}

static bool hex_fixed(const struct json_object *o, const char *key, uint8_t *out, size_t want)
{
    const char *hex = json_string(o, key);
    return hex && strlen(hex) == 2 * want && hex_decode(hex, out, want) == (long)want;
}

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
              && hex_fixed(o, "key", k->key, k->key_len) && hex_fixed(o, "iv", k->tweak, 16)
              && hex_field(o, "pt", &k->pt, &k->len) && hex_field(o, "ct", &k->ct, &ct_len)
              && ct_len == k->len && k->len >= 16;
    return check(ok, "%s: well-formed XTS vector \"%s\"", where, k->id);
}

static void kat_free(struct xts_kat *k)
{
    free(k->pt);
    free(k->ct);
}

static void load_file(const char *dir, const struct xts_kat_file *file, struct xts_kat **cases,
                      size_t *count, size_t *cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file->path);
    FILE *f = fopen(path, "r");
    if (!check(f != NULL, "open vector file %s", path))
        return;
    char *line = NULL;
    size_t line_cap = 0, line_no = 0, used = 0, per_size[3] = { 0, 0, 0 };
    while (getline(&line, &line_cap, f) > 0) {
        line_no++;
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        char where[4200];
        snprintf(where, sizeof where, "%s:%zu", file->path, line_no);
        struct json_object o;
        if (!check(json_parse_flat(line, &o) == 0, "%s: parses as a flat JSON object", where))
            continue;
        if (*count == *cap)
            *cases = xrealloc(*cases, (*cap = *cap * 2 + 256) * sizeof **cases);
        struct xts_kat *k = &(*cases)[*count];
        if (kat_from_json(&o, k, where)) {
            per_size[k->key_len / 16 - 2]++;
            (*count)++;
            used++;
        } else {
            kat_free(k);
        }
        json_free(&o);
    }
    free(line);
    fclose(f);
    check(used >= file->min_cases, "%s: at least %zu usable vectors (found %zu)", file->path,
          file->min_cases, used);
    check_note("vectors: %s: %zu XTS cases (AES-128 %zu, AES-192 %zu, AES-256 %zu)", file->path,
               used, per_size[0], per_size[1], per_size[2]);
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

static void run_case(const char *isa, const struct xts_kat *k)
{
    aesgen_xts_ctx ctx;
    int rc = aesgen_xts_init(&ctx, k->key, k->key_len);
    if (!check_int(rc, AESGEN_OK, "%s xts init \"%s\" (key_len %zu)", isa, k->id, k->key_len))
        return;
    check_direction(isa, &ctx, k, XTS_ENCRYPT);
    check_direction(isa, &ctx, k, XTS_DECRYPT);
}

void test_xts_known_answers(const struct test_config *config)
{
    check_set_group("xts-known-answer");
    struct xts_kat *cases = NULL;
    size_t count = 0, cap = 0;
    for (size_t f = 0; f < sizeof xts_kat_files / sizeof xts_kat_files[0]; f++)
        load_file(config->vectors_dir, &xts_kat_files[f], &cases, &count, &cap);
    reference_self_test(cases, count);
    FOR_EACH_RUNNABLE_ISA(isa) {
        if (!isa_select(isa))
            continue;
        for (size_t i = 0; i < count; i++)
            run_case(isa->name, &cases[i]);
    }
    for (size_t i = 0; i < count; i++)
        kat_free(&cases[i]);
    free(cases);
}
