/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Command line and environment of the bench, and the BENCH_FILTER matcher.
 * The options that shape a run have environment twins (BENCH_QUICK, BENCH_FILTER,
 * BENCH_CPU, BENCH_SAMPLES, BENCH_SAMPLE_US, BENCH_GENERIC) so `make bench VAR=...`
 * reaches the program; the command line wins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bench [options]\n"
            "  --with-generic     also time the portable C implementation (slow)\n"
            "  --quick            few, short samples: a smoke run (env BENCH_QUICK=1)\n"
            "  --samples N        samples per measurement, median taken (env BENCH_SAMPLES)\n"
            "  --sample-us N      target length of one timed batch (env BENCH_SAMPLE_US)\n"
            "  --cpu N            CPU to pin to (env BENCH_CPU; default the last allowed)\n"
            "  --filter SPEC      e.g. mode=ctr,bits=256,len=1420,impl=openssl; keys may\n"
            "                     repeat (mode=ctr,mode=xctr); modes: ctr, xctr, xts-enc,\n"
            "                     xts-dec, xts (both), gcm-enc, gcm-dec, gcm-stream,\n"
            "                     gcm (all three) (env BENCH_FILTER)\n"
            "                     impl=auto adds the library's own choice (ISA \"auto\",\n"
            "                     the CPU's variant and length plans)\n"
            "  --lengths L,L,..   message lengths, 16..16384 (env BENCH_LENGTHS; default\n"
            "                     16,64,256,512,1024,1420,4096,16384)\n"
            "  --json FILE        write one record per (mode, keybits, length, impl)\n"
            "  --tcrypt           Linux tcrypt-format lines for every workload\n"
            "  env BENCH_GENERIC=1 is --with-generic\n");
}

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static int parse_unsigned(const char *text, unsigned long max, unsigned long *out)
{
    char *end;
    if (!text || !*text)
        return 0;
    unsigned long v = strtoul(text, &end, 10);
    if (*end || v > max)
        return 0;
    *out = v;
    return 1;
}

static const char *const filter_keys[] = {"mode", "bits", "len", "impl"};

/* Each comma-separated token must be key=value with a known key. */
static int filter_is_valid(const char *spec)
{
    const char *p = spec;
    while (*p) {
        size_t tok = strcspn(p, ",");
        const char *eq = memchr(p, '=', tok);
        int known = 0;
        for (size_t k = 0; eq && k < sizeof filter_keys / sizeof filter_keys[0]; k++)
            known |= strlen(filter_keys[k]) == (size_t)(eq - p) &&
                     strncmp(p, filter_keys[k], (size_t)(eq - p)) == 0;
        if (!known)
            return 0;
        p += tok + (p[tok] == ',');
    }
    return 1;
}

int bench_filter_names(const char *spec, const char *key, const char *value)
{
    return spec && bench_filter_allows(spec, key, value) &&
           !bench_filter_allows(spec, key, "\001");   /* the key is there, with this value */
}

/* "16,64,..." into o->lengths; 0 if malformed. */
static int parse_lengths(const char *text, bench_options *o)
{
    o->n_lengths = 0;
    while (*text) {
        char *end;
        unsigned long v = strtoul(text, &end, 10);
        if (end == text || v < 16 || v > BENCH_MAX_LEN || o->n_lengths == BENCH_MAX_LENGTHS)
            return 0;
        o->lengths[o->n_lengths++] = v;
        text = end + (*end == ',');
        if (*end != ',' && *end != '\0')
            return 0;
    }
    return o->n_lengths > 0;
}

/* Allowed if the filter names no value for key, or names this one. */
int bench_filter_allows(const char *spec, const char *key, const char *value)
{
    if (!spec)
        return 1;
    int key_seen = 0;
    size_t key_len = strlen(key);
    const char *p = spec;
    while (*p) {
        size_t tok = strcspn(p, ",");
        if (tok > key_len && strncmp(p, key, key_len) == 0 && p[key_len] == '=') {
            key_seen = 1;
            const char *v = p + key_len + 1;
            size_t v_len = tok - key_len - 1;
            if (strlen(value) == v_len && strncmp(v, value, v_len) == 0)
                return 1;
        }
        p += tok + (p[tok] == ',');
    }
    return !key_seen;
}

