/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_nic_socket.c — a NIC on the other CPU socket from its GPU
 * (fabric host.nic_socket remote, docs/fabric.md):
 *   - host staging: the NIC's reads of the send slots and writes of the
 *     receive slots cross the link between the sockets, which bounds the
 *     run in closed form, on the packet and the flow model;
 *   - GPUDirect RDMA across the sockets (NCCL_NET_GDR_LEVEL=SYS) crosses
 *     it too, and a run on one node stages nothing;
 *   - inline writes land with the value sent, however late;
 *   - the ideal preset's link is unlimited on both models;
 *   - `local` is the run without the key, row for row;
 *   - `auto` stages in host memory, as NCCL's default GDR level (PXB)
 *     does on a SYS path, unless NCCL_NET_GDR_LEVEL=SYS;
 *   - a host whose PCIe switches keep NICs beside their GPUs is refused,
 *     file:line:col (or the command line's), exit 2. */
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

/* Two hosts of one GPU on one switch; `pcie` a host's block or "". */
static void write_topology(const char *name, const char *pcie)
{
	FILE *f = create_in_tmpdir(name);

	fprintf(f,
		"name: t\n"
		"hosts:\n"
		"  - {prefix: h, count: 2, gpus: 1%s%s}\n"
		"switches: [tor]\n"
		"links:\n"
		"  - {a: h0.gpu0, b: tor}\n"
		"  - {a: h1.gpu0, b: tor}\n",
		*pcie ? ", pcie: " : "", pcie);
	fclose(f);
}

/* A ring allreduce of 64 MiB on ib-hdr (MPS 256) with `host` as the
 * fabric's host block, `algorithm` and `env` (a YAML mapping or ""). */
static void write_scenario(const char *name, const char *host, const char *algorithm,
			   const char *env)
{
	FILE *f = create_in_tmpdir(name);

	fprintf(f,
		"name: t\n"
		"topology: topo.yaml\n"
		"fabric: {preset: ib-hdr, host: %s}\n"
		"collective: allreduce\n"
		"algorithm: %s\n"
		"%s%s%s"
		"dtype: float\n"
		"redop: sum\n"
		"sizes: {min: 64MiB, max: 64MiB}\n"
		"check: false\n",
		host, algorithm, *env ? "env: " : "", env, *env ? "\n" : "");
	fclose(f);
}

/* A fabric file `name` holding `text`. */
static void write_fabric(const char *name, const char *text)
{
	FILE *f = create_in_tmpdir(name);

	fputs(text, f);
	fclose(f);
}

static struct run run_scenario(const char *name)
{
	return run_cclab("run '%s/%s'", tmpdir, name);
}

/* Host staging, one GPU a host: per rank and direction the NIC moves the
 * rank's B bytes (busbw, a ring allreduce of two ranks) between the wire
 * and the GPU's socket once — reads of the send slots as CplD of 256 B +
 * 20 coming over, writes of the receive slots as MWr of 256 B + 24 going
 * over — so busbw <= rate * 256 / 280 on a link of `rate` each way.  At
 * 5 GB/s that binds (the wire is 25 GB/s), within the pipeline's fill. */
static void test_staging_crosses_the_link(void **state)
{
	const double bound = 5.0 * 256 / 280;
	char *table;
	double b;

	(void)state;
	need_cclab_binary();
	write_topology("topo.yaml", "");
	write_scenario("remote.yaml",
		       "{gpu_dma: host-staging, nic_socket: remote, socket_link_bytes_per_s: 5GB/s}",
		       "ring", "");
	table = run_table("remote.yaml");
	b = avg_busbw(table);
	print_message("busbw %.3f GB/s, bound %.3f\n", b, bound);
	assert_non_null(strstr(table, "# NICs: on the other CPU socket from their GPUs"));
	assert_non_null(strstr(table, "5.000 GB/s each way"));
	assert_true(b <= bound);
	assert_true(b >= 0.95 * bound);
	free(table);
	/* the flow model: the link a resource of its own, the same bound */
	{
		struct run r = run_cclab("run '%s/remote.yaml' --model flow", tmpdir);

		assert_int_equal(r.status, 0);
		b = avg_busbw(r.out);
		print_message("flow model: busbw %.3f GB/s\n", b);
		assert_true(b <= bound * 1.0001);
		assert_true(b >= 0.95 * bound);
		run_free(&r);
	}
	/* --links: the link each way, per host; what the NIC reads comes over
	 * as the rank's 64 MiB in CplD of 256 + 20 B, on both models */
	for (int flow = 0; flow < 2; flow++) {
		char csv[256], *text;
		const char *row;
		struct run r;

		snprintf(csv, sizeof(csv), "%s/links-%d.csv", tmpdir, flow);
		r = run_cclab("run '%s/remote.yaml' --model %s --links '%s'", tmpdir,
			      flow ? "flow" : "packet", csv);
		assert_int_equal(r.status, 0);
		run_free(&r);
		text = text_of(csv);
		for (int h = 0; h < 2; h++) {
			char want[128];

			snprintf(want, sizeof(want), "\nh%d.socket0->h%d.socket1,h%d.socket0,h%d.socket1,"
				 "socket,40000000000,%d,", h, h, h, h, 64 * 1048576 / 256 * 276);
			assert_non_null(strstr(text, want));
			snprintf(want, sizeof(want), "\nh%d.socket1->h%d.socket0,h%d.socket1,h%d.socket0,"
				 "socket,40000000000,", h, h, h, h);
			row = strstr(text, want);
			assert_non_null(row);
		}
		free(text);
	}
}

/* GPUDirect RDMA between sockets (NCCL_NET_GDR_LEVEL=SYS allows it): the
 * NIC reaches the GPU's memory over the same link, so the same bound
 * holds; on the GPU's socket it does not, and `local` is the run without
 * the key. */
static void test_gdr_crosses_and_local_is_plain(void **state)
{
	const double bound = 5.0 * 256 / 280;
	char *remote, *local, *plain;

	(void)state;
	need_cclab_binary();
	write_topology("topo.yaml", "");
	write_scenario("gdr-remote.yaml",
		       "{nic_socket: remote, socket_link_bytes_per_s: 5GB/s}", "ring",
		       "{NCCL_NET_GDR_LEVEL: SYS}");
	write_scenario("gdr-local.yaml", "{nic_socket: local, socket_link_bytes_per_s: 5GB/s}",
		       "ring", "");
	write_scenario("gdr-plain.yaml", "{}", "ring", "");
	remote = run_table("gdr-remote.yaml");
	local = run_table("gdr-local.yaml");
	plain = run_table("gdr-plain.yaml");
	print_message("busbw GB/s: remote %.3f, local %.3f\n", avg_busbw(remote),
		      avg_busbw(local));
	assert_null(strstr(remote, "# staging: host memory"));
	assert_true(avg_busbw(remote) <= bound);
	assert_true(avg_busbw(remote) >= 0.95 * bound);
	assert_true(avg_busbw(local) > 3 * bound);
	assert_string_equal(table_rows(local), table_rows(plain));
	assert_null(strstr(local, "# NICs:"));
	free(remote);
	free(local);
	free(plain);
}

/* `auto`: NCCL's default NCCL_NET_GDR_LEVEL (PXB) gives no GPUDirect RDMA
 * on a path across the sockets (SYS), so the fabric's gpudirect-rdma runs
 * staged, as host-staging does, row for row; NCCL_NET_GDR_LEVEL=SYS keeps
 * it. */
static void test_auto_stages_across_sockets(void **state)
{
	char *gdr, *staged, *sys;

	(void)state;
	need_cclab_binary();
	write_topology("topo.yaml", "");
	write_scenario("auto-gdr.yaml", "{nic_socket: remote}", "auto", "");
	write_scenario("auto-staged.yaml", "{nic_socket: remote, gpu_dma: host-staging}", "auto",
		       "");
	write_scenario("auto-sys.yaml", "{nic_socket: remote}", "auto",
		       "{NCCL_NET_GDR_LEVEL: SYS}");
	gdr = run_table("auto-gdr.yaml");
	staged = run_table("auto-staged.yaml");
	sys = run_table("auto-sys.yaml");
	assert_non_null(strstr(gdr, "# staging: host memory"));
	assert_string_equal(table_rows(gdr), table_rows(staged));
	assert_null(strstr(sys, "# staging: host memory"));
	free(gdr);
	free(staged);
	free(sys);
}

/* One node: no connection goes through the network, so NCCL's GDR rule
 * stages nothing, and 8 GPUs run as fast with their NICs on the other
 * socket as without. */
static void test_one_node_stages_nothing(void **state)
{
	struct run local, remote;

	(void)state;
	need_cclab_binary();
	write_fabric("remote-ndr.yaml", "preset: ib-ndr\nhost: {nic_socket: remote}\n");
	local = run_cclab("sim -n 8 --topology node -A ring -b 64M -e 64M --fabric ib-ndr");
	remote = run_cclab("sim -n 8 --topology node -A ring -b 64M -e 64M --fabric '%s/remote-ndr.yaml'",
			   tmpdir);
	assert_int_equal(local.status, 0);
	assert_int_equal(remote.status, 0);
	assert_string_equal(table_rows(local.out), table_rows(remote.out));
	assert_null(strstr(remote.out, "# staging: host memory"));
	run_free(&local);
	run_free(&remote);
}

/* An inline write (NCCL's clear-to-send, the flag of write_flag) lands
 * with the value its NIC took, though the sender's op is done and reused
 * long before: with the link binding, the writes queue behind the data
 * for milliseconds.  Every element right (#wrong 0). */
static void test_inline_values_land_as_sent(void **state)
{
	struct run r;

	(void)state;
	need_cclab_binary();
	write_fabric("remote-5.yaml",
		     "preset: ib-hdr\nhost: {nic_socket: remote, socket_link_bytes_per_s: 5GB/s}\n");
	r = run_cclab("sim -n 2 --topology star -b 56M -e 56M -t write_flag --fabric '%s/remote-5.yaml'",
		      tmpdir);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_rows(r.out), 1);
	assert_non_null(strstr(r.out, "    0\n"));
	run_free(&r);
}

