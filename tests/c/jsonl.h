/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * A small reader for JSON lines holding flat objects whose values are strings,
 * numbers, true/false, null or arrays of strings (Wycheproof's "flags") -- all
 * the vector files need.  Other nested values are rejected, so a format change
 * shows up as a test failure.
 */
#ifndef AESGEN_TEST_JSONL_H
#define AESGEN_TEST_JSONL_H

#include <stdbool.h>
#include <stddef.h>

enum { JSON_MAX_FIELDS = 32 };

struct json_field {
    const char *key;
    const char *text;     /* decoded string, the literal of a number/true/false, or
                             an array's strings joined by commas */
    bool is_string;
    bool is_array;
    bool is_null;
};

struct json_object {
    struct json_field fields[JSON_MAX_FIELDS];
    size_t count;
    char *storage;        /* owns every key and text */
};

/* Parses one line; returns 0, or -1 (and frees what it allocated) on error. */
int json_parse_flat(const char *line, struct json_object *obj);

/* The field's string value; NULL if absent, null, or not a string. */
const char *json_string(const struct json_object *obj, const char *key);

/* The field's number value in *out; false if absent or not an integer. */
bool json_integer(const struct json_object *obj, const char *key, long *out);

bool json_is_null(const struct json_object *obj, const char *key);

void json_free(struct json_object *obj);

#endif
