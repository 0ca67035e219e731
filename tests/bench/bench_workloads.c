/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The workloads the bench times.  Each mode has setup/run/teardown functions for our
 * library and, where OpenSSL has the mode, for OpenSSL; bench_workloads[] lists them.
 *
 * Per-message cost model (both sides pay for starting a message, neither for the key
 * schedule, as with a long-lived key and a new IV per packet):
 *   ours:    the context is initialised once per ISA (init expands the key); per
 *            message one stateless aesgen_<mode>_crypt_iv call with the message's IV.
 *   OpenSSL: EVP_EncryptInit_ex with the cipher and key once; per message
 *            EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) and one EVP_EncryptUpdate.
 * GCM: see the GCM section below.
 * XTS has no stream state: one call is one data unit with its own tweak, so ours is
 * aesgen_xts_init once and one aesgen_xts_encrypt (or _decrypt) per message; OpenSSL
 * as above (EVP_Decrypt* for decryption).  The tweak encryption with K2 is part of
 * every message on both sides (extra_blocks = 1 in the % of ceiling).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "aesgen.h"
#include "bench.h"

/* Any fixed IV: the cost does not depend on its value.  Not near a 64-bit wrap. */
static const uint8_t bench_iv[16] = {
    0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
    0xf8, 0xf9, 0xfa, 0xfb, 0x00, 0x00, 0x00, 0x01,
};

/* Contexts are complete types but may ask for alignment: give them a cache line. */
static void *alloc_state(size_t size)
{
    size_t rounded = (size + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, rounded);
    if (p)
        memset(p, 0, rounded);
    return p;
}

static void free_state(void *state)
{
    free(state);
}

/* A context uses the ISA selected when it is initialised; the caller restores "auto". */
static int select_isa_for_init(const char *isa)
{
    return aesgen_select_isa(isa) == AESGEN_OK;
}

/* Keys a freshly allocated (zeroed) state; 1 on success. */
typedef int key_state_fn(void *state, const uint8_t *key, size_t key_len);

/* What every setup of ours does: select the ISA, allocate the state, key it.
 * NULL, with nothing left allocated (teardown frees a half-keyed state), on failure. */
static void *setup_ours_keyed(const char *isa, size_t size, key_state_fn *key_state,
                              bench_teardown_fn *teardown, const uint8_t *key, size_t key_len)
{
    if (!select_isa_for_init(isa))
        return NULL;
    void *st = alloc_state(size);
    if (!st)
        return NULL;
    if (!key_state(st, key, key_len)) {
        teardown(st);
        return NULL;
    }
    return st;
}

/* ---- CTR, ours ---- */

typedef struct ctr_ours {
    aesgen_ctr_ctx ctx;            /* keyed once; each message brings its IV */
} ctr_ours;

static int ctr_key(void *state, const uint8_t *key, size_t key_len)
{
    ctr_ours *st = state;
    return aesgen_ctr_init(&st->ctx, key, key_len, bench_iv) == AESGEN_OK;
}

static void *ctr_setup_ours(const char *isa, const uint8_t *key, size_t key_len)
{
    return setup_ours_keyed(isa, sizeof(ctr_ours), ctr_key, free_state, key, key_len);
}

/* One message per call, as a request with its own IV: the stateless aesgen_ctr_crypt_iv
 * (the streaming set_iv + crypt pair stores the counter in the context and reads it
 * back). */
static void ctr_run_ours(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                         size_t count)
{
    ctr_ours *st = state;
    for (size_t i = 0; i < count; i++)
        aesgen_ctr_crypt_iv(&st->ctx, bench_iv, dst, src, len);
}

/* ---- XCTR, ours ---- */

typedef struct xctr_ours {
    aesgen_xctr_ctx ctx;           /* keyed once; each message brings its IV */
} xctr_ours;

