/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * aesgen benchmark: throughput of every ISA this CPU runs against OpenSSL, with the
 * machine's AES-round ceiling and core clock measured in the same process.
 *
 * Method (why each piece is there):
 *  - one process pinned to one CPU, so every implementation sees the same core, caches
 *    and frequency domain;
 *  - for each (mode, key size, length) all implementations are sampled round-robin, the
 *    starting implementation rotating per sample, so drift (frequency, neighbours on a
 *    shared machine) hits all of them alike;
 *  - the run is a series of passes, each sampling the core clock, the AES-round ceiling
 *    and every case once, so each median draws on samples spread over the whole run;
 *  - a sample times a batch of messages long enough (~200 us) that the clock read is
 *    noise; an untimed pass warms everything up first;
 *  - src and dst are distinct 64-byte aligned buffers that fit in L1 together; each
 *    pass moves both to another offset within a page (see placed_buffers), so the
 *    medians are over placements rather than one accident of the heap's layout.
 * Nothing here asserts on a time: the bench reports, it never fails on speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aesgen.h"
#include "aesgen_gen.h"
#include "bench.h"
#include "cpu_signature.h"

static const unsigned bench_key_bits[] = {128, 256};
/* The generated ISAs (gen/aesgen_gen.h), fastest last: generator/isa.py's order. */
#define BENCH_ISA_NAME(isa, NAME, vector_bytes, evex, needs) #isa,
static const char *const bench_asm_isas[] = {AESGEN_GEN_ISAS(BENCH_ISA_NAME)};
/* The implementations besides those: the portable C code, the peer, the library's choice. */
static const char *const bench_other_impls[] = {"generic", "openssl", "auto"};
#define N_KEY_BITS (sizeof bench_key_bits / sizeof bench_key_bits[0])
#define N_OTHER_IMPLS (sizeof bench_other_impls / sizeof bench_other_impls[0])
#define N_ASM_ISAS (sizeof bench_asm_isas / sizeof bench_asm_isas[0])
/* ---- machine ---- */

/* Clock and ceiling probes, sampled once per pass like the workloads. */
/* The short ceiling run taken right before every timed sample. */
typedef struct adjacent_ceiling {
    int width, variant;
    uint64_t iters;
} adjacent_ceiling;
static adjacent_ceiling adjacent;

typedef struct machine_probe {
    uint64_t clock_iters;
    uint64_t chain_iters[3][BENCH_CHAIN_VARIANTS];
    double ghz[BENCH_MAX_SAMPLES];
    double rounds[3][BENCH_CHAIN_VARIANTS][BENCH_MAX_SAMPLES];
} machine_probe;

/* What does not drift: pinning, model, TSC rate, which vaesenc widths exist. */
static void identify_machine(const bench_options *o, bench_machine *m)
{
    memset(m, 0, sizeof *m);
    m->cpu = bench_pin_cpu(o->cpu);
    bench_cpu_model(m->model, sizeof m->model);
    aesgen_cpu_signature(m->vendor, &m->family, &m->model_id);
    m->variant = aesgen_variant_name();
    m->tsc_ghz = bench_measure_tsc_ghz();
    bench_detect_aes_widths(m->has_width);
}

/* Runs the clock chain for ~100 ms so the core leaves any idle state, then sizes the
 * probes: ~1 ms per clock sample and per vaesenc variant. */
static void calibrate_machine_probe(const bench_machine *m, machine_probe *p)
{
    memset(p, 0, sizeof *p);
    double start = bench_now_ns();
    while (bench_now_ns() - start < 100e6)
        bench_core_ghz_sample(10000);
    p->clock_iters = 5000;   /* 1e6 cycles */
    for (int w = 0; w < 3; w++)
        if (m->has_width[w]) {
            bench_ceiling_calibrate(w, 1e6, p->chain_iters[w]);
            /* the widest width, 14 chains, ~20 us: the run next to every sample */
            adjacent = (adjacent_ceiling){w, 1, p->chain_iters[w][1] / 50 + 1};
        }
}

