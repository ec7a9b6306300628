/* Large local copies (fy_copy): memcpy in pieces of FERRY_COPY_CHUNK.
 * Contract: same as memcpy (no overlap; fy_move for ranges that may
 * overlap); safe to call before MPI_Init (then one memcpy).
 * Why: glibc 2.33+ on AMD CPUs stops using `rep movsb` above the L2 size
 * and copies with a vector loop instead, which on the EPYC VM this was
 * measured on is 15 % slower at 1-4 MiB and 35 % at 16 MiB (a copy within
 * the cache, both ways alike). Pieces below that size keep every call on
 * `rep movsb`. Elsewhere glibc keeps `rep movsb` up to its non-temporal
 * threshold, so the default there is one memcpy. */
#ifndef FY_COPY_H
#define FY_COPY_H
#include <stddef.h>
#include <string.h>

extern size_t fy_copy_chunk; /* 0: one memcpy; set by fy_copy_init */

/* Resolve FERRY_COPY_CHUNK (auto: 256 KiB on AMD CPUs, 0 elsewhere). */
void fy_copy_init(void);
/* 1 on an AMD CPU (cpuid vendor): the auto settings that follow glibc's
 * copy methods ask (FERRY_COPY_CHUNK, FERRY_PIPE_MAX_CONTIG). */
int fy_cpu_is_amd(void);
void fy_copy_pieces(void *dst, const void *src, size_t n);

static inline void fy_copy(void *dst, const void *src, size_t n) {
  if (__builtin_expect(n == 0, 0)) return; /* (a buffer of no bytes may be NULL: memcpy's is undefined) */
  if (__builtin_expect(fy_copy_chunk != 0 && n > fy_copy_chunk, 0))
    fy_copy_pieces(dst, src, n);
  else
    memcpy(dst, src, n);
}

/* memmove, with fy_copy when the ranges do not overlap. */
static inline void fy_move(void *dst, const void *src, size_t n) {
  const char *d = (const char *)dst, *s = (const char *)src;
  if (d + n <= s || s + n <= d)
    fy_copy(dst, src, n);
  else
    memmove(dst, src, n);
}
#endif
