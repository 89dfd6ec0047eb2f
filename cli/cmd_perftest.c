/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/cmd_perftest.c — perftest's mode: `ib_write_bw -d mlx5_0` (cclab
 * under that name, a symlink) or `cclab ib_write_bw ...` runs the test
 * perftest would, as `cclab p2p` (cli/perftest.h).
 *
 * The flags (cli/perftest_args.c) become a `cclab p2p` command line read
 * by p2p_parse(), so every rule of `cclab p2p` holds; what perftest's mode
 * adds is set on the parsed options: its lat figures without the two
 * largest deltas, --report_gbits, --out_json, and one side per host (the
 * server waits on -p, the client connects to HOST, cli/p2p_verbs.c). */
#include <stdio.h>
#include <string.h>

#include "backend/verbs_dev.h"
#include "cli/perftest.h"

/* The command line as cclab p2p's, for the header and for a refusal. */
static void print_argv(FILE *f, const struct pt_opts *t)
{
	fputs("cclab", f);
	for (int i = 0; i < t->argc; i++)
		fprintf(f, strpbrk(t->argv[i], " \t'\"") ? " '%s'" : " %s", t->argv[i]);
	fputc('\n', f);
}

/* The client without -d: perftest's first device (ctx_find_dev()). */
static int first_device(const struct pt_opts *t, char *name, size_t len)
{
	struct cc_verbs_dev *devs;
	uint32_t n;
	char err[512];

	if (cc_verbs_devices(&devs, &n, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", t->prog, err);
		return CLI_EXIT_FAIL;
	}
	if (n == 0) {
		fprintf(stderr, "%s: no RDMA device on this host\n", t->prog);
		return CLI_EXIT_FAIL;
	}
	snprintf(name, len, "%s", devs[0].name);
	cc_verbs_devices_free(devs, n);
	return 0;
}

int cmd_perftest(int argc, char **argv)
{
	static char dev[CLI_DEVICE_NAME_MAX];
	struct pt_opts t;
	struct p2p_opts o;
	int rc = pt_parse(argc, argv, &t);

	if (rc)
		return rc;
	if (t.help) {
		pt_usage(&t);
		return CLI_EXIT_OK;
	}
	if (t.server && !t.dev) {
		if ((rc = first_device(&t, dev, sizeof(dev))))
			return rc;
		t.dev = dev;
	}
	if (t.dev) {
		t.argv[t.argc++] = "--device";
		t.argv[t.argc++] = t.dev;
		t.argv[t.argc] = NULL;
	}
	if ((rc = p2p_parse(t.argc, (char **)t.argv, &o))) {
		fprintf(stderr, "%s: perftest's flags as cclab's: ", t.prog);
		print_argv(stderr, &t);
		return rc;
	}
	o.prog = t.prog;
	o.gbits = t.gbits;
	o.out_json = t.out_json ? t.json_file : NULL;
	if (o.out_json && ((o.json && cc_output_same(o.json, o.out_json)) ||
			   (o.csv && cc_output_same(o.csv, o.out_json)) ||
			   (o.trace && cc_output_same(o.trace, o.out_json)))) {
		fprintf(stderr, "%s: --out_json_file '%s' is also --json, --csv or --trace\n",
			t.prog, o.out_json);
		return CLI_EXIT_USAGE;
	}
	if (t.dev) {
		o.role = t.server ? P2P_CLIENT : P2P_SERVER;
		o.server = t.server;
		o.tcp_port = t.tcp_port;
	}
	printf("# cclab %s as perftest's %s: ", CCLAB_VERSION, t.prog);
	print_argv(stdout, &t);
	fputs(t.notes, stdout);
	return p2p_exec(&o);
}