static void sample_machine(const bench_machine *m, machine_probe *p, unsigned pass)
{
    p->ghz[pass] = bench_core_ghz_sample(p->clock_iters);
    for (int w = 0; w < 3; w++) {
        double rates[BENCH_CHAIN_VARIANTS];
        if (!m->has_width[w])
            continue;
        bench_ceiling_sample(w, p->chain_iters[w], rates);
        for (int v = 0; v < BENCH_CHAIN_VARIANTS; v++)
            p->rounds[w][v][pass] = rates[v];
    }
}

/* Medians over passes; the ceiling is the best width's better chain variant. */
static void summarize_machine(bench_machine *m, machine_probe *p, unsigned samples)
{
    m->core_ghz = bench_median(p->ghz, samples);   /* sorts: min and max are the ends */
    m->core_ghz_min = p->ghz[0];
    m->core_ghz_max = p->ghz[samples - 1];
    for (int w = 0; w < 3; w++) {
        if (!m->has_width[w])
            continue;
        for (int v = 0; v < BENCH_CHAIN_VARIANTS; v++) {
            double r = bench_median(p->rounds[w][v], samples);
            if (r > m->rounds_per_s[w])
                m->rounds_per_s[w] = r;
        }
        if (m->rounds_per_s[w] > m->ceiling) {
            m->ceiling = m->rounds_per_s[w];
            m->ceiling_width = w;
        }
    }
}

/* ---- implementations of one workload and key ---- */

typedef struct impl_set {
    const bench_workload *workload;
    bench_impl impls[BENCH_MAX_IMPLS];
    size_t n;
    bench_impl reference;        /* output every impl is compared with; state NULL if none */
    int reference_owned;         /* reference is not one of impls[] */
} impl_set;

static void make_key(uint8_t *key, size_t len, unsigned keybits)
{
    for (size_t i = 0; i < len; i++)
        key[i] = (uint8_t)(i * 29 + keybits);
}

static int add_ours(impl_set *set, const bench_workload *w, const char *isa,
                    const uint8_t *key, size_t key_len)
{
    void *state = w->setup_ours(isa, key, key_len);
    if (!state)
        return 0;
    set->impls[set->n++] = (bench_impl){isa, 0, w->run_ours, w->teardown_ours, state};
    return 1;
}

/*
 * Our ISAs this CPU runs (plus generic if asked), then OpenSSL if it has the mode.
 * The reference for checking outputs is OpenSSL when present, else our generic code.
 */
static void build_impls(impl_set *set, const bench_workload *w, unsigned keybits,
                        const bench_options *o)
{
    uint8_t key[BENCH_KEY_MAX];
    size_t key_len = w->key_factor * keybits / 8;
    make_key(key, key_len, keybits);
    memset(set, 0, sizeof *set);
    set->workload = w;

    if (o->with_generic && bench_filter_allows(o->filter, "impl", "generic"))
        add_ours(set, w, "generic", key, key_len);
    for (size_t i = 0; i < N_ASM_ISAS; i++) {
        const char *isa = bench_asm_isas[i];
        if (aesgen_isa_supported(isa) && bench_filter_allows(o->filter, "impl", isa))
            add_ours(set, w, isa, key, key_len);
    }
    /* What a program gets without choosing: "auto", the CPU's variant and length plans. */
    if (bench_filter_names(o->filter, "impl", "auto"))
        add_ours(set, w, "auto", key, key_len);
    if (w->setup_peer) {
        void *peer = w->setup_peer(keybits, key, key_len);
        if (peer) {
            bench_impl impl = {"openssl", 1, w->run_peer, w->teardown_peer, peer};
            set->reference = impl;
            if (bench_filter_allows(o->filter, "impl", "openssl"))
                set->impls[set->n++] = impl;
            else
                set->reference_owned = 1;
        }
    }
    if (!set->reference.state) {
        void *generic = w->setup_ours("generic", key, key_len);
        if (generic) {
            set->reference = (bench_impl){"generic", 0, w->run_ours, w->teardown_ours, generic};
            set->reference_owned = 1;
        }
    }
    aesgen_select_isa("auto");
}

static void free_impls(impl_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        set->impls[i].teardown(set->impls[i].state);
    if (set->reference_owned)
        set->reference.teardown(set->reference.state);
    memset(set, 0, sizeof *set);
}

/* ---- timing ---- */

typedef struct bench_buffers {
    uint8_t *src;
    uint8_t *dst;
    uint8_t *check;              /* the reference output when verifying */
} bench_buffers;

