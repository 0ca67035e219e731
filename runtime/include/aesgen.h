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
 *  - No data pointer (src, dst, key bytes, iv, aad, tag) needs any alignment;
 *    context and key objects are C objects of their type, aligned as the type
 *    says (16 bytes: any declaration, malloc or aligned_alloc gives it); len == 0
 *    is accepted.
 *  - Nothing reads or writes outside [src, src+len) and [dst, dst+len).
 *  - A context keeps using the implementation (ISA) it was initialized with:
 *    the process-wide selection (aesgen_select_isa) at that time, or the one
 *    named in its aesgen_*_init_isa call.  Distinct contexts may be used
 *    concurrently from different threads, whatever their ISAs; one context must
 *    not be used by two threads at once (XTS, GCM and RFC 3686 keys excepted:
 *    they are only read after init, see there).
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

/* Marks the functions the shared library exports; everything else is hidden.  A vendored
 * bundle's copy of this header defines it first (hidden: the bundle exports nothing). */
#ifndef AESGEN_API
#if defined(__GNUC__) || defined(__clang__)
#define AESGEN_API __attribute__((visibility("default")))
#else
#define AESGEN_API
#endif
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
 * shared library's name (SONAME libaesgen.so.MAJOR, or libaesgen.so.0.MINOR while MAJOR
 * is 0) are all read from here.
 */
#define AESGEN_VERSION_MAJOR 0
#define AESGEN_VERSION_MINOR 6
#define AESGEN_VERSION_PATCH 0
#define AESGEN_VERSION_STRING "0.6.0"

/* AESGEN_VERSION_STRING of the library actually linked (may differ from the header's). */
AESGEN_API const char *aesgen_version(void);

enum {
    AESGEN_OK      = 0,
    AESGEN_EINVAL  = -22,  /* bad argument: key length, NULL pointer, XTS len < 16 or
                              K1 == K2, GCM misuse (tag length, order of calls), ESP AAD
                              length, limits, unknown ISA name */
    AESGEN_EBADMSG = -74,  /* authentication failure (GCM, RFC 4106, RFC 4543) */
    AESGEN_ENOTSUP = -95,  /* the requested ISA cannot run on this CPU/OS */
};

/* A short English description of an AESGEN_* code (never NULL). */
AESGEN_API const char *aesgen_strerror(int err);

/*
 * Implementation selection.  Names: "auto", "generic", "aesni_avx", "vaes_avx2",
 * "avx10_256", "avx10_512", and "vperm_ssse3" (constant-time vector-permute AES
 * for CPUs with SSSE3 but no AES-NI).  "auto" picks the best this CPU and OS
 * support (CPUID + XGETBV), so aesgen_isa_name() may return any of these.  The
 * environment variable AESGEN_ISA, read once at first use, has the same effect as
 * a call to aesgen_select_isa() (an unknown or unusable value there is ignored and
 * "auto" is used).
 * aesgen_select_isa: unknown name -> AESGEN_EINVAL; known but unusable here ->
 * AESGEN_ENOTSUP; in both cases the selection is unchanged.  The selection is
 * process-wide and only affects contexts initialized after the call.
 *
 * Per context: every init call has an _isa twin taking one more argument, the
 * ISA name for that context alone (aesgen_ctr_init_isa, aesgen_xctr_init_isa,
 * aesgen_xts_init_isa, aesgen_gcm_init_isa, aesgen_rfc3686_init_isa,
 * aesgen_gcm_esp_init_isa).  The names are those above, "auto" included; NULL
 * means the process-wide selection (the plain init calls pass NULL).  Unknown
 * name -> AESGEN_EINVAL, a known name the CPU/OS cannot run -> AESGEN_ENOTSUP,
 * checked before anything is written.  The process-wide selection is neither
 * read (unless NULL) nor changed, so two libraries in one process, or a test
 * comparing ISAs, can hold contexts of different ISAs side by side:
 *
 *     aesgen_ctr_ctx wide, narrow;
 *     aesgen_ctr_init_isa(&wide, key, 32, iv, "avx10_512");
 *     aesgen_ctr_init_isa(&narrow, key, 32, iv, "aesni_avx");   // same keystream
 */
AESGEN_API int         aesgen_select_isa(const char *name);
AESGEN_API const char *aesgen_isa_name(void);              /* selected now, never "auto" */
AESGEN_API int         aesgen_isa_supported(const char *name); /* 1 if usable here, else 0 */

