/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The constant-time check (`make ct-check`), run under valgrind memcheck by
 * tests/ct/run.py.  ctgrind style: the secrets (keys, plaintexts, AAD, tags) are
 * marked undefined with VALGRIND_MAKE_MEM_UNDEFINED, and everything computed from
 * them stays undefined, so memcheck reports any conditional jump or memory address
 * that depends on a secret.  Each check runs one operation and counts the errors
 * memcheck reported during it (VALGRIND_COUNT_ERRORS): zero passes.
 *
 * Operations, for `generic`, `vperm_ssse3` (vector-permute AES: pshufb lookups on
 * secret indexes are data flow, not addresses, so memcheck passes them; a table read at
 * a secret address would be reported) and `aesni_avx`, once per uarch variant of
 * gen/aesgen_gen.h whatever the CPU (valgrind 3.19 decodes neither VAES
 * nor AVX-512, so the other ISAs cannot run here; tests/python/test_ct_static.py
 * checks their GCM counter branches statically):
 *   key setup of every mode (encryption and decryption schedules, GCM's H powers),
 *   CTR and XCTR crypt, XTS encrypt/decrypt (one data unit and sectors, ciphertext
 *   stealing), GCM encrypt/decrypt one-shot and streamed with 12- and 13-byte IVs
 *   (a 13-byte IV's J0 is key-derived: a secret counter), the tag comparison of a
 *   good and a bad tag, and aesgen_wipe.
 * Lengths, IVs, tweaks and sector numbers are public.  The library declassifies
 * only whether a tag matched (runtime/src/ct.h), which it must reveal.
 *
 * Usage: valgrind ct_check [--expect-leak]: the binary linked with the planted
 * early-exit tag comparison (AESGEN_CT_PLANT_EARLY_EXIT) passes --expect-leak and
 * then reports the tag checks caught (they must fail) as its checks.
 * Last line: `N passed, N failed`.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

#include "aesgen.h"
#include "aesgen_gen.h"     /* the uarch names whose variants aesni_avx is checked under */

static unsigned long passed, failed;
static bool expect_leak;      /* the planted build: the tag checks must report errors */
static const char *isa_now;
static unsigned bits_now;     /* AES key size of the checks running now */

#define SECRET(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (n)))
#define PUBLIC(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))

static void result(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void result(bool ok, const char *fmt, ...)
{
    va_list ap;
    printf(ok ? "ok   " : "FAIL: ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    if (ok)
        passed++;
    else
        failed++;
}

/* Runs one operation and checks the count of memcheck errors it caused.
 * leaky: an operation the planted build must be caught in. */
#define CT_CHECK(leaky, name, body)                                                   \
    do {                                                                              \
        unsigned long before_ = VALGRIND_COUNT_ERRORS;                                \
        body;                                                                         \
        unsigned long errors_ = VALGRIND_COUNT_ERRORS - before_;                      \
        if (expect_leak && (leaky))                                                   \
            result(errors_ > 0, "planted leak caught: %s [%s, aes-%u]: %lu errors",   \
                   name, isa_now, bits_now, errors_);                                 \
        else if (!expect_leak)                                                        \
            result(errors_ == 0, "ct %s [%s, aes-%u]: %lu memcheck errors", name,     \
                   isa_now, bits_now, errors_);                                       \
    } while (0)

/* The check is only as good as the marking: what an operation computed from the
 * secrets must still be undefined to memcheck (read without reporting errors). */
static void expect_secret(const void *p, size_t n, const char *what)
{
    uint8_t vbits[64];
    if (n > sizeof vbits)
        n = sizeof vbits;
    bool undefined = false;
    if (VALGRIND_GET_VBITS(p, vbits, n) == 1)
        for (size_t i = 0; i < n; i++)
            undefined |= vbits[i] != 0;
    if (!expect_leak)
        result(undefined, "%s is secret (undefined) to memcheck [%s, aes-%u]", what, isa_now,
               bits_now);
}

static const size_t lengths[] = { 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1000, 4113 };
enum { LENGTHS = sizeof lengths / sizeof lengths[0], MAX_LEN = 4113 + 32 };

static uint8_t key_bytes[64], plain[MAX_LEN], out[MAX_LEN], back[MAX_LEN], aad[600];

/* Fresh secrets before every operation (the contents are fixed: only their
 * definedness matters). */
static void secrets(void)
{
    for (size_t i = 0; i < sizeof key_bytes; i++)
        key_bytes[i] = (uint8_t)(i * 37 + 11);
    for (size_t i = 0; i < sizeof plain; i++)
        plain[i] = (uint8_t)(i * 13 + 7);
    for (size_t i = 0; i < sizeof aad; i++)
        aad[i] = (uint8_t)(i * 5 + 1);
    SECRET(key_bytes, sizeof key_bytes);
    SECRET(plain, sizeof plain);
    SECRET(aad, sizeof aad);
}

static void check_counter_modes(void)
{
    static const size_t key_lens[] = { 16, 24, 32 };
    uint8_t iv[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0 };
    for (size_t k = 0; k < 3; k++) {
        aesgen_ctr_ctx ctr;
        aesgen_xctr_ctx xctr;
        bits_now = (unsigned)key_lens[k] * 8;
        secrets();
        CT_CHECK(false, "ctr/xctr key setup", {
            (void)aesgen_ctr_init(&ctr, key_bytes, key_lens[k], iv);
            (void)aesgen_xctr_init(&xctr, key_bytes, key_lens[k], iv);
        });
        /* The counter crosses the 2^64 wrap of its low half within the longer lengths. */
        expect_secret(&ctr.key, sizeof ctr.key, "the ctr round keys");
        CT_CHECK(false, "ctr crypt", {
            for (size_t i = 0; i < LENGTHS; i++)
                (void)aesgen_ctr_crypt(&ctr, out, plain, lengths[i]);
        });
        expect_secret(out, 16, "ctr output");
        CT_CHECK(false, "xctr crypt", {
            for (size_t i = 0; i < LENGTHS; i++)
                (void)aesgen_xctr_crypt(&xctr, out, plain, lengths[i]);
        });
        expect_secret(out, 16, "xctr output");
        CT_CHECK(false, "ctr/xctr wipe", {
            aesgen_wipe(&ctr, sizeof ctr);
            aesgen_wipe(&xctr, sizeof xctr);
        });
    }
}

static void check_xts(void)
{
    static const size_t key_lens[] = { 32, 48, 64 };
    const uint8_t tweak[16] = { 9, 8, 7, 6, 5, 4, 3, 2, 1 };
    for (size_t k = 0; k < 3; k++) {
        aesgen_xts_ctx xts;
        bits_now = (unsigned)key_lens[k] * 4;
        secrets();
        CT_CHECK(false, "xts key setup (encryption and decryption schedules)",
                 (void)aesgen_xts_init(&xts, key_bytes, key_lens[k]));
        CT_CHECK(false, "xts encrypt and decrypt", {
            for (size_t i = 0; i < LENGTHS; i++) {
                if (lengths[i] < 16)
                    continue;
                (void)aesgen_xts_encrypt(&xts, out, plain, lengths[i], tweak);
                (void)aesgen_xts_decrypt(&xts, back, out, lengths[i], tweak);
            }
        });
        expect_secret(&xts.k1_dec, sizeof xts.k1_dec, "the xts decryption schedule");
        expect_secret(back, 16, "xts output");
        CT_CHECK(false, "xts sectors", {
            (void)aesgen_xts_encrypt_sectors(&xts, out, plain, 4096, 512, 0xfffffffeu);
            (void)aesgen_xts_decrypt_sectors(&xts, back, out, 4096, 512, 0xfffffffeu);
        });
        CT_CHECK(false, "xts wipe", aesgen_wipe(&xts, sizeof xts));
    }
}

static void check_gcm(void)
{
    static const size_t key_lens[] = { 16, 24, 32 };
    static const size_t iv_lens[] = { 12, 13 };
    const uint8_t iv[16] = { 0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88, 1 };
    for (size_t k = 0; k < 3; k++) {
        aesgen_gcm_key key;
        bits_now = (unsigned)key_lens[k] * 8;
        secrets();
        CT_CHECK(false, "gcm key setup (round keys, H powers)",
                 (void)aesgen_gcm_init(&key, key_bytes, key_lens[k]));
        expect_secret(key.h_powers, sizeof key.h_powers, "the gcm H powers");
        for (size_t v = 0; v < 2; v++) {
            const size_t iv_len = iv_lens[v];
            uint8_t tag[16], bad_tag[16];
            char name[96];
            snprintf(name, sizeof name, "gcm encrypt one-shot and streamed, %zu-byte IV", iv_len);
            CT_CHECK(false, name, {
                for (size_t i = 0; i < LENGTHS; i++) {
                    (void)aesgen_gcm_encrypt(&key, iv, iv_len, aad, 13, out, plain,
                                             lengths[i], tag, 16);
                    aesgen_gcm_ctx ctx;
                    (void)aesgen_gcm_start(&ctx, &key, iv, iv_len);
                    (void)aesgen_gcm_aad(&ctx, aad, 7);
                    (void)aesgen_gcm_aad(&ctx, aad + 7, 593);
                    (void)aesgen_gcm_encrypt_update(&ctx, out, plain, lengths[i] / 3);
                    (void)aesgen_gcm_encrypt_update(&ctx, out + lengths[i] / 3,
                                                    plain + lengths[i] / 3,
                                                    lengths[i] - lengths[i] / 3);
                    (void)aesgen_gcm_encrypt_final(&ctx, tag, 16);
                }
            });
            expect_secret(tag, 16, "the gcm tag");
            /* The last message's ciphertext and tag, to decrypt: secret as they are. */
            const size_t len = lengths[LENGTHS - 1];
            (void)aesgen_gcm_encrypt(&key, iv, iv_len, aad, 13, out, plain, len, tag, 16);
            memcpy(bad_tag, tag, 16);
            bad_tag[15] ^= 0x40;                      /* differs in its last byte only */
            snprintf(name, sizeof name, "gcm decrypt and tag compare (good tag), %zu-byte IV",
                     iv_len);
            CT_CHECK(true, name, {
                int rc = aesgen_gcm_decrypt(&key, iv, iv_len, aad, 13, back, out, len, tag, 16);
                aesgen_gcm_ctx ctx;
                (void)aesgen_gcm_start(&ctx, &key, iv, iv_len);
                (void)aesgen_gcm_aad(&ctx, aad, 13);
                (void)aesgen_gcm_decrypt_update(&ctx, back, out, len);
                int rc2 = aesgen_gcm_decrypt_final(&ctx, tag, 16);
                if (!expect_leak && (rc != AESGEN_OK || rc2 != AESGEN_OK))
                    result(false, "gcm decrypt of a good tag returned %d / %d", rc, rc2);
            });
            snprintf(name, sizeof name, "gcm decrypt and tag compare (bad tag), %zu-byte IV",
                     iv_len);
            CT_CHECK(true, name, {
                int rc = aesgen_gcm_decrypt(&key, iv, iv_len, aad, 13, back, out, len,
                                            bad_tag, 16);
                if (!expect_leak && rc != AESGEN_EBADMSG)
                    result(false, "gcm decrypt of a bad tag returned %d", rc);
            });
        }
        CT_CHECK(false, "gcm key wipe", aesgen_wipe(&key, sizeof key));
    }
}

/* What the vector-permute ISA relies on, shown to the checker itself: a table lookup
 * at a secret address is reported, a pshufb whose indexes are secret (vperm_ssse3's
 * S-box) is not -- its result is merely secret too. */
static void check_sees_secret_addresses(void)
{
    static const uint8_t table[256] = { 1, 2, 3 };
    uint8_t index[16], lane[16];
    isa_now = "self-test";
    memset(index, 7, sizeof index);
    SECRET(index, sizeof index);
    unsigned long before = VALGRIND_COUNT_ERRORS;
    volatile uint8_t sink = table[index[0]];
    (void)sink;
    unsigned long table_errors = VALGRIND_COUNT_ERRORS - before;
    result(table_errors > 0, "self-test: a load at a secret address is reported (%lu errors)",
           table_errors);
#if defined(__x86_64__)
    before = VALGRIND_COUNT_ERRORS;
    __asm__ volatile("movdqu %1, %%xmm1\n\tmovdqu %2, %%xmm0\n\tpshufb %%xmm1, %%xmm0\n\t"
                     "movdqu %%xmm0, %0" : "=m"(lane) : "m"(index), "m"(table) : "xmm0", "xmm1");
    unsigned long shuffle_errors = VALGRIND_COUNT_ERRORS - before;
    result(shuffle_errors == 0, "self-test: pshufb with secret indexes is not (%lu errors)",
           shuffle_errors);
    expect_secret(lane, sizeof lane, "the pshufb result");
#endif
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    expect_leak = argc > 1 && strcmp(argv[1], "--expect-leak") == 0;
    if (!RUNNING_ON_VALGRIND) {
        printf("FAIL: ct_check must run under valgrind (tests/ct/run.py does)\n");
        printf("0 passed, 1 failed\n");
        return 1;
    }
    printf("ct_check: secrets marked undefined; any memcheck error in an operation fails it.\n"
           "ct_check: valgrind 3.19 cannot run VAES or AVX-512: vaes_avx2, avx10_256 and\n"
           "          avx10_512 are not checked here (see tests/python/test_ct_static.py).\n");
    if (!expect_leak)
        check_sees_secret_addresses();
    /* generic once; vperm_ssse3 and aesni_avx once per variant (the file's own, then
     * a CPU in no row's and each uarch's, whatever this CPU is: e.g. znver1's XTS
     * doubles its tweaks with add/adc in general registers, znver5's vperm_ssse3 XTS
     * runs eight vector-permute blocks a pass). */
#define AESGEN_CT_UARCH_NAME(name, NAME) #name,
    static const char *const variants[] = { "none", "default",
                                            AESGEN_GEN_UARCHES(AESGEN_CT_UARCH_NAME) };
#undef AESGEN_CT_UARCH_NAME
    static const char *const per_variant[] = { "vperm_ssse3", "aesni_avx" };
    const size_t n_variants = sizeof variants / sizeof variants[0];
    size_t count = 1 + n_variants * (sizeof per_variant / sizeof per_variant[0]);
    for (size_t i = 0; i < count; i++) {
        const char *isa = i == 0 ? "generic" : per_variant[(i - 1) / n_variants];
        const char *variant = i == 0 ? "none" : variants[(i - 1) % n_variants];
        static char label[64];
        snprintf(label, sizeof label, "%s%s%s", isa, strcmp(variant, "none") ? "/" : "",
                 strcmp(variant, "none") ? variant : "");
        isa_now = label;
        int rc = aesgen_select_variant(variant);
        result(rc == AESGEN_OK, "select variant %s under valgrind (returned %d)", variant, rc);
        rc = aesgen_select_isa(isa);
        result(rc == AESGEN_OK, "select %s under valgrind (returned %d)", isa, rc);
        if (rc != AESGEN_OK)
            continue;
        if (!expect_leak) {
            check_counter_modes();
            check_xts();
        }
        check_gcm();
    }
    printf("%lu passed, %lu failed\n", passed, failed);
    return failed ? 1 : 0;
}
