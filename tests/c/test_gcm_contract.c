/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Two documented GCM contracts (runtime/include/aesgen.h):
 *  - Alignment: aesgen_gcm_key is declared 16-byte aligned (_Alignof is 16), all the
 *    library needs: a key object at 16, 32 and 48 bytes past a 64-byte boundary (as
 *    malloc may return; valid C, the sanitizer build checks it) gives OpenSSL's
 *    results on every ISA, one-shot and streamed.
 *  - Streamed decryption releases plaintext before the tag is checked: with a forged
 *    tag, decrypt_update has already written the plaintext and only decrypt_final
 *    reports AESGEN_EBADMSG (so callers must hold it back); the one-shot
 *    aesgen_gcm_decrypt wipes dst instead.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcm_harness.h"
#include "harness.h"
#include "isa.h"
#include "tests.h"

enum { MSG = 700 };

_Static_assert(_Alignof(aesgen_gcm_key) == 16, "aesgen_gcm_key: the documented alignment");

static void misaligned_keys(const char *isa, const uint8_t *pt)
{
    uint8_t *area = aligned_alloc(64, sizeof(aesgen_gcm_key) + 64);
    if (area == NULL)
        exit(3);
    static const size_t offsets[] = { 16, 32, 48 };
    for (size_t o = 0; o < 3; o++) {
        aesgen_gcm_key *key = (aesgen_gcm_key *)(void *)(area + offsets[o]);
        uint8_t raw[32], iv[12], aad[29], got[MSG], want[MSG], tag[16], want_tag[16];
        rng_fill(raw, sizeof raw);
        rng_fill(iv, sizeof iv);
        rng_fill(aad, sizeof aad);
        bool ok = aesgen_gcm_init_isa(key, raw, sizeof raw, isa) == AESGEN_OK;
        gcm_ref_evp(GCM_ENCRYPT, raw, sizeof raw, iv, 12, aad, sizeof aad, want, pt, MSG,
                    want_tag, 16);
        ok = ok && aesgen_gcm_encrypt(key, iv, 12, aad, sizeof aad, got, pt, MSG, tag, 16) == 0 &&
             memcmp(got, want, MSG) == 0 && memcmp(tag, want_tag, 16) == 0;
        size_t chunks[3] = { 17, 300, MSG };
        ok = ok && gcm_api_streamed(GCM_ENCRYPT, key, iv, 12, aad, sizeof aad, NULL, 0, got, pt,
                                    MSG, chunks, 3, tag, 16) == AESGEN_OK &&
             memcmp(got, want, MSG) == 0 && memcmp(tag, want_tag, 16) == 0;
        check(ok, "%s gcm key object at 64-byte boundary + %zu: one-shot and streamed match "
              "OpenSSL", isa, offsets[o]);
    }
    free(area);
}

static void plaintext_before_tag(const char *isa, const uint8_t *pt)
{
    uint8_t raw[16], iv[12], ct[MSG], out[MSG], tag[16];
    rng_fill(raw, sizeof raw);
    rng_fill(iv, sizeof iv);
    aesgen_gcm_key key;
    aesgen_gcm_init_isa(&key, raw, sizeof raw, isa);
    aesgen_gcm_encrypt(&key, iv, 12, NULL, 0, ct, pt, MSG, tag, 16);
    tag[3] ^= 1;   /* forged */
    aesgen_gcm_ctx ctx;
    aesgen_gcm_start(&ctx, &key, iv, 12);
    memset(out, 0, sizeof out);
    int rc = aesgen_gcm_decrypt_update(&ctx, out, ct, MSG);
    check(rc == AESGEN_OK && memcmp(out, pt, MSG) == 0,
          "%s gcm: decrypt_update releases the plaintext before the tag is known", isa);
    check_int(aesgen_gcm_decrypt_final(&ctx, tag, 16), AESGEN_EBADMSG,
              "%s gcm: only decrypt_final reports the forgery", isa);
    memset(out, 0x5a, sizeof out);
    rc = aesgen_gcm_decrypt(&key, iv, 12, NULL, 0, out, ct, MSG, tag, 16);
    check(rc == AESGEN_EBADMSG && all_zero(out, MSG),
          "%s gcm: the one-shot decrypt wipes dst on a forgery (rc %d)", isa, rc);
}

void test_gcm_contract(const struct test_config *config)
{
    (void)config;
    check_set_group("gcm-contract");
    uint8_t *pt = xmalloc(MSG);
    rng_fill(pt, MSG);
    FOR_EACH_RUNNABLE_ISA(isa) {
        misaligned_keys(isa->name, pt);
        plaintext_before_tag(isa->name, pt);
    }
    free(pt);
}
