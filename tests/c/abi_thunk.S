/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * ABI checking thunk for the generated functions (GNU as, AT&T syntax).
 *
 *   void aesgen_test_abi_call(struct abi_call *call);   (layout in abi.h)
 *
 * Loads canary values into every callee-saved register (rbx, rbp, r12-r15),
 * clears DF, executes VZEROUPPER (when allowed) so the harness itself leaves
 * no dirty upper vector state, calls call->fn with call->args[0..5] in
 * rdi, rsi, rdx, rcx, r8, r9, and then, before running anything that could
 * touch vector registers (no libc!), records:
 *   - XINUSE (XGETBV with ECX=1) when allowed,
 *   - whether rsp came back unchanged, whether DF was left set,
 *   - which callee-saved registers lost their canary,
 *   - MXCSR and the x87 control word (both callee-saved control state).
 */
#include <cet.h>

#define CALL_FN          0
#define CALL_ARGS        8
#define CALL_FLAGS      56
#define CALL_CLOBBERED  64
#define CALL_RSP_MOVED  72
#define CALL_DF_SET     80
#define CALL_XINUSE     88
#define CALL_XINUSE_PRE 96
#define CALL_MXCSR_PRE 104
#define CALL_MXCSR_POST 108
#define CALL_FCW_PRE   112
#define CALL_FCW_POST  114

#define FLAG_VZEROUPPER 1
#define FLAG_XGETBV1    2

/* Distinct per register, so a swap of two registers is caught too. */
#define CANARY_RBX 0x1b1b1b1bdeadbee1
#define CANARY_RBP 0x2b2b2b2bdeadbee2
#define CANARY_R12 0x3c3c3c3cdeadbee3
#define CANARY_R13 0x4d4d4d4ddeadbee4
#define CANARY_R14 0x5e5e5e5edeadbee5
#define CANARY_R15 0x6f6f6f6fdeadbee6

	.bss
	.p2align 3
saved_rsp:                      /* single-threaded test: one slot is enough */
	.quad 0

	.text
	.globl aesgen_test_abi_call
	.type aesgen_test_abi_call, @function
	.p2align 4
aesgen_test_abi_call:
	_CET_ENDBR
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	pushq %rdi                  /* 7 pushes + return address: rsp is 16-byte aligned */
	movq %rsp, saved_rsp(%rip)

	stmxcsr CALL_MXCSR_PRE(%rdi)
	fnstcw CALL_FCW_PRE(%rdi)
	testq $FLAG_VZEROUPPER, CALL_FLAGS(%rdi)
	jz 1f
	vzeroupper
1:	xorl %eax, %eax
	xorl %edx, %edx
	testq $FLAG_XGETBV1, CALL_FLAGS(%rdi)
	jz 2f
	movl $1, %ecx
	xgetbv
2:	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, CALL_XINUSE_PRE(%rdi)

	movabsq $CANARY_RBX, %rbx
	movabsq $CANARY_RBP, %rbp
	movabsq $CANARY_R12, %r12
	movabsq $CANARY_R13, %r13
	movabsq $CANARY_R14, %r14
	movabsq $CANARY_R15, %r15
	movq CALL_FN(%rdi), %rax
	movq CALL_ARGS+8(%rdi), %rsi
	movq CALL_ARGS+16(%rdi), %rdx
	movq CALL_ARGS+24(%rdi), %rcx
	movq CALL_ARGS+32(%rdi), %r8
	movq CALL_ARGS+40(%rdi), %r9
	movq CALL_ARGS(%rdi), %rdi
	cld
	call *%rax

	/* Nothing here may touch vector state before the XGETBV below. */
	movq %rsp, %r11             /* rsp as the callee left it */
	movq saved_rsp(%rip), %rsp  /* and ours back, whatever it did */
	pushfq
	popq %r10
	cld
	movq (%rsp), %rdi
	xorl %eax, %eax
	xorl %edx, %edx
	testq $FLAG_XGETBV1, CALL_FLAGS(%rdi)
	jz 3f
	movl $1, %ecx
	xgetbv
