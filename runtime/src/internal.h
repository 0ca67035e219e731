/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Internal interfaces of the runtime, shared between its source files and
 * available to the tests and benchmarks through the static library
 * (they are hidden in libaesgen.so).
 */
#ifndef AESGEN_INTERNAL_H
#define AESGEN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "aesgen.h"
#include "ct.h"
#include "asm_abi.h"
#include "aesgen_gen.h"

/* A rarely taken path kept out of its caller: then the caller's common path (the
 * streaming calls' tail call into the assembly) saves no registers for its sake
 * (GCC 12 otherwise pushed six on every aesgen_ctr_crypt / aesgen_xctr_crypt). */
#if defined(__GNUC__) || defined(__clang__)
#define AESGEN_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define AESGEN_NOINLINE __declspec(noinline)
#else
#define AESGEN_NOINLINE
#endif

/* A path the short calls never take, placed away from them (GCC's .text.unlikely): their
 * common path then falls through a single compare to its tail call (with the compare's
 * branch taken there, GCC's layout otherwise, ctr/xctr calls of 16-64 bytes were 3-12%
 * slower on the Intel Xeon guest, 2026-12-07). */
#if defined(__GNUC__) || defined(__clang__)
#define AESGEN_COLD __attribute__((cold, noinline))
#else
#define AESGEN_COLD AESGEN_NOINLINE
#endif

/* A helper of one hot path folded into it: a one-shot GCM call is short enough that
 * passing twelve arguments through the stack to an out-of-line helper shows
 * (gcm.c record_run). */
#if defined(__GNUC__) || defined(__clang__)
#define AESGEN_ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define AESGEN_ALWAYS_INLINE __forceinline
#else
#define AESGEN_ALWAYS_INLINE inline
#endif

/* ---- CPU features (cpu.c) ------------------------------------------------ */

/* The AESGEN_CPU_* bits, one per feature of generator/features.py, come from
 * gen/aesgen_gen.h with the CPUID/XCR0 table cpu.c reads.  A feature needing OS
 * state (os:...) is its own bit, set only if XGETBV shows the OS saves that state. */

/* Usable features of this CPU/OS, detected once and cached. */
unsigned aesgen_cpu_features(void);

/* What detection reads: CPUID leaf 0's highest leaf, leaves 1 and (7, 0), XCR0 (read
 * only when leaf 1 reports OSXSAVE), and whether the OS grants the AVX-512 state on
 * first use although XCR0 does not show it yet (macOS). */
typedef struct aesgen_cpuid_regs {
    unsigned eax, ebx, ecx, edx;
} aesgen_cpuid_regs;

typedef struct aesgen_cpuid_facts {
    unsigned max_leaf;
    aesgen_cpuid_regs leaf1, leaf7;
    uint64_t xcr0;
    int os_grants_avx512;
} aesgen_cpuid_facts;

/* The usable AESGEN_CPU_* bits those facts give (a pure function; tests run a table). */
unsigned aesgen_cpu_features_from(const aesgen_cpuid_facts *facts);
/* For tests only (static library; hidden in the .so): from now on report only the
 * detected features that are also in keep (AESGEN_CPU_KEEP_ALL undoes it), so that
 * "the CPU lacks this ISA" can be provoked on a CPU that has everything.  Contexts
 * already initialized keep their functions.  Not thread-safe against inits running
 * at the same time (they may see either mask). */
#define AESGEN_CPU_KEEP_ALL (~0u)
void aesgen_cpu_test_mask(unsigned keep);

/* ---- Implementations (isa.c) --------------------------------------------- */

/* generic, then the ISAs of generator/isa.py (gen/aesgen_gen.h) in its order. */
typedef enum aesgen_isa_id {
    AESGEN_ISA_GENERIC = 0,
#define AESGEN_ISA_ID(isa, NAME, vector_bytes, evex, needs) AESGEN_ISA_##NAME,
    AESGEN_GEN_ISAS(AESGEN_ISA_ID)
#undef AESGEN_ISA_ID
    AESGEN_ISA_COUNT
} aesgen_isa_id;

