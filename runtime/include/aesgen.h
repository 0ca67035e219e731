/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * aesgen -- AES-CTR, AES-XCTR, AES-XTS and AES-GCM with generated x86-64
 * assembly (AES-NI/AVX, VAES/AVX2, AVX-512) and a constant-time portable C
 * fallback.
 *
 * Rules that hold for every function here:
 *  - Functions that can fail return AESGEN_OK (0) or a negative AESGEN_E* code;
 *    they never abort and never print.  On error no output (dst, context) is
 *    changed.
 *  - dst may equal src (in place); partially overlapping buffers are not supported.
 *  - No pointer needs any alignment; len == 0 is accepted.
 *  - Nothing reads or writes outside [src, src+len) and [dst, dst+len).
 *  - A context keeps using the implementation (ISA) selected when it was
 *    initialized.  Distinct contexts may be used concurrently from different
 *    threads; one context must not be used by two threads at once.
 *  - Contexts are plain data (no pointers to caller memory, nothing to free;
 *    the one exception: a GCM context refers to its aesgen_gcm_key, see there);
 *    call aesgen_wipe(ctx, sizeof *ctx) when done to erase the key material.
 */
#ifndef AESGEN_H
#define AESGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions the shared library exports; everything else is hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define AESGEN_API __attribute__((visibility("default")))
#else
#define AESGEN_API
#endif

/* C11 _Alignas in C, alignas in C++ (where _Alignas does not exist). */
#ifdef __cplusplus
#define AESGEN_ALIGNAS(n) alignas(n)
#else
#define AESGEN_ALIGNAS(n) _Alignas(n)
#endif

/*
 * The version.  These three numbers are the one definition of aesgen's version:
 * the generator's file headers, the pkg-config and CMake package files and the
 * shared library's name (libaesgen.so.MAJOR) are all read from here.
 */
#define AESGEN_VERSION_MAJOR 0
#define AESGEN_VERSION_MINOR 2
#define AESGEN_VERSION_PATCH 0
#define AESGEN_VERSION_STRING "0.2.0"

/* AESGEN_VERSION_STRING of the library actually linked (may differ from the header's). */
AESGEN_API const char *aesgen_version(void);

enum {
    AESGEN_OK      = 0,
    AESGEN_EINVAL  = -22,  /* bad argument: key length, NULL pointer, XTS len < 16,
                              GCM misuse (tag length, order of calls), limits */
    AESGEN_EBADMSG = -74,  /* authentication failure (GCM) */
    AESGEN_ENOTSUP = -95,  /* the requested ISA cannot run on this CPU/OS */
};

/* A short English description of an AESGEN_* code (never NULL). */
AESGEN_API const char *aesgen_strerror(int err);

/*
 * Implementation selection.  Names: "auto", "generic", "aesni_avx", "vaes_avx2",
 * "avx10_256", "avx10_512".  "auto" picks the best this CPU and OS support
 * (CPUID + XGETBV).  The environment variable AESGEN_ISA, read once at first
 * use, has the same effect as a call to aesgen_select_isa() (an unknown or
 * unusable value there is ignored and "auto" is used).
 * aesgen_select_isa: unknown name -> AESGEN_EINVAL; known but unusable here ->
 * AESGEN_ENOTSUP; in both cases the selection is unchanged.  The selection is
 * process-wide and only affects contexts initialized after the call.
 */
AESGEN_API int         aesgen_select_isa(const char *name);
AESGEN_API const char *aesgen_isa_name(void);              /* selected now, never "auto" */
AESGEN_API int         aesgen_isa_supported(const char *name); /* 1 if usable here, else 0 */

/*
 * The expanded AES key as the assembly reads it (see runtime/src/asm_abi.h):
 * round keys rk[0..rounds] at offset 0, the round count at offset 240.  Usually
 * the encryption schedule; XTS also keeps a decryption (equivalent inverse
 * cipher) schedule in the same layout.
 */
typedef struct aesgen_aes_key {
    AESGEN_ALIGNAS(16) uint8_t rk[15][16];  /* round keys rk[0..rounds] */
    uint32_t rounds;                        /* 10, 12 or 14 */
} aesgen_aes_key;

/*
 * Context contents are private: they are shown only so that callers can
 * allocate contexts themselves.
 */
typedef struct aesgen_ctr_ctx {
    aesgen_aes_key key;
    uint64_t ctr[2];     /* counter value of the next block not yet started: [0] low, [1] high */
    uint8_t  ks[16];     /* keystream of the block in progress, when ks_valid */
    uint32_t pos;        /* bytes of the block in progress already used; 0: on a block boundary */
    uint32_t ks_valid;   /* ks holds the keystream of the block in progress */
    int (*crypt)(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                 size_t len, uint64_t ctr_lo, uint64_t ctr_hi); /* chosen at init; returns 0 */
} aesgen_ctr_ctx;