static int xctr_key(void *state, const uint8_t *key, size_t key_len)
{
    xctr_ours *st = state;
    return aesgen_xctr_init(&st->ctx, key, key_len, bench_iv) == AESGEN_OK;
}

static void *xctr_setup_ours(const char *isa, const uint8_t *key, size_t key_len)
{
    return setup_ours_keyed(isa, sizeof(xctr_ours), xctr_key, free_state, key, key_len);
}

/* One message per call, as HCTR2 makes them: the stateless aesgen_xctr_crypt_iv (the
 * streaming set_iv + crypt pair would copy the IV into the context first). */
static void xctr_run_ours(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                          size_t count)
{
    xctr_ours *st = state;
    for (size_t i = 0; i < count; i++)
        aesgen_xctr_crypt_iv(&st->ctx, bench_iv, dst, src, len);
}

/* ---- XTS, ours: one data unit per call, encrypt or decrypt ---- */

typedef struct xts_ours {
    aesgen_xts_ctx ctx;            /* keyed once; the tweak goes with each call */
} xts_ours;

static int xts_key(void *state, const uint8_t *key, size_t key_len)
{
    xts_ours *st = state;
    return aesgen_xts_init(&st->ctx, key, key_len) == AESGEN_OK;
}

static void *xts_setup_ours(const char *isa, const uint8_t *key, size_t key_len)
{
    return setup_ours_keyed(isa, sizeof(xts_ours), xts_key, free_state, key, key_len);
}

static void xts_encrypt_run_ours(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                                 size_t count)
{
    const xts_ours *st = state;
    for (size_t i = 0; i < count; i++)
        aesgen_xts_encrypt(&st->ctx, dst, src, len, bench_iv);
}

static void xts_decrypt_run_ours(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                                 size_t count)
{
    const xts_ours *st = state;
    for (size_t i = 0; i < count; i++)
        aesgen_xts_decrypt(&st->ctx, dst, src, len, bench_iv);
}

/* ---- OpenSSL EVP (any mode whose per-message sequence is re-IV + one update) ---- */

typedef struct evp_peer {
    EVP_CIPHER_CTX *ctx;
} evp_peer;

/* encrypt: 1 for EVP_Encrypt*, 0 for EVP_Decrypt* (the run function must match). */
static void *evp_setup_dir(const EVP_CIPHER *cipher, const uint8_t *key, size_t key_len,
                           int encrypt)
{
    if (!cipher || (size_t)EVP_CIPHER_get_key_length(cipher) != key_len)
        return NULL;
    evp_peer *st = alloc_state(sizeof *st);
    if (!st)
        return NULL;
    st->ctx = EVP_CIPHER_CTX_new();
    if (!st->ctx || EVP_CipherInit_ex(st->ctx, cipher, NULL, key, bench_iv, encrypt) != 1) {
        EVP_CIPHER_CTX_free(st->ctx);
        free(st);
        return NULL;
    }
    return st;
}

static void *evp_setup(const EVP_CIPHER *cipher, const uint8_t *key, size_t key_len)
{
    return evp_setup_dir(cipher, key, key_len, 1);
}

static void evp_teardown(void *state)
{
    evp_peer *st = state;
    if (st)
        EVP_CIPHER_CTX_free(st->ctx);
    free(st);
}

static void evp_run(void *state, uint8_t *dst, const uint8_t *src, size_t len, size_t count)
{
    evp_peer *st = state;
    int out_len;
    for (size_t i = 0; i < count; i++) {
        EVP_EncryptInit_ex(st->ctx, NULL, NULL, NULL, bench_iv);
        EVP_EncryptUpdate(st->ctx, dst, &out_len, src, (int)len);
    }
}

static void evp_decrypt_run(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                            size_t count)
{
    evp_peer *st = state;
    int out_len;
    for (size_t i = 0; i < count; i++) {
        EVP_DecryptInit_ex(st->ctx, NULL, NULL, NULL, bench_iv);
        EVP_DecryptUpdate(st->ctx, dst, &out_len, src, (int)len);
    }
}

