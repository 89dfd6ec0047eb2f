/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_pcie_tree.c — a host's PCIe switches in a topology (`pcie:`,
 * docs/yaml.md) and what the simulator does with them (sim/pcie.h):
 *   - which switch each rank sits behind (written out and railopt);
 *   - bad `pcie:` blocks refused with file:line:col, exit 2;
 *   - GPUDirect RDMA's data never crosses an uplink: as fast with the
 *     switches as without;
 *   - host staging through a shared uplink: below the uplink's bound, and
 *     the run without switches again when the uplink is wide enough;
 *   - several NICs per GPU (`nics:`): channels dealt over them, the GPU's
 *     own link shared by them, bad counts refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/files.h"
#include "tests/run_cclab.h"

#include "sim/net.h"
#include "sim/net_yaml.h"
#include "util/yaml.h"

/* Two hosts of two GPUs, no NVLink, every NIC on one switch; `pcie` is
 * each host's block (or "" for none). */
static void write_topology(const char *name, const char *pcie)
{
	FILE *f = create_in_tmpdir(name);

	fprintf(f,
		"name: t\n"
		"hosts:\n"
		"  - {prefix: h, count: 2, gpus: 2%s%s}\n"
		"switches: [tor]\n"
		"links:\n"
		"  - {a: h0.gpu0, b: tor}\n"
		"  - {a: h0.gpu1, b: tor}\n"
		"  - {a: h1.gpu0, b: tor}\n"
		"  - {a: h1.gpu1, b: tor}\n",
		*pcie ? ", pcie: " : "", pcie);
	fclose(f);
}

static void write_scenario(const char *name, const char *topology, const char *gpu_dma)
{
	FILE *f = create_in_tmpdir(name);

	fprintf(f,
		"name: t\n"
		"topology: %s\n"
		"fabric: {preset: ib-hdr, host: {gpu_dma: %s}}\n"
		"collective: allreduce\n"
		"algorithm: ring\n"
		"channels: 2\n"
		"dtype: float\n"
		"redop: sum\n"
		"sizes: {min: 1MiB, max: 16MiB, factor: 16}\n"
		"check: false\n",
		topology, gpu_dma);
	fclose(f);
}

/* A --links row's tx_bytes, busy_us and utilisation (link,from,to,kind,
 * rate_bps,tx_bytes,busy_us,utilisation,...); busy and util may be NULL. */
static void row_columns(const char *row, unsigned long long *tx_bytes, double *busy,
			double *util)
{
	double b, u;

	assert_int_equal(sscanf(row, "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%llu,%lf,%lf", tx_bytes,
				&b, &u), 3);
	if (busy)
		*busy = b;
	if (util)
		*util = u;
}

/* The row in --links CSV text that starts with `name` (its first columns,
 * without the comma after them); fails the test where there is none. */
static const char *links_row(const char *text, const char *name)
{
	char want[128];
	const char *p;

	snprintf(want, sizeof(want), "\n%s,", name);
	p = strstr(text, want);
	if (!p)
		fail_msg("no --links row for %s", name);
	return p + 1;
}

