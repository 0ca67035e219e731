/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Known-answer tests: the published and derived CTR/XCTR vectors, one-shot,
 * decrypting, in place, and streamed with the message split into pieces.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "isa.h"
#include "tests.h"
#include "vectors.h"

struct kat {
    char id[160];
    enum mode mode;
    uint8_t key[32];
    size_t key_len;
    uint8_t iv[16];
    uint8_t *pt, *ct;
    size_t len;
};

static const struct vector_file kat_files[] = {
    { "normalized/ctr.jsonl", false, 16 },
    { "normalized/xctr.jsonl", false, 180 },
    { "derived/ctr.jsonl", false, 153 },
    { "derived/xctr.jsonl", false, 126 },
};

/* Fills k from one parsed line; false (and a failed check) if malformed. */
static bool kat_from_json(const struct json_object *o, struct kat *k, const char *where)
{
    const char *mode = json_string(o, "mode"), *id = json_string(o, "id");
    const char *key_hex = json_string(o, "key"), *result = json_string(o, "result");
    long keybits;
    snprintf(k->id, sizeof k->id, "%s", id ? id : "?");
    k->mode = mode && strcmp(mode, "xctr") == 0 ? MODE_XCTR : MODE_CTR;
    k->key_len = key_hex ? strlen(key_hex) / 2 : 0;
    size_t ct_len = 0;
    bool ok = mode && (strcmp(mode, "ctr") == 0 || strcmp(mode, "xctr") == 0)
              && result && strcmp(result, "valid") == 0
              && json_integer(o, "keybits", &keybits) && (size_t)keybits == k->key_len * 8
              && (k->key_len == 16 || k->key_len == 24 || k->key_len == 32)
              && vector_hex_fixed(o, "key", k->key, k->key_len)
              && vector_hex_fixed(o, "iv", k->iv, 16);
    k->pt = k->ct = NULL;
    if (ok && vector_hex(o, "pt", &k->pt, &k->len) && vector_hex(o, "ct", &k->ct, &ct_len))
        ok = ct_len == k->len;
    else
        ok = false;
    return check(ok, "%s: well-formed vector \"%s\"", where, k->id);
}

static void kat_free(struct kat *k)
{
    free(k->pt);
    free(k->ct);
}

struct kat_list {
    struct kat *cases;
    size_t count, cap;
    size_t ctr32;              /* lines of the file being read left out */
};

/* vector_case_fn: appends the line's case to the kat_list. */
static bool add_kat(const struct json_object *o, const char *where, void *ctx)
{
    struct kat_list *list = ctx;
    const char *mode = json_string(o, "mode");
    if (mode && strcmp(mode, "ctr32") == 0) {
        list->ctr32++;             /* a 32-bit counter: not what the CTR API implements */
        return false;
    }
    list->cases = vector_grow(list->cases, list->count, &list->cap, sizeof *list->cases);
    struct kat *k = &list->cases[list->count];
    if (!kat_from_json(o, k, where)) {
        kat_free(k);
        return false;
    }
    list->count++;
    return true;
}

static void load_file(const char *dir, const struct vector_file *file, struct kat_list *list)
{
    size_t used;
    list->ctr32 = 0;
    if (vector_file_read(dir, file, add_kat, list, &used))
        check_note("vectors: %s: %zu cases%s", file->path, used,
                   list->ctr32 ? " (ctr32 cases left out)" : "");
}

static void check_oneshot(const char *isa, const struct kat *k)
{
    struct guarded out = guarded_alloc(k->len, 0);
    int rc = api_oneshot(k->mode, k->key, k->key_len, k->iv, out.data, k->pt, k->len);
    check_int(rc, AESGEN_OK, "%s %s \"%s\": encrypt returns OK", isa, mode_name(k->mode), k->id);
    check_bytes(out.data, k->ct, k->len, "%s %s \"%s\": encrypt", isa, mode_name(k->mode), k->id);
    check(guarded_intact(&out), "%s %s \"%s\": nothing written outside dst", isa,
          mode_name(k->mode), k->id);
    api_oneshot(k->mode, k->key, k->key_len, k->iv, out.data, k->ct, k->len);
    check_bytes(out.data, k->pt, k->len, "%s %s \"%s\": decrypt", isa, mode_name(k->mode), k->id);
    memcpy(out.data, k->pt, k->len);
    api_oneshot(k->mode, k->key, k->key_len, k->iv, out.data, out.data, k->len);
    check_bytes(out.data, k->ct, k->len, "%s %s \"%s\": encrypt in place", isa,
                mode_name(k->mode), k->id);
    guarded_free(&out);
}

/* Two calls, split at `at`. */
static void check_split(const char *isa, const struct kat *k, size_t at)
{
    uint8_t *out = xmalloc(k->len);
    struct stream s;
    stream_init(&s, k->mode, k->key, k->key_len, k->iv);
    int rc = stream_crypt_chunks(&s, out, k->pt, k->len, &at, 1);
    check(rc == AESGEN_OK && memcmp(out, k->ct, k->len) == 0,
          "%s %s \"%s\": streamed, split at %zu", isa, mode_name(k->mode), k->id, at);
    free(out);
}

/* Many calls of random lengths, some of them zero. */
static void check_random_chunks(const char *isa, const struct kat *k)
{
    size_t chunks[24];
    for (size_t i = 0; i < 24; i++)
        chunks[i] = rng_below(4) == 0 ? 0 : rng_below(k->len / 8 + 40);
    uint8_t *out = xmalloc(k->len);
    struct stream s;
    stream_init(&s, k->mode, k->key, k->key_len, k->iv);
    int rc = stream_crypt_chunks(&s, out, k->pt, k->len, chunks, 24);
    check(rc == AESGEN_OK && memcmp(out, k->ct, k->len) == 0,
          "%s %s \"%s\": streamed in random chunks", isa, mode_name(k->mode), k->id);
    free(out);
}

static void run_case(const char *isa, const struct kat *k)
{
    check_oneshot(isa, k);
    static const size_t fixed_splits[] = { 0, 1, 15, 16, 17 };
    for (size_t i = 0; i < sizeof fixed_splits / sizeof fixed_splits[0]; i++)
        if (fixed_splits[i] <= k->len)
            check_split(isa, k, fixed_splits[i]);
    check_split(isa, k, (size_t)rng_below(k->len + 1));
    check_random_chunks(isa, k);
}

void test_known_answers(const struct test_config *config)
{
    check_set_group("known-answer");
    struct kat_list list = { NULL, 0, 0, 0 };
    for (size_t f = 0; f < sizeof kat_files / sizeof kat_files[0]; f++)
        load_file(config->vectors_dir, &kat_files[f], &list);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_ctr | TEST_MODE_xctr) {
        if (!isa_select(isa))
            continue;
        for (size_t i = 0; i < list.count; i++)
            run_case(isa->name, &list.cases[i]);
    }
    for (size_t i = 0; i < list.count; i++)
        kat_free(&list.cases[i]);
    free(list.cases);
}
