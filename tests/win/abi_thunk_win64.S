/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The Win64 twin of tests/c/abi_thunk.S (GNU as for x86_64-w64-mingw32, AT&T syntax).
 *
 *   void aesgen_test_abi_call(struct abi_call *call);   (layout in tests/c/abi.h)
 *
 * Loads canaries into every register the Microsoft x64 ABI makes callee-saved (rbx,
 * rbp, rdi, rsi, r12-r15, xmm6-xmm15), clears DF, runs VZEROUPPER (when allowed),
 * fills the 64 bytes above the callee's parameter area (32 bytes of shadow space, then
 * the stack arguments 5 and 6) with a pattern, and calls call->fn with call->args[0..3]
 * in rcx, rdx, r8, r9 and args[4..5] on the stack.  With call->single_step set, the
 * trap flag is set just before the call, so every instruction of the callee raises a
 * single-step exception (tests/win/test_unwind.c's handler unwinds from each one and
 * clears the flag once rip is back at aesgen_test_win64_return).  Afterwards, before
 * anything that could touch vector registers, it records XINUSE, whether rsp came
 * back, DF, which callee-saved register lost its canary (bits: rbx rbp r12 r13 r14
 * r15 rdi rsi xmm6..xmm15), whether the pattern above the parameter area changed
 * (the callee owns its shadow space and stack arguments, nothing above them), MXCSR
 * and the x87 control word.
 */

#define CALL_FN           0
#define CALL_ARGS         8
#define CALL_FLAGS       56
#define CALL_CLOBBERED   64
#define CALL_RSP_MOVED   72
#define CALL_DF_SET      80
#define CALL_XINUSE      88
#define CALL_XINUSE_PRE  96
#define CALL_MXCSR_PRE  104
#define CALL_MXCSR_POST 108
#define CALL_FCW_PRE    112
#define CALL_FCW_POST   114
#define CALL_STACK_CLOBBERED 120
#define CALL_SINGLE_STEP 128

#define FLAG_VZEROUPPER 1
#define FLAG_XGETBV1    2

/* The thunk's frame below its 8 pushes: the callee's parameter area and the guard
 * above it, then the thunk's own xmm6-15, then padding to 16-byte alignment. */
#define PARAMS        48              /* shadow space (32) + arguments 5 and 6 */
#define GUARD         64
#define XMM_SAVE     (PARAMS + GUARD)  /* 112, 16-byte aligned */
#define FRAME        (XMM_SAVE + 160 + 8)

	.section .rdata,"dr"
	.p2align 4
	.globl aesgen_test_win64_canaries
/* rbx rbp r12 r13 r14 r15 rdi rsi (8 bytes each), then xmm6..xmm15 (16 bytes each):
 * distinct per register, so a swap of two is caught too.  test_unwind.c reads them. */
aesgen_test_win64_canaries:
	.quad 0x1b1b1b1bdeadbee1, 0x2b2b2b2bdeadbee2, 0x3c3c3c3cdeadbee3, 0x4d4d4d4ddeadbee4
	.quad 0x5e5e5e5edeadbee5, 0x6f6f6f6fdeadbee6, 0x7a7a7a7adeadbee7, 0x8b8b8b8bdeadbee8
	.quad 0x0606060612345606, 0x6060606087654306, 0x0707070712345707, 0x7070707087654307
	.quad 0x0808080812345808, 0x8080808087654308, 0x0909090912345909, 0x9090909087654309
	.quad 0x0a0a0a0a12345a0a, 0xa0a0a0a087654a0a, 0x0b0b0b0b12345b0b, 0xb0b0b0b087654b0b
	.quad 0x0c0c0c0c12345c0c, 0xc0c0c0c087654c0c, 0x0d0d0d0d12345d0d, 0xd0d0d0d087654d0d
	.quad 0x0e0e0e0e12345e0e, 0xe0e0e0e087654e0e, 0x0f0f0f0f12345f0f, 0xf0f0f0f087654f0f
#define CANARY(i) aesgen_test_win64_canaries+8*(i)(%rip)
#define XCANARY(i) aesgen_test_win64_canaries+64+16*((i)-6)(%rip)
guard_pattern:
	.quad 0x5a5aa5a5c3c33c3c

	.bss
	.p2align 3
saved_rsp:                      /* single-threaded test: one slot is enough */
	.quad 0
current_call:
	.quad 0
	.globl aesgen_test_win64_call_rsp
aesgen_test_win64_call_rsp:     /* rsp right before the call: the caller's after return */
	.quad 0

	.text
	.globl aesgen_test_abi_call
	.p2align 4