/* Expands key into out.  key_len not 16/24/32 (or NULL): AESGEN_EINVAL, out untouched. */
typedef int aesgen_expand_fn(aesgen_aes_key *out, const uint8_t *key, size_t key_len);

/* The decryption (equivalent inverse cipher) schedule of asm_abi.h from an
 * encryption schedule.  dec may equal enc (converted in place). */
typedef void aesgen_dec_key_fn(aesgen_aes_key *dec, const aesgen_aes_key *enc);

/* One AES block with an encryption schedule; out may equal in. */
typedef void aesgen_block_fn(const aesgen_aes_key *key, uint8_t out[16], const uint8_t in[16]);

/* GCM key setup after key->aes is expanded: H = AES_K(0) and key->h_powers
 * (asm_abi.h form), key->h_pad zeroed. */
typedef void aesgen_gcm_setup_fn(aesgen_gcm_key *key);

/* One set of generated GCM functions (asm_abi.h contracts); an alternate set whose
 * file does not hold it has NULL members (see AESGEN_GEN_ALTERNATE). */
typedef struct aesgen_gcm_fns {
    aesgen_gcm_ghash_fn  *ghash;
    aesgen_gcm_update_fn *enc_update;
    aesgen_gcm_update_fn *dec_update;
    aesgen_gcm_record_fn *enc_record;
    aesgen_gcm_record_fn *dec_record;
} aesgen_gcm_fns;

/* The functions a context takes (asm_abi.h contracts); in a variant, NULL where the
 * variant has none (that mode keeps the ISA's own). */
typedef struct aesgen_mode_fns {
    aesgen_ctr_fn  *ctr;
    aesgen_ctr_iv_fn *ctr_iv;    /* ctr's from the block in memory; NULL: none (convert) */
    aesgen_xctr_fn *xctr;
    aesgen_xts_fn  *xts_encrypt;
    aesgen_xts_fn  *xts_decrypt;
    aesgen_gcm_fns  gcm;
    /* aesgen_isa_resolve only: GCM calls of at most 64 bytes (gcm.c); with an ISA chosen
     * by "auto" the xmm code of aesni_avx (the cheapest prologue) or the length plan's
     * streaming functions where the uarch has them, else the ISA's own. */
    aesgen_gcm_fns  gcm_short;
    /* aesgen_isa_resolve only: with an ISA chosen by "auto", the length plan of xctr (1 +
     * the uarch whose plan it is; 0: none), which xctr calls from the shortest length a
     * class covers consult (aesgen_xctr_call_planned); xctr is then the plan's ISA's
     * function, which the other calls take.  (ctr's plans, like xts's and gcm's, put a
     * function that picks by length into the context.) */
    unsigned xctr_plan;
} aesgen_mode_fns;

/* Microarchitectures (generator/uarch.py, gen/aesgen_gen.h).  0 is "default": a CPU in
 * no row of the table, which takes generator/tuning.json's "default" entries (a variant
 * and a length plan like a uarch's, where measured); "none" takes no uarch's choices:
 * the generated files' own functions and no length plan (no CPU is "none"). */
typedef enum aesgen_uarch_id {
    AESGEN_UARCH_DEFAULT = 0,
#define AESGEN_UARCH_ID(name, NAME) AESGEN_UARCH_##NAME,
    AESGEN_GEN_UARCHES(AESGEN_UARCH_ID)
#undef AESGEN_UARCH_ID
    AESGEN_UARCH_NONE,
    AESGEN_UARCH_LIMIT
} aesgen_uarch_id;

