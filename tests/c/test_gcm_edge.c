/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * GCM page-edge tests (group gcm-page-edge): every buffer GCM reads or writes
 * ends exactly where a PROT_NONE page begins, or starts right after one
 * (page_arena.h), encrypt and decrypt, every ISA and key size:
 *  - the text (src and dst, also in place): every length 0..1100 and long ones (with a
 *    16-byte IV, the secret-counter path, a sample of them),
 *    one-shot and streamed (a 7-byte call first, so the rest starts mid-block), the 32
 *    bytes beside dst on its free side keeping their canary;
 *  - the AAD: every length 0..300 and long ones, with no text (GMAC) and with
 *    33 bytes, one-shot and streamed (5 bytes first);
 *  - the IV: every length 1..128 and some longer (the GHASH path);
 *  - the tag: every tag length, written by encrypt, read by decrypt;
 *  - the key object (made by aesgen_gcm_init where it lies) and the streaming context,
 *    one-shot and streamed in odd chunks (1, 15, 17, the rest).
 * A fault is a failure that names the case and where it hit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcm_harness.h"
#include "harness.h"
#include "isa.h"
#include "page_arena.h"
#include "tests.h"

struct edge_call {
    enum gcm_dir dir;
    const uint8_t *iv;
    size_t iv_len;
    const uint8_t *aad;
    size_t aad_len;
    uint8_t *dst;
    const uint8_t *src;
    size_t len;
    uint8_t *tag;
    size_t tag_len;
    size_t first_aad_chunk, first_text_chunk;   /* streamed: the first call's length */
    bool streamed;
};

/* A message and its reference answer. */
struct message {
    const uint8_t *iv, *aad, *pt;
    size_t iv_len, aad_len, len;
    uint8_t *ct;
    uint8_t tag[16];
};

static void answer(const uint8_t *key, size_t key_len, struct message *msg)
{
    gcm_ref_encrypt(key, key_len, msg->iv, msg->iv_len, msg->aad, msg->aad_len, msg->ct, msg->pt,
                    msg->len, msg->tag);
}

/* The call under a fault catcher; then the output against the answer. */
static void run_edge(const char *name, const aesgen_gcm_key *key, struct edge_call *c,
                     const struct message *msg)
{
    const struct fault_region regions[] = {
        { "src", c->src, c->len }, { "dst", c->dst, c->len }, { "aad", c->aad, c->aad_len },
        { "iv", c->iv, c->iv_len }, { "tag", c->tag, c->tag_len },
    };
    if (sigsetjmp(fault_return, 1) != 0) {
        char where[96];
        describe_fault_in(where, sizeof where, regions, sizeof regions / sizeof regions[0]);
        check(false, "%s: faulted at %s", name, where);
        return;
    }
    fault_armed = 1;
    int rc;
    if (c->streamed)
        rc = gcm_api_streamed(c->dir, key, c->iv, c->iv_len, c->aad, c->aad_len,
                              &c->first_aad_chunk, 1, c->dst, c->src, c->len,
                              &c->first_text_chunk, 1, c->tag, c->tag_len);
    else
        rc = gcm_api_oneshot(c->dir, key, c->iv, c->iv_len, c->aad, c->aad_len, c->dst, c->src,
                             c->len, c->tag, c->tag_len);
    fault_armed = 0;
    bool ok = rc == AESGEN_OK;
    if (c->dir == GCM_ENCRYPT)
        ok = ok && memcmp(c->dst, msg->ct, c->len) == 0
             && memcmp(c->tag, msg->tag, c->tag_len) == 0;
    else
        ok = ok && memcmp(c->dst, msg->pt, c->len) == 0;
    check(ok, "%s (rc %d)", name, rc);
}

struct edge_env {
    const char *isa;
    const struct arena *a;
    const uint8_t *key;
    size_t key_len;
    const aesgen_gcm_key *gk;
    const uint8_t *random;     /* 2 x a.data_size random bytes: messages, AAD and IVs */
    uint8_t *ct;               /* room for the answer */
};

/* The text at the edges; aad and iv on the heap. */
/* iv_len 12: the public counter; any other length: J0 from GHASH, the secret counter
 * (AESGEN_GCM_SECRET_COUNTER: the EVEX loops take their carry path every iteration). */
