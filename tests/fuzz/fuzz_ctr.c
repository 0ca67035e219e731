/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* libFuzzer target `ctr`: aesgen's CTR against the reference (see fuzz_stream.c). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_stream_one(MODE_CTR, data, size);
    return 0;
}
