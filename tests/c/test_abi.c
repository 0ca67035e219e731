/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * ABI tests: the generated functions, called directly through an assembly
 * thunk (abi_thunk.S), must keep rbx, rbp, r12-r15 and rsp, return with DF
 * clear and MXCSR / x87 control word unchanged, and leave no dirty upper
 * vector state (XINUSE bits 2 and 6; i.e. they end with VZEROUPPER).
 * The output is checked too, with counters and indices near their limits,
 * and the harness first proves it can see each kind of violation.  The
 * public crypt functions go through the same checks.
 *
 * XTS (test_xts_abi): aesgen_xts_{en,de}crypt_<isa>(key1, key2, dst, src, len,
 * iv) directly, with key schedules made here (decrypt: the equivalent inverse
 * cipher schedule), and the public XTS functions, through the same thunk.
 * GCM (test_gcm_abi.c) uses the helpers this file exports through abi.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "check.h"
#include "harness.h"
#include "isa.h"
#include "reference.h"
#include "tests.h"
#include "xts_harness.h"

static uint64_t harness_flags(void)
{
    return (cpu_has_avx() ? ABI_FLAG_VZEROUPPER : 0) | (cpu_has_xgetbv1() ? ABI_FLAG_XGETBV1 : 0);
}

/* XINUSE can be trusted only if the harness itself reads clean after VZEROUPPER. */
static bool xinuse_usable;

/* The distinct functions called through the thunk so far. */
enum { MAX_CALLED = 512 };
static void (*called[MAX_CALLED])(void);
static size_t called_count;

static bool was_called(void (*fn)(void))
{
    for (size_t i = 0; i < called_count; i++)
        if (called[i] == fn)
            return true;
    return false;
}

struct listed_function {
    const char *isa, *mode, *symbol;
    void (*fn)(void);
};
#define LISTED_FUNCTION(isa, mode, symbol) { #isa, #mode, #symbol, (void (*)(void))symbol },
static const struct listed_function listed_functions[] = {
    AESGEN_GEN_FUNCTIONS(LISTED_FUNCTION)
};

void abi_check_every_function_called(const char *isa, const char *mode)
{
    for (size_t i = 0; i < sizeof listed_functions / sizeof listed_functions[0]; i++) {
        const struct listed_function *f = &listed_functions[i];
        if (strcmp(f->isa, isa) == 0 && strcmp(f->mode, mode) == 0)
            check(f->fn != NULL && was_called(f->fn), "%s abi: %s (gen/manifest.json) is "
                  "linked and was called through the thunk", isa, f->symbol);
    }
}

void (*abi_call_hook)(struct abi_call *call, int after);

struct abi_call abi_call_through_thunk(void (*fn)(void), const uint64_t args[6])
{
    if (!was_called(fn) && called_count < MAX_CALLED)
        called[called_count++] = fn;
    struct abi_call call;
    memset(&call, 0, sizeof call);
    call.fn = fn;
    if (args)
        memcpy(call.args, args, sizeof call.args);
    call.flags = harness_flags();
    if (abi_call_hook)
        abi_call_hook(&call, 0);
    aesgen_test_abi_call(&call);
    if (abi_call_hook)
        abi_call_hook(&call, 1);
    return call;
}

/* What the call broke, or NULL. */
const char *abi_violation(const struct abi_call *c)
{
    static char why[200];
    static const char *const reg_names[] = ABI_CALLEE_SAVED_NAMES;
    if (c->clobbered) {
        int i = __builtin_ctzll(c->clobbered);
        snprintf(why, sizeof why, "callee-saved %s not preserved (mask %#llx)", reg_names[i],
                 (unsigned long long)c->clobbered);
        return why;
    }
    if (c->rsp_moved)
        return "rsp not restored";
    if (c->stack_clobbered)
        return "wrote the caller's stack above its shadow space and stack arguments";
    if (c->df_set)
        return "returned with the direction flag set";
    if (c->mxcsr_pre != c->mxcsr_post)
        return "MXCSR changed";
    if (c->fcw_pre != c->fcw_post)
        return "x87 control word changed";
    if (xinuse_usable && (c->xinuse & (XINUSE_YMM_HI128 | XINUSE_ZMM_HI256))) {
        snprintf(why, sizeof why, "dirty upper vector state on return (XINUSE %#llx: %s%s)",
                 (unsigned long long)c->xinuse,
                 c->xinuse & XINUSE_YMM_HI128 ? "YMM_Hi128 " : "",
                 c->xinuse & XINUSE_ZMM_HI256 ? "ZMM_Hi256" : "");
        return why;
    }
    return NULL;
}