/*
 * Where a pass puts src and dst: both moved by the same multiple of 64 bytes within a
 * page, a different one each pass (11 is odd, so 64 passes visit all 64 offsets).
 * Why: a load whose address matches an in-flight store's in bits 11:0 waits for it on
 * the CPUs we measure (4K aliasing).  With one fixed placement, whether the contexts'
 * round keys share page offsets with the last stores to dst was decided by the sizes of
 * everything allocated before them: on Zen 5 CTR AES-128 at 256 B read 62% of the
 * ceiling in the full bench and 84% in a bench of CTR cases alone, with the same code.
 * Every implementation of a case is timed at the same placement in a pass, and src holds
 * the same bytes at every placement (GCM decryption's tags are made once per length).
 */
#define BENCH_PLACEMENTS 64
#define BENCH_PLACEMENT_SPAN 4096

static size_t placement_shift(int pass)
{
    return pass < 0 ? 0 : (size_t)pass * 11 % BENCH_PLACEMENTS * 64;
}

static bench_buffers placed_buffers(const bench_buffers *b, int pass)
{
    bench_buffers p = {b->src + placement_shift(pass), b->dst + placement_shift(pass),
                       b->check};
    return p;
}

/* The messages' bytes, the same wherever src is placed. */
static void fill_source(uint8_t *src, size_t size)
{
    for (size_t i = 0; i < size; i++)
        src[i] = (uint8_t)(i * 7 + 3);
}

/* One workload and key size: its implementations. */
typedef struct bench_block {
    const bench_workload *workload;
    unsigned keybits;
    impl_set set;
} bench_block;

/* One (block, length): batch sizes and the per-message time of every sample. */
typedef struct bench_case {
    const bench_block *block;
    size_t len;
    size_t batch[BENCH_MAX_IMPLS];
    int verified[BENCH_MAX_IMPLS];
    double ns_per_msg[BENCH_MAX_IMPLS][BENCH_MAX_SAMPLES];
    double ceiling_at[BENCH_MAX_IMPLS][BENCH_MAX_SAMPLES];  /* block-rounds/s next to it */
} bench_case;


static double time_batch_ns(const bench_impl *impl, const bench_buffers *b, size_t len,
                            size_t count)
{
    double t0 = bench_now_ns();
    impl->run(impl->state, b->dst, b->src, len, count);
    return bench_now_ns() - t0;
}

/* Messages per batch so that one batch takes about the target time. */
static size_t calibrate_batch(const bench_impl *impl, const bench_buffers *b, size_t len,
                              double target_ns)
{
    size_t count = 1;
    for (;;) {
        double dt = time_batch_ns(impl, b, len, count);
        if (dt >= target_ns || count >= ((size_t)1 << 30))
            return count;
        double scale = dt > 0 ? target_ns / dt * 1.1 : 16.0;
        if (scale > 16.0)
            scale = 16.0;   /* the first runs are cold; do not overshoot from them */
        size_t next = (size_t)((double)count * scale);
        count = next > count ? next : count + 1;
    }
}

/* 1 = same output as the reference, 0 = differs, -1 = nothing to compare with. */
static int verify_impl(const bench_impl *impl, const impl_set *set, const bench_buffers *b,
                       size_t len)
{
    if (!set->reference.state)
        return -1;
    size_t out = len + set->workload->extra_out;   /* GCM: the tag after the text */
    memset(b->check, 0, out);
    set->reference.run(set->reference.state, b->check, b->src, len, 1);
    memset(b->dst, 0, out);
    impl->run(impl->state, b->dst, b->src, len, 1);
    return memcmp(b->dst, b->check, out) == 0;
}

static void prepare_case(bench_case *c, const bench_buffers *b, const bench_options *o)
{
    const impl_set *set = &c->block->set;
    for (size_t i = 0; i < set->n; i++) {
        c->verified[i] = verify_impl(&set->impls[i], set, b, c->len);
        c->batch[i] = calibrate_batch(&set->impls[i], b, c->len, o->sample_target_ns);
    }
}

/*
 * One sample of every implementation of a case.  A short untimed run of each first
 * brings its code and state back into the caches the previous case evicted; then each
 * times one batch, the starting implementation rotating with the pass.
 * pass < 0: warm-up only, nothing recorded.
 */