static void text_edges(const struct edge_env *e, size_t len, const uint8_t *aad, const uint8_t *iv,
                       size_t iv_len)
{
    struct message msg = { iv, aad, e->random, iv_len, 13, len, e->ct, { 0 } };
    answer(e->key, e->key_len, &msg);
    for (size_t p = 0; p < EDGE_PLACEMENT_COUNT; p++) {
        const struct edge_placement *pl = &edge_placements[p];
        uint8_t *src, *dst;
        arena_place_pair(e->a, pl, len, &src, &dst);
        for (int d = 0; d < 2; d++) {
            for (int streamed = 0; streamed < 2; streamed++) {
                enum gcm_dir dir = (enum gcm_dir)d;
                uint8_t tag[16];
                memcpy(src, dir == GCM_ENCRYPT ? msg.pt : msg.ct, len);
                memcpy(tag, msg.tag, 16);
                uint8_t *canary = arena_set_canary(e->a, pl->at_end, dst, len);
                struct edge_call c = { dir, iv, iv_len, aad, 13, dst, src, len, tag, 16, 5, 7,
                                       streamed };
                char name[200];
                snprintf(name, sizeof name, "%s gcm aes-%u %s%s text %s len=%zu iv=%zu", e->isa,
                         key_bits(e->key_len), gcm_dir_name(dir), streamed ? " streamed" : "",
                         pl->name, len, iv_len);
                run_edge(name, e->gk, &c, &msg);
                check(arena_canary_intact(canary), "%s: the %d bytes beside dst", name,
                      ARENA_CANARY_BYTES);
            }
        }
    }
}

/* The AAD at the edges (src area); text on the heap. */
static void aad_edges(const struct edge_env *e, size_t aad_len, size_t len, const uint8_t *pt,
                      const uint8_t *iv)
{
    uint8_t *out = xmalloc(len);
    for (int at_end = 0; at_end < 2; at_end++) {
        uint8_t *aad = arena_place(e->a->src_area, e->a->data_size, aad_len, at_end);
        memcpy(aad, e->random + 1000, aad_len);
        struct message msg = { iv, aad, pt, 12, aad_len, len, e->ct, { 0 } };
        answer(e->key, e->key_len, &msg);
        for (int d = 0; d < 2; d++) {
            for (int streamed = 0; streamed < 2; streamed++) {
                enum gcm_dir dir = (enum gcm_dir)d;
                uint8_t tag[16];
                memcpy(tag, msg.tag, 16);
                struct edge_call c = { dir, iv, 12, aad, aad_len, out,
                                       dir == GCM_ENCRYPT ? msg.pt : msg.ct, len, tag, 16, 5, 7,
                                       streamed };
                char name[200];
                snprintf(name, sizeof name, "%s gcm aes-%u %s%s aad %s aad=%zu len=%zu", e->isa,
                         key_bits(e->key_len), gcm_dir_name(dir), streamed ? " streamed" : "",
                         edge_side_name(at_end), aad_len, len);
                run_edge(name, e->gk, &c, &msg);
            }
        }
    }
    free(out);
}

/* The IV at the edges (src area). */
static void iv_edges(const struct edge_env *e, size_t iv_len, const uint8_t *pt)
{
    uint8_t out[20];
    for (int at_end = 0; at_end < 2; at_end++) {
        uint8_t *iv = arena_place(e->a->src_area, e->a->data_size, iv_len, at_end);
        memcpy(iv, e->random + 2000, iv_len);
        struct message msg = { iv, e->random + 3000, pt, iv_len, 7, sizeof out, e->ct, { 0 } };
        answer(e->key, e->key_len, &msg);
        for (int d = 0; d < 2; d++) {
            enum gcm_dir dir = (enum gcm_dir)d;
            uint8_t tag[16];
            memcpy(tag, msg.tag, 16);
            struct edge_call c = { dir, iv, iv_len, msg.aad, 7, out,
                                   dir == GCM_ENCRYPT ? msg.pt : msg.ct, sizeof out, tag, 16, 0,
                                   0, false };
            char name[200];
            snprintf(name, sizeof name, "%s gcm aes-%u %s iv %s iv=%zu", e->isa,
                     key_bits(e->key_len), gcm_dir_name(dir), edge_side_name(at_end),
                     iv_len);
            run_edge(name, e->gk, &c, &msg);
        }
    }
}