static const EVP_CIPHER *evp_aes_ctr(unsigned keybits)
{
    switch (keybits) {
    case 128: return EVP_aes_128_ctr();
    case 192: return EVP_aes_192_ctr();
    case 256: return EVP_aes_256_ctr();
    default: return NULL;
    }
}

static void *ctr_setup_peer(unsigned keybits, const uint8_t *key, size_t key_len)
{
    return evp_setup(evp_aes_ctr(keybits), key, key_len);
}

/* keybits is the AES key size; OpenSSL's XTS key is K1 || K2, twice as long. */
static const EVP_CIPHER *evp_aes_xts(unsigned keybits)
{
    switch (keybits) {
    case 128: return EVP_aes_128_xts();
    case 256: return EVP_aes_256_xts();
    default: return NULL;     /* OpenSSL has no AES-192-XTS */
    }
}

static void *xts_encrypt_setup_peer(unsigned keybits, const uint8_t *key, size_t key_len)
{
    return evp_setup_dir(evp_aes_xts(keybits), key, key_len, 1);
}

static void *xts_decrypt_setup_peer(unsigned keybits, const uint8_t *key, size_t key_len)
{
    return evp_setup_dir(evp_aes_xts(keybits), key, key_len, 0);
}

/* ---- GCM ----
 *
 * Per message, a TLS record: a 12-byte IV, 13 bytes of AAD, the data, a 16-byte tag.
 *   ours:    aesgen_gcm_init once per ISA (round keys and the powers of H); per message
 *            one aesgen_gcm_encrypt (or aesgen_gcm_decrypt, which checks the tag).
 *   OpenSSL: EVP_EncryptInit_ex with cipher and key once; per message
 *            EVP_EncryptInit_ex(ctx,NULL,NULL,NULL,iv), EVP_EncryptUpdate of the AAD, of
 *            the data, EVP_EncryptFinal_ex, EVP_CTRL_GCM_GET_TAG (decrypt: the EVP_Decrypt*
 *            calls with EVP_CTRL_GCM_SET_TAG before the final, which checks the tag).
 * The tag goes to dst[len..len+16) (decrypt: dst[len] = 1 if the tag checked), so the
 * bench's output check covers it (extra_out).  A decrypt needs a valid tag for its
 * ciphertext (the bench's src): OpenSSL computes it for both sides once per length,
 * untimed (the output check runs first), by encrypting twice: E(src) is a plaintext
 * whose ciphertext is src.
 * Streaming: one start per timed batch, then one update per "message" of len bytes
 * (the same src each time), and one final at the end of the batch (~200 us of data;
 * also every 2^30 bytes, far below the 2^36 - 32 limit); OpenSSL: one
 * EVP_EncryptInit_ex(iv) per batch, one EVP_EncryptUpdate per message, final + tag.
 * % of ceiling counts ceil(len/16) + 1 AES blocks per message (the +1 is E_K(J0)), and
 * no extra block for a stream update (its start and final are spread over the batch).
 */

enum { GCM_AAD_LEN = 13, GCM_TAG_LEN = 16, GCM_TAG_CACHE = 16 };
#define GCM_STREAM_RESTART ((uint64_t)1 << 30)

static const uint8_t gcm_aad[GCM_AAD_LEN] = {
    0x17, 0x03, 0x03, 0x05, 0x8c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a,
};

static const EVP_CIPHER *evp_aes_gcm(unsigned keybits)
{
    switch (keybits) {
    case 128: return EVP_aes_128_gcm();
    case 192: return EVP_aes_192_gcm();
    case 256: return EVP_aes_256_gcm();
    default: return NULL;
    }
}

/* Valid tags for the bench's src as ciphertext, one per length, made on first use by
 * OpenSSL for both sides (so a wrong tag of ours shows up as a failed decrypt). */
