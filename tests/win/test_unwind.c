/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Windows x64 unwind test (group unwind): every generated function, called through the
 * Win64 thunk (abi_thunk_win64.S) by the ABI groups' own calls (test_abi.c,
 * test_gcm_abi.c: every function, lengths through the main loops and every tail), is
 * single-stepped with the trap flag.  A vectored exception handler takes each
 * single-step trap and, from that instruction, asks the system's unwinder
 * (RtlLookupFunctionEntry, RtlVirtualUnwind: the generated .pdata/.xdata) for the
 * caller's frame: it must be the thunk's, with the return address, rsp as before the
 * call and every callee-saved register (rbx, rbp, rdi, rsi, r12-r15, xmm6-xmm15) holding
 * the thunk's canary, whatever the function has done to them by then.  The prologue,
 * the body and each epilogue a call takes are covered, since every instruction is.
 * Each distinct call shape (call_shape: the key size and the lengths) is stepped once,
 * so repeats with other counter values run at full speed, until the function has been
 * stepped through STEP_BUDGET instructions (which bounds the time: about 35 us a step
 * under wine).  A note per function says how many distinct instruction addresses were
 * stepped (on Zen 4: about 76% of all instructions of all functions, at least 57% of
 * each; what stays unstepped is code of the same fixed frame: longer tails, AES-256
 * rounds, counter-carry paths only other counter values take).
 *
 * Self-test first: a function with right unwind codes passes, one whose codes name the
 * wrong pushed register fails.
 */
#include <windows.h>

#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "check.h"
#include "isa.h"
#include "tests.h"
#include "win_tests.h"

extern const uint8_t aesgen_test_win64_canaries[];   /* 8 GPRs, then xmm6..15 */
extern uint64_t aesgen_test_win64_call_rsp;
extern const char aesgen_test_win64_return[];
void aesgen_test_good_unwind(void);
void aesgen_test_bad_unwind(void);

enum { STEP_BUDGET = 15000, MAX_FUNCTIONS = 128, MAX_FUNCTION_BYTES = 1 << 16,
       MAX_SHAPES = 1024 };

struct stepped {
    void (*fn)(void);
    unsigned long steps, failures, calls;
    unsigned long distinct;                 /* instruction addresses stepped */
    uint64_t shapes[MAX_SHAPES];            /* call shapes stepped (call_shape) */
    size_t shape_count;
    uint8_t seen[MAX_FUNCTION_BYTES / 8];
    char first_failure[240];
};

static struct stepped functions[MAX_FUNCTIONS];
static size_t function_count;
static struct stepped *current;     /* the function being stepped, or NULL */

static struct stepped *stepped_of(void (*fn)(void))
{
    for (size_t i = 0; i < function_count; i++)
        if (functions[i].fn == fn)
            return &functions[i];
    if (function_count == MAX_FUNCTIONS)
        return NULL;
    memset(&functions[function_count], 0, sizeof functions[function_count]);
    functions[function_count].fn = fn;
    return &functions[function_count++];
}

/* Why unwinding from c is wrong, or NULL. */
static const char *unwind_problem(const CONTEXT *c, char *why, size_t cap)
{
    static const char *const names[8] = { "rbx", "rbp", "r12", "r13", "r14", "r15",
                                          "rdi", "rsi" };
    DWORD64 image_base = 0;
    PRUNTIME_FUNCTION entry = RtlLookupFunctionEntry(c->Rip, &image_base, NULL);
    if (!entry)
        return "no RUNTIME_FUNCTION (.pdata) covers rip";
    if (image_base + entry->BeginAddress != (DWORD64)(uintptr_t)current->fn) {
        snprintf(why, cap, "the RUNTIME_FUNCTION found starts at %#llx, not at the function",
                 (unsigned long long)(image_base + entry->BeginAddress));
        return why;
    }
    CONTEXT u = *c;
    PVOID handler_data = NULL;
    DWORD64 establisher = 0;
    RtlVirtualUnwind(UNW_FLAG_NHANDLER, image_base, c->Rip, entry, &u, &handler_data,
                     &establisher, NULL);
    if (u.Rip != (DWORD64)(uintptr_t)aesgen_test_win64_return)
        return "the unwound rip is not the caller's return address";
    if (u.Rsp != aesgen_test_win64_call_rsp) {
        snprintf(why, cap, "the unwound rsp is off by %lld bytes",
                 (long long)(u.Rsp - aesgen_test_win64_call_rsp));
        return why;
    }
    const DWORD64 gprs[8] = { u.Rbx, u.Rbp, u.R12, u.R13, u.R14, u.R15, u.Rdi, u.Rsi };
    for (int i = 0; i < 8; i++) {
        uint64_t canary;
        memcpy(&canary, aesgen_test_win64_canaries + 8 * i, 8);
        if (gprs[i] != canary) {
            snprintf(why, cap, "the unwound %s is not the caller's", names[i]);
            return why;
        }
    }
    const M128A *xmm = &u.Xmm6;
    for (int i = 0; i < 10; i++) {
        if (memcmp(&xmm[i], aesgen_test_win64_canaries + 64 + 16 * i, 16) != 0) {
            snprintf(why, cap, "the unwound xmm%d is not the caller's", 6 + i);
            return why;
        }
    }
    return NULL;
}

