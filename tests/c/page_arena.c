/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* Guard-page arenas and the fault catcher of page_arena.h. */
#define _GNU_SOURCE
#include "page_arena.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

bool arena_map(struct arena *a)
{
    a->page = (size_t)sysconf(_SC_PAGESIZE);
    a->data_size = ARENA_DATA_PAGES * a->page;
    a->total = 3 * a->page + 2 * a->data_size;
    a->base = mmap(NULL, a->total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a->base == MAP_FAILED)
        return false;
    a->src_area = a->base + a->page;
    a->dst_area = a->src_area + a->data_size + a->page;
    return mprotect(a->base, a->page, PROT_NONE) == 0
           && mprotect(a->src_area + a->data_size, a->page, PROT_NONE) == 0
           && mprotect(a->dst_area + a->data_size, a->page, PROT_NONE) == 0;
}

enum { CANARY = 0xa5 };

uint8_t *arena_set_canary(const struct arena *a, bool at_end, uint8_t *buf, size_t len)
{
    if (len + ARENA_CANARY_BYTES > a->data_size)
        return NULL;
    uint8_t *canary = at_end ? buf - ARENA_CANARY_BYTES : buf + len;
    memset(canary, CANARY, ARENA_CANARY_BYTES);
    return canary;
}

bool arena_canary_intact(const uint8_t *canary)
{
    for (size_t i = 0; canary != NULL && i < ARENA_CANARY_BYTES; i++)
        if (canary[i] != CANARY)
            return false;
    return true;
}

void arena_unmap(struct arena *a)
{
    munmap(a->base, a->total);
    a->base = NULL;
}

uint8_t *arena_place(uint8_t *area, size_t area_size, size_t len, bool at_end)
{
    return at_end ? area + area_size - len : area;
}

const struct edge_placement edge_placements[EDGE_PLACEMENT_COUNT] = {
    { "ending at a guard page", true, false },
    { "starting after a guard page", false, false },
    { "in place, ending at a guard page", true, true },
    { "in place, starting after a guard page", false, true },
};

const char *edge_side_name(bool at_end)
{
    return edge_placements[at_end ? 0 : 1].name;
}

void arena_place_pair(const struct arena *a, const struct edge_placement *p, size_t len,
                      uint8_t **src, uint8_t **dst)
{
    *src = arena_place(a->src_area, a->data_size, len, p->at_end);
    *dst = p->in_place ? *src : arena_place(a->dst_area, a->data_size, len, p->at_end);
}

/* ---- Surviving a fault -------------------------------------------------- */

sigjmp_buf fault_return;
volatile sig_atomic_t fault_armed;
void *volatile fault_address;

static void on_fault(int sig, siginfo_t *info, void *context)
{
    (void)context;
    if (!fault_armed) {            /* not ours: die as usual */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    fault_armed = 0;
    fault_address = info->si_addr;
    siglongjmp(fault_return, 1);
}

void catch_faults(struct fault_catcher *c)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &c->old_segv);
    sigaction(SIGBUS, &sa, &c->old_bus);
}

void release_faults(const struct fault_catcher *c)
{
    sigaction(SIGSEGV, &c->old_segv, NULL);
    sigaction(SIGBUS, &c->old_bus, NULL);
}

void describe_fault_in(char *out, size_t cap, const struct fault_region *regions, size_t n)
{
    const uint8_t *at = fault_address;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *start = regions[i].start, *end = start + regions[i].len;
        if (at >= end && at < end + 4096) {
            snprintf(out, cap, "%zu bytes past the end of %s", (size_t)(at - end), regions[i].name);
            return;
        }
        if (at < start && at >= start - 4096) {
            snprintf(out, cap, "%zu bytes before %s", (size_t)(start - at), regions[i].name);
            return;
        }
    }
    snprintf(out, cap, "address %p", fault_address);
}

/* ---- A page-edge group's arena -------------------------------------------- */

bool arena_open_catching(struct arena *a, struct fault_catcher *c)
{
    if (!check(arena_map(a), "map pages with PROT_NONE guards"))
        return false;
    catch_faults(c);
    return true;
}

void arena_close_catching(struct arena *a, const struct fault_catcher *c)
{
    release_faults(c);
    arena_unmap(a);
}