typedef struct gcm_tagger {
    EVP_CIPHER_CTX *ctx;
    const EVP_CIPHER *cipher;
    uint8_t key[32];
    size_t n;
    size_t len[GCM_TAG_CACHE];
    uint8_t tag[GCM_TAG_CACHE][GCM_TAG_LEN];
} gcm_tagger;

static int gcm_tagger_init(gcm_tagger *t, const uint8_t *key, size_t key_len)
{
    t->cipher = evp_aes_gcm((unsigned)key_len * 8);
    if (!t->cipher || key_len > sizeof t->key || !(t->ctx = EVP_CIPHER_CTX_new()))
        return 0;
    memcpy(t->key, key, key_len);
    return 1;
}

/* One whole EVP encryption with the bench's IV and AAD. */
static int gcm_tagger_encrypt(gcm_tagger *t, uint8_t *dst, const uint8_t *src, size_t len,
                              uint8_t tag[GCM_TAG_LEN])
{
    int out_len;
    if (EVP_EncryptInit_ex(t->ctx, t->cipher, NULL, t->key, bench_iv) != 1
        || EVP_EncryptUpdate(t->ctx, NULL, &out_len, gcm_aad, GCM_AAD_LEN) != 1
        || (len && EVP_EncryptUpdate(t->ctx, dst, &out_len, src, (int)len) != 1)
        || EVP_EncryptFinal_ex(t->ctx, dst + len, &out_len) != 1
        || EVP_CIPHER_CTX_ctrl(t->ctx, EVP_CTRL_GCM_GET_TAG, GCM_TAG_LEN, tag) != 1)
        return -1;
    return 0;
}

static const uint8_t *gcm_tag_for(gcm_tagger *t, const uint8_t *src, size_t len)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->len[i] == len)
            return t->tag[i];
    size_t slot = t->n < GCM_TAG_CACHE ? t->n++ : GCM_TAG_CACHE - 1;
    uint8_t *plain = malloc(len + 1), *again = malloc(len + 1);
    memset(t->tag[slot], 0, GCM_TAG_LEN);
    if (plain && again) {
        gcm_tagger_encrypt(t, plain, src, len, t->tag[slot]);    /* the plaintext of src */
        gcm_tagger_encrypt(t, again, plain, len, t->tag[slot]);  /* src again, and its tag */
    }
    free(plain);
    free(again);
    t->len[slot] = len;
    return t->tag[slot];
}

typedef struct gcm_ours {
    aesgen_gcm_key key;            /* init once: round keys and the powers of H */
    aesgen_gcm_ctx ctx;            /* streaming */
    gcm_tagger tags;
} gcm_ours;

static void gcm_teardown_ours(void *state)
{
    gcm_ours *st = state;
    if (st)
        EVP_CIPHER_CTX_free(st->tags.ctx);
    free(st);
}

static int gcm_key(void *state, const uint8_t *key, size_t key_len)
{
    gcm_ours *st = state;
    return aesgen_gcm_init(&st->key, key, key_len) == AESGEN_OK
           && gcm_tagger_init(&st->tags, key, key_len);
}

static void *gcm_setup_ours(const char *isa, const uint8_t *key, size_t key_len)
{
    return setup_ours_keyed(isa, sizeof(gcm_ours), gcm_key, gcm_teardown_ours, key, key_len);
}

static void gcm_encrypt_run_ours(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                                 size_t count)
{
    gcm_ours *st = state;
    for (size_t i = 0; i < count; i++)
        aesgen_gcm_encrypt(&st->key, bench_iv, 12, gcm_aad, GCM_AAD_LEN, dst, src, len,
                           dst + len, GCM_TAG_LEN);
}

static void gcm_decrypt_run_ours(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                                 size_t count)
{
    gcm_ours *st = state;
    const uint8_t *tag = gcm_tag_for(&st->tags, src, len);
    for (size_t i = 0; i < count; i++)
        dst[len] = aesgen_gcm_decrypt(&st->key, bench_iv, 12, gcm_aad, GCM_AAD_LEN, dst, src,
                                      len, tag, GCM_TAG_LEN) == AESGEN_OK;
}

