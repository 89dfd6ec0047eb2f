/* SPDX-License-Identifier: BSD-3-Clause */
/* examples/sim_sizes.c — libcclab from another program: every size of a
 * scenario on the simulator, one CSV line each.  Built against the
 * installed library only:
 *
 *   cc -o sim_sizes examples/sim_sizes.c $(pkg-config --cflags --libs cclab)
 *   ./sim_sizes scenarios/demo.yaml sizes.max=64K
 *
 * The figures are `cclab run`'s for the same file and --set values. */
#include <cclab.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char err[512];
	cclab_scenario *sc;

	if (argc < 2) {
		fprintf(stderr, "usage: sim_sizes SCENARIO.yaml [KEY=VALUE ...]\n");
		return 2;
	}
	if (strcmp(cclab_version(), CCLAB_VERSION_STRING))
		fprintf(stderr, "sim_sizes: built for libcclab %s, running with %s\n",
			CCLAB_VERSION_STRING, cclab_version());
	if (cclab_scenario_load(argv[1], (const char *const *)argv + 2, (unsigned)(argc - 2), &sc,
				err, sizeof(err))) {
		fprintf(stderr, "sim_sizes: %s\n", err);
		return 2;
	}
	size_t n = cclab_scenario_sizes(sc, NULL, 0);
	uint64_t sizes[64];
	int status = 0;

	if (n > 64) {
		fprintf(stderr, "sim_sizes: the scenario has %zu sizes; the first 64 run\n", n);
		n = 64;
	}
	cclab_scenario_sizes(sc, sizes, n);
	printf("size_bytes,time_us,algbw_gbps,busbw_gbps,wrong,max_rank_data_bytes\n");
	for (size_t i = 0; i < n; i++) {
		struct cclab_row row = { .size = sizeof(row) };

		if (cclab_run_size(sc, sizes[i], CCLAB_EXEC_SIM, &row, err, sizeof(err))) {
			fprintf(stderr, "sim_sizes: %s\n", err);
			status = 1;
			break;
		}
		if (!row.ok) {
			fprintf(stderr, "sim_sizes: %" PRIu64 " bytes: %s\n", row.bytes, row.error);
			status = 1;
		}
		printf("%" PRIu64 ",%.9g,%.9g,%.9g,%" PRIu64 ",%" PRIu64 "\n", row.bytes, row.time_us,
		       row.algbw_gbs, row.busbw_gbs, row.wrong, row.max_rank_data_bytes);
	}
	cclab_scenario_free(sc);
	return status;
}
