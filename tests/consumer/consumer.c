/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * A program as an application writes it against an installed aesgen: it includes
 * <aesgen.h>, links libaesgen (shared or static) and checks two published known
 * answers, SP 800-38A F.5.1 (AES-128-CTR) and test case 4 of the GCM specification
 * (AES-128-GCM, 12-byte IV, 20-byte AAD, 60-byte text), with the ISA the library
 * picks and with the portable code.  tests/python/test_install.py builds it three ways
 * (pkg-config, pkg-config --static, CMake find_package) and runs it.
 * Prints one line per check and "consumer: N passed, N failed"; exit status 1 on a
 * failure.
 */
#include <aesgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

static void check(int ok, const char *what, const char *isa)
{
    printf("%s: %s (%s)\n", ok ? "ok" : "FAIL", what, isa);
    if (ok)
        passed++;
    else
        failed++;
}

static void from_hex(uint8_t *out, const char *hex)
{
    for (size_t i = 0; hex[2 * i]; i++) {
        unsigned byte;
        sscanf(hex + 2 * i, "%2x", &byte);
        out[i] = (uint8_t)byte;
    }
}

/* SP 800-38A F.5.1 CTR-AES128.Encrypt. */
static const char ctr_key[] = "2b7e151628aed2a6abf7158809cf4f3c";
static const char ctr_iv[]  = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
static const char ctr_pt[]  = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                              "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
static const char ctr_ct[]  = "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
                              "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee";

/* The GCM specification (McGrew, Viega), test case 4. */
static const char gcm_key[] = "feffe9928665731c6d6a8f9467308308";
static const char gcm_iv[]  = "cafebabefacedbaddecaf888";
static const char gcm_aad[] = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
static const char gcm_pt[]  = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                              "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
static const char gcm_ct[]  = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
                              "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091";
static const char gcm_tag[] = "5bc94fbc3221a5db94fae95ae7121a47";

static void check_ctr(const char *isa)
{
    uint8_t key[16], iv[16], pt[64], ct[64], out[64];
    from_hex(key, ctr_key);
    from_hex(iv, ctr_iv);
    from_hex(pt, ctr_pt);
    from_hex(ct, ctr_ct);
    aesgen_ctr_ctx ctx;
    int rc = aesgen_ctr_init(&ctx, key, sizeof key, iv);
    if (rc == AESGEN_OK)
        rc = aesgen_ctr_crypt(&ctx, out, pt, sizeof pt);
    aesgen_wipe(&ctx, sizeof ctx);
    check(rc == AESGEN_OK && memcmp(out, ct, sizeof ct) == 0, "AES-128-CTR SP 800-38A F.5.1", isa);
}

static void check_gcm(const char *isa)
{
    uint8_t key[16], iv[12], aad[20], pt[60], ct[60], tag[16], out[60], out_tag[16];
    from_hex(key, gcm_key);
    from_hex(iv, gcm_iv);
    from_hex(aad, gcm_aad);
    from_hex(pt, gcm_pt);
    from_hex(ct, gcm_ct);
    from_hex(tag, gcm_tag);
    aesgen_gcm_key *k = aligned_alloc(64, (sizeof *k + 63) / 64 * 64);
    int rc = k ? aesgen_gcm_init(k, key, sizeof key) : AESGEN_EINVAL;
    if (rc == AESGEN_OK)
        rc = aesgen_gcm_encrypt(k, iv, sizeof iv, aad, sizeof aad, out, pt, sizeof pt,
                                out_tag, sizeof out_tag);
    check(rc == AESGEN_OK && memcmp(out, ct, sizeof ct) == 0
              && memcmp(out_tag, tag, sizeof tag) == 0,
          "AES-128-GCM specification test case 4, encrypt", isa);
    if (k) {
        rc = aesgen_gcm_decrypt(k, iv, sizeof iv, aad, sizeof aad, out, ct, sizeof ct,
                                tag, sizeof tag);
        check(rc == AESGEN_OK && memcmp(out, pt, sizeof pt) == 0,
              "AES-128-GCM specification test case 4, decrypt", isa);
        aesgen_wipe(k, sizeof *k);
        free(k);
    }
}

int main(void)
{
    check(strcmp(aesgen_version(), AESGEN_VERSION_STRING) == 0,
          "aesgen_version() equals the header's AESGEN_VERSION_STRING", AESGEN_VERSION_STRING);
    const char *isas[] = {"auto", "generic"};
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++) {
        if (aesgen_select_isa(isas[i]) != AESGEN_OK) {
            check(0, "aesgen_select_isa", isas[i]);
            continue;
        }
        check_ctr(aesgen_isa_name());
        check_gcm(aesgen_isa_name());
    }
    printf("consumer: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