static void test_switch_of_each_rank(void **state)
{
	char path[256];
	struct sim_net n;
	struct cy_error err = {0};

	FILE *f = create_in_tmpdir("rail.yaml");

	(void)state;
	snprintf(path, sizeof(path), "%s/rail.yaml", tmpdir);
	fputs("generator: railopt\nnodes: 2\ngpus_per_node: 8\nspines: 1\n"
	      "pcie: {switches: 4, uplink: 128Gbps}\n", f);
	fclose(f);
	sim_net_init(&n, "rail");
	assert_int_equal(sim_net_load(&n, path, &err), 0);
	assert_int_equal(sim_net_pcie_switch_count(&n), 8);
	for (uint32_t r = 0; r < 16; r++)
		assert_int_equal(sim_net_pcie_switch(&n, r), r / 2);
	assert_int_equal(n.hosts[1].pcie.uplink_bps, UINT64_C(128000000000));
	assert_int_equal(n.hosts[1].pcie.latency_ps, SIM_NET_DEFAULT_PROP);
	sim_net_free(&n);

	/* Written out: per host; a host without `pcie:` has no switch. */
	f = create_in_tmpdir("rail.yaml");
	fputs("hosts:\n"
	      "  - {name: a, gpus: 4, pcie: {switches: 1, latency: 150ns}}\n"
	      "  - {name: b, gpus: 2}\n"
	      "  - {name: c, gpus: 2, pcie: {switches: 2}}\n"
	      "switches: [s]\n"
	      "links:\n"
	      "  - {a: a.gpu0, b: s}\n  - {a: a.gpu1, b: s}\n  - {a: a.gpu2, b: s}\n"
	      "  - {a: a.gpu3, b: s}\n  - {a: b.gpu0, b: s}\n  - {a: b.gpu1, b: s}\n"
	      "  - {a: c.gpu0, b: s}\n  - {a: c.gpu1, b: s}\n", f);
	fclose(f);
	sim_net_init(&n, "written");
	assert_int_equal(sim_net_load(&n, path, &err), 0);
	assert_int_equal(sim_net_pcie_switch_count(&n), 3);
	for (uint32_t r = 0; r < 4; r++)
		assert_int_equal(sim_net_pcie_switch(&n, r), 0);
	assert_int_equal(sim_net_pcie_switch(&n, 4), SIM_NET_NONE);
	assert_int_equal(sim_net_pcie_switch(&n, 5), SIM_NET_NONE);
	assert_int_equal(sim_net_pcie_switch(&n, 6), 1);
	assert_int_equal(sim_net_pcie_switch(&n, 7), 2);
	assert_int_equal(n.hosts[0].pcie.latency_ps, UINT64_C(150000));
	sim_net_free(&n);
}

/* railopt with two NICs per GPU: a plane of rails per NIC index. */
static void test_railopt_nics(void **state)
{
	char path[256];
	struct sim_net n;
	struct cy_error err = {0};
	FILE *f = create_in_tmpdir("rail2.yaml");

	(void)state;
	snprintf(path, sizeof(path), "%s/rail2.yaml", tmpdir);
	fputs("generator: railopt\nnodes: 2\ngpus_per_node: 4\nspines: 1\nnics: 2\n", f);
	fclose(f);
	sim_net_init(&n, "rail2");
	assert_int_equal(sim_net_load(&n, path, &err), 0);
	assert_int_equal(n.nranks, 8);
	assert_true(sim_net_find(&n, "rail3_1") != SIM_NET_NONE);
	assert_true(sim_net_find(&n, "rail3") == SIM_NET_NONE);
	for (uint32_t r = 0; r < 8; r++) {
		assert_int_equal(sim_net_rank_nics(&n, r), 2);
		/* two network ports and the NVLink one */
		assert_int_equal(n.nodes[n.rank_node[r]].nports, 3);
	}
	/* A plane of spines per NIC index. */
	assert_true(sim_net_find(&n, "plane1_spine0") != SIM_NET_NONE);
	assert_true(sim_net_find(&n, "spine0") == SIM_NET_NONE);
	/* GPU 3 of node 1 is on rail3_0 and rail3_1, with GPU 3 of node 0. */
	assert_int_equal(sim_net_routes(&n, sim_net_find(&n, "rail3_1"), 7, NULL, NULL), 1);
	assert_int_equal(sim_net_routes(&n, sim_net_find(&n, "rail3_1"), 3, NULL, NULL), 1);
	sim_net_free(&n);
}