/*
 * Variants per microarchitecture.  Within an ISA, some uarchs run functions generated
 * with other knobs, measured faster there (generator/tuning.json; "znver4", "znver5",
 * "sapphirerapids", ...), and with the ISA "auto" chose, short calls may go to another
 * ISA's code measured faster at that length.  By default the CPU's uarch (CPUID vendor,
 * family, model) decides, and a CPU in none of the table's rows takes the "default"
 * choices; AESGEN_VARIANT=default|none|auto|NAME in the environment, read once at first
 * use, and aesgen_select_variant override it: a uarch name (or "default") takes those
 * choices (on any CPU that runs the ISA), "none" no uarch's: the files' own functions
 * everywhere and no length plan, "auto" the CPU's.  Unknown name -> AESGEN_EINVAL,
 * nothing changed (an unknown AESGEN_VARIANT is ignored).  Process-wide; contexts
 * initialized after the call take it.  Every variant computes the same bytes.
 */
AESGEN_API int         aesgen_select_variant(const char *name);
/* "default", "none" or a uarch, never "auto" */
AESGEN_API const char *aesgen_variant_name(void);

/*
 * The expanded AES key as the assembly reads it (see runtime/src/asm_abi.h):
 * round keys rk[0..rounds] at offset 0, the round count at offset 240, and from
 * offset 256 each round key again as a 64-byte row (rk[i] in all four 16-byte
 * lanes), which 512-bit code loads as it is instead of broadcasting 16 bytes (on
 * Zen 5 a broadcast from memory takes a vector pipe's slot; the rows made a
 * 512-byte CTR call 4% faster there).  Usually the encryption schedule; XTS also
 * keeps a decryption (equivalent inverse cipher) schedule in the same layout.
 * Changed in 0.4.0: the rows are new (sizeof 1216, was 256).
 *
 * Alignment: 16 bytes is all the library needs (the assembly's loads of the rows
 * are unaligned loads).  A key whose address is a multiple of 64 (a context
 * declared alignas(64) or from aligned_alloc(64, ...)) is faster: each row is then
 * one cache line (Zen 5, 512-byte CTR: 0.96x with the rows 16 bytes off).
 */
typedef struct aesgen_aes_key {
    AESGEN_ALIGNAS(16) uint8_t rk[15][16];  /* round keys rk[0..rounds] */
    uint32_t rounds;                        /* 10, 12 or 14 */
    AESGEN_ALIGNAS(16) uint8_t rk_rows[15][64];  /* offset 256: rk[i] four times over */
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
    int (*crypt_iv)(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                    size_t len, const uint8_t ctr[16]);  /* the same from the block; may be NULL */
} aesgen_ctr_ctx;