typedef struct aesgen_isa_impl {
    const char        *name;
    unsigned           needs;      /* AESGEN_CPU_* bits that must all be usable */
    aesgen_expand_fn  *expand;
    aesgen_dec_key_fn *dec_key;
    aesgen_ctr_fn     *ctr;
    aesgen_ctr_iv_fn  *ctr_iv;     /* NULL where the ISA has none */
    aesgen_xctr_fn    *xctr;
    aesgen_xts_fn     *xts_encrypt;
    aesgen_xts_fn     *xts_decrypt;
    /* GCM: the key setup and single blocks are C (gcm_clmul.c on the asm ISAs). */
    aesgen_block_fn      *encrypt_block;   /* one block, encryption schedule */
    aesgen_gcm_setup_fn  *gcm_setup;
    aesgen_gcm_ghash_fn  *gcm_ghash;
    aesgen_gcm_update_fn *gcm_enc_update;
    aesgen_gcm_update_fn *gcm_dec_update;
    aesgen_gcm_record_fn *gcm_enc_record;   /* NULL: this ISA has no record functions */
    aesgen_gcm_record_fn *gcm_dec_record;
    int gcm_record_pads;                    /* the VEX contract: whole blocks + tail */
    /* Per uarch (index aesgen_uarch_id), the functions generated with the knobs
     * generator/tuning.json measured faster there (gen/<isa>/<mode>.S's variants). */
    aesgen_mode_fns variants[AESGEN_UARCH_LIMIT];
} aesgen_isa_impl;

/* The uarch whose variants new contexts take: AESGEN_VARIANT (default|none|NAME) on first
 * use, or aesgen_select_variant's, else the CPU's (aesgen_uarch_for_cpu). */
aesgen_uarch_id aesgen_variant_current(void);
/* For tests: where context holds a length plan's function (aesgen_isa_resolve's *fns, or
 * the context's pointers), *out gets the functions of that mode a call of len bytes
 * takes, and 1 is returned; 0 if context holds no plan's function. */
int aesgen_length_plan_pick(const aesgen_mode_fns *context, size_t len, aesgen_mode_fns *out);
/* The function an xctr call of len bytes takes under a context's plan (xctr_plan above;
 * len 0: the plan's ISA's, which the context holds). */
aesgen_xctr_fn *aesgen_length_plan_xctr(unsigned plan, size_t len);
/* A call through the plan of the context whose key is key (&ctx->key), or its function.
 * Cold: the calls that branch here then fall through to their short path (xctr.c). */
AESGEN_COLD aesgen_xctr_fn aesgen_xctr_call_planned;
/* The function a call of len bytes on ctx takes: ctx->crypt, or its plan's choice from
 * AESGEN_GEN_LENGTH_CLASSES_FROM_xctr.  What the calls do (and the tests look at). */
aesgen_xctr_fn *aesgen_xctr_target(const aesgen_xctr_ctx *ctx, size_t len);
#ifndef AESGEN_GEN_LENGTH_CLASSES_FROM_xctr
#define AESGEN_GEN_LENGTH_CLASSES_FROM_xctr SIZE_MAX   /* no xctr class: never */
#endif
/* The uarch of a CPUID vendor and display family/model (the first row of
 * generator/uarch.py's table that matches), or AESGEN_UARCH_DEFAULT. */
aesgen_uarch_id aesgen_uarch_for_cpu(const char *vendor, unsigned family, unsigned model);

/* The implementation table entry for id (id < AESGEN_ISA_COUNT). */
const aesgen_isa_impl *aesgen_isa_impl_get(aesgen_isa_id id);
/* The implementation selected now (reads AESGEN_ISA on first use). */
const aesgen_isa_impl *aesgen_isa_current(void);
/* The implementation a context asks for: NULL is the process selection (aesgen_isa_current),
 * otherwise a name as aesgen_select_isa takes ("auto" included).  AESGEN_OK and *impl set,
 * and *fns (unless NULL) the functions the context takes: impl's own, with the current
 * variant's (aesgen_variant_current) in their place where it has a complete set and,
 * when the ISA was chosen by "auto", the length plan of generator/tuning.json for that
 * uarch (a function that sends short calls to another ISA); a named ISA keeps its own
 * at every length.  AESGEN_EINVAL (unknown name) or AESGEN_ENOTSUP (not usable here),
 * *impl and *fns untouched. */
int aesgen_isa_resolve(const char *name, const aesgen_isa_impl **impl, aesgen_mode_fns *fns);
/* 1 if id is built in and its CPU features are usable, else 0. */
int aesgen_isa_id_usable(aesgen_isa_id id);

/* ---- Key expansion (key_expand.c) ---------------------------------------- */

