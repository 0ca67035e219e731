/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Implementation (ISA) table, the process-wide selection and the per-context
 * requests (aesgen_*_init_isa).
 *
 * The selection is one atomic int.  It starts "unset"; the first use reads
 * AESGEN_ISA (or falls back to "auto") and publishes the result with a
 * compare-exchange, so concurrent first uses agree and an explicit
 * aesgen_select_isa() made meanwhile is never overwritten by the environment.
 * The variant (the uarch whose measured functions contexts take: AESGEN_VARIANT,
 * aesgen_select_variant, else CPUID) is a second atomic int, kept the same way, and
 * the length plans give an ISA chosen by "auto" other ISAs' code for short calls.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_signature.h"
#include "internal.h"

/*
 * The asm ISAs and their feature masks come from gen/aesgen_gen.h (generator/isa.py);
 * every entry references its generated functions directly, so a library built without
 * one of the generated files fails to link.  A vendored bundle of some modes only has
 * AESGEN_GEN_IF_<mode> give NULL for the others (it holds no C API file of theirs).  The key setup and single blocks of GCM are
 * the AES-NI/PCLMULQDQ intrinsics of gcm_clmul.c.
 */

/* The uarch variants the manifest lists for gen/<isa>/<mode>.S (weak: see
 * AESGEN_GEN_VARIANT), in the slot of each uarch that takes them. */
