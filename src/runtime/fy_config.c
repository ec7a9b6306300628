/* Config table loader: see fy_config.h. */
#include "runtime/fy_config.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <stddef.h>

fy_config_t fy_config;
static int loaded;

typedef enum { T_INT, T_SIZE, T_DOUBLE, T_BOOL, T_STRING } cfg_type_t;

typedef struct {
  const char *name, *def, *doc, *type_name;
  cfg_type_t type;
  size_t off;
} cfg_desc_t;

static const cfg_desc_t table[] = {
#define FY_CFG(field, name, type, def, doc) \
  {name, def, doc, #type, T_##type, offsetof(fy_config_t, field)},
#include "runtime/fy_config_table.def"
#undef FY_CFG
};

int fy_config_parse_size(const char *s, long *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || v < 0) return -1;
  switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024.0 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
  }
  if (*end == 'b' || *end == 'B') end++;
  if (*end) return -1;
  *out = (long)v;
  return 0;
}

long fy_config_size_or_auto(const char *name, const char *v) {
  long n;
  if (!v || !strcmp(v, "auto")) return -1;
  if (fy_config_parse_size(v, &n) == 0) return n;
  fprintf(stderr, "ferry: %s=%s is neither a size nor auto; using auto\n", name, v);
  return -1;
}

static int parse_bool(const char *s, int *out) {
  if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on")) { *out = 1; return 0; }
  if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcasecmp(s, "off")) { *out = 0; return 0; }
  return -1;
}

static int parse_into(const cfg_desc_t *d, const char *s) {
  void *p = (char *)&fy_config + d->off;
  char *end;
  switch (d->type) {
    case T_INT: {
      errno = 0;
      long v = strtol(s, &end, 0);
      if (end == s || *end || errno) return -1;
      *(long *)p = v;
      return 0;
    }
    case T_SIZE: return fy_config_parse_size(s, (long *)p);
    case T_DOUBLE: {
      errno = 0;
      double v = strtod(s, &end);
      if (end == s || *end || errno) return -1;
      *(double *)p = v;
      return 0;
    }
    case T_BOOL: return parse_bool(s, (int *)p);
    case T_STRING: *(const char **)p = s; return 0;
  }
  return -1;
}

void fy_config_load(void) {
  if (loaded) return;
  loaded = 1;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    const cfg_desc_t *d = &table[i];
    parse_into(d, d->def);
    const char *env = getenv(d->name);
    if (env && *env && parse_into(d, env) != 0) {
      fprintf(stderr, "ferry: ignoring %s=\"%s\" (not a valid %s); using default %s\n",
              d->name, env, d->type_name, d->def);
      parse_into(d, d->def);
    }
  }
}

void fy_config_print(FILE *f) {
  fy_config_load();
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    const cfg_desc_t *d = &table[i];
    const char *env = getenv(d->name);
    fprintf(f, "  %-24s %-7s default %-8s%s%s%s\n      %s\n", d->name, d->type_name, d->def,
            env ? " (set: " : "", env ? env : "", env ? ")" : "", d->doc);
  }
}
