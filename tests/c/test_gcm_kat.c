/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * GCM known answers (group gcm-known-answer): every case of
 *   normalized/gcm.jsonl                      GCM spec test cases, Wycheproof AES-GCM and
 *                                             AES-GMAC (valid and invalid), Botan;
 *   normalized/gcm_nist_cavp_subset.jsonl.gz  NIST CAVP, every parameter group, FAIL cases
 *                                             included (read through `gzip -dc`);
 *   derived/gcm.jsonl                         long messages, non-96-bit IVs, inc32 wraps,
 *                                             bit-flip rejections,
 * on every ISA.  Valid cases: one-shot encrypt and decrypt, out of place (guarded dst
 * and tag buffers: a truncated tag writes exactly tag_len bytes) and in place, and
 * streamed both ways with the AAD and the text each split at 0, 1, 15, 16, 17 and a
 * random point, and in many random chunks.  Invalid cases: decrypt returns
 * AESGEN_EBADMSG one-shot (dst wiped to zeros, also in place) and streamed; the
 * zero-length IVs are refused with AESGEN_EINVAL before anything is written.
 * Both references (OpenSSL, and the tests' own GCM) must reproduce every case first.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcm_harness.h"
#include "harness.h"
#include "isa.h"
#include "reference.h"
#include "tests.h"
#include "vectors.h"

struct gcm_vector {
    char id[260];
    uint8_t key[32];
    size_t key_len;
    uint8_t *iv, *aad, *pt, *ct;     /* pt NULL: an invalid case without plaintext */
    size_t iv_len, aad_len, len;
    uint8_t tag[16];
    size_t tag_len;
    bool valid;
};

static const struct vector_file gcm_vector_files[] = {
    { "normalized/gcm.jsonl", false, 777 },
    { "normalized/gcm_nist_cavp_subset.jsonl.gz", true, 12596 },
    { "derived/gcm.jsonl", false, 228 },
};

static bool tag_len_allowed(size_t n)
{
    for (size_t i = 0; i < GCM_TAG_LENGTH_COUNT; i++)
        if (gcm_tag_lengths[i] == n)
            return true;
    return false;
}

static void vector_free(struct gcm_vector *v)
{
    free(v->iv);
    free(v->aad);
    free(v->pt);
    free(v->ct);
    v->iv = v->aad = v->pt = v->ct = NULL;
}

static bool vector_from_json(const struct json_object *o, struct gcm_vector *v, const char *where)
{
    const char *mode = json_string(o, "mode"), *id = json_string(o, "id");
    const char *src = json_string(o, "src"), *result = json_string(o, "result");
    const char *key_hex = json_string(o, "key"), *tag_hex = json_string(o, "tag");
    long keybits = 0;
    size_t ct_len = 0, pt_len = 0;
    memset(v, 0, sizeof *v);
    snprintf(v->id, sizeof v->id, "%s %s", src ? src : "?", id ? id : "?");
    v->valid = result && strcmp(result, "valid") == 0;
    v->key_len = key_hex ? strlen(key_hex) / 2 : 0;
    v->tag_len = tag_hex ? strlen(tag_hex) / 2 : 0;
    bool ok = mode && strcmp(mode, "gcm") == 0 && result
              && (v->valid || strcmp(result, "invalid") == 0)
              && json_integer(o, "keybits", &keybits) && (size_t)keybits == v->key_len * 8
              && (v->key_len == 16 || v->key_len == 24 || v->key_len == 32)
              && hex_decode(key_hex, v->key, sizeof v->key) == (long)v->key_len
              && tag_len_allowed(v->tag_len) && hex_decode(tag_hex, v->tag, 16) == (long)v->tag_len
              && vector_hex(o, "iv", &v->iv, &v->iv_len)
              && vector_hex(o, "aad", &v->aad, &v->aad_len)
              && vector_hex(o, "ct", &v->ct, &ct_len);
    v->len = ct_len;
    if (ok && !json_is_null(o, "pt"))
        ok = vector_hex(o, "pt", &v->pt, &pt_len) && pt_len == ct_len;
    else if (ok)
        ok = !v->valid;          /* only invalid cases may lack the plaintext */
    if (!ok)
        vector_free(v);
    return check(ok, "%s: well-formed GCM vector \"%s\"", where, v->id);
}

struct vector_stats {
    size_t valid, invalid, gmac, iv_not_12, iv_short, iv_long, truncated_tag, zero_iv;
};

static void count(struct vector_stats *s, const struct gcm_vector *v)
{
    s->valid += v->valid;
    s->invalid += !v->valid;
    s->gmac += v->len == 0 && v->aad_len > 0;
    s->iv_not_12 += v->iv_len != 12;
    s->iv_short += v->iv_len >= 1 && v->iv_len < 12;
    s->iv_long += v->iv_len > 16;
    s->truncated_tag += v->tag_len < 16;
    s->zero_iv += v->iv_len == 0;
}

struct gcm_vector_list {
    struct gcm_vector *cases;
    size_t count, cap;
    struct vector_stats stats;     /* of the file being read */
};

/* vector_case_fn: appends the line's case to the gcm_vector_list. */
static bool add_gcm_vector(const struct json_object *o, const char *where, void *ctx)
{
    struct gcm_vector_list *list = ctx;
    list->cases = vector_grow(list->cases, list->count, &list->cap, sizeof *list->cases);
    struct gcm_vector *v = &list->cases[list->count];
    if (!vector_from_json(o, v, where))
        return false;
    count(&list->stats, v);
    list->count++;
    return true;
}

static void load_file(const char *dir, const struct vector_file *file,
                      struct gcm_vector_list *list)
{
    size_t used;
    const struct vector_stats *s = &list->stats;
    memset(&list->stats, 0, sizeof list->stats);
    if (vector_file_read(dir, file, add_gcm_vector, list, &used))
        check_note("vectors: %s: %zu GCM cases (%zu valid, %zu invalid; %zu GMAC; IV != 12 "
                   "bytes %zu, of which 1..11 bytes %zu, > 16 bytes %zu, empty %zu; truncated "
                   "tags %zu)", file->path, used, s->valid, s->invalid, s->gmac, s->iv_not_12,
                   s->iv_short, s->iv_long, s->zero_iv, s->truncated_tag);
}

/* ---- The references must agree with every case first -------------------------- */

static void reference_self_test(const struct gcm_vector *cases, size_t n)
{
    size_t evp_checked = 0, own_checked = 0;
    bool evp_ok = true, own_ok = true;
    for (size_t i = 0; i < n; i++) {
        const struct gcm_vector *v = &cases[i];
        if (v->iv_len == 0)
            continue;
        uint8_t *out = xmalloc(v->len), *pt = xmalloc(v->len), tag[16];
        bool evp = v->iv_len <= GCM_OPENSSL_MAX_IV;
        /* Our own GCM of the ciphertext's plaintext gives the ciphertext's tag. */
        gcm_ref_own_encrypt(v->key, v->key_len, v->iv, v->iv_len, NULL, 0, pt, v->ct, v->len, tag);
        gcm_ref_own_encrypt(v->key, v->key_len, v->iv, v->iv_len, v->aad, v->aad_len, out, pt,
                            v->len, tag);
        bool own = memcmp(out, v->ct, v->len) == 0
                   && (memcmp(tag, v->tag, v->tag_len) == 0) == v->valid
                   && (!v->pt || memcmp(pt, v->pt, v->len) == 0);
        own_ok &= check(own, "test reference (own GCM) %s \"%s\"",
                        v->valid ? "reproduces" : "rejects", v->id);
        own_checked++;
        if (evp) {
            uint8_t given[16];
            memcpy(given, v->tag, 16);
            bool accepted = gcm_ref_evp(GCM_DECRYPT, v->key, v->key_len, v->iv, v->iv_len,
                                        v->aad, v->aad_len, out, v->ct, v->len, given,
                                        v->tag_len);
            bool ok = accepted == v->valid;
            if (v->valid) {
                ok = ok && memcmp(out, v->pt, v->len) == 0;
                gcm_ref_evp(GCM_ENCRYPT, v->key, v->key_len, v->iv, v->iv_len, v->aad,
                            v->aad_len, out, v->pt, v->len, tag, 16);
                ok = ok && memcmp(out, v->ct, v->len) == 0 && memcmp(tag, v->tag, v->tag_len) == 0;
            }
            evp_ok &= check(ok, "test reference (" REFERENCE_NAME ") %s \"%s\"",
                            v->valid ? "reproduces" : "rejects", v->id);
            evp_checked++;
        }
        free(out);
        free(pt);
    }
    check_note("gcm references: " REFERENCE_NAME " agrees with %zu cases%s, the tests' own GCM with %zu%s",
               evp_checked, evp_ok ? "" : " (NOT ALL)", own_checked, own_ok ? "" : " (NOT ALL)");
}

/* ---- Valid cases ------------------------------------------------------------------ */

static void oneshot_valid(const char *isa, const aesgen_gcm_key *key, const struct gcm_vector *v)
{
    struct guarded dst = guarded_alloc(v->len, v->len % 16), tag = guarded_alloc(v->tag_len, 5);
    int rc = aesgen_gcm_encrypt(key, v->iv, v->iv_len, v->aad, v->aad_len, dst.data, v->pt,
                                v->len, tag.data, v->tag_len);
    check(rc == AESGEN_OK && memcmp(dst.data, v->ct, v->len) == 0
          && memcmp(tag.data, v->tag, v->tag_len) == 0 && guarded_intact(&dst)
          && guarded_intact(&tag),
          "%s gcm encrypt \"%s\" (len %zu, aad %zu, iv %zu, tag %zu): ct and tag match, "
          "nothing written outside them (rc %d)", isa, v->id, v->len, v->aad_len, v->iv_len,
          v->tag_len, rc);
    rc = aesgen_gcm_decrypt(key, v->iv, v->iv_len, v->aad, v->aad_len, dst.data, v->ct, v->len,
                            v->tag, v->tag_len);
    check(rc == AESGEN_OK && memcmp(dst.data, v->pt, v->len) == 0 && guarded_intact(&dst),
          "%s gcm decrypt \"%s\": OK and the plaintext (rc %d)", isa, v->id, rc);
    guarded_free(&dst);
    guarded_free(&tag);

    struct guarded buf = guarded_alloc(v->len, 3);
    uint8_t t[16];
    memcpy(buf.data, v->pt, v->len);
    rc = aesgen_gcm_encrypt(key, v->iv, v->iv_len, v->aad, v->aad_len, buf.data, buf.data,
                            v->len, t, v->tag_len);
    bool ok = rc == AESGEN_OK && memcmp(buf.data, v->ct, v->len) == 0
              && memcmp(t, v->tag, v->tag_len) == 0;
    rc = aesgen_gcm_decrypt(key, v->iv, v->iv_len, v->aad, v->aad_len, buf.data, buf.data,
                            v->len, v->tag, v->tag_len);
    check(ok && rc == AESGEN_OK && memcmp(buf.data, v->pt, v->len) == 0 && guarded_intact(&buf),
          "%s gcm \"%s\" in place, both ways (rc %d)", isa, v->id, rc);
    guarded_free(&buf);
}

/* The AAD split at a and the text at t, both ways; or random chunks (a = t = SIZE_MAX). */
static void streamed_valid(const char *isa, const aesgen_gcm_key *key, const struct gcm_vector *v,
                           size_t a, size_t t)
{
    size_t aad_chunks[64], text_chunks[64], n_aad = 1, n_text = 1;
    char how[64];
    if (a == SIZE_MAX) {
        n_aad = gcm_random_chunks(aad_chunks, 64, v->aad_len);
        n_text = gcm_random_chunks(text_chunks, 64, v->len);
        snprintf(how, sizeof how, "random chunks");
    } else {
        aad_chunks[0] = a;
        text_chunks[0] = t;
        snprintf(how, sizeof how, "aad split at %zu, text at %zu", a, t);
    }
    struct guarded dst = guarded_alloc(v->len, 7);
    uint8_t tag[16];
    int rc = gcm_api_streamed(GCM_ENCRYPT, key, v->iv, v->iv_len, v->aad, v->aad_len, aad_chunks,
                              n_aad, dst.data, v->pt, v->len, text_chunks, n_text, tag,
                              v->tag_len);
    check(rc == AESGEN_OK && memcmp(dst.data, v->ct, v->len) == 0
          && memcmp(tag, v->tag, v->tag_len) == 0 && guarded_intact(&dst),
          "%s gcm streamed encrypt \"%s\", %s (rc %d)", isa, v->id, how, rc);
    memcpy(tag, v->tag, v->tag_len);
    rc = gcm_api_streamed(GCM_DECRYPT, key, v->iv, v->iv_len, v->aad, v->aad_len, aad_chunks,
                          n_aad, dst.data, v->ct, v->len, text_chunks, n_text, tag, v->tag_len);
    check(rc == AESGEN_OK && memcmp(dst.data, v->pt, v->len) == 0 && guarded_intact(&dst),
          "%s gcm streamed decrypt \"%s\", %s (rc %d)", isa, v->id, how, rc);
    guarded_free(&dst);
}

/* Split points 0, 1, 15, 16, 17 and a random one, each clamped to the lengths;
 * a split giving the same calls as an earlier one is not repeated. */
enum { SPLITS = 6 };

static void split_points(const struct gcm_vector *v, size_t aad_at[SPLITS], size_t text_at[SPLITS])
{
    static const size_t fixed[SPLITS - 1] = { 0, 1, 15, 16, 17 };
    for (size_t i = 0; i < SPLITS - 1; i++) {
        aad_at[i] = fixed[i] < v->aad_len ? fixed[i] : v->aad_len;
        text_at[i] = fixed[i] < v->len ? fixed[i] : v->len;
    }
    aad_at[SPLITS - 1] = (size_t)rng_below(v->aad_len + 1);
    text_at[SPLITS - 1] = (size_t)rng_below(v->len + 1);
}

static bool seen_before(const size_t *a, const size_t *t, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (a[j] == a[i] && t[j] == t[i])
            return true;
    return false;
}

/* ---- Invalid cases ------------------------------------------------------------- */

static void zero_length_iv(const char *isa, const aesgen_gcm_key *key, const struct gcm_vector *v)
{
    aesgen_gcm_ctx ctx;
    uint8_t iv_byte = 0, tag[16];
    const uint8_t *iv = v->iv ? v->iv : &iv_byte;
    check_int(aesgen_gcm_start(&ctx, key, iv, 0), AESGEN_EINVAL, "%s gcm start \"%s\" with a "
              "zero-length IV", isa, v->id);
    struct guarded dst = guarded_alloc(v->len, 0);
    memset(dst.data, 0xee, v->len);
    memset(tag, 0xee, sizeof tag);
    int rc = aesgen_gcm_decrypt(key, iv, 0, v->aad, v->aad_len, dst.data, v->ct, v->len, v->tag,
                                v->tag_len);
    int rc2 = aesgen_gcm_encrypt(key, iv, 0, v->aad, v->aad_len, dst.data, v->ct, v->len, tag,
                                 v->tag_len);
    bool untouched = guarded_intact(&dst) && tag[0] == 0xee && tag[15] == 0xee
                     && all_bytes_are(dst.data, v->len, 0xee);
    check(rc == AESGEN_EINVAL && rc2 == AESGEN_EINVAL && untouched,
          "%s gcm \"%s\" zero-length IV: one-shot decrypt and encrypt refuse with EINVAL "
          "(got %d, %d), nothing written", isa, v->id, rc, rc2);
    guarded_free(&dst);
}

static void invalid_case(const char *isa, const aesgen_gcm_key *key, const struct gcm_vector *v)
{
    if (v->iv_len == 0) {
        zero_length_iv(isa, key, v);
        return;
    }
    struct guarded dst = guarded_alloc(v->len, v->len % 16);
    memset(dst.data, 0xee, v->len);
    int rc = aesgen_gcm_decrypt(key, v->iv, v->iv_len, v->aad, v->aad_len, dst.data, v->ct,
                                v->len, v->tag, v->tag_len);
    check(rc == AESGEN_EBADMSG && all_zero(dst.data, v->len) && guarded_intact(&dst),
          "%s gcm decrypt invalid \"%s\": EBADMSG (got %d), dst wiped, nothing outside it",
          isa, v->id, rc);
    memcpy(dst.data, v->ct, v->len);
    rc = aesgen_gcm_decrypt(key, v->iv, v->iv_len, v->aad, v->aad_len, dst.data, dst.data,
                            v->len, v->tag, v->tag_len);
    check(rc == AESGEN_EBADMSG && all_zero(dst.data, v->len) && guarded_intact(&dst),
          "%s gcm decrypt invalid \"%s\" in place: EBADMSG (got %d), buffer wiped", isa, v->id,
          rc);
    size_t aad_at[SPLITS], text_at[SPLITS];
    split_points(v, aad_at, text_at);
    for (size_t s = 0; s < SPLITS; s++) {
        if (seen_before(aad_at, text_at, s))
            continue;
        uint8_t tag[16];
        memcpy(tag, v->tag, v->tag_len);
        rc = gcm_api_streamed(GCM_DECRYPT, key, v->iv, v->iv_len, v->aad, v->aad_len,
                              &aad_at[s], 1, dst.data, v->ct, v->len, &text_at[s], 1, tag,
                              v->tag_len);
        check(rc == AESGEN_EBADMSG && guarded_intact(&dst),
              "%s gcm streamed decrypt invalid \"%s\", aad split at %zu, text at %zu: "
              "final returns EBADMSG (got %d)", isa, v->id, aad_at[s], text_at[s], rc);
    }
    guarded_free(&dst);
}

static void run_case(const char *isa, const struct gcm_vector *v)
{
    aesgen_gcm_key key;
    if (!check_int(aesgen_gcm_init(&key, v->key, v->key_len), AESGEN_OK, "%s gcm init \"%s\"",
                   isa, v->id))
        return;
    if (!v->valid) {
        invalid_case(isa, &key, v);
        return;
    }
    oneshot_valid(isa, &key, v);
    size_t aad_at[SPLITS], text_at[SPLITS];
    split_points(v, aad_at, text_at);
    for (size_t s = 0; s < SPLITS; s++)
        if (!seen_before(aad_at, text_at, s))
            streamed_valid(isa, &key, v, aad_at[s], text_at[s]);
    if (v->len + v->aad_len > 16)
        streamed_valid(isa, &key, v, SIZE_MAX, SIZE_MAX);
}

void test_gcm_known_answers(const struct test_config *config)
{
    check_set_group("gcm-known-answer");
    struct gcm_vector_list list = { NULL, 0, 0, { 0 } };
    for (size_t f = 0; f < sizeof gcm_vector_files / sizeof gcm_vector_files[0]; f++)
        load_file(config->vectors_dir, &gcm_vector_files[f], &list);
    reference_self_test(list.cases, list.count);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_gcm) {
        if (!isa_select(isa))
            continue;
        for (size_t i = 0; i < list.count; i++)
            run_case(isa->name, &list.cases[i]);
    }
    for (size_t i = 0; i < list.count; i++)
        vector_free(&list.cases[i]);
    free(list.cases);
}