#define VARIANT_ctr(isa, U, v)                                                  \
    .variants[AESGEN_UARCH_##U].ctr = aesgen_ctr_crypt_##isa##v,                \
    .variants[AESGEN_UARCH_##U].ctr_iv = CTR_IV(isa, aesgen_ctr_crypt_iv_##isa##v, NULL),
#define VARIANT_xctr(isa, U, v) .variants[AESGEN_UARCH_##U].xctr = aesgen_xctr_crypt_##isa##v,
#define VARIANT_xts(isa, U, v)                                                  \
    .variants[AESGEN_UARCH_##U].xts_encrypt = aesgen_xts_encrypt_##isa##v,      \
    .variants[AESGEN_UARCH_##U].xts_decrypt = aesgen_xts_decrypt_##isa##v,
#define VARIANT_gcm(isa, U, v)                                                  \
    .variants[AESGEN_UARCH_##U].gcm = { aesgen_gcm_ghash_##isa##v,              \
                                        aesgen_gcm_enc_update_##isa##v,         \
                                        aesgen_gcm_dec_update_##isa##v,         \
                                        aesgen_gcm_enc_record_##isa##v,         \
                                        aesgen_gcm_dec_record_##isa##v },
#define UARCH_VARIANT(isa, mode, U, v) VARIANT_##mode(isa, U, v)

/* A mode an ISA has no generated file for (vperm_ssse3: AESGEN_GEN_HAS_<isa>_<mode>)
 * takes the generic code, and an ISA without AES-NI the generic (constant-time) key
 * setup: the schedule is the same standard one either way.  GCM without gcm.S on an
 * ISA without AES-NI: its CTR with the SSSE3 GHASH, updates and records in C
 * (gcm_ctr_ghash.c). */
#define HAS(isa, mode, have, lack) AESGEN_GEN_HAS_##isa##_##mode(have, lack)
#define CTR_IV(isa, have, lack) AESGEN_GEN_CTR_IV_##isa(have, lack)
#define AESNI(isa, have, lack) AESGEN_GEN_AESNI_##isa(have, lack)
#define ASM_IMPL(isa, NAME, vector_bytes, evex, needs_bits)                          \
    [AESGEN_ISA_##NAME] = {                                                          \
        .name = #isa, .needs = (needs_bits),                                         \
        .expand = AESNI(isa, aesgen_expand_key_aesni, aesgen_expand_key_generic),    \
        .dec_key = AESNI(isa, aesgen_dec_key_aesni, aesgen_dec_key_generic),         \
        .ctr = AESGEN_GEN_IF_ctr(HAS(isa, ctr, aesgen_ctr_crypt_##isa, aesgen_ctr_crypt_generic)), \
        .ctr_iv = AESGEN_GEN_IF_ctr(HAS(isa, ctr, CTR_IV(isa, aesgen_ctr_crypt_iv_##isa, NULL), \
                                        NULL)),                                \
        .xctr = AESGEN_GEN_IF_xctr(HAS(isa, xctr, aesgen_xctr_crypt_##isa,          \
                                        aesgen_xctr_crypt_generic)),            \
        .xts_encrypt = AESGEN_GEN_IF_xts(HAS(isa, xts, aesgen_xts_encrypt_##isa,     \
                                          aesgen_xts_encrypt_generic)),        \
        .xts_decrypt = AESGEN_GEN_IF_xts(HAS(isa, xts, aesgen_xts_decrypt_##isa,     \
                                          aesgen_xts_decrypt_generic)),        \
        /* GCM's alone (E_K(J0), a partial block's keystream): vperm_ssse3's comes with   \
         * its GCM (gcm_ctr_ghash.c), which a bundle without GCM leaves out */         \
        .encrypt_block = AESGEN_GEN_IF_gcm(AESNI(isa, aesgen_encrypt_block_aesni,      \
                               HAS(isa, ctr, aesgen_encrypt_block_##isa,              \
                                   aesgen_encrypt_block_generic))),                   \
        .gcm_setup = AESNI(isa, aesgen_gcm_setup_clmul, aesgen_gcm_setup_generic),   \
        .gcm_ghash = AESGEN_GEN_IF_gcm(HAS(isa, gcm, aesgen_gcm_ghash_##isa,           \
                              AESNI(isa, aesgen_gcm_ghash_generic,                    \
                                    aesgen_gcm_ghash_ssse3))),                          \
        .gcm_enc_update = AESGEN_GEN_IF_gcm(HAS(isa, gcm, aesgen_gcm_enc_update_##isa, \
                              AESNI(isa, aesgen_gcm_enc_update_generic,               \
                                    aesgen_gcm_enc_update_##isa))),                   \
        .gcm_dec_update = AESGEN_GEN_IF_gcm(HAS(isa, gcm, aesgen_gcm_dec_update_##isa, \
                              AESNI(isa, aesgen_gcm_dec_update_generic,               \
                                    aesgen_gcm_dec_update_##isa))),                   \
        .gcm_enc_record = AESGEN_GEN_IF_gcm(HAS(isa, gcm, aesgen_gcm_enc_record_##isa, \
                              AESNI(isa, NULL, aesgen_gcm_enc_record_##isa))),        \
        .gcm_dec_record = AESGEN_GEN_IF_gcm(HAS(isa, gcm, aesgen_gcm_dec_record_##isa, \
                              AESNI(isa, NULL, aesgen_gcm_dec_record_##isa))),        \
        .gcm_record_pads = HAS(isa, gcm, !(evex), 0), /* VEX: whole blocks + tail (asm_abi.h) */ \
        AESGEN_GEN_UARCH_VARIANTS_##isa(UARCH_VARIANT) },

static const aesgen_isa_impl isa_table[AESGEN_ISA_COUNT] = {
    [AESGEN_ISA_GENERIC] = { .name = "generic", .needs = 0,
                             .expand = aesgen_expand_key_generic,
                             .dec_key = aesgen_dec_key_generic,
                             .ctr = aesgen_ctr_crypt_generic,
                             .xctr = aesgen_xctr_crypt_generic,
                             .xts_encrypt = aesgen_xts_encrypt_generic,
                             .xts_decrypt = aesgen_xts_decrypt_generic,
                             .encrypt_block = aesgen_encrypt_block_generic,
                             .gcm_setup = aesgen_gcm_setup_generic,
                             .gcm_ghash = aesgen_gcm_ghash_generic,
                             .gcm_enc_update = aesgen_gcm_enc_update_generic,
                             .gcm_dec_update = aesgen_gcm_dec_update_generic },
    AESGEN_GEN_ISAS(ASM_IMPL)
};

#define ISA_UNSET (-1)
#define ISA_AUTO  (-2)   /* parse result only, never stored */
/* Stored with the id: the ISA was chosen by "auto" (so the length plans apply). */
#define ISA_BY_AUTO 0x100
static atomic_int selected_isa = ISA_UNSET;

const aesgen_isa_impl *aesgen_isa_impl_get(aesgen_isa_id id)
{
    return &isa_table[id];
}

int aesgen_isa_id_usable(aesgen_isa_id id)
{
    const aesgen_isa_impl *impl = &isa_table[id];
    return (aesgen_cpu_features() & impl->needs) == impl->needs;
}

/*
 * Per-microarchitecture preferences of "auto".  The widest usable ISA is not always the
 * fastest: Intel Skylake-SP, Cascade Lake and Cooper Lake (family 6, model 0x55) lower
 * the core clock while 512-bit instructions run (AVX-512 frequency licences), which
 * slows down the rest of the program as well, so 256-bit EVEX code is preferred there.
 * Only "auto" consults this table: AESGEN_ISA=avx10_512 or aesgen_select_isa("avx10_512")
 * still selects the 512-bit code.
 */
typedef struct uarch_preference {
    const char *vendor;          /* CPUID leaf 0 vendor string */
    unsigned family, model;      /* display family and model (CPUID leaf 1) */
    const char *avoid;           /* when "auto" would pick this ISA ... */
    const char *instead;         /* ... take this, if it is built in and usable */
} uarch_preference;

/* By name: a vendored bundle may hold only some of the ISAs. */
static const uarch_preference uarch_preferences[] = {
    { "GenuineIntel", 6, 0x55, "avx10_512", "avx10_256" },
};

static int parse_isa_name(const char *name);

/* Applies the table to the ISA "auto" found for this vendor, family and model. */
static aesgen_isa_id uarch_preferred_isa(const char *vendor, unsigned family,
                                         unsigned model, aesgen_isa_id widest)
{
    for (size_t i = 0; i < sizeof uarch_preferences / sizeof uarch_preferences[0]; i++) {
        const uarch_preference *p = &uarch_preferences[i];
        const int instead = parse_isa_name(p->instead);
        if (strcmp(p->avoid, isa_table[widest].name) == 0 && p->family == family &&
            p->model == model && strcmp(p->vendor, vendor) == 0 && instead >= 0 &&
            aesgen_isa_id_usable((aesgen_isa_id)instead))
            return (aesgen_isa_id)instead;
    }
    return widest;
}

static aesgen_isa_id best_usable_isa(void)
{
    for (int id = AESGEN_ISA_COUNT - 1; id > AESGEN_ISA_GENERIC; id--)
        if (aesgen_isa_id_usable((aesgen_isa_id)id)) {
            char vendor[13];
            unsigned family, model;
            aesgen_cpu_signature(vendor, &family, &model);
            return uarch_preferred_isa(vendor, family, model, (aesgen_isa_id)id);
        }
    return AESGEN_ISA_GENERIC;
}

/* Name -> ISA_AUTO, an aesgen_isa_id, or -1 if unknown. */
static int parse_isa_name(const char *name)
{
    if (name == NULL)
        return -1;
    if (strcmp(name, "auto") == 0)
        return ISA_AUTO;
    for (int id = 0; id < AESGEN_ISA_COUNT; id++)
        if (strcmp(name, isa_table[id].name) == 0)
            return id;
    return -1;
}

/* The ISA a (parsed) request resolves to (| ISA_BY_AUTO for "auto"), or -1 if it cannot
 * run here. */
static int resolve_request(int parsed)
{
    if (parsed == ISA_AUTO)
        return (int)best_usable_isa() | ISA_BY_AUTO;
    if (parsed >= 0 && aesgen_isa_id_usable((aesgen_isa_id)parsed))
        return parsed;
    return -1;
}

/* The environment variables' prefix: "" here; a vendored bundle made with --prefix P
 * reads P-prefixed names (upper case, e.g. AA_AESGEN_ISA; its aesgen_config.h). */
#ifndef AESGEN_ENV_PREFIX
#define AESGEN_ENV_PREFIX ""
#endif

/* First use: the environment decides, anything unusable there means "auto". */
static int initial_isa(void)
{
    int id = resolve_request(parse_isa_name(getenv(AESGEN_ENV_PREFIX "AESGEN_ISA")));
    return id >= 0 ? id : (int)best_usable_isa() | ISA_BY_AUTO;
}

/* The selection, with ISA_BY_AUTO. */
static int current_selection(void)
{
    int id = atomic_load_explicit(&selected_isa, memory_order_acquire);
    if (id != ISA_UNSET)
        return id;
    int expected = ISA_UNSET;
    int fresh = initial_isa();
    if (atomic_compare_exchange_strong_explicit(&selected_isa, &expected, fresh,
                                                memory_order_acq_rel, memory_order_acquire))
        return fresh;
    return expected;   /* someone else initialized or selected first */
}

static int current_isa_id(void)
{
    return current_selection() & ~ISA_BY_AUTO;
}

const aesgen_isa_impl *aesgen_isa_current(void)
{
    return &isa_table[current_isa_id()];
}

static void context_fns(const aesgen_isa_impl *impl, int automatic, aesgen_mode_fns *fns);

int aesgen_isa_resolve(const char *name, const aesgen_isa_impl **impl, aesgen_mode_fns *fns)
{
    int id;
    if (name == NULL) {
        id = current_selection();
    } else {
        const int parsed = parse_isa_name(name);
        if (parsed == -1)
            return AESGEN_EINVAL;
        id = resolve_request(parsed);
        if (id < 0)
            return AESGEN_ENOTSUP;
    }
    *impl = &isa_table[id & ~ISA_BY_AUTO];
    if (fns != NULL)
        context_fns(*impl, (id & ISA_BY_AUTO) != 0, fns);
    return AESGEN_OK;
}

int aesgen_select_isa(const char *name)
{
    int parsed = parse_isa_name(name);
    if (parsed == -1)
        return AESGEN_EINVAL;
    int id = resolve_request(parsed);
    if (id < 0)
        return AESGEN_ENOTSUP;
    (void)current_selection();   /* the environment counts as the earlier request */
    atomic_store_explicit(&selected_isa, id, memory_order_release);
    return AESGEN_OK;
}

const char *aesgen_isa_name(void)
{
    return isa_table[current_isa_id()].name;
}

int aesgen_isa_supported(const char *name)
{
    return resolve_request(parse_isa_name(name)) >= 0;
}

/* ---- Variants per microarchitecture ------------------------------------- */

/* The uarch table of generator/uarch.py (gen/aesgen_gen.h): names by id, model ranges. */
static const char *const uarch_names[AESGEN_UARCH_LIMIT] = {
    [AESGEN_UARCH_DEFAULT] = "default",
#define UARCH_NAME(name, NAME) [AESGEN_UARCH_##NAME] = #name,
    AESGEN_GEN_UARCHES(UARCH_NAME)
#undef UARCH_NAME
    [AESGEN_UARCH_NONE] = "none",
};

typedef struct uarch_models {
    aesgen_uarch_id id;
    const char *vendor;
    unsigned family, first_model, last_model;
} uarch_models;

#define UARCH_MODELS(NAME, vendor, family, first, last) \
    { AESGEN_UARCH_##NAME, vendor, family, first, last },
static const uarch_models uarch_model_table[] = {
    AESGEN_GEN_UARCH_MODELS(UARCH_MODELS)
};
#undef UARCH_MODELS

aesgen_uarch_id aesgen_uarch_for_cpu(const char *vendor, unsigned family, unsigned model)
{
    for (size_t i = 0; i < sizeof uarch_model_table / sizeof uarch_model_table[0]; i++) {
        const uarch_models *m = &uarch_model_table[i];
        if (m->family == family && m->first_model <= model && model <= m->last_model &&
            strcmp(m->vendor, vendor) == 0)
            return m->id;
    }
    return AESGEN_UARCH_DEFAULT;
}

#define VARIANT_UNSET (-1)
#define VARIANT_AUTO  (-2)   /* parse result only: the CPU's */
static atomic_int selected_variant = VARIANT_UNSET;

/* "auto" -> VARIANT_AUTO, "default", "none" or a uarch name -> its id, else -1. */
static int parse_variant_name(const char *name)
{
    if (name == NULL)
        return -1;
    if (strcmp(name, "auto") == 0)
        return VARIANT_AUTO;
    for (int id = 0; id < AESGEN_UARCH_LIMIT; id++)
        if (strcmp(name, uarch_names[id]) == 0)
            return id;
    return -1;
}

static int cpu_uarch(void)
{
    char vendor[13];
    unsigned family, model;
    aesgen_cpu_signature(vendor, &family, &model);
    return (int)aesgen_uarch_for_cpu(vendor, family, model);
}

aesgen_uarch_id aesgen_variant_current(void)
{
    int id = atomic_load_explicit(&selected_variant, memory_order_acquire);
    if (id != VARIANT_UNSET)
        return (aesgen_uarch_id)id;
    int fresh = parse_variant_name(getenv(AESGEN_ENV_PREFIX "AESGEN_VARIANT"));
    if (fresh < 0)
        fresh = cpu_uarch();   /* unset, "auto" or unknown: the CPU's */
    int expected = VARIANT_UNSET;
    if (atomic_compare_exchange_strong_explicit(&selected_variant, &expected, fresh,
                                                memory_order_acq_rel, memory_order_acquire))
        return (aesgen_uarch_id)fresh;
    return (aesgen_uarch_id)expected;
}

int aesgen_select_variant(const char *name)
{
    int id = parse_variant_name(name);
    if (id == -1)
        return AESGEN_EINVAL;
    if (id == VARIANT_AUTO)
        id = cpu_uarch();
    (void)aesgen_variant_current();   /* the environment counts as the earlier request */
    atomic_store_explicit(&selected_variant, id, memory_order_release);
    return AESGEN_OK;
}

const char *aesgen_variant_name(void)
{
    return uarch_names[aesgen_variant_current()];
}

/* ---- Length plans (generator/tuning.json "lengths") ------------------------- */

/* The function of isa on uarch U: its variant's where it has one. */
#define ON_UARCH(ISA, U, member, own)                                    \
    (isa_table[AESGEN_ISA_##ISA].variants[U].member != NULL              \
         ? isa_table[AESGEN_ISA_##ISA].variants[U].member                \
         : isa_table[AESGEN_ISA_##ISA].own)
/* A class's functions (its FNS): TUNED as above, OWN the file's own whatever the uarch. */
#define CLASS_FN_TUNED(ISA, U, member, own) ON_UARCH(ISA, U, member, own)
#define CLASS_FN_OWN(ISA, U, member, own) (isa_table[AESGEN_ISA_##ISA].own)

/* Does a class cover a call of len bytes: min_len..max_len (one unsigned compare: below
 * min_len wraps above the range), and its last vector of the plan's ISA (period bytes)
 * holds at most at_most of them (at_most = period: any; the compiler drops the test). */
#define CLASS_COVERS(max_len, min_len, period, at_most)                             \
    ((size_t)(len - (size_t)(min_len)) <= (size_t)(max_len) - (size_t)(min_len) &&  \
     (len - 1) % (period) < (size_t)(at_most))

/* Per plan: pick fills the functions of its mode for a call of len bytes (the first class
 * covering len, else the ISA's; len 0: the ISA's), and, for ctr, xts and gcm, one function
 * per contract calls through it (pick is static and inlined: the classes become compares
 * and direct calls); xctr contexts hold the ISA's function and the plan, which their
 * calls consult from the shortest length a class covers (xctr.c). */
#define CLASS_PICK_ctr(max_len, isa, ISA, FNS, min_len, period, at_most)           \
    if (CLASS_COVERS(max_len, min_len, period, at_most)) {                          \
        f->ctr = CLASS_FN_##FNS(ISA, U, ctr, ctr);                                  \
        return;                                                                     \
    }
#define CLASS_PICK_xctr(max_len, isa, ISA, FNS, min_len, period, at_most)          \
    if (CLASS_COVERS(max_len, min_len, period, at_most)) {                          \
        f->xctr = CLASS_FN_##FNS(ISA, U, xctr, xctr);                               \
        return;                                                                     \
    }
#define CLASS_PICK_xts(max_len, isa, ISA, FNS, min_len, period, at_most)           \
    if (CLASS_COVERS(max_len, min_len, period, at_most)) {                          \
        f->xts_encrypt = CLASS_FN_##FNS(ISA, U, xts_encrypt, xts_encrypt);          \
        f->xts_decrypt = CLASS_FN_##FNS(ISA, U, xts_decrypt, xts_decrypt);          \
        return;                                                                     \
    }
#define CLASS_PICK_gcm(max_len, isa, ISA, FNS, min_len, period, at_most)           \
    if (CLASS_COVERS(max_len, min_len, period, at_most)) {                          \
        f->gcm.enc_record = CLASS_FN_##FNS(ISA, U, gcm.enc_record, gcm_enc_record); \
        f->gcm.dec_record = CLASS_FN_##FNS(ISA, U, gcm.dec_record, gcm_dec_record); \
        return;                                                                     \
    }
#define CLASS_PICK_gcm_stream(max_len, isa, ISA, FNS, min_len, period, at_most)    \
    if (CLASS_COVERS(max_len, min_len, period, at_most)) {                          \
        f->gcm.ghash = CLASS_FN_##FNS(ISA, U, gcm.ghash, gcm_ghash);                \
        f->gcm.enc_update = CLASS_FN_##FNS(ISA, U, gcm.enc_update, gcm_enc_update); \
        f->gcm.dec_update = CLASS_FN_##FNS(ISA, U, gcm.dec_update, gcm_dec_update); \
        return;                                                                     \
    }
#define CLASS_ISA_BIT(max_len, isa, ISA, FNS, min_len, period, at_most) | (1u << AESGEN_ISA_##ISA)
#define CLASS_COUNT(max_len, isa, ISA, FNS, min_len, period, at_most) + 1

#define PLAN_PICK(mode, UARCH, isa, ISA, CLASSES)                                          \
    static AESGEN_ALWAYS_INLINE void pick_##mode##_##isa##_##UARCH(size_t len,              \
                                                                   aesgen_mode_fns *f)      \
    {                                                                                       \
        enum { U = AESGEN_UARCH_##UARCH };                                                  \
        CLASSES(CLASS_PICK_##mode)                                                          \
        CLASS_PICK_##mode(SIZE_MAX, isa, ISA, TUNED, 0, 1, 1)                               \
    }
#define PICK(mode, isa, UARCH, len) \
    aesgen_mode_fns f;              \
    pick_##mode##_##isa##_##UARCH(len, &f)

#define PLAN_ctr(UARCH, isa, ISA)                                                          \
    static int plan_ctr_##isa##_##UARCH(const aesgen_aes_key *key, uint8_t *dst,             \
                                        const uint8_t *src, size_t len, uint64_t lo,         \
                                        uint64_t hi)                                         \
    {                                                                                        \
        PICK(ctr, isa, UARCH, len);                                                          \
        return f.ctr(key, dst, src, len, lo, hi);                                            \
    }
/* xctr: no function calls through the plan; its contexts hold it (below). */
#define PLAN_xctr(UARCH, isa, ISA)
#define PLAN_xts(UARCH, isa, ISA)                                                          \
    static int plan_xts_enc_##isa##_##UARCH(const aesgen_aes_key *k1,                        \
                                            const aesgen_aes_key *k2, uint8_t *dst,          \
                                            const uint8_t *src, size_t len,                  \
                                            const uint8_t iv[16])                            \
    {                                                                                        \
        PICK(xts, isa, UARCH, len);                                                          \
        return f.xts_encrypt(k1, k2, dst, src, len, iv);                                     \
    }                                                                                        \
    static int plan_xts_dec_##isa##_##UARCH(const aesgen_aes_key *k1,                        \
                                            const aesgen_aes_key *k2, uint8_t *dst,          \
                                            const uint8_t *src, size_t len,                  \
                                            const uint8_t iv[16])                            \
    {                                                                                        \
        PICK(xts, isa, UARCH, len);                                                          \
        return f.xts_decrypt(k1, k2, dst, src, len, iv);                                     \
    }
/* GCM: the one-shot records (CLASSES) and the streaming calls (STREAM_CLASSES); the
 * length a record or update takes may carry AESGEN_GCM_SECRET_COUNTER (asm_abi.h). */
#define GCM_LEN(len) ((len) & ~AESGEN_GCM_SECRET_COUNTER)
#define PLAN_gcm(UARCH, isa, ISA)                                                          \
    static int plan_gcm_enc_##isa##_##UARCH(const aesgen_gcm_key *key, uint8_t *dst,         \
                                            const uint8_t *src, size_t len,                  \
                                            aesgen_gcm_record *rec)                          \
    {                                                                                        \
        PICK(gcm, isa, UARCH, GCM_LEN(len));                                                 \
        return f.gcm.enc_record(key, dst, src, len, rec);                                    \
    }                                                                                        \
    static int plan_gcm_dec_##isa##_##UARCH(const aesgen_gcm_key *key, uint8_t *dst,         \
                                            const uint8_t *src, size_t len,                  \
                                            aesgen_gcm_record *rec)                          \
    {                                                                                        \
        PICK(gcm, isa, UARCH, GCM_LEN(len));                                                 \
        return f.gcm.dec_record(key, dst, src, len, rec);                                    \
    }                                                                                        \
    static int plan_gcm_ghash_##isa##_##UARCH(const aesgen_gcm_key *key, uint8_t acc[16],    \
                                              const uint8_t *data, size_t len)               \
    {                                                                                        \
        PICK(gcm_stream, isa, UARCH, len);                                                   \
        return f.gcm.ghash(key, acc, data, len);                                             \
    }                                                                                        \
    static int plan_gcm_enc_update_##isa##_##UARCH(const aesgen_gcm_key *key, uint8_t *dst,  \
                                                   const uint8_t *src, size_t len,           \
                                                   const uint8_t ctr[16], uint8_t acc[16])   \
    {                                                                                        \
        PICK(gcm_stream, isa, UARCH, GCM_LEN(len));                                          \
        return f.gcm.enc_update(key, dst, src, len, ctr, acc);                               \
    }                                                                                        \
    static int plan_gcm_dec_update_##isa##_##UARCH(const aesgen_gcm_key *key, uint8_t *dst,  \
                                                   const uint8_t *src, size_t len,           \
                                                   const uint8_t ctr[16], uint8_t acc[16])   \
    {                                                                                        \
        PICK(gcm_stream, isa, UARCH, GCM_LEN(len));                                          \
        return f.gcm.dec_update(key, dst, src, len, ctr, acc);                               \
    }
/* The other modes have no stream classes (the generator refuses them). */
#define PLAN_STREAM_PICK_ctr(UARCH, isa, ISA, STREAMS)
#define PLAN_STREAM_PICK_xctr(UARCH, isa, ISA, STREAMS)
#define PLAN_STREAM_PICK_xts(UARCH, isa, ISA, STREAMS)
#define PLAN_STREAM_PICK_gcm(UARCH, isa, ISA, STREAMS) \
    PLAN_PICK(gcm_stream, UARCH, isa, ISA, STREAMS)
#define PLAN_FUNCTIONS(mode, UARCH, isa, ISA, CLASSES, STREAMS) \
    PLAN_PICK(mode, UARCH, isa, ISA, CLASSES)                   \
    PLAN_STREAM_PICK_##mode(UARCH, isa, ISA, STREAMS)           \
    PLAN_##mode(UARCH, isa, ISA)
AESGEN_GEN_LENGTH_PLANS(PLAN_FUNCTIONS)

typedef enum plan_mode { PLAN_MODE_ctr, PLAN_MODE_xctr, PLAN_MODE_xts, PLAN_MODE_gcm } plan_mode;

typedef struct length_plan {
    plan_mode mode;
    aesgen_uarch_id uarch;      /* AESGEN_UARCH_DEFAULT: a CPU in no row of the uarch table */
    aesgen_isa_id isa;
    unsigned class_isas;        /* 1 << id of each class's ISA: all must be usable */
    unsigned record_isas;       /* those of GCM records: they must pad as the ISA does */
    aesgen_mode_fns fns;        /* the plan's functions of its mode, the others NULL (xctr:
                                   none, its contexts hold the plan itself) */
    void (*pick)(size_t len, aesgen_mode_fns *f);
    void (*pick_stream)(size_t len, aesgen_mode_fns *f);   /* gcm's streaming calls */
} length_plan;

/* Only the functions of non-empty class lists (a plan without record classes leaves the
 * records alone). */
#define IF_CLASSES(LIST, fn) ((0 LIST(CLASS_COUNT)) ? (fn) : NULL)
#define PLAN_FNS_ctr(UARCH, isa, C, S) .ctr = plan_ctr_##isa##_##UARCH
#define PLAN_FNS_xctr(UARCH, isa, C, S) .xctr = NULL
#define PLAN_FNS_xts(UARCH, isa, C, S) \
    .xts_encrypt = plan_xts_enc_##isa##_##UARCH, .xts_decrypt = plan_xts_dec_##isa##_##UARCH
#define PLAN_FNS_gcm(UARCH, isa, C, S)                                                 \
    .gcm = { .ghash = IF_CLASSES(S, plan_gcm_ghash_##isa##_##UARCH),                   \
             .enc_update = IF_CLASSES(S, plan_gcm_enc_update_##isa##_##UARCH),         \
             .dec_update = IF_CLASSES(S, plan_gcm_dec_update_##isa##_##UARCH),         \
             .enc_record = IF_CLASSES(C, plan_gcm_enc_##isa##_##UARCH),                \
             .dec_record = IF_CLASSES(C, plan_gcm_dec_##isa##_##UARCH) }
#define PICK_STREAM_ctr(UARCH, isa) NULL
#define PICK_STREAM_xctr(UARCH, isa) NULL
#define PICK_STREAM_xts(UARCH, isa) NULL
#define PICK_STREAM_gcm(UARCH, isa) pick_gcm_stream_##isa##_##UARCH
#define RECORD_ISAS_ctr(CLASSES) 0u
#define RECORD_ISAS_xctr(CLASSES) 0u
#define RECORD_ISAS_xts(CLASSES) 0u
#define RECORD_ISAS_gcm(CLASSES) (0u CLASSES(CLASS_ISA_BIT))
#define PLAN_ROW(mode, UARCH, isa, ISA, CLASSES, STREAMS)                              \
    { PLAN_MODE_##mode, AESGEN_UARCH_##UARCH, AESGEN_ISA_##ISA,                        \
      0u CLASSES(CLASS_ISA_BIT) STREAMS(CLASS_ISA_BIT), RECORD_ISAS_##mode(CLASSES),   \
      { PLAN_FNS_##mode(UARCH, isa, CLASSES, STREAMS) }, pick_##mode##_##isa##_##UARCH, \
      PICK_STREAM_##mode(UARCH, isa) },
static const length_plan length_plans[] = {
    AESGEN_GEN_LENGTH_PLANS(PLAN_ROW)
    { PLAN_MODE_ctr, AESGEN_UARCH_DEFAULT, AESGEN_ISA_GENERIC, 0, 0, { 0 }, NULL, NULL }   /* the end */
};

int aesgen_length_plan_pick(const aesgen_mode_fns *context, size_t len, aesgen_mode_fns *out)
{
    for (size_t i = 0; i + 1 < sizeof length_plans / sizeof length_plans[0]; i++) {
        const aesgen_mode_fns *p = &length_plans[i].fns;
        if ((p->ctr && p->ctr == context->ctr) || (p->xctr && p->xctr == context->xctr) ||
            (p->xts_encrypt && p->xts_encrypt == context->xts_encrypt) ||
            (p->gcm.enc_record && p->gcm.enc_record == context->gcm.enc_record)) {
            memset(out, 0, sizeof *out);
            length_plans[i].pick(len, out);
            return 1;
        }
        if (p->gcm.enc_update && p->gcm.enc_update == context->gcm.enc_update) {
            memset(out, 0, sizeof *out);
            length_plans[i].pick_stream(len, out);
            return 1;
        }
    }
    return 0;
}

/* xctr: a context's plan is 1 + the uarch whose plan it is (a mode has one plan per
 * uarch).  Its pick, as a function for the tests and inside the API's long calls, which
 * take the contract's arguments: the API jumps there as it would to the context's
 * function (key is the context's own, at its start). */
#define IF_xctr_ctr(x)
#define IF_xctr_xctr(x) x
#define IF_xctr_xts(x)
#define IF_xctr_gcm(x)
#define XCTR_PICK_CASE(mode, UARCH, isa, ISA, C, S) \
    IF_xctr_##mode(case AESGEN_UARCH_##UARCH + 1: { \
        PICK(xctr, isa, UARCH, len);                \
        return f.xctr;                              \
    })

static AESGEN_ALWAYS_INLINE aesgen_xctr_fn *xctr_plan_pick(unsigned plan, size_t len)
{
    (void)len;   /* no xctr plan: no case */
    switch (plan) {
        AESGEN_GEN_LENGTH_PLANS(XCTR_PICK_CASE)
    default:
        return NULL;
    }
}

aesgen_xctr_fn *aesgen_length_plan_xctr(unsigned plan, size_t len)
{
    return xctr_plan_pick(plan, len);
}

int aesgen_xctr_call_planned(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                             size_t len, const uint8_t iv[16], uint64_t index)
{
    const aesgen_xctr_ctx *ctx = (const aesgen_xctr_ctx *)(const void *)((const char *)key -
                                                                        offsetof(aesgen_xctr_ctx, key));
    aesgen_xctr_fn *f = xctr_plan_pick(ctx->plan, len);
    return (f != NULL ? f : ctx->crypt)(key, dst, src, len, iv, index);
}

static int class_isas_usable(const length_plan *p, const aesgen_isa_impl *impl)
{
    for (int id = 0; id < AESGEN_ISA_COUNT; id++)
        if ((p->class_isas >> id) & 1u) {
            if (!aesgen_isa_id_usable((aesgen_isa_id)id))
                return 0;
            /* a GCM record of another ISA must take its input the same way */
            if (((p->record_isas >> id) & 1u) &&
                isa_table[id].gcm_record_pads != impl->gcm_record_pads)
                return 0;
        }
    return 1;
}

/* ---- The functions of a new context ---------------------------------------- */

static int gcm_fns_complete(const aesgen_gcm_fns *fns)
{
    return fns->ghash != NULL && fns->enc_update != NULL && fns->dec_update != NULL &&
           fns->enc_record != NULL && fns->dec_record != NULL;
}

static void context_fns(const aesgen_isa_impl *impl, int automatic, aesgen_mode_fns *fns)
{
    const aesgen_gcm_fns own_gcm = { impl->gcm_ghash, impl->gcm_enc_update,
                                     impl->gcm_dec_update, impl->gcm_enc_record,
                                     impl->gcm_dec_record };
    memset(fns, 0, sizeof *fns);
    fns->ctr = impl->ctr;
    fns->ctr_iv = impl->ctr_iv;
    fns->xctr = impl->xctr;
    fns->xts_encrypt = impl->xts_encrypt;
    fns->xts_decrypt = impl->xts_decrypt;
    fns->gcm = own_gcm;
    const aesgen_uarch_id u = aesgen_variant_current();
    const aesgen_mode_fns *v = &impl->variants[u];
    if (v->ctr != NULL) {
        fns->ctr = v->ctr;
        fns->ctr_iv = v->ctr_iv;
    }
    if (v->xctr != NULL)
        fns->xctr = v->xctr;
    if (v->xts_encrypt != NULL && v->xts_decrypt != NULL) {
        fns->xts_encrypt = v->xts_encrypt;
        fns->xts_decrypt = v->xts_decrypt;
    }
    if (gcm_fns_complete(&v->gcm))
        fns->gcm = v->gcm;
    /* Short GCM calls: "auto" takes the xmm code (every vector ISA runs it, same key
     * layout, the cheapest prologue), unless a length plan's stream classes say otherwise
     * (below); a named ISA keeps its own at every length. */
    const aesgen_isa_impl *small = impl;
#ifdef AESGEN_GEN_HAVE_ISA_aesni_avx   /* a vendored bundle may leave it out */
    if (automatic && (impl->needs & AESGEN_CPU_AESNI) &&
        aesgen_isa_id_usable(AESGEN_ISA_AESNI_AVX))
        small = &isa_table[AESGEN_ISA_AESNI_AVX];
#endif
    const aesgen_gcm_fns *small_v = &small->variants[u].gcm;
    fns->gcm_short = gcm_fns_complete(small_v) ? *small_v
                                               : (aesgen_gcm_fns){ small->gcm_ghash,
                                                                   small->gcm_enc_update,
                                                                   small->gcm_dec_update,
                                                                   NULL, NULL };
    if (!automatic)
        return;
    for (size_t i = 0; i + 1 < sizeof length_plans / sizeof length_plans[0]; i++) {
        const length_plan *p = &length_plans[i];
        if (p->uarch != u || &isa_table[p->isa] != impl || !class_isas_usable(p, impl))
            continue;
        if (p->fns.ctr != NULL) {   /* the plan's function, which picks by length */
            fns->ctr = p->fns.ctr;
            fns->ctr_iv = NULL;
        }
        if (p->mode == PLAN_MODE_xctr) {   /* the plan's ISA at len 0: no class */
            fns->xctr_plan = (unsigned)u + 1;
            fns->xctr = aesgen_length_plan_xctr(fns->xctr_plan, 0);
        }
        if (p->fns.xts_encrypt != NULL) {
            fns->xts_encrypt = p->fns.xts_encrypt;
            fns->xts_decrypt = p->fns.xts_decrypt;
        }
        if (p->fns.gcm.enc_record != NULL && fns->gcm.enc_record != NULL) {
            fns->gcm.enc_record = p->fns.gcm.enc_record;
            fns->gcm.dec_record = p->fns.gcm.dec_record;
        }
        if (p->fns.gcm.enc_update != NULL) {   /* the streaming calls, short ones too */
            fns->gcm.ghash = fns->gcm_short.ghash = p->fns.gcm.ghash;
            fns->gcm.enc_update = fns->gcm_short.enc_update = p->fns.gcm.enc_update;
            fns->gcm.dec_update = fns->gcm_short.dec_update = p->fns.gcm.dec_update;
        }
    }
}