static void test_bad_blocks(void **state)
{
	static const struct {
		const char *pcie, *says;
	} bad[] = {
		{"{switches: 3}", "3:53: 'switches': 3 PCIe switches do not split host 'h0''s 2 GPUs"},
		{"{switches: 0}", "'switches'"},
		{"{uplink: 64Gbps}", "'switches'"},
		{"{switches: 1, uplink: 0Gbps}", "'uplink': 0Gbps is out of range"},
		{"{switches: 1, latency: 2s}", "over a second"},
		{"{switches: 1, lanes: 16}", "lanes"},
		{"4", "'pcie'"},
	};

	(void)state;
	need_cclab_binary();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_topology("bad.yaml", bad[i].pcie);
		write_scenario("bad-sc.yaml", "bad.yaml", "gpudirect-rdma");
		struct run r = run_cclab("run '%s/bad-sc.yaml'", tmpdir);

		if (r.status != 2 || !strstr(r.err, bad[i].says) || !strstr(r.err, "bad.yaml:"))
			print_message("pcie %s: exit %d: %s\n", bad[i].pcie, r.status, r.err);
		assert_int_equal(r.status, 2);
		assert_non_null(strstr(r.err, "bad.yaml:"));
		assert_non_null(strstr(r.err, bad[i].says));
		run_free(&r);
	}
}

/* GPUDirect RDMA: the NIC and its GPU talk through their switch, never
 * its uplink: even behind a 10 Gb/s uplink (a twentieth of the wire) the
 * data moves as fast as behind a full one, within 1 %.  What does cross
 * it is small: the clear-to-send words the peer's NIC writes into host
 * memory (NCCL's send FIFO), and the zero-length WRITE WITH IMM's
 * completion, held behind the data it follows.  The switch itself costs
 * those host-memory trips a hop each (105 ns), which the proxy, waiting
 * on them between its plugin calls, adds up: within 5 % of no switch. */
static void test_gdr_data_skips_uplink(void **state)
{
	char *plain, *wide, *narrow;
	const char *p, *w, *q;
	double t_plain, t_wide, t_narrow;

	(void)state;
	need_cclab_binary();
	write_topology("plain.yaml", "");
	write_topology("wide.yaml", "{switches: 1}");
	write_topology("narrow.yaml", "{switches: 1, uplink: 10Gbps}");
	write_scenario("plain-sc.yaml", "plain.yaml", "gpudirect-rdma");
	write_scenario("wide-sc.yaml", "wide.yaml", "gpudirect-rdma");
	write_scenario("narrow-sc.yaml", "narrow.yaml", "gpudirect-rdma");
	plain = run_table("plain-sc.yaml");
	wide = run_table("wide-sc.yaml");
	narrow = run_table("narrow-sc.yaml");
	/* Each row: size count type redop root time ... */
	p = table_rows(plain);
	w = table_rows(wide);
	q = table_rows(narrow);
	for (int row = 0; row < 2; row++) {
		p = strstr(p, "\n    ");
		w = strstr(w, "\n    ");
		q = strstr(q, "\n    ");
		assert_non_null(p);
		assert_non_null(w);
		assert_non_null(q);
		assert_true(sscanf(p, " %*s %*s %*s %*s %*s %lf", &t_plain) == 1);
		assert_true(sscanf(w, " %*s %*s %*s %*s %*s %lf", &t_wide) == 1);
		assert_true(sscanf(q, " %*s %*s %*s %*s %*s %lf", &t_narrow) == 1);
		print_message("row %d: %.2f us without switches, %.2f us with, %.2f us behind "
			      "10 Gb/s\n", row, t_plain, t_wide, t_narrow);
		assert_true(t_narrow >= t_wide * 0.99 && t_narrow <= t_wide * 1.01);
		assert_true(t_wide >= t_plain && t_wide <= t_plain * 1.05);
		p++;
		w++;
		q++;
	}
	free(plain);
	free(wide);
	free(narrow);
}

