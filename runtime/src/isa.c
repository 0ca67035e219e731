/*
 * Implementation (ISA) table and the process-wide selection.
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

#define NEEDS_AESNI_AVX (AESGEN_CPU_AESNI | AESGEN_CPU_PCLMUL | AESGEN_CPU_AVX)
#define NEEDS_VAES_AVX2 (NEEDS_AESNI_AVX | AESGEN_CPU_AVX2 | AESGEN_CPU_VAES | \
                         AESGEN_CPU_VPCLMUL | AESGEN_CPU_BMI2)
#define NEEDS_AVX10     (NEEDS_VAES_AVX2 | AESGEN_CPU_AVX512F | AESGEN_CPU_AVX512BW | \
                         AESGEN_CPU_AVX512VL | AESGEN_CPU_AVX512DQ)

/* Without the generated assembly the asm ISAs are known names with no code. */
#ifdef AESGEN_HAVE_ASM
#define ASM_IMPL(isa, needs) \
    { #isa, needs, aesgen_expand_key_aesni, aesgen_ctr_crypt_##isa, aesgen_xctr_crypt_##isa }
#else
#define ASM_IMPL(isa, needs) { #isa, needs, NULL, NULL, NULL }
#endif

static const aesgen_isa_impl isa_table[AESGEN_ISA_COUNT] = {
    [AESGEN_ISA_GENERIC] = { "generic", 0, aesgen_expand_key_generic,
                             aesgen_ctr_crypt_generic, aesgen_xctr_crypt_generic },
    [AESGEN_ISA_AESNI_AVX] = ASM_IMPL(aesni_avx, NEEDS_AESNI_AVX),
    [AESGEN_ISA_VAES_AVX2] = ASM_IMPL(vaes_avx2, NEEDS_VAES_AVX2),
    [AESGEN_ISA_AVX10_256] = ASM_IMPL(avx10_256, NEEDS_AVX10),
    [AESGEN_ISA_AVX10_512] = ASM_IMPL(avx10_512, NEEDS_AVX10),
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
    if (impl->ctr == NULL)
        return 0;
    return (aesgen_cpu_features() & impl->needs) == impl->needs;
}

static aesgen_isa_id best_usable_isa(void)
{
    for (int id = AESGEN_ISA_COUNT - 1; id > AESGEN_ISA_GENERIC; id--)
        if (aesgen_isa_id_usable((aesgen_isa_id)id))
            return (aesgen_isa_id)id;
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