typedef struct aesgen_xctr_ctx {
    aesgen_aes_key key;
    uint8_t  iv[16];
    uint64_t index;      /* index of the next block not yet started (starts at 1; 0: exhausted) */
    uint8_t  ks[16];     /* keystream of the block in progress, when ks_valid */
    uint32_t pos;        /* bytes of the block in progress already used; 0: on a block boundary */
    uint16_t ks_valid;
    uint16_t plan;       /* "auto": the length plan some calls take another ISA by (0: none) */
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
/* aesgen_ctr_init with the ISA named for this context (see aesgen_select_isa). */
AESGEN_API int aesgen_ctr_init_isa(aesgen_ctr_ctx *ctx, const uint8_t *key, size_t key_len,
                                   const uint8_t iv[16], const char *isa);
/* Extension: start a new message under the same key (no key expansion), as if
 * aesgen_ctr_init had been called with the same key and this iv. */
AESGEN_API int aesgen_ctr_set_iv(aesgen_ctr_ctx *ctx, const uint8_t iv[16]);
/*
 * Extension (0.6.0): one whole message under ctx's key from this counter block (what
 * aesgen_ctr_set_iv + aesgen_ctr_crypt give), in one stateless call: ctx is only read
 * (its own counter and partial block stay as they were), so one keyed context may
 * serve many threads.  The form of a request with its own IV (Linux ctr(aes)), and the
 * fastest per message: no counter is stored in ctx and read back.
 *     aesgen_ctr_crypt_iv(&cctx, iv, out, in, len);
 * dst == src is allowed; iv may lie anywhere, dst or src included (it is read before
 * anything is written).  NULL ctx or iv, a zero-filled ctx, or NULL dst/src with
 * len != 0: AESGEN_EINVAL, nothing written; len 0: AESGEN_OK.
 */
AESGEN_API int aesgen_ctr_crypt_iv(const aesgen_ctr_ctx *ctx, const uint8_t iv[16],
                                   uint8_t *dst, const uint8_t *src, size_t len);
/*
 * The counter block of the next keystream block not yet started: the iv given
 * at init/set_iv plus the number of blocks begun so far (a partial block counts
 * as begun), mod 2^128.  This is the "next IV" of the Linux crypto API (.iv_out)
 * and of OpenSSL (EVP_CIPHER_CTX_get_updated_iv): a message that ends on a block
 * boundary continues seamlessly with aesgen_ctr_set_iv(ctx, iv); after a partial
 * block, set_iv with it skips the rest of that block (as both of those APIs do),
 * while further aesgen_ctr_crypt calls on ctx still use it.
 *     uint8_t next[16];
 *     aesgen_ctr_crypt(&ctx, buf, buf, 100);        // 7 blocks begun
 *     aesgen_ctr_get_iv(&ctx, next);               // next = iv + 7
 * NULL ctx or iv, or a zero-filled ctx (never initialized): AESGEN_EINVAL, iv untouched.
 */
AESGEN_API int aesgen_ctr_get_iv(const aesgen_ctr_ctx *ctx, uint8_t iv[16]);

/*
 * XCTR (HCTR2): keystream block i (i = 1, 2, ...) is AES_K(iv XOR LE128(i)).
 * Same streaming rules as CTR.  A context covers at most 2^64 - 1 blocks;
 * a call that would go past that returns AESGEN_EINVAL and writes nothing.
 */
AESGEN_API int aesgen_xctr_init(aesgen_xctr_ctx *ctx, const uint8_t *key, size_t key_len,
                                const uint8_t iv[16]);
AESGEN_API int aesgen_xctr_crypt(aesgen_xctr_ctx *ctx, uint8_t *dst, const uint8_t *src,
                                 size_t len);
/* aesgen_xctr_init with the ISA named for this context (see aesgen_select_isa). */
AESGEN_API int aesgen_xctr_init_isa(aesgen_xctr_ctx *ctx, const uint8_t *key, size_t key_len,
                                    const uint8_t iv[16], const char *isa);
/* Extension: start a new message under the same key, as aesgen_ctr_set_iv. */
AESGEN_API int aesgen_xctr_set_iv(aesgen_xctr_ctx *ctx, const uint8_t iv[16]);
/*
 * Extension (0.3.1): one whole message under ctx's key and this iv, blocks 1, 2, ... (what
 * aesgen_xctr_set_iv + aesgen_xctr_crypt give), in one stateless call: ctx is only
 * read (its own iv, index and partial block stay as they were), so one keyed context
 * may serve many threads.  The form HCTR2 calls, and the fastest per message: iv goes
 * to the implementation as it is, not through a copy in ctx.
 *     aesgen_xctr_crypt_iv(&xctx, iv, out, in, len);
 * dst == src is allowed; iv may lie anywhere, dst or src included (the result is as if
 * iv were copied before anything is written).  NULL ctx or iv, a zero-filled ctx,
 * or NULL dst/src with len != 0: AESGEN_EINVAL, nothing written; len 0: AESGEN_OK.
 */
AESGEN_API int aesgen_xctr_crypt_iv(const aesgen_xctr_ctx *ctx, const uint8_t iv[16],
                                    uint8_t *dst, const uint8_t *src, size_t len);
/*
 * The block position: *index = i of the next keystream block not yet started
 * (1 after init or set_iv; 1 + the number of blocks begun so far, a partial
 * block counting as begun; 0 once block 2^64 - 1 has been begun, the end of the
 * context).  XCTR's counterpart of aesgen_ctr_get_iv.
 *     uint64_t next;
 *     aesgen_xctr_get_index(&xctx, &next);
 * NULL ctx or index, or a zero-filled ctx (never initialized): AESGEN_EINVAL, *index
 * untouched.
 */
AESGEN_API int aesgen_xctr_get_index(const aesgen_xctr_ctx *ctx, uint64_t *index);

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
 * -192, -256).  K1 == K2 is refused with AESGEN_EINVAL (ctx untouched), as
 * IEEE 1619-2018 requires distinct keys (OpenSSL refuses them too, the Linux
 * kernel in FIPS mode).  The halves are compared in constant time: every byte is
 * read and no branch depends on them, so the time a refusal takes says nothing
 * about where the halves differ.
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
/* aesgen_xts_init with the ISA named for this context (see aesgen_select_isa). */
AESGEN_API int aesgen_xts_init_isa(aesgen_xts_ctx *ctx, const uint8_t *key, size_t key_len,
                                   const char *isa);