/* Host staging, two GPUs and their NICs behind one switch: per rank and
 * direction, the NIC's DMA and the GPU's loads or stores each move the
 * rank's bytes B through host memory, so the uplink carries 4B each way,
 * in MWr TLPs of 256 B + 24 (up) and CplD of 256 + 20 (down): busbw (= B,
 * ring allreduce) <= rate * 256 / 280 / 4.  Without the switches the
 * run is bound by the 200 Gb/s wire instead; with an uplink far wider than
 * the devices' links and no hop latency, it is that run again. */
static void test_staging_shares_uplink(void **state)
{
	const double uplink_gbs = 252061538461.0 / 8e9; /* Gen4 x16, ib-hdr's */
	char *plain, *tree, *wide;
	double b_plain, b_tree, b_wide;

	(void)state;
	need_cclab_binary();
	write_topology("plain.yaml", "");
	write_topology("tree.yaml", "{switches: 1}");
	write_topology("wide.yaml", "{switches: 1, uplink: 20000Gbps, latency: 0ns}");
	write_scenario("plain-sc.yaml", "plain.yaml", "host-staging");
	write_scenario("tree-sc.yaml", "tree.yaml", "host-staging");
	write_scenario("wide-sc.yaml", "wide.yaml", "host-staging");
	plain = run_table("plain-sc.yaml");
	tree = run_table("tree-sc.yaml");
	wide = run_table("wide-sc.yaml");
	b_plain = avg_busbw(plain);
	b_tree = avg_busbw(tree);
	b_wide = avg_busbw(wide);
	print_message("busbw GB/s: no switch %.3f, shared uplink %.3f (bound %.3f), wide %.3f\n",
		      b_plain, b_tree, uplink_gbs * 256 / 280 / 4, b_wide);
	/* --links shows the uplinks, up and down, busy most of the run */
	{
		char csv[256], *text;
		const char *row;
		unsigned long long wire;
		double util;
		struct run r;

		snprintf(csv, sizeof(csv), "%s/tree-links.csv", tmpdir);
		r = run_cclab("run '%s/tree-sc.yaml' --links '%s'", tmpdir, csv);
		assert_int_equal(r.status, 0);
		run_free(&r);
		text = text_of(csv);
		row = links_row(text, "h0.pcie0->h0.root,h0.pcie0,h0.root,pcie,252061538461");
		row_columns(row, &wire, NULL, &util);
		assert_true(util > 0.8 && util <= 1.0);
		assert_true(wire > 0);
		links_row(text, "h1.root->h1.pcie0,h1.root,h1.pcie0,pcie");
		free(text);
	}
	assert_true(b_tree <= uplink_gbs * 256 / 280 / 4);
	assert_true(b_tree < b_plain / 2);
	assert_true(b_wide > b_plain * 0.99 && b_wide <= b_plain * 1.0001);
	free(plain);
	free(tree);
	free(wide);
}

/* Two hosts of one GPU with `nics` NICs each, every NIC on one switch
 * (`links` links per GPU), and a ring allreduce over them on `fabric`. */
static void write_nics(const char *name, unsigned nics, unsigned links, const char *fabric,
		       unsigned channels, const char *size)
{
	char topo[128];
	FILE *f;

	snprintf(topo, sizeof(topo), "%s-topo.yaml", name);
	f = create_in_tmpdir(topo);
	fprintf(f, "hosts:\n  - {prefix: h, count: 2, gpus: 1%s", nics ? ", nics: " : "");
	if (nics)
		fprintf(f, "%u", nics);
	fprintf(f, "}\nswitches: [sw]\nlinks:\n"
		   "  - {a: h0.gpu0, b: sw, count: %u}\n  - {a: h1.gpu0, b: sw, count: %u}\n",
		links, links);
	fclose(f);
	f = create_in_tmpdir(name);
	fprintf(f, "name: n\ntopology: %s\nfabric: {preset: %s}\ncollective: allreduce\n"
		   "algorithm: ring\nchannels: %u\ndtype: float\nredop: sum\n"
		   "sizes: {min: %s, max: %s}\ncheck: false\n", topo, fabric, channels, size, size);
	fclose(f);
}