aesgen_test_abi_call:
	pushq %rbx
	pushq %rbp
	pushq %rdi
	pushq %rsi
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	subq $FRAME, %rsp
	movdqa %xmm6, XMM_SAVE(%rsp)
	movdqa %xmm7, XMM_SAVE+16(%rsp)
	movdqa %xmm8, XMM_SAVE+32(%rsp)
	movdqa %xmm9, XMM_SAVE+48(%rsp)
	movdqa %xmm10, XMM_SAVE+64(%rsp)
	movdqa %xmm11, XMM_SAVE+80(%rsp)
	movdqa %xmm12, XMM_SAVE+96(%rsp)
	movdqa %xmm13, XMM_SAVE+112(%rsp)
	movdqa %xmm14, XMM_SAVE+128(%rsp)
	movdqa %xmm15, XMM_SAVE+144(%rsp)
	movq %rsp, saved_rsp(%rip)
	movq %rcx, current_call(%rip)
	movq %rcx, %r10

	stmxcsr CALL_MXCSR_PRE(%r10)
	fnstcw CALL_FCW_PRE(%r10)
	movq guard_pattern(%rip), %rax
	movl $PARAMS, %ecx
1:	movq %rax, (%rsp,%rcx)
	addl $8, %ecx
	cmpl $PARAMS+GUARD, %ecx
	jb 1b

	movdqa XCANARY(6), %xmm6
	movdqa XCANARY(7), %xmm7
	movdqa XCANARY(8), %xmm8
	movdqa XCANARY(9), %xmm9
	movdqa XCANARY(10), %xmm10
	movdqa XCANARY(11), %xmm11
	movdqa XCANARY(12), %xmm12
	movdqa XCANARY(13), %xmm13
	movdqa XCANARY(14), %xmm14
	movdqa XCANARY(15), %xmm15
	testq $FLAG_VZEROUPPER, CALL_FLAGS(%r10)
	jz 2f
	vzeroupper
2:	xorl %eax, %eax
	xorl %edx, %edx
	testq $FLAG_XGETBV1, CALL_FLAGS(%r10)
	jz 3f
	movl $1, %ecx
	xgetbv
3:	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, CALL_XINUSE_PRE(%r10)

	movq CANARY(0), %rbx
	movq CANARY(1), %rbp
	movq CANARY(2), %r12
	movq CANARY(3), %r13
	movq CANARY(4), %r14
	movq CANARY(5), %r15
	movq CANARY(6), %rdi
	movq CANARY(7), %rsi
	movq CALL_ARGS+32(%r10), %rax
	movq %rax, 32(%rsp)
	movq CALL_ARGS+40(%r10), %rax
	movq %rax, 40(%rsp)
	movq CALL_ARGS(%r10), %rcx
	movq CALL_ARGS+8(%r10), %rdx
	movq CALL_ARGS+16(%r10), %r8
	movq CALL_ARGS+24(%r10), %r9
	movq %rsp, aesgen_test_win64_call_rsp(%rip)
	movq CALL_SINGLE_STEP(%r10), %r11
	movq CALL_FN(%r10), %rax
	cld
	testq %r11, %r11
	jz 4f
	pushfq
	orq $0x100, (%rsp)          /* TF: a single-step trap after the next instruction */
	popfq
4:	call *%rax
	.globl aesgen_test_win64_return
aesgen_test_win64_return:

	/* Nothing here may touch vector state before the XGETBV below. */
	movq %rsp, %r11             /* rsp as the callee left it */
	movq saved_rsp(%rip), %rsp  /* and ours back, whatever it did */
	pushfq
	popq %r10
	cld
	movq %r10, %rax
	shrq $10, %rax              /* EFLAGS.DF */
	andq $1, %rax
	movq current_call(%rip), %r10
	movq %rax, CALL_DF_SET(%r10)
	xorl %eax, %eax
	cmpq saved_rsp(%rip), %r11
	setne %al
	movq %rax, CALL_RSP_MOVED(%r10)
	xorl %eax, %eax
	xorl %edx, %edx
	testq $FLAG_XGETBV1, CALL_FLAGS(%r10)
	jz 5f
	movl $1, %ecx
	xgetbv
5:	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, CALL_XINUSE(%r10)

	/* One bit per callee-saved register that lost its canary. */
	xorl %eax, %eax
#define CHECK_GPR(reg, i) \
	cmpq CANARY(i), reg; \
	je 10f; \
	orq $(1 << (i)), %rax; \
10:
	CHECK_GPR(%rbx, 0)
	CHECK_GPR(%rbp, 1)
	CHECK_GPR(%r12, 2)
	CHECK_GPR(%r13, 3)
	CHECK_GPR(%r14, 4)
	CHECK_GPR(%r15, 5)
	CHECK_GPR(%rdi, 6)
	CHECK_GPR(%rsi, 7)
