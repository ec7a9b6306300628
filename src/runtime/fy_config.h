/* Config table: every user-tunable setting of Ferry, read once from the
 * environment at MPI_Init (or on first use) into the global fy_config.
 * Contract: fields are named by the table in fy_config_table.def; SIZE and
 * INT are long, DOUBLE is double, BOOL is int, STRING is const char *.
 * A malformed value is reported on stderr and the default is kept. */
#ifndef FY_CONFIG_H
#define FY_CONFIG_H
#include <stdio.h>

#define FY_CFG_T_INT long
#define FY_CFG_T_SIZE long
#define FY_CFG_T_DOUBLE double
#define FY_CFG_T_BOOL int
#define FY_CFG_T_STRING const char *

typedef struct fy_config {
#define FY_CFG(field, name, type, def, doc) FY_CFG_T_##type field;
#include "runtime/fy_config_table.def"
#undef FY_CFG
} fy_config_t;

extern fy_config_t fy_config;

/* Load from the environment; idempotent. */
void fy_config_load(void);
/* A SIZE value ("16k", "2m", "1g", an optional trailing b): 0, or -1
 * when s is not one (for STRING settings that also take a size). */
int fy_config_parse_size(const char *s, long *out);
/* A STRING setting that takes a size or "auto" (name: its variable, for
 * the message): the size, or -1 for auto or unset; a value that is
 * neither is reported on stderr and taken as auto. */
long fy_config_size_or_auto(const char *name, const char *v);
/* Print every entry (name, default, current value, doc) to f. */
void fy_config_print(FILE *f);
#endif