/* 1 for key_len 16, 24, 32. */
int aesgen_key_len_valid(size_t key_len);
/* Constant-time portable expansion (bitsliced S-box). */
aesgen_expand_fn aesgen_expand_key_generic;
/* The same expansion using AESKEYGENASSIST; needs AES-NI. */
aesgen_expand_fn aesgen_expand_key_aesni;
/* Decryption schedules: constant-time portable InvMixColumns, or AESIMC
 * (needs AES-NI).  Both give identical bytes. */
aesgen_dec_key_fn aesgen_dec_key_generic;
aesgen_dec_key_fn aesgen_dec_key_aesni;

/* ---- Portable constant-time AES (aes_bitsliced.c, xts_generic.c) --------- */

/* The asm_abi.h signatures and contracts (the XTS ones also return AESGEN_EINVAL
 * for len < 16 instead of relying on the caller). */
aesgen_ctr_fn aesgen_ctr_crypt_generic;
aesgen_xctr_fn aesgen_xctr_crypt_generic;
aesgen_xts_fn aesgen_xts_encrypt_generic;
aesgen_xts_fn aesgen_xts_decrypt_generic;

/* Blocks per bitsliced step, and a key schedule in bitsliced form (each round
 * key repeated in all AESGEN_BS_BLOCKS block slots). */
#define AESGEN_BS_BLOCKS 4
typedef struct aesgen_bs_key {
    uint64_t rk[15][8];
    unsigned rounds;
} aesgen_bs_key;

/* Bitslices a schedule (encryption or decryption; the layout is the same). */
void aesgen_bs_key_init(aesgen_bs_key *bk, const aesgen_aes_key *key);
/* 4 blocks, given and returned as 8 little-endian words (2 per block), through
 * the cipher (encryption schedule) or the equivalent inverse cipher
 * (decryption schedule of asm_abi.h). */
void aesgen_bs_encrypt4(uint64_t words[8], const aesgen_bs_key *bk);
void aesgen_bs_decrypt4(uint64_t words[8], const aesgen_bs_key *bk);

/* ---- GCM pieces (gcm_generic.c, gcm_clmul.c) ----------------------------- */

/* Constant time, on the bitsliced cipher and a multiply-based carry-less product. */
aesgen_gcm_ghash_fn  aesgen_gcm_ghash_generic;
/* 4-bit lookups by pshufb (SSSE3), 4 blocks per reduction, no secret address or
 * branch; what vperm_ssse3's GCM takes (gcm_generic.c). */
aesgen_gcm_ghash_fn  aesgen_gcm_ghash_ssse3;
/* The full GCM tag from GHASH's reflected accumulator and E_K(J0): bswap(acc) ^ mask
 * (gcm.c; the streaming final and vperm_ssse3's records). */
void aesgen_gcm_tag_from_acc(uint8_t tag[16], const uint8_t acc[16], const uint8_t mask[16]);
/* GHASH from zero over the AAD and the text, each zero-padded to whole blocks, then
 * the lengths block (GCM byte order): a record's whole GHASH, one set of tables;
 * after_aad(arg), if not NULL, runs once the AAD is hashed, before the text is read. */
void aesgen_gcm_ghash_ssse3_message(const aesgen_gcm_key *key, uint8_t acc[16],
                                    const uint8_t *aad, size_t aad_len,
                                    void (*after_aad)(void *), void *arg,
                                    const uint8_t *text, size_t text_len,
                                    const uint8_t lengths[16]);
/* CTR with inc32 on the bitsliced cipher, any len; never branches on the counter. */
void aesgen_gcm_ctr32_generic(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                              size_t len, const uint8_t ctr[16]);
aesgen_gcm_update_fn aesgen_gcm_enc_update_generic;
aesgen_gcm_update_fn aesgen_gcm_dec_update_generic;
aesgen_block_fn      aesgen_encrypt_block_generic;
aesgen_gcm_setup_fn  aesgen_gcm_setup_generic;
/* AES-NI / PCLMULQDQ intrinsics (need AES-NI, PCLMULQDQ and AVX): the asm ISAs' key
 * setup (H and its powers) and the one block the C glue needs (E_K(J0), partial blocks). */
aesgen_block_fn      aesgen_encrypt_block_aesni;
aesgen_gcm_setup_fn  aesgen_gcm_setup_clmul;

