/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* The vector-file reader shared by the known-answer groups. */
#define _GNU_SOURCE
#include "vectors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/wait.h>
#endif

#include "check.h"
#include "harness.h"

static FILE *open_vectors(char *path, bool gzip)
{
    if (!gzip)
        return fopen(path, "r");
#ifdef _WIN32
    /* No gzip to run: tests/win/win.mk puts the file's decompressed twin (the name
     * without .gz) beside it in the vectors copy the Windows test reads. */
    path[strlen(path) - 3] = '\0';
    return fopen(path, "r");
#else
    char command[4400];
    if (strchr(path, '\''))
        return NULL;              /* it could not be quoted for the shell */
    snprintf(command, sizeof command, "gzip -dc -- '%s'", path);
    return popen(command, "r");
#endif
}

/* A gzip that failed part way would look like a short file: say so. */
static void close_vectors(FILE *f, const struct vector_file *file)
{
    if (!file->gzip) {
        fclose(f);
        return;
    }
#ifdef _WIN32
    fclose(f);
#else
    int status = pclose(f);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "%s: gzip -dc exits with status 0 (status %#x)", file->path, status);
#endif
}

/* One line of any length into *line (getline, which Windows' C library lacks). */
static bool read_line(char **line, size_t *cap, FILE *f)
{
    size_t used = 0;
    for (;;) {
        if (*cap - used < 2) {
            *cap = *cap * 2 + 4096;
            *line = xrealloc(*line, *cap);
        }
        if (!fgets(*line + used, (int)(*cap - used), f))
            return used > 0;
        used += strlen(*line + used);
        if (used && (*line)[used - 1] == '\n')
            return true;
    }
}

static bool is_blank(const char *line)
{
    return line[strspn(line, " \t\r\n")] == '\0';
}

bool vector_file_read(const char *dir, const struct vector_file *file, vector_case_fn *add_case,
                      void *ctx, size_t *used)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file->path);
    *used = 0;
    FILE *f = open_vectors(path, file->gzip);
    if (!check(f != NULL, "open vector file %s", path))
        return false;
    char *line = NULL;
    size_t line_cap = 0, line_no = 0;
    while (read_line(&line, &line_cap, f)) {
        line_no++;
        if (is_blank(line))
            continue;
        char where[4200];
        snprintf(where, sizeof where, "%s:%zu", file->path, line_no);
        struct json_object o;
        if (!check(json_parse_flat(line, &o) == 0, "%s: parses as a flat JSON object", where))
            continue;
        *used += add_case(&o, where, ctx);
        json_free(&o);
    }
    free(line);
    close_vectors(f, file);
    check(*used >= file->min_cases, "%s: at least %zu usable vectors (found %zu)", file->path,
          file->min_cases, *used);
    return true;
}

bool vector_hex(const struct json_object *o, const char *key, uint8_t **out, size_t *len)
{
    const char *hex = json_string(o, key);
    *out = NULL;
    if (!hex)
        return false;
    size_t cap = strlen(hex) / 2;
    *out = xmalloc(cap);
    long n = hex_decode(hex, *out, cap);
    if (n < 0) {
        free(*out);
        *out = NULL;
        return false;
    }
    *len = (size_t)n;
    return true;
}

bool vector_hex_fixed(const struct json_object *o, const char *key, uint8_t *out, size_t want)
{
    const char *hex = json_string(o, key);
    return hex && strlen(hex) == 2 * want && hex_decode(hex, out, want) == (long)want;
}

void *vector_grow(void *array, size_t count, size_t *cap, size_t elem_size)
{
    if (count < *cap)
        return array;
    *cap = *cap * 2 + 64;
    return xrealloc(array, *cap * elem_size);
}