static void gcm_stream_run_ours(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                                size_t count)
{
    gcm_ours *st = state;
    uint64_t streamed = 0;
    aesgen_gcm_start(&st->ctx, &st->key, bench_iv, 12);
    for (size_t i = 0; i < count; i++) {
        if (streamed + len > GCM_STREAM_RESTART) {
            aesgen_gcm_encrypt_final(&st->ctx, dst + len, GCM_TAG_LEN);
            aesgen_gcm_start(&st->ctx, &st->key, bench_iv, 12);
            streamed = 0;
        }
        aesgen_gcm_encrypt_update(&st->ctx, dst, src, len);
        streamed += len;
    }
    aesgen_gcm_encrypt_final(&st->ctx, dst + len, GCM_TAG_LEN);
}

/* OpenSSL: the EVP AEAD sequence, keyed once. */
typedef struct gcm_peer {
    EVP_CIPHER_CTX *ctx;           /* per-message work */
    gcm_tagger tags;               /* decrypt tags, untimed */
} gcm_peer;

static void gcm_teardown_peer(void *state)
{
    gcm_peer *st = state;
    if (st) {
        EVP_CIPHER_CTX_free(st->ctx);
        EVP_CIPHER_CTX_free(st->tags.ctx);
    }
    free(st);
}

static void *gcm_setup_peer_dir(unsigned keybits, const uint8_t *key, size_t key_len, int encrypt)
{
    const EVP_CIPHER *cipher = evp_aes_gcm(keybits);
    if (!cipher || (size_t)EVP_CIPHER_get_key_length(cipher) != key_len)
        return NULL;
    gcm_peer *st = alloc_state(sizeof *st);
    if (!st)
        return NULL;
    st->ctx = EVP_CIPHER_CTX_new();
    if (!st->ctx || !gcm_tagger_init(&st->tags, key, key_len)
        || EVP_CipherInit_ex(st->ctx, cipher, NULL, key, bench_iv, encrypt) != 1) {
        gcm_teardown_peer(st);
        return NULL;
    }
    return st;
}

static void *gcm_encrypt_setup_peer(unsigned keybits, const uint8_t *key, size_t key_len)
{
    return gcm_setup_peer_dir(keybits, key, key_len, 1);
}

static void *gcm_decrypt_setup_peer(unsigned keybits, const uint8_t *key, size_t key_len)
{
    return gcm_setup_peer_dir(keybits, key, key_len, 0);
}

static void gcm_encrypt_run_peer(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                                 size_t count)
{
    gcm_peer *st = state;
    int out_len;
    for (size_t i = 0; i < count; i++) {
        EVP_EncryptInit_ex(st->ctx, NULL, NULL, NULL, bench_iv);
        EVP_EncryptUpdate(st->ctx, NULL, &out_len, gcm_aad, GCM_AAD_LEN);
        EVP_EncryptUpdate(st->ctx, dst, &out_len, src, (int)len);
        EVP_EncryptFinal_ex(st->ctx, dst + len, &out_len);
        EVP_CIPHER_CTX_ctrl(st->ctx, EVP_CTRL_GCM_GET_TAG, GCM_TAG_LEN, dst + len);
    }
}

static void gcm_decrypt_run_peer(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                                 size_t count)
{
    gcm_peer *st = state;
    uint8_t tag[GCM_TAG_LEN];
    int out_len;
    memcpy(tag, gcm_tag_for(&st->tags, src, len), GCM_TAG_LEN);
    for (size_t i = 0; i < count; i++) {
        EVP_DecryptInit_ex(st->ctx, NULL, NULL, NULL, bench_iv);
        EVP_DecryptUpdate(st->ctx, NULL, &out_len, gcm_aad, GCM_AAD_LEN);
        EVP_DecryptUpdate(st->ctx, dst, &out_len, src, (int)len);
        EVP_CIPHER_CTX_ctrl(st->ctx, EVP_CTRL_GCM_SET_TAG, GCM_TAG_LEN, tag);
        dst[len] = EVP_DecryptFinal_ex(st->ctx, dst + len, &out_len) > 0;
    }
}

