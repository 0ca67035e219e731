/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Output of the bench: the machine header, one table per (mode, key size), optional
 * Linux tcrypt-format lines, and the JSON file a later plot reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define GROUP_WIDTH 20   /* "%6.2f %6.2f %5.1f%%" */

void bench_print_machine(const bench_machine *m)
{
    printf("aesgen bench on %s, ", m->model);
    if (m->cpu >= 0)
        printf("pinned to CPU %d\n", m->cpu);
    else
        printf("NOT pinned (sched_setaffinity failed)\n");
    printf("clock: core %.3f GHz (dependent-add chain vs CLOCK_MONOTONIC_RAW; samples %.3f..%.3f),"
           " TSC %.3f GHz\n",
           m->core_ghz, m->core_ghz_min, m->core_ghz_max, m->tsc_ghz);
    printf("AES-round ceiling (independent vaesenc chains; block-rounds/s, a 128-bit "
           "lane-round = 1):\n");
    for (int w = 0; w < 3; w++) {
        if (m->has_width[w])
            printf("  %s %7.2f G/s  (%.2f per core cycle)\n", bench_width_names[w],
                   m->rounds_per_s[w] / 1e9, m->rounds_per_s[w] / (m->core_ghz * 1e9));
        else
            printf("  %s       -     (not supported here)\n", bench_width_names[w]);
    }
    if (m->ceiling > 0)
        printf("  ceiling %.2f G block-rounds/s (%s); %%ceil = blocks x rounds per block "
               "(10/12/14) per second / ceiling\n",
               m->ceiling / 1e9, bench_width_names[m->ceiling_width]);
    else
        printf("  no usable vaesenc: %%ceil not reported\n");
    /* OpenSSL reads this at load: with AES-NI masked, its column is its portable code
     * (make bench-fallback), the peer of vperm_ssse3 and generic. */
    const char *ia32cap = getenv("OPENSSL_ia32cap");
    if (ia32cap != NULL)
        printf("openssl: OPENSSL_ia32cap=%s (the CPU features it masks are not used by "
               "OpenSSL in this run)\n", ia32cap);
}

static void print_centered(const char *text, int width)
{
    int len = (int)strlen(text);
    int left = len < width ? (width - len) / 2 : 0;
    int right = len < width ? width - len - left : 0;
    printf("%*s%s%*s", left, "", text, right, "");
}

static const bench_result *find_result(const bench_result *results, size_t n, size_t len,
                                       const char *impl)
{
    for (size_t i = 0; i < n; i++)
        if (results[i].len == len && strcmp(results[i].impl, impl) == 0)
            return &results[i];
    return NULL;
}

static void print_group(const bench_result *r)
{
    if (!r) {
        print_centered("-", GROUP_WIDTH);
        return;
    }
    if (r->pct_ceiling >= 0)
        printf("%6.2f %6.2f %5.1f%%", r->gb_per_s, r->cycles_per_byte, r->pct_ceiling);
    else
        printf("%6.2f %6.2f     - ", r->gb_per_s, r->cycles_per_byte);
}

/* Best of ours (never the peer) divided by the peer, with the ISA that won. */
static void print_ratio(const bench_result *results, size_t n, size_t len,
                        const char *const *impls, size_t n_impls)
{
    const bench_result *best = NULL, *peer = NULL;
    for (size_t i = 0; i < n_impls; i++) {
        const bench_result *r = find_result(results, n, len, impls[i]);
        if (!r)
            continue;
        if (r->is_peer)
            peer = r;
        else if (!best || r->gb_per_s > best->gb_per_s)
            best = r;
    }
    if (best && peer)
        printf(" %6.2fx %s", best->gb_per_s / peer->gb_per_s, best->impl);
    else
        printf("      - ");
}

/*
 * rows = lengths, columns = implementations (GB/s, cycles/byte, % of ceiling), then the
 * best-ours/OpenSSL ratio.  A column for OpenSSL is printed as "-" when it lacks the
 * mode, so every table has the same shape.
 */
void bench_print_table(const bench_result *results, size_t n, const char *const *impls,
                       size_t n_impls, const bench_machine *m)
{
    if (n == 0)
        return;
    int peer_column = 0;
    for (size_t i = 0; i < n_impls; i++)
        peer_column |= strcmp(impls[i], "openssl") == 0;

    printf("\n%s, AES-%u  (GB/s = 1e9 B/s; c/B at %.2f GHz; %%ceil of %.2f G rounds/s)\n",
           results[0].workload->title, results[0].keybits, m->core_ghz, m->ceiling / 1e9);
    printf("  length ");
    for (size_t i = 0; i < n_impls; i++) {
        printf("| ");
        print_centered(impls[i], GROUP_WIDTH);
        printf(" ");
    }
    if (!peer_column) {
        printf("| ");
        print_centered("openssl", GROUP_WIDTH);
        printf(" ");
    }
    printf("| best/openssl\n         ");
    for (size_t i = 0; i < n_impls + !peer_column; i++)
        printf("|   GB/s    c/B %%ceil ");
    printf("|\n");

    size_t printed_len = 0;
    int mismatch = 0;
    for (size_t r = 0; r < n; r++) {
        size_t len = results[r].len;
        if (len == printed_len)
            continue;
        printed_len = len;
        printf("  %6zu ", len);
        for (size_t i = 0; i < n_impls; i++) {
            const bench_result *res = find_result(results, n, len, impls[i]);
            int bad = res && res->verified == 0;
            mismatch |= bad;
            printf("| ");
            print_group(res);
            printf(bad ? "!" : " ");
        }
        if (!peer_column) {
            printf("| ");
            print_group(NULL);
            printf(" ");
        }
        printf("|");
        print_ratio(results, n, len, impls, n_impls);
        printf("\n");
    }
    if (mismatch)
        printf("  ! output differs from the reference (OpenSSL, else our generic code): "
               "the timing is of wrong code\n");
}