/* The harness must catch each planted violation, and pass a clean function.
 * Once per process, by whichever group comes first. */
void abi_harness_self_test(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    struct abi_call c = abi_call_through_thunk(aesgen_test_good_noop, NULL);
    xinuse_usable = cpu_has_xgetbv1()
                    && !(c.xinuse_pre & (XINUSE_YMM_HI128 | XINUSE_ZMM_HI256))
                    && !(c.xinuse & (XINUSE_YMM_HI128 | XINUSE_ZMM_HI256));
    const char *why = abi_violation(&c);
    check(why == NULL, "abi harness: an empty function passes (%s)", why ? why : "");
    if (!cpu_has_xgetbv1())
        check_skip("xinuse: CPU lacks XGETBV with ECX=1; upper-state checks not possible");
    else if (!xinuse_usable)
        check_skip("xinuse: XINUSE reads dirty even after VZEROUPPER (%#llx); "
                   "upper-state checks not possible", (unsigned long long)c.xinuse);

    c = abi_call_through_thunk(aesgen_test_bad_clobber_rbx, NULL);
    check(c.clobbered == 1, "abi harness: notices rbx clobbered");
    c = abi_call_through_thunk(aesgen_test_bad_clobber_r15, NULL);
    check(c.clobbered == 32, "abi harness: notices r15 clobbered");
    c = abi_call_through_thunk(aesgen_test_bad_set_df, NULL);
    check(c.df_set == 1 && c.clobbered == 0, "abi harness: notices DF left set");
    c = abi_call_through_thunk(aesgen_test_bad_rsp, NULL);
    check(c.rsp_moved == 1, "abi harness: notices rsp not restored");
    if (xinuse_usable && cpu_has_avx()) {
        c = abi_call_through_thunk(aesgen_test_bad_dirty_ymm, NULL);
        check(c.xinuse & XINUSE_YMM_HI128, "abi harness: notices dirty ymm upper state");
    }
    if (xinuse_usable && cpu_has_avx512()) {
        c = abi_call_through_thunk(aesgen_test_bad_dirty_zmm, NULL);
        check(c.xinuse & XINUSE_ZMM_HI256, "abi harness: notices dirty zmm upper state");
    }
}

static const size_t abi_lengths[] = { 0, 1, 15, 16, 17, 64, 255, 256, 257, 500, 4096 + 3 };

struct direct_case {
    const char *isa;
    enum mode mode;
    size_t key_len;
    const uint8_t *key;
    const aesgen_aes_key *expanded;
    size_t len;
    uint64_t start[2];        /* ctr: the counter value {low, high}; xctr: {index, 0} */
    const uint8_t *iv;        /* xctr only */
    bool in_place;
};

static void describe(const struct direct_case *d, char *out, size_t cap)
{
    snprintf(out, cap, "%s %s aes-%u direct len=%zu %s=%#llx:%#llx%s", d->isa,
             mode_name(d->mode), key_bits(d->key_len), d->len,
             d->mode == MODE_CTR ? "ctr" : "index", (unsigned long long)d->start[1],
             (unsigned long long)d->start[0], d->in_place ? " in place" : "");
}