static void gcm_stream_run_peer(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                                size_t count)
{
    gcm_peer *st = state;
    uint64_t streamed = 0;
    int out_len;
    EVP_EncryptInit_ex(st->ctx, NULL, NULL, NULL, bench_iv);
    for (size_t i = 0; i < count; i++) {
        if (streamed + len > GCM_STREAM_RESTART) {
            EVP_EncryptFinal_ex(st->ctx, dst + len, &out_len);
            EVP_EncryptInit_ex(st->ctx, NULL, NULL, NULL, bench_iv);
            streamed = 0;
        }
        EVP_EncryptUpdate(st->ctx, dst, &out_len, src, (int)len);
        streamed += len;
    }
    EVP_EncryptFinal_ex(st->ctx, dst + len, &out_len);
    EVP_CIPHER_CTX_ctrl(st->ctx, EVP_CTRL_GCM_GET_TAG, GCM_TAG_LEN, dst + len);
}

/* ---- the table ---- */

const bench_workload bench_workloads[] = {
    {
        .mode = "ctr",
        .title = "CTR",
        .key_factor = 1,
        .ours_per_message = "aesgen_ctr_crypt_iv (init, which expands the key, once)",
        .peer_per_message = "EVP_EncryptInit_ex(ctx,NULL,NULL,NULL,iv) + EVP_EncryptUpdate",
        .setup_ours = ctr_setup_ours,
        .run_ours = ctr_run_ours,
        .teardown_ours = free_state,
        .setup_peer = ctr_setup_peer,
        .run_peer = evp_run,
        .teardown_peer = evp_teardown,
    },
    {
        .mode = "xctr",
        .title = "XCTR",
        .key_factor = 1,
        .ours_per_message = "aesgen_xctr_crypt_iv (init, which expands the key, once)",
        .peer_per_message = NULL,   /* OpenSSL has no XCTR */
        .setup_ours = xctr_setup_ours,
        .run_ours = xctr_run_ours,
        .teardown_ours = free_state,
    },
    {
        .mode = "xts-enc",
        .family = "xts",
        .title = "XTS encrypt",
        .tcrypt_alg = "xts(aes)",
        .tcrypt_op = "encryption",
        .key_factor = 2,            /* K1 || K2 */
        .extra_blocks = 1,          /* the tweak, AES_K2(iv) */
        .tcrypt_lines = 1,
        .ours_per_message = "aesgen_xts_encrypt (one data unit; init, which expands both "
                            "keys, once)",
        .peer_per_message = "EVP_EncryptInit_ex(ctx,NULL,NULL,NULL,iv) + EVP_EncryptUpdate",
        .setup_ours = xts_setup_ours,
        .run_ours = xts_encrypt_run_ours,
        .teardown_ours = free_state,
        .setup_peer = xts_encrypt_setup_peer,
        .run_peer = evp_run,
        .teardown_peer = evp_teardown,
    },
    {
        .mode = "xts-dec",
        .family = "xts",
        .title = "XTS decrypt",
        .tcrypt_alg = "xts(aes)",
        .tcrypt_op = "decryption",
        .key_factor = 2,
        .extra_blocks = 1,
        .tcrypt_lines = 1,
        .ours_per_message = "aesgen_xts_decrypt (one data unit; init, which expands both "
                            "keys, once)",
        .peer_per_message = "EVP_DecryptInit_ex(ctx,NULL,NULL,NULL,iv) + EVP_DecryptUpdate",
        .setup_ours = xts_setup_ours,
        .run_ours = xts_decrypt_run_ours,
        .teardown_ours = free_state,
        .setup_peer = xts_decrypt_setup_peer,
        .run_peer = evp_decrypt_run,
        .teardown_peer = evp_teardown,
    },
    {
        .mode = "gcm-enc",
        .family = "gcm",
        .title = "GCM encrypt (TLS record: 12-byte IV, 13-byte AAD, 16-byte tag)",
        .tcrypt_alg = "gcm(aes)",
        .tcrypt_op = "encryption",
        .key_factor = 1,
        .extra_blocks = 1,          /* E_K(J0), which masks the tag */
        .extra_out = GCM_TAG_LEN,   /* the tag */
        .ours_per_message = "aesgen_gcm_encrypt (IV, 13-byte AAD, data, tag; init, which "
                            "expands the key and the powers of H, once)",
        .peer_per_message = "EVP_EncryptInit_ex(ctx,NULL,NULL,NULL,iv) + EVP_EncryptUpdate "
                            "(AAD) + EVP_EncryptUpdate (data) + EVP_EncryptFinal_ex + GET_TAG",
        .setup_ours = gcm_setup_ours,
        .run_ours = gcm_encrypt_run_ours,
        .teardown_ours = gcm_teardown_ours,
        .setup_peer = gcm_encrypt_setup_peer,
        .run_peer = gcm_encrypt_run_peer,
        .teardown_peer = gcm_teardown_peer,
    },
    {
        .mode = "gcm-dec",
        .family = "gcm",
        .title = "GCM decrypt (TLS record: 12-byte IV, 13-byte AAD, 16-byte tag checked)",
        .tcrypt_alg = "gcm(aes)",
        .tcrypt_op = "decryption",
        .key_factor = 1,
        .extra_blocks = 1,          /* E_K(J0) */
        .extra_out = 1,             /* dst[len] = 1: the tag checked */
        .ours_per_message = "aesgen_gcm_decrypt (IV, 13-byte AAD, data, tag check; init "
                            "once)",
        .peer_per_message = "EVP_DecryptInit_ex(ctx,NULL,NULL,NULL,iv) + EVP_DecryptUpdate "
                            "(AAD) + EVP_DecryptUpdate (data) + SET_TAG + EVP_DecryptFinal_ex",
        .setup_ours = gcm_setup_ours,
        .run_ours = gcm_decrypt_run_ours,
        .teardown_ours = gcm_teardown_ours,
        .setup_peer = gcm_decrypt_setup_peer,
        .run_peer = gcm_decrypt_run_peer,
        .teardown_peer = gcm_teardown_peer,
    },
    {
        .mode = "gcm-stream",
        .family = "gcm",
        .title = "GCM streaming encrypt (one start per batch, update calls of this length)",
        .tcrypt_alg = "gcm(aes)",
        .tcrypt_op = "encryption",
        .key_factor = 1,
        .extra_blocks = 0,          /* E_K(J0) once per batch: spread thin */
        .extra_out = GCM_TAG_LEN,
        .ours_per_message = "aesgen_gcm_encrypt_update (aesgen_gcm_start before and "
                            "aesgen_gcm_encrypt_final after each batch of ~200 us)",
        .peer_per_message = "EVP_EncryptUpdate (EVP_EncryptInit_ex(ctx,NULL,NULL,NULL,iv) "
                            "before and EVP_EncryptFinal_ex + GET_TAG after each batch)",
        .setup_ours = gcm_setup_ours,
        .run_ours = gcm_stream_run_ours,
        .teardown_ours = gcm_teardown_ours,
        .setup_peer = gcm_encrypt_setup_peer,
        .run_peer = gcm_stream_run_peer,
        .teardown_peer = gcm_teardown_peer,
    },
};

const size_t bench_workload_count = sizeof bench_workloads / sizeof bench_workloads[0];
