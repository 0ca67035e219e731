/*
 * The workloads the bench times.  Each mode has setup/run/teardown functions for our
 * library and, where OpenSSL has the mode, for OpenSSL; bench_workloads[] lists them.
 *
 * Per-message cost model (both sides pay for starting a message, neither for the key
 * schedule, as with a long-lived key and a new IV per packet):
 *   ours:    the context is initialised once per ISA (init expands the key); per
 *            message aesgen_<mode>_set_iv (the cheap re-IV), then one crypt call.
 *   OpenSSL: EVP_EncryptInit_ex with the cipher and key once; per message
 *            EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) and one EVP_EncryptUpdate.
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

/* ---- CTR, ours ---- */

typedef struct ctr_ours {
    aesgen_ctr_ctx ctx;            /* keyed once, re-IV'd per message */
} ctr_ours;

static void *ctr_setup_ours(const char *isa, const uint8_t *key, size_t key_len)
{
    if (!select_isa_for_init(isa))
        return NULL;
    ctr_ours *st = alloc_state(sizeof *st);
    if (!st)
        return NULL;
    if (aesgen_ctr_init(&st->ctx, key, key_len, bench_iv) != AESGEN_OK) {
        free(st);
        return NULL;
    }
    return st;
}

static void ctr_run_ours(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                         size_t count)
{
    ctr_ours *st = state;
    for (size_t i = 0; i < count; i++) {
        aesgen_ctr_set_iv(&st->ctx, bench_iv);
        aesgen_ctr_crypt(&st->ctx, dst, src, len);
    }
}

/* ---- XCTR, ours ---- */

typedef struct xctr_ours {
    aesgen_xctr_ctx ctx;           /* keyed once, re-IV'd per message */
} xctr_ours;

static void *xctr_setup_ours(const char *isa, const uint8_t *key, size_t key_len)
{
    if (!select_isa_for_init(isa))
        return NULL;
    xctr_ours *st = alloc_state(sizeof *st);
    if (!st)
        return NULL;
    if (aesgen_xctr_init(&st->ctx, key, key_len, bench_iv) != AESGEN_OK) {
        free(st);
        return NULL;
    }
    return st;
}

static void xctr_run_ours(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                          size_t count)
{
    xctr_ours *st = state;
    for (size_t i = 0; i < count; i++) {
        aesgen_xctr_set_iv(&st->ctx, bench_iv);
        aesgen_xctr_crypt(&st->ctx, dst, src, len);
    }
}

/* ---- XTS, ours: one data unit per call, encrypt or decrypt ---- */

typedef struct xts_ours {
    aesgen_xts_ctx ctx;            /* keyed once; the tweak goes with each call */
} xts_ours;

static void *xts_setup_ours(const char *isa, const uint8_t *key, size_t key_len)
{
    if (!select_isa_for_init(isa))
        return NULL;
    xts_ours *st = alloc_state(sizeof *st);
    if (!st)
        return NULL;
    if (aesgen_xts_init(&st->ctx, key, key_len) != AESGEN_OK) {
        free(st);
        return NULL;
    }
    return st;
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

/* ---- the table ---- */

#define OURS_PER_MESSAGE(mode) \
    "aesgen_" mode "_set_iv + aesgen_" mode "_crypt (init, which expands the key, once)"

const bench_workload bench_workloads[] = {
    {
        .mode = "ctr",
        .title = "CTR",
        .key_factor = 1,
        .ours_per_message = OURS_PER_MESSAGE("ctr"),
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
        .ours_per_message = OURS_PER_MESSAGE("xctr"),
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
};

const size_t bench_workload_count = sizeof bench_workloads / sizeof bench_workloads[0];