static void run_direct(const struct test_isa *isa, const struct direct_case *d,
                       const uint8_t *pt, uint8_t *want)
{
    char name[200];
    describe(d, name, sizeof name);
    struct guarded dst = guarded_alloc(d->len, d->len % 16);
    struct guarded src = guarded_alloc(d->len, (d->len + 3) % 16);
    memcpy(src.data, pt, d->len);
    uint8_t *dst_data = d->in_place ? src.data : dst.data;
    uint64_t ctr_arg[2] = { d->start[0], d->start[1] };
    uint8_t iv_arg[16] = { 0 };
    uint64_t args[6] = { (uintptr_t)d->expanded, (uintptr_t)dst_data, (uintptr_t)src.data, d->len };
    if (d->mode == MODE_CTR) {
        uint8_t block[16];
        ref_counter_block(d->start, block);
        ref_ctr(d->key, d->key_len, block, want, pt, d->len);
        args[4] = ctr_arg[0];
        args[5] = ctr_arg[1];
    } else {
        memcpy(iv_arg, d->iv, 16);
        ref_xctr(d->key, d->key_len, d->iv, d->start[0], want, pt, d->len);
        args[4] = (uintptr_t)iv_arg;
        args[5] = d->start[0];
    }
    void (*fn)(void) = d->mode == MODE_CTR ? (void (*)(void))isa->ctr_fn
                                           : (void (*)(void))isa->xctr_fn;
    struct abi_call c = abi_call_through_thunk(fn, args);
    const char *why = abi_violation(&c);
    check(why == NULL, "%s: ABI (%s)", name, why ? why : "");
    check_bytes(dst_data, want, d->len, "%s: output matches " REFERENCE_NAME, name);
    check(guarded_intact(&dst) && guarded_intact(&src)
          && (d->in_place || memcmp(src.data, pt, d->len) == 0)
          && ctr_arg[0] == d->start[0] && ctr_arg[1] == d->start[1]
          && (d->mode == MODE_CTR || memcmp(iv_arg, d->iv, 16) == 0),
          "%s: writes nothing but dst", name);
    if (d->mode == MODE_CTR && isa->ctr_iv_fn != NULL) {
        /* the same call from the counter block in memory (aesgen_ctr_crypt_iv's form);
         * the sixth argument is garbage: the function must not read it */
        uint8_t block_arg[16], block[16];
        ref_counter_block(d->start, block);
        memcpy(block_arg, block, sizeof block);
        memcpy(src.data, pt, d->len);
        if (!d->in_place)
            memset(dst.data, 0xa5, d->len);
        args[4] = (uintptr_t)block_arg;
        args[5] = 0x5a5a5a5a5a5a5a5aull;
        c = abi_call_through_thunk((void (*)(void))isa->ctr_iv_fn, args);
        why = abi_violation(&c);
        check(why == NULL, "%s (ctr_crypt_iv): ABI (%s)", name, why ? why : "");
        check_bytes(dst_data, want, d->len, "%s (ctr_crypt_iv): output matches " REFERENCE_NAME,
                    name);
        check(guarded_intact(&dst) && guarded_intact(&src)
              && (d->in_place || memcmp(src.data, pt, d->len) == 0)
              && memcmp(block_arg, block, sizeof block) == 0,
              "%s (ctr_crypt_iv): writes nothing but dst", name);
    }
    guarded_free(&dst);
    guarded_free(&src);
}

/* Counter starts: random, low 32 bits about to wrap, the last 64-bit value
 * the call may reach (the caller splits at 2^64), the all-ones high half. */
static void counter_starts(size_t len, uint64_t starts[4][2])
{
    uint64_t blocks = (len + 15) / 16;
    starts[0][0] = rng_next() >> 1;
    starts[0][1] = rng_next();
    starts[1][0] = (rng_next() << 32) | 0xfffffffdu;
    starts[1][1] = rng_next();
    starts[2][0] = blocks ? 0 - blocks : UINT64_MAX;    /* last block uses 2^64 - 1 */
    starts[2][1] = rng_next();
    starts[3][0] = 0xfffffffeu;
    starts[3][1] = UINT64_MAX;
}