typedef struct aesgen_xctr_ctx {
    aesgen_aes_key key;
    uint8_t  iv[16];
    uint64_t index;      /* index of the next block not yet started (starts at 1; 0: exhausted) */
    uint8_t  ks[16];     /* keystream of the block in progress, when ks_valid */
    uint32_t pos;        /* bytes of the block in progress already used; 0: on a block boundary */
    uint32_t ks_valid;
    int (*crypt)(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                 size_t len, const uint8_t iv[16], uint64_t index);  /* returns 0 */
} aesgen_xctr_ctx;

/*
 * CTR: the 16-byte counter block is a 128-bit big-endian integer incremented
 * mod 2^128 (SP 800-38A, Linux ctr(aes)).  key_len 16, 24 or 32.
 * crypt may be called any number of times with any lengths (including 0);
 * the keystream continues exactly where the previous call stopped.
 * Encryption and decryption are the same operation.
 */
AESGEN_API int aesgen_ctr_init(aesgen_ctr_ctx *ctx, const uint8_t *key, size_t key_len,
                               const uint8_t iv[16]);
AESGEN_API int aesgen_ctr_crypt(aesgen_ctr_ctx *ctx, uint8_t *dst, const uint8_t *src,
                                size_t len);
/* Extension: start a new message under the same key (no key expansion), as if
 * aesgen_ctr_init had been called with the same key and this iv. */
AESGEN_API int aesgen_ctr_set_iv(aesgen_ctr_ctx *ctx, const uint8_t iv[16]);

/*
 * XCTR (HCTR2): keystream block i (i = 1, 2, ...) is AES_K(iv XOR LE128(i)).
 * Same streaming rules as CTR.  A context covers at most 2^64 - 1 blocks;
 * a call that would go past that returns AESGEN_EINVAL and writes nothing.
 */
AESGEN_API int aesgen_xctr_init(aesgen_xctr_ctx *ctx, const uint8_t *key, size_t key_len,
                                const uint8_t iv[16]);
AESGEN_API int aesgen_xctr_crypt(aesgen_xctr_ctx *ctx, uint8_t *dst, const uint8_t *src,
                                 size_t len);
/* Extension: start a new message under the same key, as aesgen_ctr_set_iv. */
AESGEN_API int aesgen_xctr_set_iv(aesgen_xctr_ctx *ctx, const uint8_t iv[16]);

typedef struct aesgen_xts_ctx {
    aesgen_aes_key k1_enc;   /* data key K1, encryption schedule */
    aesgen_aes_key k1_dec;   /* data key K1, equivalent-inverse-cipher schedule */
    aesgen_aes_key k2_enc;   /* tweak key K2, encryption schedule */
    /* Chosen at init; both return 0.  iv is the tweak before encryption with K2. */
    int (*encrypt)(const aesgen_aes_key *key1, const aesgen_aes_key *key2, uint8_t *dst,
                   const uint8_t *src, size_t len, const uint8_t iv[16]);
    int (*decrypt)(const aesgen_aes_key *key1, const aesgen_aes_key *key2, uint8_t *dst,
                   const uint8_t *src, size_t len, const uint8_t iv[16]);
} aesgen_xts_ctx;

/*
 * XTS (IEEE 1619 / SP 800-38E) with byte-granular ciphertext stealing.
 * key is K1 || K2 (data key, then tweak key): key_len 32, 48 or 64 (AES-128,
 * -192, -256).  K1 == K2 is accepted (some published vectors use it), although
 * IEEE 1619-2018 requires distinct keys.
 * One encrypt/decrypt call is one data unit of 16 .. AESGEN_XTS_MAX_DATA_UNIT
 * bytes: IEEE 1619-2018 and SP 800-38E allow at most 2^20 blocks per data unit
 * (OpenSSL 3 enforces the same limit).
 * tweak is the 16-byte value encrypted with K2; for data unit n it is n as
 * 16 bytes little-endian.  len < 16 or len > AESGEN_XTS_MAX_DATA_UNIT:
 * AESGEN_EINVAL, dst untouched.
 * The context is only read by encrypt/decrypt: one context may be used by
 * several threads at once.
 */
#define AESGEN_XTS_MAX_DATA_UNIT ((size_t)16 << 20)   /* 2^20 blocks: 16 MiB */