3:	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, CALL_XINUSE(%rdi)

	xorl %eax, %eax
	cmpq saved_rsp(%rip), %r11
	setne %al
	movq %rax, CALL_RSP_MOVED(%rdi)
	shrq $10, %r10              /* EFLAGS.DF */
	andq $1, %r10
	movq %r10, CALL_DF_SET(%rdi)

	/* One bit per callee-saved register that lost its canary. */
	xorl %eax, %eax
	movabsq $CANARY_RBX, %rcx
	cmpq %rcx, %rbx
	je 4f
	orq $1, %rax
4:	movabsq $CANARY_RBP, %rcx
	cmpq %rcx, %rbp
	je 5f
	orq $2, %rax
5:	movabsq $CANARY_R12, %rcx
	cmpq %rcx, %r12
	je 6f
	orq $4, %rax
6:	movabsq $CANARY_R13, %rcx
	cmpq %rcx, %r13
	je 7f
	orq $8, %rax
7:	movabsq $CANARY_R14, %rcx
	cmpq %rcx, %r14
	je 8f
	orq $16, %rax
8:	movabsq $CANARY_R15, %rcx
	cmpq %rcx, %r15
	je 9f
	orq $32, %rax
9:	movq %rax, CALL_CLOBBERED(%rdi)
	stmxcsr CALL_MXCSR_POST(%rdi)
	fnstcw CALL_FCW_POST(%rdi)

	popq %rdi
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbp
	popq %rbx
	ret
	.size aesgen_test_abi_call, .-aesgen_test_abi_call

/*
 * Misbehaving functions: the harness must notice each of them, or a clean
 * result from the real functions would mean nothing.
 */
	.globl aesgen_test_bad_clobber_rbx
	.type aesgen_test_bad_clobber_rbx, @function
aesgen_test_bad_clobber_rbx:
	_CET_ENDBR
	xorl %ebx, %ebx
	ret
	.size aesgen_test_bad_clobber_rbx, .-aesgen_test_bad_clobber_rbx

	.globl aesgen_test_bad_clobber_r15
	.type aesgen_test_bad_clobber_r15, @function
aesgen_test_bad_clobber_r15:
	_CET_ENDBR
	incq %r15
	ret
	.size aesgen_test_bad_clobber_r15, .-aesgen_test_bad_clobber_r15

	.globl aesgen_test_bad_set_df
	.type aesgen_test_bad_set_df, @function
aesgen_test_bad_set_df:
	_CET_ENDBR
	std
	ret
	.size aesgen_test_bad_set_df, .-aesgen_test_bad_set_df

	.globl aesgen_test_bad_rsp
	.type aesgen_test_bad_rsp, @function
aesgen_test_bad_rsp:
	_CET_ENDBR
	ret $8                      /* returns with rsp 8 bytes too high */
	.size aesgen_test_bad_rsp, .-aesgen_test_bad_rsp

	.globl aesgen_test_bad_dirty_ymm
	.type aesgen_test_bad_dirty_ymm, @function
aesgen_test_bad_dirty_ymm:      /* needs AVX */
	_CET_ENDBR
	vcmptrueps %ymm0, %ymm0, %ymm0   /* all ones, upper half included */
	ret
	.size aesgen_test_bad_dirty_ymm, .-aesgen_test_bad_dirty_ymm

	.globl aesgen_test_bad_dirty_zmm
	.type aesgen_test_bad_dirty_zmm, @function
aesgen_test_bad_dirty_zmm:      /* needs AVX512F */
	_CET_ENDBR
	vpternlogd $0xff, %zmm1, %zmm1, %zmm1   /* all ones in bits 256..511 of zmm1 */
	ret
	.size aesgen_test_bad_dirty_zmm, .-aesgen_test_bad_dirty_zmm

	.globl aesgen_test_good_noop
	.type aesgen_test_good_noop, @function
aesgen_test_good_noop:
	_CET_ENDBR
	ret
	.size aesgen_test_good_noop, .-aesgen_test_good_noop

	.section .note.GNU-stack, "", @progbits