/* XCTR indices: 1 (a stream's start), a 32-bit carry, the 64-bit end, random. */
static void index_starts(size_t len, uint64_t starts[4][2])
{
    uint64_t blocks = (len + 15) / 16;
    starts[0][0] = 1;
    starts[1][0] = 0xfffffffdu;
    starts[2][0] = blocks ? 0 - blocks : UINT64_MAX;
    starts[3][0] = (rng_next() >> 2) + 1;
    for (int i = 0; i < 4; i++)
        starts[i][1] = 0;
}

static void run_isa(const struct test_isa *isa, const uint8_t *pt, uint8_t *want)
{
    for (size_t k = 0; k < 3; k++) {
        uint8_t key[32], iv[16];
        aesgen_aes_key expanded;
        rng_fill(key, sizeof key);
        rng_fill(iv, sizeof iv);
        ref_expand_key(key, key_sizes[k], &expanded);
        for (int mode = 0; mode < MODE_COUNT; mode++) {
            if (mode == MODE_CTR ? isa->ctr_fn == NULL : isa->xctr_fn == NULL)
                continue;       /* no generated file of this mode (vperm_ssse3) */
            for (size_t l = 0; l < sizeof abi_lengths / sizeof abi_lengths[0]; l++) {
                struct direct_case d = { isa->name, (enum mode)mode, key_sizes[k], key,
                                         &expanded, abi_lengths[l], { 0, 0 }, iv, false };
                uint64_t starts[4][2];
                if (mode == MODE_CTR)
                    counter_starts(d.len, starts);
                else
                    index_starts(d.len, starts);
                for (int s = 0; s < 4; s++) {
                    d.start[0] = starts[s][0];
                    d.start[1] = starts[s][1];
                    d.in_place = s == 3;
                    run_direct(isa, &d, pt, want);
                }
            }
        }
    }
}

/* The public functions through the thunk too: the C glue around the
 * generated code must not leave dirty state behind either (it would if it
 * were compiled for AVX, say).  Every ISA, the portable one included. */
static void run_api_calls(const struct test_isa *isa, const uint8_t *pt)
{
    static const size_t lengths[] = { 0, 1, 16, 17, 500, 4096 + 3 };
    uint8_t key[32], iv[16];
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    if (!isa_select(isa))
        return;
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            struct stream s;
            struct guarded dst = guarded_alloc(lengths[l], 3);
            uint8_t head[5];
            stream_init(&s, (enum mode)mode, key, 32, iv);
            stream_crypt(&s, head, pt, sizeof head);     /* start mid-block */
            uint64_t args[6] = { (uintptr_t)&s.ctx, (uintptr_t)dst.data, (uintptr_t)pt, lengths[l] };
            void (*fn)(void) = mode == MODE_CTR ? (void (*)(void))aesgen_ctr_crypt
                                                : (void (*)(void))aesgen_xctr_crypt;
            struct abi_call c = abi_call_through_thunk(fn, args);
            const char *why = abi_violation(&c);
            check(why == NULL, "%s aesgen_%s_crypt len=%zu through the thunk: ABI (%s)", isa->name,
                  mode_name((enum mode)mode), lengths[l], why ? why : "");
            /* the one-shot (XCTR from index 1; CTR from iv, whose low half wraps within
             * the longer calls: the split's two calls) */
            uint8_t wrapping[16];
            memset(wrapping, 0xff, sizeof wrapping);
            wrapping[15] = 0xfd;
            uint64_t one_shot[6] = { (uintptr_t)&s.ctx,
                                     (uintptr_t)(mode == MODE_CTR ? wrapping : iv),
                                     (uintptr_t)dst.data, (uintptr_t)pt, lengths[l] };
            c = abi_call_through_thunk(mode == MODE_CTR ? (void (*)(void))aesgen_ctr_crypt_iv
                                                        : (void (*)(void))aesgen_xctr_crypt_iv,
                                       one_shot);
            why = abi_violation(&c);
            check(why == NULL, "%s aesgen_%s_crypt_iv len=%zu through the thunk: ABI (%s)",
                  isa->name, mode_name((enum mode)mode), lengths[l], why ? why : "");
            guarded_free(&dst);
        }
    }
}

/* Our own key schedule must be right, or every direct test would fail for
 * the wrong reason: FIPS-197 Appendix A.1, the last round key w[40..43]. */