/* The bytes each GPU-to-switch link sent, from --links: links[0..n). */
static unsigned link_bytes(const char *csv, unsigned long long *bytes, unsigned max)
{
	char *text = text_of(csv), *line = text;
	unsigned n = 0;

	while ((line = strchr(line, '\n')) && *++line) {
		if (strncmp(line, "h", 1) || n == max)
			continue;
		row_columns(line, &bytes[n++], NULL, NULL);
	}
	free(text);
	return n;
}

/* NCCL deals a GPU's channels over its NICs, channel c on NIC c mod
 * nics: four channels over four NICs load every NIC's link alike, to the
 * byte, both ways (the peer's packets come in at the NIC its QP uses). */
static void test_nics_deal_channels(void **state)
{
	unsigned long long b[8];
	struct run r;

	(void)state;
	need_cclab_binary();
	write_nics("deal.yaml", 4, 4, "roce-400g", 4, "16MiB");
	r = run_cclab("run '%s/deal.yaml' --links '%s/links.csv'", tmpdir, tmpdir);
	assert_int_equal(r.status, 0);
	run_free(&r);
	char csv[256];

	snprintf(csv, sizeof(csv), "%s/links.csv", tmpdir);
	assert_int_equal(link_bytes(csv, b, 8), 8);
	for (int i = 1; i < 8; i++)
		assert_int_equal(b[i], b[0]);
	assert_true(b[0] > 16 * 1048576ull / 4 / 2); /* each NIC a quarter of 2N(k-1)/k */
}

/* Two 400 Gb/s NICs on one GPU (ib-ndr: PCIe Gen5 x16, 504.1 Gb/s): the
 * two NICs together carry more than one NIC's wire could (50 GB/s), and
 * no more than the GPU's own link, which both cross to reach its memory:
 * 504.1 / 8 * 256 / 280 = 57.6 GB/s of payload in 256 B TLPs. */
static void test_nics_share_gpu_link(void **state)
{
	char *table;
	double b;

	(void)state;
	need_cclab_binary();
	write_nics("two.yaml", 2, 2, "ib-ndr", 4, "256MiB");
	table = run_table("two.yaml");
	b = avg_busbw(table);
	print_message("two NICs on one GPU: busbw %.2f GB/s\n", b);
	assert_true(b > 50.0);
	assert_true(b <= 504123076923.0 / 8e9 * 256 / 280);
	free(table);
}

static void test_nics_refused(void **state)
{
	static const struct {
		unsigned nics, links;
		const char *says;
	} bad[] = {
		{4, 3, "GPU 'h0.gpu0' has 3 network links; its host's 'nics: 4' needs one per NIC"},
		{17, 17, "'nics'"},
	};
	struct run r;

	(void)state;
	need_cclab_binary();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_nics("bad-nics.yaml", bad[i].nics, bad[i].links, "ib-ndr", 1, "1MiB");
		r = run_cclab("run '%s/bad-nics.yaml'", tmpdir);
		if (r.status != 2 || !strstr(r.err, bad[i].says))
			print_message("nics %u: exit %d: %s\n", bad[i].nics, r.status, r.err);
		assert_int_equal(r.status, 2);
		assert_non_null(strstr(r.err, bad[i].says));
		assert_non_null(strstr(r.err, "bad-nics.yaml-topo.yaml:"));
		run_free(&r);
	}
}

/* --nics and --pcie-switches make the hosts a topology file's nics: and
 * pcie: make: the same rows, and the header names the switches. */