static void visit_case(bench_case *c, int pass, const bench_buffers *buffers)
{
    const bench_buffers placed = placed_buffers(buffers, pass), *b = &placed;
    const impl_set *set = &c->block->set;
    size_t n = set->n;
    for (size_t i = 0; i < n; i++)
        set->impls[i].run(set->impls[i].state, b->dst, b->src, c->len, c->batch[i] / 8 + 1);
    for (size_t k = 0; k < n; k++) {
        size_t i = (k + (size_t)(pass < 0 ? 0 : pass)) % n;
        /* The first chain run brings the core to the wide-vector power level (it runs
         * wide instructions slowly for a while after narrow code); the second is timed. */
        double ceiling = 0;
        if (adjacent.iters) {
            bench_ceiling_rate(adjacent.width, adjacent.variant, adjacent.iters);
            ceiling = bench_ceiling_rate(adjacent.width, adjacent.variant, adjacent.iters);
        }
        set->impls[i].run(set->impls[i].state, b->dst, b->src, c->len, 4);
        double dt = time_batch_ns(&set->impls[i], b, c->len, c->batch[i]);
        if (pass >= 0) {
            c->ns_per_msg[i][pass] = dt / (double)c->batch[i];
            c->ceiling_at[i][pass] = ceiling;
        }
    }
}

static bench_result make_result(const bench_case *c, size_t i, const bench_options *o,
                                 const bench_machine *m)
{
    const bench_workload *w = c->block->workload;
    const bench_impl *impl = &c->block->set.impls[i];
    const unsigned keybits = c->block->keybits;
    const double blocks = (double)((c->len + 15) / 16 + w->extra_blocks);
    const double rounds = 6 + keybits / 32;   /* 10, 12, 14 round instructions per block */
    double samples[BENCH_MAX_SAMPLES];
    memcpy(samples, c->ns_per_msg[i], o->samples * sizeof samples[0]);
    const double ns = bench_median(samples, o->samples);
    bench_result r = {
        .workload = w,
        .keybits = keybits,
        .len = c->len,
        .impl = impl->name,
        .is_peer = impl->is_peer,
        .ns_per_msg = ns,
        .gb_per_s = (double)c->len / ns,
        .cycles_per_byte = ns * m->core_ghz / (double)c->len,
        .tsc_per_msg = ns * m->tsc_ghz,
        .pct_ceiling = -1,
        .batch = c->batch[i],
        .samples = o->samples,
        .verified = c->verified[i],
    };
    /* % of ceiling: the median over samples of each sample's rate against the ceiling
     * run right before it, so clock changes between samples cancel out. */
    if (adjacent.iters) {
        double pct[BENCH_MAX_SAMPLES];
        for (unsigned s = 0; s < o->samples; s++)
            pct[s] = 100.0 * (blocks * rounds / (c->ns_per_msg[i][s] * 1e-9))
                     / c->ceiling_at[i][s];
        r.pct_ceiling = bench_median(pct, o->samples);
    } else if (m->ceiling > 0) {
        r.pct_ceiling = 100.0 * (blocks * rounds / (ns * 1e-9)) / m->ceiling;
    }
    return r;
}

/* ---- the run ---- */

/* Blocks for the selected workloads and key sizes; NULL on allocation failure. */
static bench_block *make_blocks(const bench_options *o, size_t *n_blocks)
{
    bench_block *blocks = calloc(bench_workload_count * N_KEY_BITS, sizeof *blocks);
    size_t n = 0;
    if (!blocks)
        return NULL;
    for (size_t wi = 0; wi < bench_workload_count; wi++) {
        const bench_workload *w = &bench_workloads[wi];
        if (!bench_filter_allows_workload(o->filter, w))
            continue;
        for (size_t k = 0; k < N_KEY_BITS; k++) {
            if (!bench_filter_allows_number(o->filter, "bits", bench_key_bits[k]))
                continue;
            bench_block *blk = &blocks[n++];
            blk->workload = w;
            blk->keybits = bench_key_bits[k];
            build_impls(&blk->set, w, blk->keybits, o);
        }
    }
    *n_blocks = n;
    return blocks;
}

