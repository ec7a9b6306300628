/* Local copies: large ones in pieces (see fy_copy.h for why), and the
 * typed copy between two datatypes. */
#include "datatype/fy_copy.h"
#include "datatype/fy_datatype.h"
#include "runtime/fy_config.h"
#include <cpuid.h>

size_t fy_copy_chunk;

int fy_cpu_is_amd(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
  /* "AuthenticAMD" in ebx, edx, ecx */
  return b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u;
}

void fy_copy_init(void) {
  long n = fy_config_size_or_auto("FERRY_COPY_CHUNK", fy_config.copy_chunk);
  if (n < 0) n = fy_cpu_is_amd() ? 256 * 1024 : 0; /* auto */
  /* A piece below a few KiB would leave rep movsb's range the other way. */
  if (n > 0 && n < 16384) n = 16384;
  fy_copy_chunk = (size_t)n;
}

void fy_copy_pieces(void *dst, const void *src, size_t n) {
  char *d = (char *)dst;
  const char *s = (const char *)src;
  size_t c = fy_copy_chunk;
  for (; n > c; n -= c, d += c, s += c) memcpy(d, s, c);
  memcpy(d, s, n);
}

void fy_type_copy(const void *src, MPI_Count scount, const fy_datatype_t *st, void *dst, MPI_Count rcount,
                  const fy_datatype_t *rt, void *tmp) {
  size_t bytes = (size_t)(scount * st->size);
  if (st->is_contig && rt->is_contig) {
    fy_move((char *)dst + rt->true_lb, (const char *)src + st->true_lb, bytes);
  } else if (st->is_contig) {
    fy_type_unpack(rt, rcount, (const char *)src + st->true_lb, bytes, dst);
  } else if (rt->is_contig) {
    fy_type_pack(st, scount, src, (char *)dst + rt->true_lb);
  } else {
    fy_type_pack(st, scount, src, tmp);
    fy_type_unpack(rt, rcount, tmp, bytes, dst);
  }
}
