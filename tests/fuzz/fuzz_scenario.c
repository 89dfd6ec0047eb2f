/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/fuzz/fuzz_scenario.c — the YAML readers on arbitrary text: a
 * scenario (sim/scenario.h, through util/yaml.h, the fabric and topology
 * readers, p2p), and the same text as a topology file (sim/net_yaml.h) and
 * as a fabric file (sim/fabric_yaml.h).  Errors are expected; a crash, a
 * leak, a hang or an error without a message is a bug.
 *
 * cc_scenario_load() takes a path, and resolves the topology and fabric
 * files a scenario names against that path's directory, so the input is
 * written to scratch/scenarios/in.yaml, a directory of our own: names
 * resolve there, and scratch/topologies links to the repository's
 * topologies/ (when run from its root) so that "../topologies/star-8.yaml"
 * reads a real file as in scenarios/.  Lines "#set key=value" (comments to
 * YAML) become --set overrides (at most 4), to fuzz util/yaml_set.c too.
 * FUZZ_VERBOSE=1 prints each input's outcome as a scenario. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

#include "sim/fabric_yaml.h"
#include "sim/net_yaml.h"
#include "sim/scenario.h"
#include "tests/fuzz/fuzz.h"
#include "util/json.h"

#define MAX_SETS 4

static char path[PATH_MAX], dir[PATH_MAX];

static void write_input(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		fuzz_fail("cannot write %s", path);
}

/* The "#set " lines of text (NUL-terminated, modified in place). */
static uint32_t find_sets(char *text, const char *sets[MAX_SETS])
{
	uint32_t n = 0;

	for (char *line = text; line && n < MAX_SETS;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (!strncmp(line, "#set ", 5))
			sets[n++] = line + 5;
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

/* Whether the text asks for more than about 256 GPUs or switches: a
 * number after one of the keys that size a network (in YAML or a --set)
 * above 16, or such numbers whose product passes 4096.  Loading a network
 * of thousands of GPUs takes seconds at -O2 and far longer under the
 * fuzzer's instrumentation, which libFuzzer would report as a hang;
 * numbers past CC_MAX_RANKS are refused at once and stay in. */
static int too_big(const char *text)
{
	static const char *const keys[] = {"ranks", "gpus", "gpus_per_node", "hosts_per_leaf",
					   "leaves", "nodes", "spines", "count", NULL};
	uint64_t product = 1;

	for (const char *const *k = keys; *k; k++)
		for (const char *p = strstr(text, *k); p; p = strstr(p + 1, *k)) {
			const char *q = p + strlen(*k);
			uint64_t v = 0;

			q += strspn(q, "\"' \t\r\n:=");
			while (isdigit((unsigned char)*q) && v <= CC_MAX_RANKS)
				v = v * 10 + (uint64_t)(*q++ - '0');
			if (v > CC_MAX_RANKS)
				continue;
			if (v > 16 || (v > 1 && (product *= v) > 4096))
				return 1;
		}
	return 0;
}

static void scenario(char *text)
{
	const char *sets[MAX_SETS];
	struct cc_scenario sc;
	struct cy_error err = {{0}};
	uint32_t nsets;
	int rc;

	nsets = find_sets(text, sets);
	rc = cc_scenario_load(path, sets, nsets, &sc, &err);
	if (rc && !err.msg[0])
		fuzz_fail("scenario refused (%s) without a message", strerror(-rc));
	if (getenv("FUZZ_VERBOSE")) /* what a seed or a regression input does */
		fprintf(stderr, "scenario: %s\n", rc ? err.msg : "loaded");
	if (!rc) {
		/* What a result file says of the scenario: valid JSON, all of it. */
		struct cc_json j;
		const char *out;
		size_t len;

		cc_json_init(&j);
		cc_scenario_json(&j, &sc);
		if (cc_json_finish(&j, &out, &len) || strlen(out) != len)
			fuzz_fail("scenario JSON did not finish");
		cc_json_free(&j);
		for (uint32_t i = 0; i < sc.nexpect; i++)
			if (cc_scenario_expect(&sc, sc.expect[i].size) == NULL)
				fuzz_fail("expectation %u not found by its size", i);
		cc_scenario_free(&sc);
	}
}

/* The text as a topology file and as a fabric file (sim_net_load() and
 * sim_fabric_load() without the file: their root must be a mapping). */
static void topology_and_fabric(const uint8_t *data, size_t size)
{
	struct cy_doc doc;
	struct cy_error err = {{0}};
	struct sim_net net;
	struct sim_params fabric;
	int rc;

	if (cy_load_string("fuzz.yaml", (const char *)data, size, &doc, &err)) {
		if (!err.msg[0])
			fuzz_fail("YAML refused without a message");
		return;
	}
	if (doc.root->kind != CY_SCALAR) {
		sim_net_init(&net, "");
		rc = sim_net_from_yaml(&net, doc.root, dir, &err);
		if (rc && !err.msg[0])
			fuzz_fail("topology refused (%s) without a message", strerror(-rc));
		sim_net_free(&net);
		err.msg[0] = '\0';
		memset(&fabric, 0, sizeof(fabric));
		rc = sim_fabric_from_yaml(&fabric, doc.root, dir, &err);
		if (rc && !err.msg[0])
			fuzz_fail("fabric refused (%s) without a message", strerror(-rc));
	}
	cy_free(&doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1); /* NUL-terminated, for the string functions */

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	if (!too_big(text)) {
		write_input(data, size);
		topology_and_fabric(data, size);
		scenario(text); /* last: it cuts text into lines */
	}
	free(text);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *scratch = fuzz_scratch();
	char topo[PATH_MAX], link[PATH_MAX];

	(void)argc, (void)argv;
	if (!scratch)
		abort();
	snprintf(dir, sizeof(dir), "%s/scenarios/", scratch);
	snprintf(path, sizeof(path), "%sin.yaml", dir);
	if (mkdir(dir, 0700))
		fuzz_fail("mkdir %s: %s", dir, strerror(errno));
	if (realpath("topologies", topo)) {
		snprintf(link, sizeof(link), "%s/topologies", scratch);
		if (symlink(topo, link))
			fuzz_fail("symlink %s: %s", link, strerror(errno));
	}
	return 0;
}