/* Cases for every block and selected length; NULL on allocation failure. */
static bench_case *make_cases(const bench_block *blocks, size_t n_blocks,
                              const bench_options *o, size_t *n_cases)
{
    bench_case *cases = calloc(n_blocks * o->n_lengths + 1, sizeof *cases);
    size_t n = 0;
    if (!cases)
        return NULL;
    for (size_t bi = 0; bi < n_blocks; bi++) {
        if (blocks[bi].set.n == 0)
            continue;
        for (size_t l = 0; l < o->n_lengths; l++) {
            if (!bench_filter_allows_number(o->filter, "len", o->lengths[l]))
                continue;
            cases[n].block = &blocks[bi];
            cases[n].len = o->lengths[l];
            n++;
        }
    }
    *n_cases = n;
    return cases;
}

/*
 * Every pass samples the machine probes and every case once, so the samples of one
 * case are spread over the whole run and a burst of load on a shared machine spoils a
 * few samples of many cases (which the median drops) rather than all of a few.
 */
static void run_passes(bench_case *cases, size_t n_cases, const bench_options *o,
                       const bench_machine *m, machine_probe *probe, const bench_buffers *b)
{
    double t0 = bench_now_ns();
    for (size_t c = 0; c < n_cases; c++)
        visit_case(&cases[c], -1, b);
    double pass_s = (bench_now_ns() - t0) / 1e9;
    fprintf(stderr, "bench: %zu cases, %u passes of ~%.2f s each: ", n_cases, o->samples,
            pass_s);
    for (unsigned pass = 0; pass < o->samples; pass++) {
        fill_source(placed_buffers(b, (int)pass).src, BENCH_MAX_LEN + BENCH_EXTRA_OUT);
        sample_machine(m, probe, pass);
        for (size_t c = 0; c < n_cases; c++)
            visit_case(&cases[c], (int)pass, b);
        fputc('.', stderr);
    }
    fputc('\n', stderr);
}

/* tcrypt numbers its tests across key sizes: continue after this workload's earlier
 * blocks (assumes every block of a workload has the same lengths, as the filter makes). */
static unsigned tcrypt_first_test(const bench_block *blk, const bench_case *cases,
                                  size_t n_cases)
{
    unsigned first = 0;
    for (size_t c = 0; c < n_cases; c++)
        if (cases[c].block < blk && cases[c].block->workload == blk->workload)
            first++;
    return first;
}

static void report_block(const bench_block *blk, const bench_case *cases, size_t n_cases,
                         const bench_options *o, const bench_machine *m,
                         bench_result *results, size_t *n_results)
{
    size_t first = *n_results;
    for (size_t c = 0; c < n_cases; c++)
        if (cases[c].block == blk)
            for (size_t i = 0; i < blk->set.n; i++)
                results[(*n_results)++] = make_result(&cases[c], i, o, m);
    if (blk->set.n == 0) {
        printf("\n%s, AES-%u: no implementation selected\n", blk->workload->title,
               blk->keybits);
        return;
    }
    const char *names[BENCH_MAX_IMPLS];
    for (size_t i = 0; i < blk->set.n; i++)
        names[i] = blk->set.impls[i].name;
    bench_print_table(results + first, *n_results - first, names, blk->set.n, m);
    if (blk->workload->tcrypt_lines || o->tcrypt_all)
        bench_print_tcrypt(results + first, *n_results - first, names, blk->set.n,
                           tcrypt_first_test(blk, cases, n_cases));
}

static int alloc_buffers(bench_buffers *b)
{
    /* dst[len..]: e.g. a GCM tag; then room to move both (placed_buffers) */
    const size_t size = BENCH_MAX_LEN + BENCH_EXTRA_OUT + BENCH_PLACEMENT_SPAN;
    b->src = aligned_alloc(64, size);
    b->dst = aligned_alloc(64, size);
    b->check = aligned_alloc(64, size);
    if (!b->src || !b->dst || !b->check)
        return 0;
    fill_source(b->src, size);
    memset(b->dst, 0, size);
    memset(b->check, 0, size);
    return 1;
}

static void free_buffers(bench_buffers *b)
{
    free(b->src);
    free(b->dst);
    free(b->check);
}

