/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* The flat-object JSON-lines reader of jsonl.h. */
#include "jsonl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *p;
    char *out;            /* next free byte of storage */
};

static void skip_space(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static int hex4(const char *s, unsigned *value)
{
    *value = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *value = *value << 4 | (unsigned)d;
    }
    return 0;
}

/* Writes code point cp as UTF-8; an escape is at least 6 source bytes, and
 * UTF-8 needs at most 4, so storage sized like the line always suffices. */
static void put_utf8(struct parser *ps, unsigned cp)
{
    if (cp < 0x80) {
        *ps->out++ = (char)cp;
    } else if (cp < 0x800) {
        *ps->out++ = (char)(0xc0 | cp >> 6);
        *ps->out++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *ps->out++ = (char)(0xe0 | cp >> 12);
        *ps->out++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *ps->out++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *ps->out++ = (char)(0xf0 | cp >> 18);
        *ps->out++ = (char)(0x80 | (cp >> 12 & 0x3f));
        *ps->out++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *ps->out++ = (char)(0x80 | (cp & 0x3f));
    }
}

static int parse_escape(struct parser *ps)
{
    static const char plain_from[] = "\"\\/bfnrt", plain_to[] = "\"\\/\b\f\n\r\t";
    char c = *ps->p++;
    const char *hit = c ? strchr(plain_from, c) : NULL;
    if (hit) {
        *ps->out++ = plain_to[hit - plain_from];
        return 0;
    }
    unsigned cp, low;
    if (c != 'u' || hex4(ps->p, &cp) < 0)
        return -1;
    ps->p += 4;
    if (cp >= 0xd800 && cp < 0xdc00) {          /* a surrogate pair */
        if (ps->p[0] != '\\' || ps->p[1] != 'u' || hex4(ps->p + 2, &low) < 0
            || low < 0xdc00 || low >= 0xe000)
            return -1;
        ps->p += 6;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    put_utf8(ps, cp);
    return 0;
}

/* Decodes a string at ps->p (which is at the opening quote) into storage. */
static const char *parse_string(struct parser *ps)
{
    if (*ps->p != '"')
        return NULL;
    ps->p++;
    char *start = ps->out;
    while (*ps->p != '"') {
        if (*ps->p == '\0' || (unsigned char)*ps->p < 0x20)
            return NULL;
        if (*ps->p == '\\') {
            ps->p++;
            if (parse_escape(ps) < 0)
                return NULL;
        } else {
            *ps->out++ = *ps->p++;
        }
    }
    ps->p++;
    *ps->out++ = '\0';
    return start;
}

/* A number or true/false/null: copied as its literal text. */
static const char *parse_literal(struct parser *ps, bool *is_null)
{
    char *start = ps->out;
    const char *begin = ps->p;
    while (*ps->p && (isalnum((unsigned char)*ps->p) || strchr("+-.", *ps->p)))
        *ps->out++ = *ps->p++;
    *ps->out++ = '\0';
    size_t n = (size_t)(ps->p - begin);
    if (n == 0)
        return NULL;
    *is_null = n == 4 && memcmp(begin, "null", 4) == 0;
    bool is_word = *is_null || (n == 4 && memcmp(begin, "true", 4) == 0)
                   || (n == 5 && memcmp(begin, "false", 5) == 0);
    if (!is_word) {
        char *end;
        strtod(start, &end);
        if (*end != '\0')
            return NULL;
    }
    return start;
}

/* An array of strings (Wycheproof "flags"): kept as its items joined by commas.
 * Anything else inside the brackets is refused, like any other nesting. */
static const char *parse_string_array(struct parser *ps)
{
    char *start = ps->out;
    ps->p++;                                    /* the '[' */
    skip_space(ps);
    bool first = true;
    while (*ps->p != ']') {
        if (!first) {
            if (*ps->p++ != ',')
                return NULL;
            skip_space(ps);
            ps->out[-1] = ',';                  /* the previous item's NUL */
        }
        if (!parse_string(ps))
            return NULL;
        skip_space(ps);
        first = false;
    }
    ps->p++;
    if (first)
        *ps->out++ = '\0';
    return start;
}

static int parse_field(struct parser *ps, struct json_field *field)
{
    skip_space(ps);
    if (!(field->key = parse_string(ps)))
        return -1;
    skip_space(ps);
    if (*ps->p++ != ':')
        return -1;
    skip_space(ps);
    field->is_null = false;
    field->is_string = *ps->p == '"';
    field->is_array = *ps->p == '[';
    if (field->is_array)
        field->text = parse_string_array(ps);
    else
        field->text = field->is_string ? parse_string(ps) : parse_literal(ps, &field->is_null);
    return field->text ? 0 : -1;
}

static int parse_object(struct parser *ps, struct json_object *obj)
{
    skip_space(ps);
    if (*ps->p++ != '{')
        return -1;
    skip_space(ps);
    if (*ps->p == '}') {
        ps->p++;
    } else {
        for (;;) {
            if (obj->count == JSON_MAX_FIELDS || parse_field(ps, &obj->fields[obj->count]) < 0)
                return -1;
            obj->count++;
            skip_space(ps);
            char c = *ps->p++;
            if (c == '}')
                break;
            if (c != ',')
                return -1;
        }
    }
    skip_space(ps);
    return *ps->p == '\0' ? 0 : -1;
}

int json_parse_flat(const char *line, struct json_object *obj)
{
    memset(obj, 0, sizeof *obj);
    /* Decoded text is never longer than its source, plus a NUL per value. */
    if (!(obj->storage = malloc(2 * strlen(line) + 2)))
        return -1;
    struct parser ps = { line, obj->storage };
    if (parse_object(&ps, obj) < 0) {
        json_free(obj);
        return -1;
    }
    return 0;
}

static const struct json_field *find(const struct json_object *obj, const char *key)
{
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->fields[i].key, key) == 0)
            return &obj->fields[i];
    return NULL;
}

const char *json_string(const struct json_object *obj, const char *key)
{
    const struct json_field *f = find(obj, key);
    return f && f->is_string ? f->text : NULL;
}

bool json_integer(const struct json_object *obj, const char *key, long *out)
{
    const struct json_field *f = find(obj, key);
    if (!f || f->is_string || f->is_array || f->is_null)
        return false;
    char *end;
    *out = strtol(f->text, &end, 10);
    return *end == '\0';
}

bool json_is_null(const struct json_object *obj, const char *key)
{
    const struct json_field *f = find(obj, key);
    return f && f->is_null;
}

void json_free(struct json_object *obj)
{
    free(obj->storage);
    obj->storage = NULL;
    obj->count = 0;
}
