/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/json_read.h — typed reads of the --json files cclab writes, for the
 * commands that read them back (`cclab compare`, `cclab calibrate`).
 *
 * The files are read as JSON by jansson (util/yaml.h cy_load_json_*: not
 * as YAML, which JSON is not, "\ud83d\ude00" being one difference) into
 * the tree the YAML loader builds, so every complaint carries
 * file:line:col.  Readers check only the keys they use and ignore the
 * rest: the files grow with every executor, and a newer file must still
 * be read. */
#ifndef CCLAB_CLI_JSON_READ_H
#define CCLAB_CLI_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/yaml.h"

/* Loads a --json file (or text, named `name` in messages): 0 with doc
 * filled, or an error in err (doc left empty).  A file that is not JSON
 * from its first word on but that the YAML loader reads (a CSV table, a
 * scenario or fabric file) is named for what it is, "file:1:1: this is a
 * trace CSV ..., not a --json result: <reads>", `reads` saying what the
 * command reads instead. */
int cli_json_load_file(const char *path, const char *reads, struct cy_doc *doc,
		       struct cy_error *err);
int cli_json_load_string(const char *name, const char *text, size_t len, const char *reads,
			 struct cy_doc *doc, struct cy_error *err);

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

/* What a file read as JSON is, so that a reader given another command's
 * file can say which it is instead of naming the first key it lacks.
 * cclab's --json files begin with "cclab_version" and "command"
 * (cli_json_head); the command, and for a collective the executor, tell
 * them apart. */
enum cli_json_kind {
	CLI_JSON_NOT_CCLAB,  /* not a mapping, or one without "command" */
	CLI_JSON_UNKNOWN,    /* a "command" that no writer of this version uses */
	CLI_JSON_COLLECTIVE, /* sim, run: a collective timed by the sim or verbs executor */
	CLI_JSON_CHECK,      /* check, or run on the data executor: no times */
	CLI_JSON_P2P,        /* p2p, or run of a p2p scenario */
	CLI_JSON_TUNE,
	CLI_JSON_CALIBRATE,
};

/* The kind of root, with a phrase for messages in buf ("a `cclab p2p
 * --json` result (write lat, point-to-point)"); *at is the node to report
 * at (the "command" value, or root). */
enum cli_json_kind cli_json_kind(const struct cy_node *root, char *buf, size_t len,
				 const struct cy_node **at);

/* s for a message: at most max bytes, a control character shown as '?',
 * "..." when cut.  Values read from a file go through it before they
 * reach a terminal. */
const char *cli_json_shown(const char *s, size_t max, char *buf, size_t len);

#endif /* CCLAB_CLI_JSON_READ_H */
