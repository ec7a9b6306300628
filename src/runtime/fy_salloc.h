/* Signal-safe small-object allocator: the memory that point-to-point state
 * needs while a PEF turn runs in a signal handler (unexpected-message
 * descriptors and eager payloads, queued control packets).
 *
 * Contract
 * - fy_salloc(n) returns n bytes (16-byte aligned) or NULL when the system
 *   has no memory left; fy_sfree(p) gives them back (p may be NULL).
 * - Both are async-signal-safe: free lists per size class, refilled with
 *   mmap (a system call, no libc heap state), never malloc. The caller
 *   serialises calls (the progress lock; a PEF turn holds it).
 * - Memory goes back to the free lists, not to the system, until
 *   fy_salloc_finalize(); fy_salloc_mapped() says how much is mapped.
 * - Sizes up to fy_salloc_max() (set by fy_salloc_init, at least 64 KiB);
 *   larger requests return NULL. */
#ifndef FY_SALLOC_H
#define FY_SALLOC_H
#include <stddef.h>

void fy_salloc_init(size_t max_size);
void fy_salloc_finalize(void);
void *fy_salloc(size_t n);
void fy_sfree(void *p);
size_t fy_salloc_max(void);
size_t fy_salloc_mapped(void);
#endif