static void print_run_header(const bench_options *o)
{
    printf("method: one pinned process; %u passes, each samples the clock, the ceiling and\n"
           "        every case once (all implementations of a case round-robin, the first\n"
           "        rotating); a sample is a batch of ~%.0f us; medians; one untimed pass\n"
           "        first, and a short untimed run of each implementation before each sample\n",
           o->samples, o->sample_target_ns / 1e3);
    for (size_t i = 0; i < bench_workload_count; i++) {
        const bench_workload *w = &bench_workloads[i];
        if (!bench_filter_allows_workload(o->filter, w))
            continue;
        printf("per message, %s: ours = %s\n", w->title, w->ours_per_message);
        printf("per message, %s: openssl = %s\n", w->title,
               w->peer_per_message ? w->peer_per_message : "- (OpenSSL lacks this mode)");
    }
    printf("skipped ISAs:");
    int any = 0;
    for (size_t i = 0; i < N_ASM_ISAS; i++)
        if (!aesgen_isa_supported(bench_asm_isas[i]))
            printf(" %s (not built or not usable here)", bench_asm_isas[i]), any = 1;
    if (!o->with_generic)
        printf(" generic (use --with-generic)"), any = 1;
    printf("%s\n", any ? "" : " none");
}

/* Whether path can be written without writing it: the file if it exists, else its
 * directory. */
static int writable(const char *path)
{
    if (access(path, F_OK) == 0)
        return access(path, W_OK) == 0;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n >= sizeof dir)
        return 0;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return access(slash ? (n ? dir : "/") : ".", W_OK) == 0;
}

/* Whether the filter token's value (key=value, vlen bytes of value) names something this
 * run could time; if not, the message names it and the values that exist. */
static int filter_value_exists(const char *key, const char *value, size_t vlen,
                               const bench_options *o)
{
    char text[64];
    if (vlen >= sizeof text)
        return 0;
    memcpy(text, value, vlen);
    text[vlen] = '\0';
    if (strcmp(key, "mode") == 0) {
        for (size_t i = 0; i < bench_workload_count; i++)
            if (strcmp(bench_workloads[i].mode, text) == 0 ||
                (bench_workloads[i].family && strcmp(bench_workloads[i].family, text) == 0))
                return 1;
    } else if (strcmp(key, "bits") == 0) {
        for (size_t i = 0; i < N_KEY_BITS; i++)
            if (strtoul(text, NULL, 10) == bench_key_bits[i] && text[0] != '0' &&
                strspn(text, "0123456789") == vlen)
                return 1;
    } else if (strcmp(key, "len") == 0) {
        for (size_t i = 0; i < o->n_lengths; i++)
            if (strspn(text, "0123456789") == vlen && vlen && text[0] != '0' &&
                strtoul(text, NULL, 10) == o->lengths[i])
                return 1;
    } else if (strcmp(key, "impl") == 0) {
        for (size_t i = 0; i < N_ASM_ISAS; i++)
            if (strcmp(bench_asm_isas[i], text) == 0)
                return 1;
        for (size_t i = 0; i < N_OTHER_IMPLS; i++)
            if (strcmp(bench_other_impls[i], text) == 0)
                return 1;
    }
    return 0;
}

/* " a", then ", b": a list in a message. */
static void list_item(int *first, const char *item)
{
    fprintf(stderr, "%s%s", *first ? " " : ", ", item);
    *first = 0;
}

/* Every value of the filter names a mode, key size, length or implementation there is
 * (a misspelled one would time nothing and write an empty results file over the last
 * one); 0 after a message naming the value and the valid ones. */
