/* Asynchronous progress agents: selection by FERRY_PROGRESS. This release
 * has the synchronous engine only ("none"); thread, interrupt and pef are
 * the asynchronous-progress issue. */
#include "runtime/fy_config.h"
#include <stdio.h>
#include <string.h>

int fy_async_start(void) {
  const char *m = fy_config.progress;
  if (strcmp(m, "none") && strcmp(m, "auto"))
    fprintf(stderr, "ferry: FERRY_PROGRESS=%s is not available in this build; using none\n", m);
  return 0;
}

void fy_async_stop(void) {}

void fy_async_stats(FILE *f) { (void)f; }
