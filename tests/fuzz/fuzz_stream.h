/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* The CTR and XCTR targets: one differential check over harness.h's struct stream. */
#ifndef AESGEN_FUZZ_STREAM_H
#define AESGEN_FUZZ_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "harness.h"

/* Decodes one input and checks aesgen's CTR or XCTR against the reference. */
void fuzz_stream_one(enum mode mode, const uint8_t *data, size_t size);

#endif