#define CHECK_XMM(i) \
	pcmpeqb XCANARY(i), %xmm##i; \
	pmovmskb %xmm##i, %ecx; \
	cmpl $0xffff, %ecx; \
	je 11f; \
	orq $(1 << ((i) + 2)), %rax; \
11:
	CHECK_XMM(6)
	CHECK_XMM(7)
	CHECK_XMM(8)
	CHECK_XMM(9)
	CHECK_XMM(10)
	CHECK_XMM(11)
	CHECK_XMM(12)
	CHECK_XMM(13)
	CHECK_XMM(14)
	CHECK_XMM(15)
	movq %rax, CALL_CLOBBERED(%r10)

	xorl %eax, %eax
	movq guard_pattern(%rip), %rdx
	movl $PARAMS, %ecx
6:	cmpq %rdx, (%rsp,%rcx)
	je 7f
	movl $1, %eax
7:	addl $8, %ecx
	cmpl $PARAMS+GUARD, %ecx
	jb 6b
	movq %rax, CALL_STACK_CLOBBERED(%r10)
	stmxcsr CALL_MXCSR_POST(%r10)
	fnstcw CALL_FCW_POST(%r10)

	movdqa XMM_SAVE(%rsp), %xmm6
	movdqa XMM_SAVE+16(%rsp), %xmm7
	movdqa XMM_SAVE+32(%rsp), %xmm8
	movdqa XMM_SAVE+48(%rsp), %xmm9
	movdqa XMM_SAVE+64(%rsp), %xmm10
	movdqa XMM_SAVE+80(%rsp), %xmm11
	movdqa XMM_SAVE+96(%rsp), %xmm12
	movdqa XMM_SAVE+112(%rsp), %xmm13
	movdqa XMM_SAVE+128(%rsp), %xmm14
	movdqa XMM_SAVE+144(%rsp), %xmm15
	addq $FRAME, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rsi
	popq %rdi
	popq %rbp
	popq %rbx
	ret

/*
 * Misbehaving functions: the harness must notice each of them.  The SysV set (same
 * names as tests/c/abi_thunk.S) and the Win64 additions.
 */
#define BAD(name) .globl name; name:
BAD(aesgen_test_bad_clobber_rbx)
	xorl %ebx, %ebx
	ret
BAD(aesgen_test_bad_clobber_r15)
	incq %r15
	ret
BAD(aesgen_test_bad_clobber_rsi)
	incq %rsi
	ret
BAD(aesgen_test_bad_clobber_xmm6)
	pxor %xmm6, %xmm6
	ret
BAD(aesgen_test_bad_clobber_xmm15)
	vpcmpeqb %xmm15, %xmm15, %xmm15
	ret
BAD(aesgen_test_bad_set_df)
	std
	ret
BAD(aesgen_test_bad_rsp)
	ret $8                      /* returns with rsp 8 bytes too high */
BAD(aesgen_test_bad_beyond_parameters)
	movq %rcx, 56(%rsp)         /* the first qword above argument 6 */
	ret
BAD(aesgen_test_bad_dirty_ymm)
	vcmptrueps %ymm0, %ymm0, %ymm0
	ret
BAD(aesgen_test_bad_dirty_zmm)
	vpternlogd $0xff, %zmm1, %zmm1, %zmm1
	ret
BAD(aesgen_test_good_noop)
	ret
BAD(aesgen_test_good_shadow_writer) /* its own shadow space and stack arguments: allowed */
	movq %rcx, 8(%rsp)
	movq %rdx, 16(%rsp)
	movq %r8, 24(%rsp)
	movq %r9, 32(%rsp)
	movq %rcx, 40(%rsp)
	movq %rcx, 48(%rsp)
	ret

/*
 * Unwind data the unwind test must find wrong: the function pushes rbx, changes it,
 * and restores it, but its unwind codes say it pushed rbp.  And one that is right.
 */
	.globl aesgen_test_bad_unwind
	.seh_proc aesgen_test_bad_unwind
aesgen_test_bad_unwind:
	pushq %rbx
	.seh_pushreg %rbp
	.seh_endprologue
	xorl %ebx, %ebx
	popq %rbx
	ret
	.seh_endproc

	.globl aesgen_test_good_unwind
	.seh_proc aesgen_test_good_unwind
aesgen_test_good_unwind:
	pushq %rbx
	.seh_pushreg %rbx
	subq $48, %rsp
	.seh_stackalloc 48
	movdqa %xmm6, 16(%rsp)
	.seh_savexmm %xmm6, 16
	.seh_endprologue
	xorl %ebx, %ebx
	pxor %xmm6, %xmm6
	movdqa 16(%rsp), %xmm6
	addq $48, %rsp
	popq %rbx
	ret
	.seh_endproc
