/* EXPECT() for the plain unit tests: count a failed expectation with its
 * file and line and go on; main returns failures != 0. */
#ifndef FY_EXPECT_H
#define FY_EXPECT_H
#include <stdio.h>

static int failures;
#define EXPECT(c)                                                      \
  do {                                                                 \
    if (!(c)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #c); \
      failures++;                                                      \
    }                                                                  \
  } while (0)
#endif