static int filter_values_exist(const bench_options *o)
{
    for (const char *p = o->filter; p && *p;) {
        size_t tok = strcspn(p, ",");
        const char *eq = memchr(p, '=', tok);
        char key[8] = "";
        if (eq && (size_t)(eq - p) < sizeof key)
            memcpy(key, p, (size_t)(eq - p));
        if (eq && !filter_value_exists(key, eq + 1, tok - (size_t)(eq - p) - 1, o)) {
            fprintf(stderr, "bench: filter %.*s names nothing; %s:", (int)tok, p, key);
            int first = 1;
            if (strcmp(key, "mode") == 0) {
                for (size_t i = 0; i < bench_workload_count; i++)
                    list_item(&first, bench_workloads[i].mode);
                for (size_t i = 0; i < bench_workload_count; i++)   /* each family once */
                    if (bench_workloads[i].family &&
                        (i == 0 || !bench_workloads[i - 1].family ||
                         strcmp(bench_workloads[i - 1].family, bench_workloads[i].family) != 0))
                        list_item(&first, bench_workloads[i].family);
            } else if (strcmp(key, "bits") == 0) {
                for (size_t i = 0; i < N_KEY_BITS; i++) {
                    char bits[16];
                    snprintf(bits, sizeof bits, "%u", bench_key_bits[i]);
                    list_item(&first, bits);
                }
            } else if (strcmp(key, "len") == 0) {
                for (size_t i = 0; i < o->n_lengths; i++) {
                    char len[24];
                    snprintf(len, sizeof len, "%zu", o->lengths[i]);
                    list_item(&first, len);
                }
                fprintf(stderr, " (the run's lengths: --lengths)");
            } else {
                for (size_t i = 0; i < N_ASM_ISAS; i++)
                    list_item(&first, bench_asm_isas[i]);
                for (size_t i = 0; i < N_OTHER_IMPLS; i++)
                    list_item(&first, bench_other_impls[i]);
            }
            fprintf(stderr, "\n");
            return 0;
        }
        p += tok + (p[tok] == ',');
    }
    return 1;
}

int main(int argc, char **argv)
{
    bench_options o;
    bench_machine m;
    bench_buffers b;
    static machine_probe probe;
    size_t n_blocks = 0, n_cases = 0, n_results = 0;

    if (!bench_parse_options(argc, argv, &o) || !filter_values_exist(&o))
        return 2;
    if (o.json_path && !writable(o.json_path)) {   /* before the run, not after it */
        fprintf(stderr, "bench: cannot write %s\n", o.json_path);
        return 2;
    }
    double start = bench_now_ns();
    identify_machine(&o, &m);
    if (o.cpu >= 0 && m.cpu < 0) {
        char allowed[256];
        bench_allowed_cpus(allowed, sizeof allowed);
        fprintf(stderr, "bench: cannot pin to CPU %d; allowed: %s\n", o.cpu, allowed);
        return 2;
    }
    bench_block *blocks = make_blocks(&o, &n_blocks);
    bench_case *cases = blocks ? make_cases(blocks, n_blocks, &o, &n_cases) : NULL;
    if (cases && n_cases == 0) {    /* e.g. impl=generic without --with-generic, or an ISA
                                       this CPU lacks: nothing to time, nothing to write */
        fprintf(stderr, "bench: the filter '%s' selects nothing this run can time (generic "
                "needs --with-generic; ISAs this CPU runs:", o.filter ? o.filter : "");
        int first = 1;
        for (size_t i = 0; i < N_ASM_ISAS; i++)
            if (aesgen_isa_supported(bench_asm_isas[i]))
                list_item(&first, bench_asm_isas[i]);
        fprintf(stderr, ")\n");
        return 2;
    }
    bench_result *results = calloc(n_cases * BENCH_MAX_IMPLS + 1, sizeof *results);
    if (!cases || !results || !alloc_buffers(&b)) {
        fprintf(stderr, "bench: out of memory\n");
        return 1;
    }

    calibrate_machine_probe(&m, &probe);
    for (size_t c = 0; c < n_cases; c++)
        prepare_case(&cases[c], &b, &o);
    run_passes(cases, n_cases, &o, &m, &probe, &b);
    summarize_machine(&m, &probe, o.samples);

    bench_print_machine(&m);
    print_run_header(&o);
    for (size_t bi = 0; bi < n_blocks; bi++)
        report_block(&blocks[bi], cases, n_cases, &o, &m, results, &n_results);

    int rc = 0;
    printf("\n");
    if (o.json_path) {
        if (bench_write_json(o.json_path, results, n_results, &m, o.samples,
                             o.sample_target_ns)) {
            printf("results: %s (%zu records)\n", o.json_path, n_results);
        } else {
            fprintf(stderr, "bench: cannot write %s\n", o.json_path);
            rc = 1;
        }
    }
    printf("bench time: %.1f s\n", (bench_now_ns() - start) / 1e9);

    for (size_t bi = 0; bi < n_blocks; bi++)
        free_impls(&blocks[bi].set);
    free(blocks);
    free(cases);
    free(results);
    free_buffers(&b);
    return rc;
}