int bench_filter_allows_number(const char *spec, const char *key, size_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%zu", value);
    return bench_filter_allows(spec, key, text);
}

/* mode=xts selects xts-enc and xts-dec; mode=xts-dec just the one.  Without any
 * mode value every workload is allowed (both calls return 1). */
int bench_filter_allows_workload(const char *spec, const bench_workload *w)
{
    if (bench_filter_allows(spec, "mode", w->mode))
        return 1;
    return w->family && bench_filter_allows(spec, "mode", w->family);
}

int bench_parse_options(int argc, char **argv, bench_options *o)
{
    unsigned long v;
    memset(o, 0, sizeof *o);
    o->cpu = -1;
    o->with_generic = env_flag("BENCH_GENERIC");
    o->quick = env_flag("BENCH_QUICK");
    o->filter = getenv("BENCH_FILTER");
    const char *samples = getenv("BENCH_SAMPLES");
    const char *sample_us = getenv("BENCH_SAMPLE_US");
    const char *cpu = getenv("BENCH_CPU");
    const char *lengths = getenv("BENCH_LENGTHS");
    static const size_t default_lengths[] = {16, 64, 256, 512, 1024, 1420, 4096, 16384};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--with-generic") == 0) {
            o->with_generic = 1;
        } else if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--tcrypt") == 0) {
            o->tcrypt_all = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (next && strcmp(a, "--samples") == 0) {
            samples = next, i++;
        } else if (next && strcmp(a, "--sample-us") == 0) {
            sample_us = next, i++;
        } else if (next && strcmp(a, "--cpu") == 0) {
            cpu = next, i++;
        } else if (next && strcmp(a, "--filter") == 0) {
            o->filter = next, i++;
        } else if (next && strcmp(a, "--lengths") == 0) {
            lengths = next, i++;
        } else if (next && strcmp(a, "--json") == 0) {
            o->json_path = next, i++;
        } else {
            fprintf(stderr, "bench: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 0;
        }
    }

    o->samples = o->quick ? 3 : 15;
    o->sample_target_ns = o->quick ? 50e3 : 200e3;
    if (o->filter && !*o->filter)
        o->filter = NULL;
    if (samples && *samples) {
        if (!parse_unsigned(samples, BENCH_MAX_SAMPLES, &v) || v == 0) {
            fprintf(stderr, "bench: samples must be 1..%d, not '%s'\n", BENCH_MAX_SAMPLES,
                    samples);
            return 0;
        }
        o->samples = (unsigned)v;
    }
    if (sample_us && *sample_us) {
        if (!parse_unsigned(sample_us, 1000000, &v) || v == 0) {
            fprintf(stderr, "bench: sample-us must be 1..1000000, not '%s'\n", sample_us);
            return 0;
        }
        o->sample_target_ns = (double)v * 1e3;
    }
    o->n_lengths = sizeof default_lengths / sizeof default_lengths[0];
    memcpy(o->lengths, default_lengths, sizeof default_lengths);
    if (lengths && *lengths && !parse_lengths(lengths, o)) {
        fprintf(stderr, "bench: lengths must be up to %d numbers 16..%d, comma-separated, "
                "not '%s'\n", BENCH_MAX_LENGTHS, BENCH_MAX_LEN, lengths);
        return 0;
    }
    if (cpu && *cpu) {
        if (!parse_unsigned(cpu, 65535, &v)) {
            fprintf(stderr, "bench: bad CPU number '%s'\n", cpu);
            return 0;
        }
        o->cpu = (int)v;
    }
    if (o->filter && !filter_is_valid(o->filter)) {
        fprintf(stderr, "bench: bad filter '%s' (keys: mode, bits, len, impl)\n", o->filter);
        return 0;
    }
    return 1;
}
