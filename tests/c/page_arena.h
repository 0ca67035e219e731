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

extern sigjmp_buf fault_return;
extern volatile sig_atomic_t fault_armed;
extern void *volatile fault_address;

struct fault_catcher {
    struct sigaction old_segv, old_bus;
};

void catch_faults(struct fault_catcher *c);
void release_faults(const struct fault_catcher *c);

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
