/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Implementation (ISA) table, the process-wide selection and the per-context
 * requests (aesgen_*_init_isa).
 *
 * The selection is one atomic int.  It starts "unset"; the first use reads
 * AESGEN_ISA (or falls back to "auto") and publishes the result with a
 * compare-exchange, so concurrent first uses agree and an explicit
 * aesgen_select_isa() made meanwhile is never overwritten by the environment.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/*
 * The asm ISAs and their feature masks come from gen/aesgen_gen.h (generator/isa.py);
 * every entry references its generated functions directly, so a library built without
 * one of the generated files fails to link.  The key setup and single blocks of GCM are
 * the AES-NI/PCLMULQDQ intrinsics of gcm_clmul.c.
 */

/* The alternate GHASH sets the manifest lists for gen/<isa>/gcm.S (weak: see
 * AESGEN_GEN_ALTERNATE). */
#define GCM_SET(isa, alt) { aesgen_gcm_ghash_##isa##_##alt, aesgen_gcm_enc_update_##isa##_##alt, \
                            aesgen_gcm_dec_update_##isa##_##alt,                             \
                            aesgen_gcm_enc_record_##isa##_##alt,                             \
                            aesgen_gcm_dec_record_##isa##_##alt },
#define GCM_ALTERNATE(isa, alt) .gcm_##alt = GCM_SET(isa, alt)

/* A mode an ISA has no generated file for (vperm_ssse3: AESGEN_GEN_HAS_<isa>_<mode>)
 * takes the generic code, and an ISA without AES-NI the generic (constant-time) key
 * setup: the schedule is the same standard one either way.  GCM without gcm.S on an
 * ISA without AES-NI: its CTR with the generic GHASH (gcm_ctr_ghash.c). */