/*
 * Lines in the format of Linux crypto/tcrypt.c speed tests, so numbers can be put next
 * to a kernel's.  Cycles are TSC ticks, as tcrypt's get_cycles() counts on x86.
 */
void bench_print_tcrypt(const bench_result *results, size_t n, const char *const *impls,
                        size_t n_impls, unsigned first_test)
{
    if (n == 0)
        return;
    const bench_workload *w = results[0].workload;
    for (size_t i = 0; i < n_impls; i++) {
        if (w->tcrypt_alg)
            printf("\ntesting speed of %s", w->tcrypt_alg);
        else
            printf("\ntesting speed of %s(aes)", w->mode);
        printf(" %s %s (cycles = TSC ticks)\n", impls[i],
               w->tcrypt_op ? w->tcrypt_op : "encryption");
        unsigned test = first_test;
        for (size_t r = 0; r < n; r++) {
            const bench_result *res = &results[r];
            if (strcmp(res->impl, impls[i]) != 0)
                continue;
            printf("test %u (%u bit key, %zu byte blocks): 1 operation in %.0f cycles "
                   "(%zu bytes)\n",
                   test++, res->keybits * w->key_factor, res->len, res->tsc_per_msg, res->len);
        }
    }
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_number_or_null(FILE *f, double v, int valid)
{
    if (valid)
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void json_machine(FILE *f, const bench_machine *m, unsigned samples,
                         double sample_target_ns)
{
    fprintf(f, "  \"machine\": {\n    \"model\": ");
    json_string(f, m->model);
    fprintf(f, ",\n    \"vendor\": ");
    json_string(f, m->vendor);
    fprintf(f, ",\n    \"family\": %u,\n    \"model_id\": %u,\n    \"variant\": ",
            m->family, m->model_id);
    json_string(f, m->variant ? m->variant : "");
    fprintf(f, ",\n    \"cpu\": %d,\n    \"tsc_ghz\": %.6g,\n    \"core_ghz\": %.6g,\n"
               "    \"core_ghz_min\": %.6g,\n    \"core_ghz_max\": %.6g,\n"
               "    \"aes_rounds_per_s\": {",
            m->cpu, m->tsc_ghz, m->core_ghz, m->core_ghz_min, m->core_ghz_max);
    for (int w = 0; w < 3; w++) {
        fprintf(f, "%s\"%s\": ", w ? ", " : "", bench_width_names[w]);
        json_number_or_null(f, m->rounds_per_s[w], m->has_width[w]);
    }
    fprintf(f, "},\n    \"ceiling_rounds_per_s\": ");
    json_number_or_null(f, m->ceiling, m->ceiling > 0);
    fprintf(f, ",\n    \"ceiling_width\": ");
    if (m->ceiling > 0)
        json_string(f, bench_width_names[m->ceiling_width]);
    else
        fputs("null", f);
    fprintf(f, "\n  },\n  \"method\": {\"samples\": %u, \"sample_target_us\": %.0f, "
               "\"statistic\": \"median\"},\n",
            samples, sample_target_ns / 1e3);
}

static void json_result(FILE *f, const bench_result *r)
{
    fprintf(f, "    {\"mode\": ");
    json_string(f, r->workload->mode);
    fprintf(f, ", \"keybits\": %u, \"length\": %zu, \"impl\": ", r->keybits, r->len);
    json_string(f, r->impl);
    fprintf(f, ", \"gb_per_s\": %.6g, \"cycles_per_byte\": %.6g, \"pct_ceiling\": ",
            r->gb_per_s, r->cycles_per_byte);
    json_number_or_null(f, r->pct_ceiling, r->pct_ceiling >= 0);
    fprintf(f, ", \"ns_per_msg\": %.6g, \"tsc_per_msg\": %.6g, \"batch\": %zu, "
               "\"samples\": %u, \"verified\": %s}",
            r->ns_per_msg, r->tsc_per_msg, r->batch, r->samples,
            r->verified > 0 ? "true" : r->verified == 0 ? "false" : "null");
}

/* { "schema", "machine", "method", "results": [ one record per (mode, keybits, length,
 * impl) ] }.  OpenSSL has no record for modes it lacks. */
int bench_write_json(const char *path, const bench_result *results, size_t n,
                     const bench_machine *m, unsigned samples, double sample_target_ns)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fprintf(f, "{\n  \"schema\": \"aesgen-bench-1\",\n");
    json_machine(f, m, samples, sample_target_ns);
    fprintf(f, "  \"results\": [\n");
    for (size_t i = 0; i < n; i++) {
        json_result(f, &results[i]);
        fprintf(f, "%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return fclose(f) == 0;
}