static LONG CALLBACK on_single_step(EXCEPTION_POINTERS *e)
{
    if (e->ExceptionRecord->ExceptionCode != EXCEPTION_SINGLE_STEP || !current)
        return EXCEPTION_CONTINUE_SEARCH;
    CONTEXT *c = e->ContextRecord;
    if (c->Rip == (DWORD64)(uintptr_t)aesgen_test_win64_return) {
        c->EFlags &= ~0x100u;                 /* back in the thunk: stop stepping */
        return EXCEPTION_CONTINUE_EXECUTION;
    }
    current->steps++;
    char why[200];
    const char *problem = unwind_problem(c, why, sizeof why);
    if (problem && current->failures++ == 0)
        snprintf(current->first_failure, sizeof current->first_failure, "at +%#llx: %s",
                 (unsigned long long)(c->Rip - (DWORD64)(uintptr_t)current->fn), problem);
    uint64_t offset = c->Rip - (DWORD64)(uintptr_t)current->fn;
    if (offset < MAX_FUNCTION_BYTES && !(current->seen[offset / 8] & 1u << offset % 8)) {
        current->seen[offset / 8] |= (uint8_t)(1u << offset % 8);
        current->distinct++;
    }
    c->EFlags |= 0x100u;
    return EXCEPTION_CONTINUE_EXECUTION;
}

/* The generated functions (gen/aesgen_gen.h): those are stepped and must unwind. */
struct listed {
    const char *isa, *symbol;
    void (*fn)(void);
};
#define LISTED(isa, mode, symbol) { #isa, #symbol, (void (*)(void))symbol },
static const struct listed listed[] = { AESGEN_GEN_FUNCTIONS(LISTED) };
enum { LISTED_COUNT = sizeof listed / sizeof listed[0] };

static bool is_generated(void (*fn)(void))
{
    for (size_t i = 0; i < LISTED_COUNT; i++)
        if (listed[i].fn == fn)
            return true;
    return false;
}

/* A call's shape: its key's round count (every generated function's first argument
 * is a key that starts with an aesgen_aes_key) and its small integer arguments
 * (lengths; pointers and random counters are large).  Of the ABI
 * groups' calls, only the first of each shape is stepped, so the budget goes to
 * other lengths and key sizes rather than to repeats (other counter values). */
static uint64_t call_shape(const struct abi_call *call)
{
    uint32_t rounds;
    memcpy(&rounds, (const uint8_t *)(uintptr_t)call->args[0] + AESGEN_LAYOUT_AES_KEY_ROUNDS,
           sizeof rounds);
    uint64_t h = rounds;
    for (int i = 1; i < 6; i++)
        h = h * 1000003u ^ (call->args[i] < (1u << 20) ? call->args[i] : 0x5eed);
    return h;
}

static bool new_shape(struct stepped *s, const struct abi_call *call)
{
    uint64_t shape = call_shape(call);
    for (size_t i = 0; i < s->shape_count; i++)
        if (s->shapes[i] == shape)
            return false;
    if (s->shape_count < MAX_SHAPES)
        s->shapes[s->shape_count++] = shape;
    return true;
}

static void step_hook(struct abi_call *call, int after)
{
    if (after) {
        current = NULL;
        return;
    }
    struct stepped *s = is_generated(call->fn) ? stepped_of(call->fn) : NULL;
    if (s && s->steps < STEP_BUDGET && new_shape(s, call)) {
        s->calls++;
        current = s;
        call->single_step = 1;
    }
}

static struct stepped step_one(void (*fn)(void))
{
    struct stepped *s = stepped_of(fn);
    struct abi_call call;
    memset(&call, 0, sizeof call);
    call.fn = fn;
    call.single_step = 1;
    current = s;
    aesgen_test_abi_call(&call);
    current = NULL;
    return *s;
}

static bool isa_of_function_runs(const char *isa)
{
    FOR_EACH_RUNNABLE_ISA(t)
        if (strcmp(t->name, isa) == 0)
            return true;
    return false;
}

void test_unwind(const struct test_config *config)
{
    check_set_group("unwind");
    PVOID handler = AddVectoredExceptionHandler(1, on_single_step);
    if (!check(handler != NULL, "unwind: AddVectoredExceptionHandler"))
        return;
    struct stepped good = step_one(aesgen_test_good_unwind);
    check(good.steps >= 5 && good.failures == 0, "unwind harness: a function with right "
          "unwind codes unwinds from each of its %lu instructions (%s)", good.steps,
          good.first_failure);
    struct stepped bad = step_one(aesgen_test_bad_unwind);
    check(bad.failures > 0, "unwind harness: notices unwind codes that name the wrong pushed "
          "register (%lu of %lu steps wrong)", bad.failures, bad.steps);
    function_count = 0;

    abi_call_hook = step_hook;
    test_abi(config);
    test_xts_abi(config);
    test_gcm_abi(config);
    abi_call_hook = NULL;
    check_set_group("unwind");
    RemoveVectoredExceptionHandler(handler);

    for (size_t i = 0; i < LISTED_COUNT; i++) {
        if (!isa_of_function_runs(listed[i].isa))
            continue;
        struct stepped *s = stepped_of(listed[i].fn);
        DWORD64 image_base = 0;
        PRUNTIME_FUNCTION entry = RtlLookupFunctionEntry((DWORD64)(uintptr_t)listed[i].fn,
                                                         &image_base, NULL);
        if (s && entry)
            check_note("%s: %lu steps in %lu calls reached %lu instruction addresses of its "
                       "%lu bytes", listed[i].symbol, s->steps, s->calls, s->distinct,
                       (unsigned long)(entry->EndAddress - entry->BeginAddress));
        check(s && s->steps > 0 && s->failures == 0, "%s unwind: from each of %lu "
              "instructions (%lu calls) the caller's rip, rsp, rbx, rbp, rdi, rsi, r12-r15 "
              "and xmm6-15 are recovered (%lu wrong, first %s)", listed[i].symbol,
              s ? s->steps : 0, s ? s->calls : 0, s ? s->failures : 0,
              s && s->failures ? s->first_failure : "none");
    }
}