/* vperm_ssse3's GCM updates: its generated CTR (split at inc32 wraps) and the generic
 * GHASH; a secret counter (AESGEN_GCM_SECRET_COUNTER) takes the generic update
 * (gcm_ctr_ghash.c). */
aesgen_gcm_update_fn aesgen_gcm_enc_update_vperm_ssse3;
aesgen_gcm_update_fn aesgen_gcm_dec_update_vperm_ssse3;
/* Its records (asm_abi.h, the EVEX contract: any len and aad_len, tail_* unread). */
aesgen_gcm_record_fn aesgen_gcm_enc_record_vperm_ssse3;
aesgen_gcm_record_fn aesgen_gcm_dec_record_vperm_ssse3;
/* One block as the keystream of its CTR function (the GCM glue's E_K(J0) and final
 * partial blocks), instead of a bitsliced 4-block pass (gcm_ctr_ghash.c). */
aesgen_block_fn      aesgen_encrypt_block_vperm_ssse3;

/* SubWord of the key schedule: the S-box on each byte of w, in constant time. */
uint32_t aesgen_sub_word_ct(uint32_t w);

/* ---- Small helpers (util.c) ----------------------------------------------- */

/* 1 if the n bytes at a and b are equal, else 0.  Every byte of both is read whatever
 * the earlier ones were (no early exit, no branch on the data): only the result, which
 * the caller acts on anyway, depends on the contents.  Keys and tags. */
int aesgen_ct_equal(const uint8_t *a, const uint8_t *b, size_t n);

/* 1 if diff is 0, else 0, the constant-time comparisons' last step: folded to 32 bits,
 * minus 1 has bit 63 set only for 0, so there is no comparison the compiler could turn
 * into a branch.  Whether the inputs matched is the public result (a tag check, the XTS
 * key rule): declassified for the constant-time check. */
static inline int aesgen_ct_is_zero(uint64_t diff)
{
    const uint64_t folded = (uint32_t)(diff | diff >> 32);
    int equal = (int)((folded - 1u) >> 63 & 1u);
    AESGEN_DECLASSIFY(&equal, sizeof equal);
    return equal;
}

/* After a wipe's memset: an empty asm that claims to read the memory, so the compiler
 * must assume the zeros are observed and cannot drop them as dead stores. */
static inline void aesgen_keep_stores(const void *p)
{
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

/* The 16-byte forms of aesgen_ct_equal and aesgen_wipe, inline: a GCM decryption checks
 * a full tag on every call, and the two calls (with memset's behind aesgen_wipe) cost
 * 4-13% of a record of up to 512 bytes on Zen 5; GCM's other 16-byte wipes use it too.
 * The same rules as aesgen_ct_equal: both words read and compared whatever they hold,
 * only the result declassified; under AESGEN_CT_PLANT_EARLY_EXIT the same planted leak
 * (tests/ct/ct.mk builds the files that use these with it too). */
static inline int aesgen_ct_equal16(const uint8_t a[16], const uint8_t b[16])
{
#ifdef AESGEN_CT_PLANT_EARLY_EXIT
    for (size_t i = 0; i < 16; i++)
        if (a[i] != b[i])
            return 0;
#endif
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, 8);
    memcpy(&a1, a + 8, 8);
    memcpy(&b0, b, 8);
    memcpy(&b1, b + 8, 8);
    return aesgen_ct_is_zero((a0 ^ b0) | (a1 ^ b1));
}

static inline void aesgen_wipe16(uint8_t p[16])
{
    memset(p, 0, 16);
    aesgen_keep_stores(p);
}

/* Wipes the keystream block in progress; the caller marks it gone (out of line: the
 * streaming calls' common path, which tests ks_valid first, stays without saved
 * registers). */
void aesgen_drop_keystream(uint8_t ks[16]);

/* XORs the rest of the keystream block in progress (ks from byte *pos on) into up to len
 * bytes; advances *pos and wipes ks when the block is used up (*pos 0 again: the caller
 * marks it gone).  Returns the bytes done. */
size_t aesgen_use_keystream(uint8_t ks[16], uint32_t *pos, uint8_t *dst, const uint8_t *src,
                            size_t len);

#endif /* AESGEN_INTERNAL_H */