void abi_key_schedule_self_test(void)
{
    static const uint8_t key[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                     0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
    static const uint8_t last[16] = { 0xd0, 0x14, 0xf9, 0xa8, 0xc9, 0xee, 0x25, 0x89,
                                      0xe1, 0x3f, 0x0c, 0xc8, 0xb6, 0x63, 0x0c, 0xa6 };
    aesgen_aes_key expanded;
    ref_expand_key(key, 16, &expanded);
    check(expanded.rounds == 10 && memcmp(expanded.rk[10], last, 16) == 0,
          "test key schedule: FIPS-197 A.1 last round key");
}

void test_abi(const struct test_config *config)
{
    (void)config;
    check_set_group("abi");
    abi_key_schedule_self_test();
    abi_harness_self_test();
    enum { BUF = 4096 + 64 };
    uint8_t *pt = xmalloc(BUF), *want = xmalloc(BUF);
    rng_fill(pt, BUF);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_ctr | TEST_MODE_xctr) {
        if (isa->is_asm)
            run_isa(isa, pt, want);
        run_api_calls(isa, pt);
    }
    /* after the variant entries, which call the variants' functions */
    FOR_EACH_RUNNABLE_ISA(isa)
        if (isa->is_asm) {
            abi_check_every_function_called(isa->name, "ctr");
            abi_check_every_function_called(isa->name, "xctr");
        }
    free(pt);
    free(want);
}

/* ---- XTS ---------------------------------------------------------------------- */

static const size_t xts_abi_lengths[] = { 16, 17, 31, 32, 33, 64, 255, 256, 257, 500, 4096 + 3 };

struct xts_direct_keys {
    uint8_t key[64];           /* K1 || K2 */
    size_t key_len;
    aesgen_aes_key k1_enc, k1_dec, k2_enc;
};

static void make_xts_keys(struct xts_direct_keys *k, size_t key_len)
{
    size_t half = key_len / 2;
    k->key_len = key_len;
    xts_random_key(k->key, key_len);
    ref_expand_key(k->key, half, &k->k1_enc);
    ref_expand_dec_key(&k->k1_enc, &k->k1_dec);
    ref_expand_key(k->key + half, half, &k->k2_enc);
}

static void run_xts_direct(const struct test_isa *isa, const struct xts_direct_keys *k,
                           enum xts_dir dir, size_t len, bool in_place, const uint8_t *pt,
                           uint8_t *want)
{
    char name[160];
    snprintf(name, sizeof name, "%s xts aes-%u %s direct len=%zu%s", isa->name,
             xts_aes_bits(k->key_len), xts_dir_name(dir), len, in_place ? " in place" : "");
    struct guarded dst = guarded_alloc(len, len % 16);
    struct guarded src = guarded_alloc(len, (len + 3) % 16);
    memcpy(src.data, pt, len);
    uint8_t *dst_data = in_place ? src.data : dst.data;
    uint8_t iv[16], iv_copy[16];
    rng_fill(iv, sizeof iv);
    memcpy(iv_copy, iv, 16);
    const aesgen_aes_key *key1 = dir == XTS_ENCRYPT ? &k->k1_enc : &k->k1_dec;
    aesgen_aes_key key1_copy = *key1, key2_copy = k->k2_enc;
    xts_reference(dir, k->key, k->key_len, iv, want, pt, len);

    uint64_t args[6] = { (uintptr_t)key1, (uintptr_t)&k->k2_enc, (uintptr_t)dst_data,
                         (uintptr_t)src.data, len, (uintptr_t)iv };
    aesgen_xts_fn *fn = dir == XTS_ENCRYPT ? isa->xts_encrypt_fn : isa->xts_decrypt_fn;
    struct abi_call c = abi_call_through_thunk((void (*)(void))fn, args);
    const char *why = abi_violation(&c);
    check(why == NULL, "%s: ABI (%s)", name, why ? why : "");
    check_bytes(dst_data, want, len, "%s: output matches the reference", name);
    check(guarded_intact(&dst) && guarded_intact(&src)
          && (in_place || memcmp(src.data, pt, len) == 0) && memcmp(iv, iv_copy, 16) == 0
          && memcmp(key1, &key1_copy, sizeof key1_copy) == 0
          && memcmp(&k->k2_enc, &key2_copy, sizeof key2_copy) == 0,
          "%s: writes nothing but dst (src, iv, keys, guard bytes intact)", name);
    guarded_free(&dst);
    guarded_free(&src);
}