/* The ideal preset's link is unlimited (0), on both models. */
static void test_ideal_unlimited(void **state)
{
	struct run packet, flow;

	(void)state;
	need_cclab_binary();
	write_fabric("remote-ideal.yaml", "preset: ideal\nhost: {nic_socket: remote}\n");
	packet = run_cclab("sim -n 2 --topology star -b 1M -e 1M --fabric '%s/remote-ideal.yaml'",
			   tmpdir);
	flow = run_cclab("sim -n 2 --topology star -b 1M -e 1M --model flow --fabric "
			 "'%s/remote-ideal.yaml' --links '%s/ideal-links.csv'", tmpdir, tmpdir);
	assert_int_equal(packet.status, 0);
	assert_int_equal(flow.status, 0);
	assert_non_null(strstr(packet.out, "the link between the sockets, unlimited"));
	run_free(&packet);
	run_free(&flow);
}

/* A PCIe switch keeps a GPU's NIC beside it: refused, naming the key. */
static void test_switches_refused(void **state)
{
	struct run r;
	char want[128];

	(void)state;
	need_cclab_binary();
	write_topology("topo.yaml", "{switches: 1}");
	write_scenario("switched.yaml", "{nic_socket: remote}", "ring", "");
	r = run_scenario("switched.yaml");
	assert_int_equal(r.status, 2);
	snprintf(want, sizeof(want), "switched.yaml:3:9: 'fabric': host.nic_socket remote: "
		 "host h0 has PCIe switches");
	assert_non_null(strstr(r.err, want));
	assert_string_equal(r.out, "");
	run_free(&r);
	/* the command line's --pcie-switches, with a fabric file */
	write_fabric("remote-fabric.yaml", "preset: ib-hdr\nhost: {nic_socket: remote}\n");
	r = run_cclab("sim -n 4 -b 1M -e 1M --fabric '%s/remote-fabric.yaml' --topology star "
		      "--ranks-per-node 2 --pcie-switches 1", tmpdir);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "host.nic_socket remote: host h0 has PCIe switches"));
	assert_string_equal(r.out, "");
	run_free(&r);
	/* several NICs a GPU reach its memory through its own link */
	{
		FILE *f = create_in_tmpdir("nics.yaml");

		fprintf(f, "name: t\nhosts:\n  - {prefix: h, count: 2, gpus: 1, nics: 2}\n"
			   "switches: [tor]\nlinks:\n  - {a: h0.gpu0, b: tor}\n"
			   "  - {a: h0.gpu0, b: tor}\n  - {a: h1.gpu0, b: tor}\n"
			   "  - {a: h1.gpu0, b: tor}\n");
		fclose(f);
	}
	{
		FILE *f = create_in_tmpdir("nics-sc.yaml");

		fprintf(f, "name: t\ntopology: nics.yaml\nfabric: {preset: ib-hdr, host: "
			   "{nic_socket: remote}}\ncollective: allreduce\nalgorithm: ring\n"
			   "sizes: {min: 1MiB, max: 1MiB}\n");
		fclose(f);
	}
	r = run_scenario("nics-sc.yaml");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "host.nic_socket remote: host h0 has several NICs a GPU"));
	run_free(&r);
	write_topology("topo.yaml", "");
	write_scenario("bad.yaml", "{nic_socket: far}", "ring", "");
	r = run_scenario("bad.yaml");
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "'host.nic_socket': unknown value 'far'; expected one of: "
				      "local, remote"));
	run_free(&r);
}

static int setup(void **state)
{
	(void)state;
	return run_cclab_begin("nic-socket");
}

static int teardown(void **state)
{
	(void)state;
	return run_cclab_end();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_staging_crosses_the_link),
		cmocka_unit_test(test_gdr_crosses_and_local_is_plain),
		cmocka_unit_test(test_auto_stages_across_sockets),
		cmocka_unit_test(test_one_node_stages_nothing),
		cmocka_unit_test(test_inline_values_land_as_sent),
		cmocka_unit_test(test_ideal_unlimited),
		cmocka_unit_test(test_switches_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
