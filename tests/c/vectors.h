/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Reading the known-answer vector files (JSON lines, see jsonl.h) the same way
 * in every known-answer group: the open, every line's parse and the minimum
 * number of usable cases are counted checks, so a missing or changed file fails.
 */
#ifndef AESGEN_TEST_VECTORS_H
#define AESGEN_TEST_VECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jsonl.h"

struct vector_file {
    const char *path;          /* relative to the vectors directory */
    bool gzip;                 /* read through `gzip -dc` */
    size_t min_cases;          /* fewer means the file is not what the tests expect */
};

/* Takes one parsed line ("where" is "path:line" for messages); returns true if
 * it became a usable case. */
typedef bool vector_case_fn(const struct json_object *o, const char *where, void *ctx);

/* Feeds every non-blank line of dir/file->path to add_case.  Checks the open,
 * each parse, gzip's exit status and that at least file->min_cases lines were
 * usable; *used is how many were.  False if the file could not be opened. */
bool vector_file_read(const char *dir, const struct vector_file *file, vector_case_fn *add_case,
                      void *ctx, size_t *used);

/* A hex field into a fresh buffer ("" is an empty one); false (and *out NULL)
 * if absent or not hex. */
bool vector_hex(const struct json_object *o, const char *key, uint8_t **out, size_t *len);

/* A hex field of exactly `want` bytes into out. */
bool vector_hex_fixed(const struct json_object *o, const char *key, uint8_t *out, size_t want);

/* Room for one more element at array[count]: the array, moved if it had to grow. */
void *vector_grow(void *array, size_t count, size_t *cap, size_t elem_size);

#endif