/* The tag at the edges (dst area): encrypt writes exactly tag_len bytes there. */
static void tag_edges(const struct edge_env *e, const uint8_t *iv)
{
    uint8_t out[40];
    struct message msg = { iv, e->random + 500, e->random, 12, 20, sizeof out, e->ct, { 0 } };
    answer(e->key, e->key_len, &msg);
    for (size_t t = 0; t < GCM_TAG_LENGTH_COUNT; t++) {
        size_t tag_len = gcm_tag_lengths[t];
        for (int at_end = 0; at_end < 2; at_end++) {
            uint8_t *tag = arena_place(e->a->dst_area, e->a->data_size, tag_len, at_end);
            for (int d = 0; d < 2; d++) {
                for (int streamed = 0; streamed < 2; streamed++) {
                    enum gcm_dir dir = (enum gcm_dir)d;
                    memcpy(tag, msg.tag, tag_len);
                    struct edge_call c = { dir, iv, 12, msg.aad, 20, out,
                                           dir == GCM_ENCRYPT ? msg.pt : msg.ct, sizeof out, tag,
                                           tag_len, 3, 17, streamed };
                    char name[200];
                    snprintf(name, sizeof name, "%s gcm aes-%u %s%s tag %s tag=%zu", e->isa,
                             key_bits(e->key_len), gcm_dir_name(dir),
                             streamed ? " streamed" : "", edge_side_name(at_end),
                             tag_len);
                    run_edge(name, e->gk, &c, &msg);
                }
            }
        }
    }
}

/* One message with the key object and the streaming context where the caller put them:
 * one-shot (the key only), then start, aad, the text in chunks of 1, 15, 17 and the rest,
 * final.  The return codes of each, or 1 where a call faulted. */
struct object_message {
    enum gcm_dir dir;
    const uint8_t *raw;
    size_t key_len;
    aesgen_gcm_key *key;
    aesgen_gcm_ctx *ctx;
    const struct message *msg;
    uint8_t *out, *streamed_out;       /* the one-shot call's output, the streamed one's */
    int init, oneshot, streamed;
};

static int streamed_with(const struct object_message *m, uint8_t tag[16])
{
    const struct message *msg = m->msg;
    const uint8_t *in = m->dir == GCM_ENCRYPT ? msg->pt : msg->ct;
    int rc = aesgen_gcm_start(m->ctx, m->key, msg->iv, msg->iv_len);
    if (rc == AESGEN_OK)
        rc = aesgen_gcm_aad(m->ctx, msg->aad, msg->aad_len);
    static const size_t chunks[] = { 1, 15, 17 };
    size_t done = 0;
    for (size_t i = 0; rc == AESGEN_OK && done < msg->len; i++) {
        const size_t n = i < 3 && chunks[i] < msg->len - done ? chunks[i] : msg->len - done;
        rc = m->dir == GCM_ENCRYPT
                 ? aesgen_gcm_encrypt_update(m->ctx, m->streamed_out + done, in + done, n)
                 : aesgen_gcm_decrypt_update(m->ctx, m->streamed_out + done, in + done, n);
        done += n;
    }
    if (rc == AESGEN_OK)
        rc = m->dir == GCM_ENCRYPT ? aesgen_gcm_encrypt_final(m->ctx, tag, 16)
                                   : aesgen_gcm_decrypt_final(m->ctx, tag, 16);
    return rc;
}

static void object_message(struct object_message *m, uint8_t oneshot_tag[16],
                           uint8_t streamed_tag[16])
{
    m->init = m->oneshot = m->streamed = 1;
    if (sigsetjmp(fault_return, 1) != 0)
        return;
    fault_armed = 1;
    const struct message *msg = m->msg;
    const uint8_t *in = m->dir == GCM_ENCRYPT ? msg->pt : msg->ct;
    m->init = aesgen_gcm_init(m->key, m->raw, m->key_len);
    if (m->init == AESGEN_OK) {
        m->oneshot = m->dir == GCM_ENCRYPT
            ? aesgen_gcm_encrypt(m->key, msg->iv, msg->iv_len, msg->aad, msg->aad_len, m->out,
                                 in, msg->len, oneshot_tag, 16)
            : aesgen_gcm_decrypt(m->key, msg->iv, msg->iv_len, msg->aad, msg->aad_len, m->out,
                                 in, msg->len, msg->tag, 16);
        m->streamed = streamed_with(m, streamed_tag);
    }
    fault_armed = 0;
}

/* The key object at each edge of the src area, the streaming context at the other edge
 * of the dst area; the message on the heap. */