AESGEN_API int aesgen_xts_init(aesgen_xts_ctx *ctx, const uint8_t *key, size_t key_len);
AESGEN_API int aesgen_xts_encrypt(const aesgen_xts_ctx *ctx, uint8_t *dst, const uint8_t *src,
                                  size_t len, const uint8_t tweak[16]);
AESGEN_API int aesgen_xts_decrypt(const aesgen_xts_ctx *ctx, uint8_t *dst, const uint8_t *src,
                                  size_t len, const uint8_t tweak[16]);

/*
 * Extension: consecutive sectors (data units) of sector_size bytes each, as
 * dm-crypt with the plain64 IV: sector first_sector + i is encrypted with
 * tweak = (first_sector + i) as 16 bytes little-endian (a sector number past
 * 2^64 - 1 carries into byte 8).  16 <= sector_size <= AESGEN_XTS_MAX_DATA_UNIT
 * and len a multiple of sector_size (any total), else AESGEN_EINVAL; len == 0
 * is accepted.  Same result as one
 * aesgen_xts_encrypt / aesgen_xts_decrypt call per sector.
 */
AESGEN_API int aesgen_xts_encrypt_sectors(const aesgen_xts_ctx *ctx, uint8_t *dst,
                                          const uint8_t *src, size_t len, size_t sector_size,
                                          uint64_t first_sector);
AESGEN_API int aesgen_xts_decrypt_sectors(const aesgen_xts_ctx *ctx, uint8_t *dst,
                                          const uint8_t *src, size_t len, size_t sector_size,
                                          uint64_t first_sector);

/*
 * GCM (SP 800-38D).  The key object holds the round keys and the precomputed
 * powers of H; it is made once by aesgen_gcm_init and only read afterwards, so
 * any number of messages (contexts, threads) may use it at once.  It also fixes
 * the implementation (ISA) of every message that uses it.
 * The assembly reads aes at offset 0 and h_powers at offset
 * AESGEN_GCM_H_POWERS_OFFSET (runtime/src/asm_abi.h, which repeats these two
 * definitions): H^32 .. H^1, highest first, each byte-reflected and times x^-1
 * mod the GCM polynomial, then 48 zero bytes.
 */
#define AESGEN_GCM_H_POWERS_OFFSET 256
#define AESGEN_GCM_H_POWERS 32

struct aesgen_gcm_record;   /* internal: the record functions' argument block */

typedef struct aesgen_gcm_key {
    aesgen_aes_key aes;                                            /* offset 0 */
    AESGEN_ALIGNAS(64) uint8_t h_powers[AESGEN_GCM_H_POWERS][16];  /* offset 256 */
    uint8_t h_pad[48];                                             /* zeros */
    /* Chosen at init; the first three have the asm_abi.h contracts and return 0. */
    int (*ghash)(const struct aesgen_gcm_key *key, uint8_t acc[16], const uint8_t *data,
                 size_t len);
    int (*enc_update)(const struct aesgen_gcm_key *key, uint8_t *dst, const uint8_t *src,
                      size_t len, const uint8_t ctr[16], uint8_t acc[16]);
    int (*dec_update)(const struct aesgen_gcm_key *key, uint8_t *dst, const uint8_t *src,
                      size_t len, const uint8_t ctr[16], uint8_t acc[16]);
    void (*encrypt_block)(const aesgen_aes_key *key, uint8_t out[16], const uint8_t in[16]);
    /* The same for short calls (a few blocks): on the vector ISAs the xmm code, whose
     * prologue costs less than that of the ymm/zmm code. */
    int (*ghash_short)(const struct aesgen_gcm_key *key, uint8_t acc[16],
                       const uint8_t *data, size_t len);
    int (*enc_update_short)(const struct aesgen_gcm_key *key, uint8_t *dst,
                            const uint8_t *src, size_t len, const uint8_t ctr[16],
                            uint8_t acc[16]);
    int (*dec_update_short)(const struct aesgen_gcm_key *key, uint8_t *dst,
                            const uint8_t *src, size_t len, const uint8_t ctr[16],
                            uint8_t acc[16]);
    /* A whole message per call (NULL when the ISA has none): the one-shot functions'
     * fast path. */
    int (*enc_record)(const struct aesgen_gcm_key *key, uint8_t *dst, const uint8_t *src,
                      size_t len, struct aesgen_gcm_record *rec);
    int (*dec_record)(const struct aesgen_gcm_key *key, uint8_t *dst, const uint8_t *src,
                      size_t len, struct aesgen_gcm_record *rec);
    int record_pads;   /* 1: the record functions take whole blocks (see asm_abi.h) */
} aesgen_gcm_key;

