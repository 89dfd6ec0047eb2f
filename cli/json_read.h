/* cli/json_read.h — typed reads of the --json files cclab writes, for the
 * commands that read them back (`cclab compare`, `cclab calibrate`).
 *
 * JSON is YAML's flow syntax, so the project's loader (core/yaml.h) reads
 * it and every complaint carries file:line:col.  Readers check only the
 * keys they use and ignore the rest: the files grow with every executor,
 * and a newer file must still be read. */
#ifndef CCLAB_CLI_JSON_READ_H
#define CCLAB_CLI_JSON_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "core/yaml.h"

/* JSON's null, as the loader keeps it: the plain scalar "null". */
bool cli_json_is_null(const struct cy_node *n);

/* The number (RFC 8259's grammar, finite) or null (NAN) at m's `key` into
 * *out; a missing key is an error only if `need` (NAN otherwise). */
int cli_json_number(const struct cy_node *m, const char *key, bool need, double *out,
		    struct cy_error *err);

/* The required string / unsigned integer (>= min) at m's `key`; `what`
 * names m in the message when the key is missing ("a size entry"). */
int cli_json_string(const struct cy_node *m, const char *what, const char *key,
		    const char **out, struct cy_error *err);
int cli_json_uint(const struct cy_node *m, const char *what, const char *key, uint64_t min,
		  uint64_t *out, struct cy_error *err);

#endif /* CCLAB_CLI_JSON_READ_H */