#define HAS(isa, mode, have, lack) AESGEN_GEN_HAS_##isa##_##mode(have, lack)
#define AESNI(isa, have, lack) AESGEN_GEN_AESNI_##isa(have, lack)
#define ASM_IMPL(isa, NAME, vector_bytes, evex, needs_bits)                          \
    [AESGEN_ISA_##NAME] = {                                                          \
        .name = #isa, .needs = (needs_bits),                                         \
        .expand = AESNI(isa, aesgen_expand_key_aesni, aesgen_expand_key_generic),    \
        .dec_key = AESNI(isa, aesgen_dec_key_aesni, aesgen_dec_key_generic),         \
        .ctr = HAS(isa, ctr, aesgen_ctr_crypt_##isa, aesgen_ctr_crypt_generic),       \
        .xctr = HAS(isa, xctr, aesgen_xctr_crypt_##isa, aesgen_xctr_crypt_generic),   \
        .xts_encrypt = HAS(isa, xts, aesgen_xts_encrypt_##isa, aesgen_xts_encrypt_generic), \
        .xts_decrypt = HAS(isa, xts, aesgen_xts_decrypt_##isa, aesgen_xts_decrypt_generic), \
        .encrypt_block = AESNI(isa, aesgen_encrypt_block_aesni, aesgen_encrypt_block_generic), \
        .gcm_setup = AESNI(isa, aesgen_gcm_setup_clmul, aesgen_gcm_setup_generic),   \
        .gcm_ghash = HAS(isa, gcm, aesgen_gcm_ghash_##isa, aesgen_gcm_ghash_generic), \
        .gcm_enc_update = HAS(isa, gcm, aesgen_gcm_enc_update_##isa,                  \
                              AESNI(isa, aesgen_gcm_enc_update_generic,               \
                                    aesgen_gcm_enc_update_##isa)),                    \
        .gcm_dec_update = HAS(isa, gcm, aesgen_gcm_dec_update_##isa,                  \
                              AESNI(isa, aesgen_gcm_dec_update_generic,               \
                                    aesgen_gcm_dec_update_##isa)),                    \
        .gcm_enc_record = HAS(isa, gcm, aesgen_gcm_enc_record_##isa, NULL),           \
        .gcm_dec_record = HAS(isa, gcm, aesgen_gcm_dec_record_##isa, NULL),           \
        .gcm_record_pads = HAS(isa, gcm, !(evex), 0), /* VEX: whole blocks + tail (asm_abi.h) */ \
        AESGEN_GEN_GCM_ALTERNATES_##isa(GCM_ALTERNATE) },

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
    aesgen_isa_id avoid;         /* when "auto" would pick this ... */
    aesgen_isa_id instead;       /* ... take this, if it is usable */
} uarch_preference;

static const uarch_preference uarch_preferences[] = {
    { "GenuineIntel", 6, 0x55, AESGEN_ISA_AVX10_512, AESGEN_ISA_AVX10_256 },
};

/* Applies the table to the ISA "auto" found for this vendor, family and model. */
static aesgen_isa_id uarch_preferred_isa(const char *vendor, unsigned family,
                                         unsigned model, aesgen_isa_id widest)
{
    for (size_t i = 0; i < sizeof uarch_preferences / sizeof uarch_preferences[0]; i++) {
        const uarch_preference *p = &uarch_preferences[i];
        if (p->avoid == widest && p->family == family && p->model == model &&
            strcmp(p->vendor, vendor) == 0 && aesgen_isa_id_usable(p->instead))
            return p->instead;
    }
    return widest;
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* Vendor string and display family/model (the extended fields folded in as the SDM
 * says: extended family only for family 15, extended model for families 6 and 15). */
static void cpu_signature(char vendor[13], unsigned *family, unsigned *model)
{
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    memset(vendor, 0, 13);
    *family = *model = 0;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
        return;
    memcpy(vendor, &ebx, 4);
    memcpy(vendor + 4, &edx, 4);
    memcpy(vendor + 8, &ecx, 4);
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return;
    unsigned base_family = (eax >> 8) & 0xf, base_model = (eax >> 4) & 0xf;
    *family = base_family == 15 ? base_family + ((eax >> 20) & 0xff) : base_family;
    *model = (base_family == 6 || base_family == 15) ? base_model | ((eax >> 12) & 0xf0)
                                                     : base_model;
}
#else
static void cpu_signature(char vendor[13], unsigned *family, unsigned *model)
{
    memset(vendor, 0, 13);
    *family = *model = 0;
}
#endif

static aesgen_isa_id best_usable_isa(void)
{
    for (int id = AESGEN_ISA_COUNT - 1; id > AESGEN_ISA_GENERIC; id--)
        if (aesgen_isa_id_usable((aesgen_isa_id)id)) {
            char vendor[13];
            unsigned family, model;
            cpu_signature(vendor, &family, &model);
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

/* The ISA a (parsed) request resolves to, or -1 if it cannot run here. */
static int resolve_request(int parsed)
{
    if (parsed == ISA_AUTO)
        return best_usable_isa();
    if (parsed >= 0 && aesgen_isa_id_usable((aesgen_isa_id)parsed))
        return parsed;
    return -1;
}

/* First use: the environment decides, anything unusable there means "auto". */
static int initial_isa(void)
{
    int id = resolve_request(parse_isa_name(getenv("AESGEN_ISA")));
    return id >= 0 ? id : (int)best_usable_isa();
}

static int current_isa_id(void)
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

const aesgen_isa_impl *aesgen_isa_current(void)
{
    return &isa_table[current_isa_id()];
}

int aesgen_isa_resolve(const char *name, const aesgen_isa_impl **impl)
{
    if (name == NULL) {
        *impl = aesgen_isa_current();
        return AESGEN_OK;
    }
    const int parsed = parse_isa_name(name);
    if (parsed == -1)
        return AESGEN_EINVAL;
    const int id = resolve_request(parsed);
    if (id < 0)
        return AESGEN_ENOTSUP;
    *impl = &isa_table[id];
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
    (void)current_isa_id();   /* the environment counts as the earlier request */
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

/* ---- GCM: the GHASH variant this CPU prefers ------------------------------ */

static int gcm_fns_complete(const aesgen_gcm_fns *fns)
{
    return fns->ghash != NULL && fns->enc_update != NULL && fns->dec_update != NULL &&
           fns->enc_record != NULL && fns->dec_record != NULL;
}

/*
 * The GHASH set each CPU takes, where the EVEX files carry both: the table of
 * measurements in generator/preferences.py (each row says where it was measured),
 * through gen/aesgen_gen.h.  A CPU not listed takes the file's primary set.
 */
typedef struct gcm_ghash_preference {
    const char *vendor;
    unsigned family;             /* display family; 0: any */
    const char *ghash;           /* "school" or "karatsuba" */
} gcm_ghash_preference;

#define GHASH_PREFERENCE(vendor, family, ghash) { vendor, family, ghash },
static const gcm_ghash_preference gcm_ghash_preferences[] = {
    AESGEN_GEN_GCM_GHASH_PREFERENCES(GHASH_PREFERENCE)
};
#undef GHASH_PREFERENCE

const char *aesgen_gcm_ghash_for_cpu(const char *vendor, unsigned family, unsigned model)
{
    (void)model;   /* no preference differs by model yet */
    for (size_t i = 0; i < sizeof gcm_ghash_preferences / sizeof gcm_ghash_preferences[0]; i++) {
        const gcm_ghash_preference *p = &gcm_ghash_preferences[i];
        if (strcmp(p->vendor, vendor) == 0 && (p->family == 0 || p->family == family))
            return p->ghash;
    }
    return NULL;
}

const aesgen_gcm_fns *aesgen_gcm_preferred(const aesgen_isa_impl *impl)
{
    const char *ghash = getenv("AESGEN_GCM_GHASH");
    if (ghash == NULL || (strcmp(ghash, "school") != 0 && strcmp(ghash, "karatsuba") != 0)) {
        char vendor[13];
        unsigned family, model;
        cpu_signature(vendor, &family, &model);
        ghash = aesgen_gcm_ghash_for_cpu(vendor, family, model);
        if (ghash == NULL)
            return NULL;
    }
    const aesgen_gcm_fns *fns = strcmp(ghash, "school") == 0 ? &impl->gcm_school
                                                             : &impl->gcm_karatsuba;
    return gcm_fns_complete(fns) ? fns : NULL;
}
