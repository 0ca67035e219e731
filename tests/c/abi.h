/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* The C side of tests/c/abi_thunk.S; offsets must match its CALL_* defines. */
#ifndef AESGEN_TEST_ABI_H
#define AESGEN_TEST_ABI_H

#include <stddef.h>
#include <stdint.h>

enum {
    ABI_FLAG_VZEROUPPER = 1,   /* the thunk may execute VZEROUPPER (needs AVX) */
    ABI_FLAG_XGETBV1 = 2,      /* the thunk may read XINUSE (XGETBV, ECX=1) */
};

/* XINUSE bits that must be clear after a function returns: leaving them set
 * makes later SSE code pay for state transitions (or false dependencies). */
enum {
    XINUSE_YMM_HI128 = 1u << 2,   /* AVX: upper halves of ymm0-15 */
    XINUSE_ZMM_HI256 = 1u << 6,   /* AVX-512: upper halves of zmm0-15 */
};

struct abi_call {
    void (*fn)(void);          /*   0 */
    uint64_t args[6];          /*   8: rdi, rsi, rdx, rcx, r8, r9 */
    uint64_t flags;            /*  56: ABI_FLAG_* */
    uint64_t clobbered;        /*  64: bit i: callee-saved reg i (rbx rbp r12 r13 r14 r15, on
                                *      Win64 also rdi rsi xmm6..xmm15: ABI_CALLEE_SAVED_NAMES) changed */
    uint64_t rsp_moved;        /*  72: rsp differed after the call */
    uint64_t df_set;           /*  80: the direction flag was set on return */
    uint64_t xinuse;           /*  88: XINUSE right after the call */
    uint64_t xinuse_pre;       /*  96: XINUSE right before it (after VZEROUPPER) */
    uint32_t mxcsr_pre;        /* 104 */
    uint32_t mxcsr_post;       /* 108 */
    uint16_t fcw_pre;          /* 112 */
    uint16_t fcw_post;         /* 114 */
    uint64_t stack_clobbered;  /* 120: Win64: the caller's stack above the shadow space and
                                *      stack arguments changed */
    uint64_t single_step;      /* 128: Win64: trap on every instruction (tests/win/test_unwind.c) */
};

/* The names of struct abi_call's clobbered bits. */
#define ABI_CALLEE_SAVED_NAMES { "rbx", "rbp", "r12", "r13", "r14", "r15", "rdi", "rsi", \
    "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15" }

_Static_assert(offsetof(struct abi_call, flags) == 56, "abi_thunk.S CALL_FLAGS");
_Static_assert(offsetof(struct abi_call, xinuse_pre) == 96, "abi_thunk.S CALL_XINUSE_PRE");
_Static_assert(offsetof(struct abi_call, fcw_post) == 114, "abi_thunk.S CALL_FCW_POST");
_Static_assert(offsetof(struct abi_call, single_step) == 128, "abi_thunk_win64.S CALL_SINGLE_STEP");

void aesgen_test_abi_call(struct abi_call *call);

/* Called around every call abi_call_through_thunk makes (after false: before it), if
 * set: the Windows unwind test (tests/win/test_unwind.c) single-steps calls with it. */
extern void (*abi_call_hook)(struct abi_call *call, int after);

/* test_abi.c, shared by the ABI groups (abi, xts-abi, gcm-abi). */
/* Calls fn(args[0..5]) through the thunk with the flags this CPU allows. */
struct abi_call abi_call_through_thunk(void (*fn)(void), const uint64_t args[6]);
/* What the call broke, or NULL. */
const char *abi_violation(const struct abi_call *c);
/* One counted check per generated function of gen/manifest.json for this ISA and mode:
 * it has been called through the thunk (abi_call_through_thunk) in this process. */
void abi_check_every_function_called(const char *isa, const char *mode);
/* Proves the thunk sees each kind of violation (once per process). */
void abi_harness_self_test(void);
/* The tests' own key schedule against FIPS-197 A.1. */
void abi_key_schedule_self_test(void);

/* Functions that break one rule each, to show that the harness notices. */
void aesgen_test_bad_clobber_rbx(void);
void aesgen_test_bad_clobber_r15(void);
void aesgen_test_bad_set_df(void);
void aesgen_test_bad_rsp(void);
void aesgen_test_bad_dirty_ymm(void);
void aesgen_test_bad_dirty_zmm(void);
void aesgen_test_good_noop(void);

#endif