static void test_options_as_file(void **state)
{
	const char *common = "-b 16M -e 16M --check 0 --gpu-dma host-staging --fabric ib-ndr "
			     "-A ring --channels 4";
	FILE *f = create_in_tmpdir("opt.yaml");
	struct run a, b;

	(void)state;
	need_cclab_binary();
	fputs("name: o\ntopology: {generator: railopt, nodes: 2, gpus_per_node: 4, spines: 1, "
	      "nics: 2, pcie: {switches: 2}}\nfabric: {preset: ib-ndr, host: {gpu_dma: "
	      "host-staging}}\ncollective: allreduce\nalgorithm: ring\nchannels: 4\n"
	      "dtype: float\nredop: sum\nsizes: {min: 16MiB, max: 16MiB}\ncheck: false\n", f);
	fclose(f);
	a = run_cclab("sim -n 8 --topology railopt --ranks-per-node 4 --nics 2 --pcie-switches 2 %s",
		      common);
	b = run_cclab("run '%s/opt.yaml'", tmpdir);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_non_null(strstr(a.out, "# PCIe: 4 PCIe switches over 2 of 2 hosts"));
	assert_string_equal(table_rows(a.out), table_rows(b.out));
	run_free(&a);
	run_free(&b);
	a = run_cclab("sim -n 8 --nics 2 -b 1M");
	assert_int_equal(a.status, 2);
	assert_non_null(strstr(a.err, "--nics 2: several NICs per GPU need --topology railopt"));
	run_free(&a);
	a = run_cclab("sim -n 16 --topology railopt --ranks-per-node 8 --pcie-switches 3 -b 1M");
	assert_int_equal(a.status, 2);
	assert_non_null(strstr(a.err, "--pcie-switches 3 does not split host 'node0''s 8 GPUs"));
	run_free(&a);
	a = run_cclab("sim -n 8 --nics 17 -b 1M");
	assert_int_equal(a.status, 2);
	assert_non_null(strstr(a.err, "--nics"));
	run_free(&a);
}

/* On railopt planes a packet for a GPU's NIC j arrives at NIC j even
 * across rails (a ring in rank order leaves node 0 by GPU 1 and enters
 * node 1 at GPU 0): both NICs of each first GPU take in the same bytes. */
static void test_planes_deliver_to_the_nic(void **state)
{
	char csv[256], *text, name[64];
	struct run r;

	(void)state;
	need_cclab_binary();
	snprintf(csv, sizeof(csv), "%s/planes.csv", tmpdir);
	r = run_cclab("sim -n 4 --topology railopt --ranks-per-node 2 --nics 2 -A ring "
		      "--channels 2 -b 4M -e 4M --check 0 --links '%s'", csv);
	assert_int_equal(r.status, 0);
	run_free(&r);
	text = text_of(csv);
	for (int node = 0; node < 2; node++) {
		unsigned long long b[2] = {0, 0};

		for (int j = 0; j < 2; j++) {
			snprintf(name, sizeof(name), "rail0_%d->node%d.gpu0", j, node);
			row_columns(links_row(text, name), &b[j], NULL, NULL);
		}
		assert_true(b[0] > 1048576);
		assert_int_equal(b[0], b[1]);
	}
	free(text);
}

/* The same scenario twice: byte-identical tables. */
static void test_deterministic(void **state)
{
	char *a, *b;

	(void)state;
	need_cclab_binary();
	write_topology("tree.yaml", "{switches: 1}");
	write_scenario("tree-sc.yaml", "tree.yaml", "host-staging");
	a = run_table("tree-sc.yaml");
	b = run_table("tree-sc.yaml");
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("pcie-tree");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_of_each_rank),
		cmocka_unit_test(test_railopt_nics),
		cmocka_unit_test(test_bad_blocks),
		cmocka_unit_test(test_gdr_data_skips_uplink),
		cmocka_unit_test(test_staging_shares_uplink),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_nics_deal_channels),
		cmocka_unit_test(test_nics_share_gpu_link),
		cmocka_unit_test(test_nics_refused),
		cmocka_unit_test(test_options_as_file),
		cmocka_unit_test(test_planes_deliver_to_the_nic),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