static void key_and_context_edges(const struct edge_env *e, const uint8_t *aad,
                                  const uint8_t *iv)
{
    static const size_t lengths[] = { 0, 1, 16, 33, 100, 1000 };
    uint8_t *out = xmalloc(1000), *streamed_out = xmalloc(1000);
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        struct message msg = { iv, aad, e->random, 12, 13, lengths[l], e->ct, { 0 } };
        answer(e->key, e->key_len, &msg);
        for (int at_end = 0; at_end < 2; at_end++)
            for (int d = 0; d < 2; d++) {
                struct object_message m = {
                    (enum gcm_dir)d, e->key, e->key_len,
                    (aesgen_gcm_key *)(void *)arena_place(e->a->src_area, e->a->data_size,
                                                          sizeof(aesgen_gcm_key), at_end),
                    (aesgen_gcm_ctx *)(void *)arena_place(e->a->dst_area, e->a->data_size,
                                                          sizeof(aesgen_gcm_ctx), !at_end),
                    &msg, out, streamed_out, 0, 0, 0 };
                uint8_t oneshot_tag[16] = { 0 }, streamed_tag[16];
                memcpy(streamed_tag, msg.tag, 16);
                memset(out, 0, 1000);
                memset(streamed_out, 0, 1000);
                object_message(&m, oneshot_tag, streamed_tag);
                const uint8_t *want = d == GCM_ENCRYPT ? msg.ct : msg.pt;
                const bool enc = d == GCM_ENCRYPT;
                check(m.init == AESGEN_OK && m.oneshot == AESGEN_OK && m.streamed == AESGEN_OK
                          && memcmp(out, want, msg.len) == 0
                          && memcmp(streamed_out, want, msg.len) == 0
                          && (!enc || (memcmp(oneshot_tag, msg.tag, 16) == 0
                                       && memcmp(streamed_tag, msg.tag, 16) == 0)),
                      "%s gcm aes-%u %s len=%zu with the key %s and the context %s (init %d, "
                      "one-shot %d, streamed %d; 1: faulted)", e->isa, key_bits(e->key_len),
                      gcm_dir_name((enum gcm_dir)d), msg.len, edge_side_name(at_end),
                      edge_side_name(!at_end), m.init, m.oneshot, m.streamed);
            }
    }
    free(out);
    free(streamed_out);
}

static void run_isa(struct edge_env *e)
{
    static const size_t long_texts[] = { 1420, 4096, 4096 + 17, 2 * 4096 + 33, 3 * 4096 };
    static const size_t long_aads[] = { 512, 1000, 4096 + 17, 3 * 4096 };
    static const size_t long_ivs[] = { 256, 1000, 4096 + 3 };
    uint8_t raw[32], aad[13], iv[12];
    aesgen_gcm_key gk;
    rng_fill(aad, sizeof aad);
    rng_fill(iv, sizeof iv);
    for (size_t k = 0; k < 3; k++) {
        e->key_len = key_sizes[k];
        if (!gcm_make_key(&gk, raw, e->key_len, e->isa))
            continue;
        e->key = raw;
        e->gk = &gk;
        for (size_t len = 0; len <= 1100; len++) {
            text_edges(e, len, aad, iv, 12);
            if (len % 5 == 0 || len % 64 >= 60)     /* the secret counter: a sample */
                text_edges(e, len, aad, e->random + 4000, 16);
        }
        for (size_t l = 0; l < sizeof long_texts / sizeof long_texts[0]; l++)
            if (long_texts[l] <= e->a->data_size) {
                text_edges(e, long_texts[l], aad, iv, 12);
                text_edges(e, long_texts[l], aad, e->random + 4000, 16);
            }
        for (size_t aad_len = 0; aad_len <= 300; aad_len++) {
            aad_edges(e, aad_len, 0, e->random, iv);
            aad_edges(e, aad_len, 33, e->random, iv);
        }
        for (size_t l = 0; l < sizeof long_aads / sizeof long_aads[0]; l++)
            if (long_aads[l] <= e->a->data_size)
                aad_edges(e, long_aads[l], 33, e->random, iv);
        for (size_t iv_len = 1; iv_len <= 128; iv_len++)
            iv_edges(e, iv_len, e->random);
        for (size_t l = 0; l < sizeof long_ivs / sizeof long_ivs[0]; l++)
            if (long_ivs[l] <= e->a->data_size)
                iv_edges(e, long_ivs[l], e->random);
        tag_edges(e, iv);
        key_and_context_edges(e, aad, iv);
    }
}

void test_gcm_page_edges(const struct test_config *config)
{
    (void)config;
    check_set_group("gcm-page-edge");
    struct arena a;
    struct fault_catcher catcher;
    if (!arena_open_catching(&a, &catcher))
        return;
    uint8_t *random = xmalloc(2 * a.data_size), *ct = xmalloc(a.data_size);
    rng_fill(random, 2 * a.data_size);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_gcm) {
        if (!isa_select(isa))
            continue;
        struct edge_env e = { isa->name, &a, NULL, 0, NULL, random, ct };
        run_isa(&e);
    }
    if (isa_select_auto()) {        /* the length plans, which named ISAs do not take */
        struct edge_env e = { "auto", &a, NULL, 0, NULL, random, ct };
        run_isa(&e);
    }
    free(random);
    free(ct);
    arena_close_catching(&a, &catcher);
}
