/* Minimal stand-in for BoringSSL's <openssl/asm_base.h>, only for assembling
 * gen/bcm/aes-gcm-avx10-x86_64-linux.S outside of BoringSSL (benchmark use). */
#ifndef BSSL_BENCH_ASM_BASE_H
#define BSSL_BENCH_ASM_BASE_H
#define OPENSSL_X86_64 1
/* BoringSSL defines _CET_ENDBR as endbr64 only when building with CET (-fcf-protection);
 * this benchmark is not built with CET, so (as in BoringSSL) it expands to nothing. */
#define _CET_ENDBR
#if defined(__ELF__)
.section .note.GNU-stack,"",%progbits
#endif
#endif
