/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Guard-page arenas for the page-edge tests (test_page_edge.c, test_gcm_edge.c):
 * buffers that end exactly where an inaccessible page begins, or start right
 * after one, and a SIGSEGV/SIGBUS catcher so a fault is counted as a failure
 * (naming the case and the address) instead of ending the run.
 *
 * Layout of one arena, every page PAGE bytes:
 *     [guard][data x ARENA_DATA_PAGES][guard][data x ARENA_DATA_PAGES][guard]
 *
 * Use:
 *     if (sigsetjmp(fault_return, 1) != 0) { ...report the fault...; return; }
 *     fault_armed = 1;
 *     ...the call that may touch a guard page...
 *     fault_armed = 0;
 */
#ifndef AESGEN_TEST_PAGE_ARENA_H
#define AESGEN_TEST_PAGE_ARENA_H

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { ARENA_DATA_PAGES = 3 };

struct arena {
    uint8_t *base;
    size_t page, data_size, total;
    uint8_t *src_area, *dst_area;     /* start of each data area */
};

bool arena_map(struct arena *a);
void arena_unmap(struct arena *a);

/* A buffer of len bytes in an area: ending at the guard after it, or starting
 * right after the guard before it. */
uint8_t *arena_place(uint8_t *area, size_t area_size, size_t len, bool at_end);

/* Where a page-edge case puts its buffers. */
struct edge_placement {
    const char *name;
    bool at_end;        /* true: buffers end at the next guard; false: start after one */
    bool in_place;
};

/* Ending at a guard page, starting after one ([0] and [1]), then both in place. */
enum { EDGE_PLACEMENT_COUNT = 4 };
extern const struct edge_placement edge_placements[EDGE_PLACEMENT_COUNT];

/* The name of a one-buffer placement: edge_placements[0] or [1]. */
const char *edge_side_name(bool at_end);

/* src of len bytes in the first data area, dst in the second (or dst = src in
 * place), both placed as p says. */
void arena_place_pair(const struct arena *a, const struct edge_placement *p, size_t len,
                      uint8_t **src, uint8_t **dst);

extern sigjmp_buf fault_return;
extern volatile sig_atomic_t fault_armed;
extern void *volatile fault_address;

struct fault_catcher {
    struct sigaction old_segv, old_bus;
};

void catch_faults(struct fault_catcher *c);
void release_faults(const struct fault_catcher *c);

/* The page-edge groups' setup and teardown: maps the arena (a counted check)
 * and catches faults; false, with nothing to undo, if the mapping failed. */
bool arena_open_catching(struct arena *a, struct fault_catcher *c);
void arena_close_catching(struct arena *a, const struct fault_catcher *c);

/* A canary on a placed buffer's free side (the bytes before it when it ends at a guard,
 * after it when it starts after one): a stray write inside the page, which no fault
 * shows.  arena_set_canary returns the canary's place, NULL where the area has no room
 * beside the buffer; arena_canary_intact(NULL) is true. */
enum { ARENA_CANARY_BYTES = 32 };
uint8_t *arena_set_canary(const struct arena *a, bool at_end, uint8_t *buf, size_t len);
bool arena_canary_intact(const uint8_t *canary);

/* A named buffer, to say where a fault hit. */
struct fault_region {
    const char *name;
    const uint8_t *start;
    size_t len;
};

/* "N bytes past the end of <name>", "N bytes before <name>" (within a page of
 * one of the regions, first match), else the address. */
void describe_fault_in(char *out, size_t cap, const struct fault_region *regions, size_t n);

#endif
