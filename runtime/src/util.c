/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* Small helpers: the version, error strings, wiping, constant-time comparison. */
#include <string.h>
#include "ct.h"
#include "internal.h"

AESGEN_NOINLINE void aesgen_drop_keystream(uint8_t ks[16])
{
    aesgen_wipe(ks, 16);
}

size_t aesgen_use_keystream(uint8_t ks[16], uint32_t *pos, uint8_t *dst, const uint8_t *src,
                            size_t len)
{
    size_t n = 16 - *pos;
    if (n > len)
        n = len;
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i] ^ ks[*pos + i];
    *pos = (uint32_t)((*pos + n) % 16);
    if (*pos == 0)                /* block used up: nothing of it stays in the context */
        aesgen_drop_keystream(ks);
    return n;
}

int aesgen_ct_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
#ifdef AESGEN_CT_PLANT_EARLY_EXIT
    /* Test-only (tests/ct/ct.mk): the timing leak the constant-time check must catch. */
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
#endif
    /* Eight bytes at a time (a 16-byte tag is two words, not a 16-step chain of ORs:
     * this is on every decryption's path), then the bytes left. */
    uint64_t diff = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    for (; i < n; i++)
        diff |= (uint64_t)(a[i] ^ b[i]);
    return aesgen_ct_is_zero(diff);
}

const char *aesgen_version(void)
{
    return AESGEN_VERSION_STRING;
}

const char *aesgen_strerror(int err)
{
    switch (err) {
    case AESGEN_OK:      return "success";
    case AESGEN_EINVAL:  return "invalid argument";
    case AESGEN_EBADMSG: return "authentication failed";
    case AESGEN_ENOTSUP: return "implementation not supported on this CPU";
    default:             return "unknown error";
    }
}

/*
 * memset followed by an empty asm that claims to read the memory: the
 * compiler must assume the zeros are observed, so it cannot drop the store
 * as dead (which it may do for a plain memset before free or return).
 */
void aesgen_wipe(void *p, size_t n)
{
    if (p == NULL || n == 0)
        return;
    memset(p, 0, n);
    aesgen_keep_stores(p);
}