static void run_xts_isa(const struct test_isa *isa, const uint8_t *pt, uint8_t *want)
{
    for (size_t k = 0; k < 3; k++) {
        struct xts_direct_keys keys;
        make_xts_keys(&keys, xts_key_sizes[k]);
        for (int d = 0; d < 2; d++)
            for (size_t l = 0; l < sizeof xts_abi_lengths / sizeof xts_abi_lengths[0]; l++)
                for (int in_place = 0; in_place < 2; in_place++)
                    run_xts_direct(isa, &keys, (enum xts_dir)d, xts_abi_lengths[l], in_place,
                                   pt, want);
    }
}

/* The public XTS functions through the thunk, every ISA, the portable one too. */
static void run_xts_api_calls(const struct test_isa *isa, const uint8_t *pt)
{
    static const size_t lengths[] = { 16, 17, 500, 4096 + 3 };
    uint8_t key[64], tweak[16];
    xts_random_key(key, sizeof key);
    rng_fill(tweak, sizeof tweak);
    if (!isa_select(isa))
        return;
    aesgen_xts_ctx ctx;
    aesgen_xts_init(&ctx, key, sizeof key);
    for (int d = 0; d < 2; d++) {
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            struct guarded dst = guarded_alloc(lengths[l], 3);
            uint64_t args[6] = { (uintptr_t)&ctx, (uintptr_t)dst.data, (uintptr_t)pt, lengths[l],
                                 (uintptr_t)tweak };
            void (*fn)(void) = d == XTS_ENCRYPT ? (void (*)(void))aesgen_xts_encrypt
                                                : (void (*)(void))aesgen_xts_decrypt;
            struct abi_call c = abi_call_through_thunk(fn, args);
            const char *why = abi_violation(&c);
            check(why == NULL, "%s aesgen_xts_%s len=%zu through the thunk: ABI (%s)", isa->name,
                  xts_dir_name((enum xts_dir)d), lengths[l], why ? why : "");
            guarded_free(&dst);
        }
        uint8_t *dst = xmalloc(2 * 520);
        uint64_t args[6] = { (uintptr_t)&ctx, (uintptr_t)dst, (uintptr_t)pt, 2 * 520, 520,
                             UINT64_MAX };
        void (*fn)(void) = d == XTS_ENCRYPT ? (void (*)(void))aesgen_xts_encrypt_sectors
                                            : (void (*)(void))aesgen_xts_decrypt_sectors;
        struct abi_call c = abi_call_through_thunk(fn, args);
        const char *why = abi_violation(&c);
        check(why == NULL, "%s aesgen_xts_%s_sectors through the thunk: ABI (%s)", isa->name,
              xts_dir_name((enum xts_dir)d), why ? why : "");
        free(dst);
    }
}

void test_xts_abi(const struct test_config *config)
{
    (void)config;
    check_set_group("xts-abi");
    abi_key_schedule_self_test();
    abi_harness_self_test();
    enum { BUF = 4096 + 64 };
    uint8_t *pt = xmalloc(BUF), *want = xmalloc(BUF);
    rng_fill(pt, BUF);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_xts) {
        if (isa_asm_callable(isa) && isa->xts_encrypt_fn && isa->xts_decrypt_fn)
            run_xts_isa(isa, pt, want);
        run_xts_api_calls(isa, pt);
    }
    FOR_EACH_RUNNABLE_ISA(isa)
        if (isa_asm_callable(isa) && isa->xts_encrypt_fn)
            abi_check_every_function_called(isa->name, "xts");
    free(pt);
    free(want);
}