#ifdef __cplusplus
static_assert(offsetof(aesgen_gcm_key, h_powers) == AESGEN_GCM_H_POWERS_OFFSET,
              "h_powers where the assembly reads it");
#else
_Static_assert(offsetof(aesgen_gcm_key, h_powers) == AESGEN_GCM_H_POWERS_OFFSET,
               "h_powers where the assembly reads it");
#endif

/*
 * One message in progress.  The one exception to "no pointers to caller
 * memory": key points to the aesgen_gcm_key given to aesgen_gcm_start, which
 * must stay valid and unchanged until the message's final call (copying the
 * ~800 bytes of key material into every message would cost more than a short
 * message).  Final wipes the context; it must be started again before reuse.
 */
typedef struct aesgen_gcm_ctx {
    const aesgen_gcm_key *key;
    AESGEN_ALIGNAS(16) uint8_t acc[16];  /* GHASH accumulator, byte-reflected (asm_abi.h) */
    uint8_t ctr[16];       /* counter block of the next keystream block, GCM byte order */
    uint8_t tag_mask[16];  /* E_K(J0) */
    uint8_t buf[16];       /* pending bytes: AAD, or the ciphertext of the data block in progress */
    uint8_t ks[16];        /* keystream of the data block in progress */
    uint64_t aad_len;      /* bytes so far */
    uint64_t data_len;     /* bytes so far */
    uint32_t buf_len;      /* bytes in buf */
    uint32_t state;        /* 0: no message (not started, or finished) */
    uint32_t ctr_secret;   /* the IV was not 12 bytes: ctr derives from the key (asm_abi.h) */
} aesgen_gcm_ctx;

/*
 * k is the AES key: key_len 16, 24 or 32.
 * start: iv_len >= 1 (12 is the fast path: J0 = iv || 0^31 || 1; other lengths
 * go through GHASH).  Then any number of aad calls, then any number of
 * encrypt_update (or decrypt_update, not both) calls, with any lengths and any
 * split (scatter/gather; partial blocks are carried between calls), then the
 * matching final.  tag_len is one of 4, 8, 12, 13, 14, 15, 16; decrypt_final
 * compares the first tag_len bytes of the tag in constant time and returns
 * AESGEN_EBADMSG on a mismatch.  Both finals wipe the context (also on
 * AESGEN_EBADMSG).
 * AESGEN_EINVAL (and nothing changed): NULL pointers (NULL data is fine with
 * len 0), iv_len 0, aad after an update, mixing encrypt and decrypt updates,
 * any call on a context not started or already finished, a bad tag_len, more
 * than 2^36 - 32 bytes of text or 2^61 - 1 bytes of AAD in one message.
 * Any update call, even of 0 bytes, ends the AAD.
 * The one-shot functions do start, aad, update, final; aesgen_gcm_decrypt
 * wipes dst (len bytes) when it returns AESGEN_EBADMSG.
 */
AESGEN_API int aesgen_gcm_init(aesgen_gcm_key *key, const uint8_t *k, size_t key_len);
AESGEN_API int aesgen_gcm_start(aesgen_gcm_ctx *ctx, const aesgen_gcm_key *key,
                                const uint8_t *iv, size_t iv_len);
AESGEN_API int aesgen_gcm_aad(aesgen_gcm_ctx *ctx, const uint8_t *aad, size_t len);
AESGEN_API int aesgen_gcm_encrypt_update(aesgen_gcm_ctx *ctx, uint8_t *dst, const uint8_t *src,
                                         size_t len);
AESGEN_API int aesgen_gcm_decrypt_update(aesgen_gcm_ctx *ctx, uint8_t *dst, const uint8_t *src,
                                         size_t len);
AESGEN_API int aesgen_gcm_encrypt_final(aesgen_gcm_ctx *ctx, uint8_t *tag, size_t tag_len);
AESGEN_API int aesgen_gcm_decrypt_final(aesgen_gcm_ctx *ctx, const uint8_t *tag, size_t tag_len);
AESGEN_API int aesgen_gcm_encrypt(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len,
                                  const uint8_t *aad, size_t aad_len, uint8_t *dst,
                                  const uint8_t *src, size_t len, uint8_t *tag, size_t tag_len);
AESGEN_API int aesgen_gcm_decrypt(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len,
                                  const uint8_t *aad, size_t aad_len, uint8_t *dst,
                                  const uint8_t *src, size_t len, const uint8_t *tag,
                                  size_t tag_len);

/* Wipes memory in a way the compiler cannot remove (keys, contexts). */
AESGEN_API void aesgen_wipe(void *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* AESGEN_H */