/*
 * For legacy data and test vectors only: aesgen_xts_init_isa that also accepts
 * K1 == K2 (IEEE 1619-2007 Annex B vector 1, all zeros, is such a key; such a
 * key makes XTS weaker, so never use it for new data).  isa as in
 * aesgen_xts_init_isa (NULL: the process-wide selection).
 *     aesgen_xts_init_allow_equal_keys(&xts, zeros, 32, NULL);   // IEEE 1619 vector 1
 */
AESGEN_API int aesgen_xts_init_allow_equal_keys(aesgen_xts_ctx *ctx, const uint8_t *key,
                                                size_t key_len, const char *isa);
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
 * AESGEN_GCM_H_POWERS_OFFSET: H^68 .. H^1, highest first, each byte-reflected and
 * times x^-1 mod the GCM polynomial, then 64 zero bytes, then h_halves (each power's
 * 8-byte halves XORed, in both halves).  generator/layout.py defines
 * that layout; the build checks these two constants and the struct against it
 * (gen/aesgen_gen.h).
 *
 * Alignment: the type is declared 16-byte aligned, which is all the library
 * needs (the assembly uses only unaligned loads on the key, the C code at most
 * 16-byte aligned moves), so memory from malloc (16-byte aligned on x86-64 glibc,
 * musl, macOS and Windows x64) is a valid aesgen_gcm_key.  64-byte alignment
 * (alignas(64), or aligned_alloc(64, size) with size = sizeof rounded up to a multiple
 * of 64, as C11 asks) is a little faster: h_powers and h_halves then start a cache
 * line and a 64-byte load of the powers never spans two lines.
 */
#define AESGEN_GCM_H_POWERS_OFFSET 1216
#define AESGEN_GCM_H_POWERS 68

struct aesgen_gcm_record;   /* internal: the record functions' argument block */

typedef struct aesgen_gcm_key {
    aesgen_aes_key aes;                                            /* offset 0 */
    AESGEN_ALIGNAS(16) uint8_t h_powers[AESGEN_GCM_H_POWERS][16];  /* offset 1216 */
    uint8_t h_pad[64];                                             /* zeros */
    /* Per power, in h_powers' order: its two 8-byte halves XORed, stored in both halves
     * (the assembly's Karatsuba products read them; offset 2368). */
    AESGEN_ALIGNAS(16) uint8_t h_halves[AESGEN_GCM_H_POWERS][16];
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
 *
 * Streamed decryption releases plaintext before it is authenticated:
 * aesgen_gcm_decrypt_update writes plaintext to dst at once, and only
 * aesgen_gcm_decrypt_final says whether the message was genuine.  Until final
 * returns AESGEN_OK the plaintext is unauthenticated (possibly forged, or chosen
 * by an attacker who flipped ciphertext bits): do not parse it, act on it, pass
 * it on or let anyone see it.  On AESGEN_EBADMSG discard all of it (and wipe it,
 * aesgen_wipe, as aesgen_gcm_decrypt does).  Callers that cannot hold the
 * plaintext back should keep the ciphertext and use aesgen_gcm_decrypt, which
 * releases plaintext only for genuine messages.
 */
AESGEN_API int aesgen_gcm_init(aesgen_gcm_key *key, const uint8_t *k, size_t key_len);
/* aesgen_gcm_init with the ISA named for this key (see aesgen_select_isa); every
 * message started with the key runs that ISA.
 *     aesgen_gcm_init_isa(&gk, key, 16, "vaes_avx2");                        */
AESGEN_API int aesgen_gcm_init_isa(aesgen_gcm_key *key, const uint8_t *k, size_t key_len,
                                   const char *isa);
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

/*
 * IPsec forms (RFC 3686, RFC 4106, RFC 4543), with exactly those RFCs' key and IV
 * layouts, so that callers do not assemble counter blocks and nonces by hand.
 * Keys are made once and only read afterwards (shareable between threads, as
 * the GCM key); each call is one packet.
 *
 * RFC 3686 (AES-CTR in ESP): k is the AES key followed by the 4-byte nonce
 * (key_len 20, 28 or 36).  Per packet an 8-byte IV; block j (j = 0, 1, ...) of the
 * keystream is AES(nonce || iv || BE32(j + 1)).  A packet is at most
 * (2^32 - 1) * 16 bytes (the RFC's 32-bit block counter), else AESGEN_EINVAL
 * and nothing written.  Encryption and decryption are the same call.
 *     aesgen_rfc3686_key ck;
 *     aesgen_rfc3686_init(&ck, key_and_nonce, 36);
 *     aesgen_rfc3686_crypt(&ck, iv8, out, in, len);
 */
typedef struct aesgen_rfc3686_key {
    aesgen_aes_key aes;
    uint8_t nonce[4];
    int (*crypt)(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                 size_t len, uint64_t ctr_lo, uint64_t ctr_hi);  /* chosen at init */
} aesgen_rfc3686_key;

AESGEN_API int aesgen_rfc3686_init(aesgen_rfc3686_key *key, const uint8_t *k, size_t key_len);
AESGEN_API int aesgen_rfc3686_init_isa(aesgen_rfc3686_key *key, const uint8_t *k,
                                       size_t key_len, const char *isa);
AESGEN_API int aesgen_rfc3686_crypt(const aesgen_rfc3686_key *key, const uint8_t iv[8],
                                    uint8_t *dst, const uint8_t *src, size_t len);

/*
 * RFC 4106 (AES-GCM in ESP) and RFC 4543 (AES-GMAC in ESP): k is the AES key
 * followed by the 4-byte salt (key_len 20, 28 or 36); the GCM nonce of a packet
 * is salt || iv, iv being the packet's 8-byte explicit IV.  aad is the ESP AAD
 * of RFC 4106 section 5: SPI || sequence number (aad_len 8) or SPI || extended
 * sequence number (aad_len 12); any other length is AESGEN_EINVAL.  The IV is
 * not part of aad here (the Linux crypto API's rfc4106 appends it to its AAD
 * buffer and strips it again; here it is the separate iv argument).
 *
 * aesgen_rfc4106_encrypt / _decrypt: GCM of the payload (any length) with that
 * nonce and AAD; tag_len 8, 12 or 16 (the ICV sizes of RFC 4106 section 6), else
 * AESGEN_EINVAL.  Otherwise as aesgen_gcm_encrypt / aesgen_gcm_decrypt (decrypt
 * returns AESGEN_EBADMSG and wipes dst on a wrong tag).
 *
 * aesgen_rfc4543_mac / _verify (ENCR_NULL_AUTH_AES_GMAC): nothing is encrypted;
 * the 16-byte ICV is GMAC over aad || iv || data (RFC 4543's AAD for ESP: the IV
 * is authenticated, and data is the ESP payload with its padding, pad length
 * and next header).  verify returns AESGEN_OK or AESGEN_EBADMSG (constant-time
 * comparison).  On AESGEN_EINVAL (NULL pointers, NULL data with len != 0, a bad
 * aad_len) tag is not written.
 *     aesgen_gcm_esp_key ek;
 *     aesgen_gcm_esp_init(&ek, key_and_salt, 20);
 *     aesgen_rfc4106_encrypt(&ek, iv8, spi_seq, 8, out, in, len, icv, 16);
 *     aesgen_rfc4543_mac(&ek, iv8, spi_seq, 8, payload, len, icv);
 */
typedef struct aesgen_gcm_esp_key {
    aesgen_gcm_key gcm;   /* the AES key's GCM key object (alignment: see there) */
    uint8_t salt[4];
} aesgen_gcm_esp_key;

AESGEN_API int aesgen_gcm_esp_init(aesgen_gcm_esp_key *key, const uint8_t *k, size_t key_len);
AESGEN_API int aesgen_gcm_esp_init_isa(aesgen_gcm_esp_key *key, const uint8_t *k,
                                       size_t key_len, const char *isa);
AESGEN_API int aesgen_rfc4106_encrypt(const aesgen_gcm_esp_key *key, const uint8_t iv[8],
                                      const uint8_t *aad, size_t aad_len, uint8_t *dst,
                                      const uint8_t *src, size_t len, uint8_t *tag,
                                      size_t tag_len);
AESGEN_API int aesgen_rfc4106_decrypt(const aesgen_gcm_esp_key *key, const uint8_t iv[8],
                                      const uint8_t *aad, size_t aad_len, uint8_t *dst,
                                      const uint8_t *src, size_t len, const uint8_t *tag,
                                      size_t tag_len);
AESGEN_API int aesgen_rfc4543_mac(const aesgen_gcm_esp_key *key, const uint8_t iv[8],
                                  const uint8_t *aad, size_t aad_len, const uint8_t *data,
                                  size_t len, uint8_t tag[16]);
AESGEN_API int aesgen_rfc4543_verify(const aesgen_gcm_esp_key *key, const uint8_t iv[8],
                                     const uint8_t *aad, size_t aad_len, const uint8_t *data,
                                     size_t len, const uint8_t tag[16]);

/* Wipes memory in a way the compiler cannot remove (keys, contexts). */
AESGEN_API void aesgen_wipe(void *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* AESGEN_H */
