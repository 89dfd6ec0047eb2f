/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_sim_params.c — sim/params.c: the presets load and hold
 * together, the derived rates and timers are exact, the field table covers
 * the whole struct, and the printed form is stable, line by line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/params.h"

static const char *const want_names[] = {"ib-hdr", "ib-ndr", "roce-100g", "roce-400g", "ideal"};
#define NWANT (sizeof(want_names) / sizeof(want_names[0]))

static struct sim_params load(const char *name)
{
	struct sim_params p;

	assert_int_equal(sim_params_preset(name, &p), 0);
	return p;
}

/* sim_params_print() into a string the caller frees. */
static char *print_str(const struct sim_params *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	sim_params_print(f, p);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Splits s (modified) into at most max lines; returns the count. */
static size_t split_lines(char *s, char **lines, size_t max)
{
	size_t n = 0;

	for (char *save = NULL, *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		assert_true(n < max);
		lines[n++] = l;
	}
	return n;
}


static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Every preset loads, validates, carries its own name, and its stored rates
 * agree with the quantities they are derived from. */
static void test_every_preset_loads(void **state)
{
	(void)state;
	for (size_t i = 0; i < NWANT; i++) {
		struct sim_params p = load(want_names[i]);
		int ideal = strcmp(want_names[i], "ideal") == 0;

		assert_string_equal(p.name, want_names[i]);
		assert_int_equal(sim_params_validate(&p), 0);
		/* link rate = lanes x lane rate x 64/66 x FEC, exactly */
		assert_int_equal(sim_link_signal_rate_bps(&p.link), p.link.rate_bps);
		if (ideal)
			continue;
		assert_int_equal(p.pcie.rate_bps, sim_pcie_rate_bps(p.pcie.gen, p.pcie.lanes));
		/* NVLink 3 and 4 links carry 25 GB/s each way */
		assert_int_equal(p.host.nvlink_bps,
				 (uint64_t)p.host.nvlink_links * 25000000000u * 8);
		/* the NIC cannot outrun its PCIe link */
		assert_true(p.pcie.rate_bps > p.link.rate_bps);
		/* calibration (params.c): doorbell + both NIC pipelines + one
		 * posted DMA write lands between UCX's 600 ns estimate and a
		 * measured 0.82 us small-message latency */
		uint64_t one_way = p.rnic.doorbell_ps + p.rnic.req_proc_ps + p.rnic.resp_proc_ps +
				   p.pcie.latency_ps;
		assert_in_range(one_way, 600000, 820000);
	}
}

/* The link families: IB with credits, RoCEv2 with PFC; `ideal` charges
 * nothing but the wire. */
static void test_preset_families(void **state)
{
	(void)state;
	struct sim_params hdr = load("ib-hdr"), ndr = load("ib-ndr");
	struct sim_params r100 = load("roce-100g"), r400 = load("roce-400g");
	struct sim_params ideal = load("ideal");

	assert_int_equal(hdr.link.type, SIM_LINK_IB);
	assert_int_equal(ndr.link.flow_ctrl, SIM_FC_CREDIT);
	assert_int_equal(r100.link.type, SIM_LINK_ROCEV2_IPV4);
	assert_int_equal(r400.link.flow_ctrl, SIM_FC_PFC);
	assert_int_equal(hdr.pcie.gen, SIM_PCIE_GEN4);
	assert_int_equal(ndr.pcie.gen, SIM_PCIE_GEN5);
	assert_int_equal(r100.link.rate_bps, 100000000000u);
	assert_int_equal(r400.link.rate_bps, 400000000000u);
	assert_int_equal(hdr.rnic.timeout_exp, 18); /* NCCL_IB_TIMEOUT */
	assert_int_equal(hdr.rnic.retry_cnt, 7);
	assert_int_equal(hdr.rnic.rnr_retry, 7);

	for (size_t i = 0; i < sim_param_field_count; i++) {
		const struct sim_param_field *f = &sim_param_fields[i];
		if (ends_with(f->key, "_ps") || ends_with(f->key, "_per_s") ||
		    strcmp(f->key, "pcie.rate_bps") == 0 || strcmp(f->key, "host.nvlink_bps") == 0 ||
		    strcmp(f->key, "switch.buffer_bytes") == 0)
			assert_int_equal(sim_param_field_get(&ideal, f), 0);
	}
	/* the closed form: 4096 B at 100 Gb/s */
	assert_int_equal(sim_serialize_ps(4096, ideal.link.rate_bps), 327680);
	assert_int_equal(ideal.rnic.max_outstanding_pkts, 1u << 23);
}

/* Line rates from lane signalling and codes, exactly. */
static void test_link_rates(void **state)
{
	(void)state;
	struct sim_link_params l = {
		.lanes = 1, .lane_signal_bps = 53125000000u,
		.enc_data_bits = 64, .enc_code_bits = 66, .fec_num = 33, .fec_den = 34,
	};

	/* HDR lane: 53.125 Gb/s x 64/66 x 33/34 = 50 Gb/s exactly */
	assert_int_equal(sim_link_signal_rate_bps(&l), 50000000000u);
	l.lanes = 4;
	assert_int_equal(sim_link_signal_rate_bps(&l), 200000000000u);
	/* NDR / 400GBASE-R: 106.25 Gb/s lanes */
	l.lane_signal_bps = 106250000000u;
	assert_int_equal(sim_link_signal_rate_bps(&l), 400000000000u);
	/* 100GBASE-R: 4 x 25.78125 Gb/s x 64/66, FEC rate-neutral */
	l.lane_signal_bps = 25781250000u;
	l.fec_num = l.fec_den = 1;
	assert_int_equal(sim_link_signal_rate_bps(&l), 100000000000u);
	/* 64b/66b alone on an HDR lane is not 50 Gb/s: the FEC term matters */
	l.lanes = 1;
	l.lane_signal_bps = 53125000000u;
	assert_int_equal(sim_link_signal_rate_bps(&l), 51515151515u);
	l.enc_code_bits = 0;
	assert_int_equal(sim_link_signal_rate_bps(&l), 0);
}

/* PCIe per direction after line coding, rounded down. */
static void test_pcie_rates(void **state)
{
	(void)state;
	assert_int_equal(sim_pcie_rate_bps(SIM_PCIE_GEN1, 1), 2000000000u);   /* 2.5 GT/s 8b/10b */
	assert_int_equal(sim_pcie_rate_bps(SIM_PCIE_GEN2, 8), 32000000000u);
	assert_int_equal(sim_pcie_rate_bps(SIM_PCIE_GEN3, 16), 126030769230u); /* 1638.4e9/13 */
	assert_int_equal(sim_pcie_rate_bps(SIM_PCIE_GEN4, 16), 252061538461u); /* 3276.8e9/13 */
	assert_int_equal(sim_pcie_rate_bps(SIM_PCIE_GEN5, 16), 504123076923u); /* 6553.6e9/13 */
	/* rounding happens once, at the end: x16 is not 16 rounded x1 rates */
	assert_int_equal(sim_pcie_rate_bps(SIM_PCIE_GEN4, 1), 15753846153u);
	assert_in_range(sim_pcie_rate_bps(SIM_PCIE_GEN4, 16) - 16 * sim_pcie_rate_bps(SIM_PCIE_GEN4, 1),
			1, 15);
	assert_int_equal(sim_pcie_rate_bps(SIM_PCIE_GEN_COUNT, 16), 0);
	assert_string_equal(sim_pcie_gen_name[SIM_PCIE_GEN4], "gen4");
}

/* IBA timer encodings. */
static void test_timers(void **state)
{
	(void)state;
	/* NCCL_IB_TIMEOUT=18: 4.096 us x 2^18 = 1.073741824 s */
	assert_int_equal(sim_ack_timeout_ps(18), 1073741824000u);
	assert_int_equal(sim_ack_timeout_ps(1), 8192000u);
	assert_int_equal(sim_ack_timeout_ps(31), (uint64_t)4096000u << 31);
	assert_int_equal(sim_ack_timeout_ps(0), SIM_TIME_NEVER);
	assert_int_equal(sim_ack_timeout_ps(32), SIM_TIME_NEVER);

	assert_int_equal(sim_rnr_timer_ps(12), 640000000u);        /* 0.64 ms (NCCL) */
	assert_int_equal(sim_rnr_timer_ps(1), 10000000u);          /* 0.01 ms */
	assert_int_equal(sim_rnr_timer_ps(31), 491520000000u);     /* 491.52 ms */
	assert_int_equal(sim_rnr_timer_ps(0), 655360000000u);      /* 655.36 ms */
	assert_int_equal(sim_rnr_timer_ps(32), SIM_TIME_NEVER);
	for (unsigned c = 2; c < 32; c++)
		assert_true(sim_rnr_timer_ps(c) > sim_rnr_timer_ps(c - 1));
	assert_true(sim_rnr_timer_ps(0) > sim_rnr_timer_ps(31));
}

static void test_unknown_name(void **state)
{
	(void)state;
	static const char *const bad[] = {"nope", "", "IB-HDR", "ib-hdr ", "ib", "ideal2"};
	struct sim_params p, before;

	memset(&p, 0x5a, sizeof(p));
	before = p;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sim_params_preset(bad[i], &p), -EINVAL);
		assert_memory_equal(&p, &before, sizeof(p));
	}
	assert_int_equal(sim_params_preset(NULL, &p), -EINVAL);
	assert_int_equal(sim_params_preset("ib-hdr", NULL), -EINVAL);
}

static void test_names_list(void **state)
{
	(void)state;
	const char *const *n = sim_params_preset_names();
	size_t i = 0;

	for (; n[i]; i++) {
		assert_true(i < NWANT);
		assert_string_equal(n[i], want_names[i]);
	}
	assert_int_equal(i, NWANT);
	assert_ptr_equal(sim_params_preset_names(), n);
}

/* The table covers every byte of struct sim_params exactly once (so the
 * printed form holds every member), keys are unique and findable, and the
 * printed unit matches the unit in the key. */
static void test_field_table(void **state)
{
	(void)state;
	unsigned char seen[sizeof(struct sim_params)] = {0};
	size_t total = 0;

	for (size_t i = 0; i < sim_param_field_count; i++) {
		const struct sim_param_field *f = &sim_param_fields[i];

		assert_true(f->offset + f->size <= sizeof(struct sim_params));
		for (size_t b = f->offset; b < f->offset + f->size; b++) {
			assert_int_equal(seen[b], 0);
			seen[b] = 1;
		}
		total += f->size;
		assert_ptr_equal(sim_param_field_find(f->key), f);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(sim_param_fields[j].key, f->key);

		const char *unit = "";
		if (ends_with(f->key, "_ps"))
			unit = "ps";
		else if (ends_with(f->key, "_bytes_per_s"))
			unit = "B/s";
		else if (ends_with(f->key, "_bps"))
			unit = "bit/s";
		else if (ends_with(f->key, "_bytes"))
			unit = "B";
		assert_string_equal(f->unit, unit);
		if (f->kind == SIM_PARAM_ENUM)
			assert_true(f->nnames > 0 && f->size == 4);
	}
	/* Every byte is a field's but the rnic section's tail padding. */
	size_t rnic_end = offsetof(struct sim_params, rnic.selective_repeat) + 1;
	size_t rnic_pad = offsetof(struct sim_params, rnic) + sizeof(struct sim_rnic_params) -
			  rnic_end;
	assert_int_equal(rnic_pad, 7);
	/* and the host section's after its last enum */
	size_t host_end = offsetof(struct sim_params, host.nic_socket) + 4;
	size_t host_pad = offsetof(struct sim_params, host) + sizeof(struct sim_host_params) -
			  host_end;
	assert_int_equal(host_pad, 4);
	assert_int_equal(total + rnic_pad + host_pad, sizeof(struct sim_params));
	assert_null(sim_param_field_find("link.rate"));
	assert_null(sim_param_field_find(NULL));
	assert_non_null(sim_param_field_find("switch.fwd_latency_ps"));
	assert_non_null(sim_param_field_find("software.poll_cq_ps"));
}

/* One line per field, in table order, keys as in the table; a few exact
 * lines; printing twice gives the same bytes. */
static void test_print_lines(void **state)
{
	(void)state;
	static const char *const want_hdr[] = {
		"name=ib-hdr",
		"link.type=ib",
		"link.rate_bps=200000000000 bit/s",
		"link.lane_signal_bps=53125000000 bit/s",
		"link.prop_delay_ps=25000 ps",
		"link.mtu_bytes=4096 B",
		"link.flow_ctrl=credit",
		"switch.mode=cut-through",
		"switch.sched=fifo",
		"rnic.wqe_bytes=64 B",
		"rnic.max_outstanding_pkts=128",
		"rnic.timeout_exp=18",
		"rnic.min_rnr_timer=12",
		"pcie.gen=gen4",
		"pcie.rate_bps=252061538461 bit/s",
		"pcie.tlp_overhead_bytes=24 B",
		"host.gpu_mem_bytes_per_s=2039000000000 B/s",
		"host.gpu_dma=gpudirect-rdma",
		"software.post_send_ps=100000 ps",
	};
	static const char *const want_r400[] = {
		"link.type=rocev2-ipv4",
		"link.flow_ctrl=pfc",
		"link.rate_bps=400000000000 bit/s",
		"pcie.gen=gen5",
		"pcie.rate_bps=504123076923 bit/s",
		"host.nvlink_bps=3600000000000 bit/s",
	};
	struct {
		const char *preset;
		const char *const *want;
		size_t n;
	} cases[] = {
		{"ib-hdr", want_hdr, sizeof(want_hdr) / sizeof(want_hdr[0])},
		{"roce-400g", want_r400, sizeof(want_r400) / sizeof(want_r400[0])},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sim_params p = load(cases[c].preset);
		char *a = print_str(&p), *b = print_str(&p);
		char *lines[128];

		assert_string_equal(a, b);
		assert_true(a[strlen(a) - 1] == '\n');
		size_t n = split_lines(a, lines, 128);
		assert_int_equal(n, sim_param_field_count);
		for (size_t i = 0; i < n; i++) {
			size_t k = strlen(sim_param_fields[i].key);
			assert_memory_equal(lines[i], sim_param_fields[i].key, k);
			assert_int_equal(lines[i][k], '=');
		}
		for (size_t w = 0; w < cases[c].n; w++) {
			size_t hits = 0;
			for (size_t i = 0; i < n; i++)
				hits += strcmp(lines[i], cases[c].want[w]) == 0;
			assert_int_equal(hits, 1);
		}
		free(a);
		free(b);
	}
}

/* The whole printed form of `ideal`: the documented format and order. */
static void test_print_ideal_exact(void **state)
{
	(void)state;
	static const char want[] =
		"name=ideal\n"
		"link.type=ib\n"
		"link.rate_bps=100000000000 bit/s\n"
		"link.lanes=4\n"
		"link.lane_signal_bps=25000000000 bit/s\n"
		"link.enc_data_bits=1\n"
		"link.enc_code_bits=1\n"
		"link.fec_num=1\n"
		"link.fec_den=1\n"
		"link.prop_delay_ps=0 ps\n"
		"link.mtu_bytes=4096 B\n"
		"link.flow_ctrl=credit\n"
		"link.loss_ppb=0\n"
		"switch.mode=cut-through\n"
		"switch.sched=fair\n"
		"switch.fwd_latency_ps=0 ps\n"
		"switch.buffer_bytes=0 B\n"
		"switch.radix=64\n"
		"switch.ecn_kmin_bytes=0 B\n"
		"switch.ecn_kmax_bytes=0 B\n"
		"switch.ecn_pmax_pct=0\n"
		"switch.pfc_quanta=0\n"
		"switch.sharp=0\n"
		"rnic.doorbell_ps=0 ps\n"
		"rnic.wqe_fetch_ps=0 ps\n"
		"rnic.wqe_bytes=64 B\n"
		"rnic.bf_max_bytes=256 B\n"
		"rnic.inline_max_bytes=220 B\n"
		"rnic.req_proc_ps=0 ps\n"
		"rnic.max_outstanding_pkts=8388608\n"
		"rnic.max_rd_atomic=16\n"
		"rnic.ack_coalesce_pkts=1\n"
		"rnic.resp_proc_ps=0 ps\n"
		"rnic.atomic_ps=0 ps\n"
		"rnic.cqe_write_ps=0 ps\n"
		"rnic.cqe_bytes=64 B\n"
		"rnic.min_rnr_timer=12\n"
		"rnic.rnr_retry=7\n"
		"rnic.retry_cnt=7\n"
		"rnic.timeout_exp=18\n"
		"rnic.selective_repeat=0\n"
		"cc.dcqcn=0\n"
		"cc.cnp_interval_ps=0 ps\n"
		"cc.alpha_period_ps=0 ps\n"
		"cc.alpha_g=0\n"
		"cc.initial_alpha=0\n"
		"cc.rate_gd=0\n"
		"cc.rate_reduce_period_ps=0 ps\n"
		"cc.min_dec_pct=0\n"
		"cc.threshold=0\n"
		"cc.min_rate_bps=0 bit/s\n"
		"cc.time_reset_ps=0 ps\n"
		"cc.byte_reset_bytes=0 B\n"
		"cc.ai_rate_bps=0 bit/s\n"
		"cc.hai_rate_bps=0 bit/s\n"
		"cc.clamp_tgt_rate=0\n"
		"cc.clamp_tgt_rate_ati=0\n"
		"pcie.gen=gen5\n"
		"pcie.lanes=16\n"
		"pcie.rate_bps=0 bit/s\n"
		"pcie.latency_ps=0 ps\n"
		"pcie.mps_bytes=4096 B\n"
		"pcie.mrrs_bytes=4096 B\n"
		"pcie.tlp_overhead_bytes=0 B\n"
		"pcie.cpl_overhead_bytes=0 B\n"
		"host.gpu_mem_bytes_per_s=0 B/s\n"
		"host.gpu_launch_ps=0 ps\n"
		"host.gpu_step_ps=0 ps\n"
		"host.gpu_mem_latency_ps=0 ps\n"
		"host.gpu_warp_load_bytes=0 B\n"
		"host.p2p_hop_ll_ps=0 ps\n"
		"host.p2p_hop_ll128_ps=0 ps\n"
		"host.p2p_hop_simple_ps=0 ps\n"
		"host.nvlink_links=18\n"
		"host.nvlink_pkt_bytes=0 B\n"
		"host.nvlink_pkt_overhead_bytes=0 B\n"
		"host.nvlink_bps=0 bit/s\n"
		"host.cpu_mem_bytes_per_s=0 B/s\n"
		"host.cpu_thread_bytes_per_s=0 B/s\n"
		"host.cpu_call_ps=0 ps\n"
		"host.gpu_dma=gpudirect-rdma\n"
		"host.gpu_arch=hopper\n"
		"host.cpu_vendor=intel\n"
		"host.socket_link_bytes_per_s=0 B/s\n"
		"host.nic_socket=local\n"
		"software.post_send_ps=0 ps\n"
		"software.post_recv_ps=0 ps\n"
		"software.poll_cq_ps=0 ps\n"
		"software.net_step_ps=0 ps\n"
		"software.launch_cpu_ps=0 ps\n"
		"software.group_cpu_ps=0 ps\n";
	struct sim_params p = load("ideal");
	char *got = print_str(&p);

	assert_string_equal(got, want);
	free(got);
}

/* Changing any one field changes exactly its own line: each line is read
 * from its own member and nothing else. */
static void test_print_each_field_own_line(void **state)
{
	(void)state;
	struct sim_params base = load("roce-100g");
	char *ref = print_str(&base);
	char *ref_lines[128];
	size_t n = split_lines(ref, ref_lines, 128);

	assert_int_equal(n, sim_param_field_count);
	for (size_t i = 0; i < sim_param_field_count; i++) {
		const struct sim_param_field *f = &sim_param_fields[i];
		struct sim_params p = base;

		if (f->kind == SIM_PARAM_STR)
			p.name[0] = 'X';
		else if (f->kind == SIM_PARAM_ENUM)
			sim_param_field_set(&p, f, (sim_param_field_get(&p, f) + 1) % f->nnames);
		else
			sim_param_field_set(&p, f, sim_param_field_get(&p, f) + 1);

		char *got = print_str(&p);
		char *lines[128];
		assert_int_equal(split_lines(got, lines, 128), n);
		for (size_t j = 0; j < n; j++) {
			if (j == i)
				assert_string_not_equal(lines[j], ref_lines[j]);
			else
				assert_string_equal(lines[j], ref_lines[j]);
		}
		free(got);
	}
	free(ref);
}

/* An enum value out of range prints as its number, not as garbage. */
static void test_print_enum_out_of_range(void **state)
{
	(void)state;
	struct sim_params p = load("ib-ndr");
	char *s;

	p.link.flow_ctrl = (enum sim_flow_ctrl)7;
	p.link.type = (enum sim_link)SIM_LINK_COUNT;
	s = print_str(&p);
	assert_non_null(strstr(s, "\nlink.flow_ctrl=7\n"));
	assert_non_null(strstr(s, "\nlink.type=6\n"));
	assert_int_equal(sim_params_validate(&p), -EINVAL);
	free(s);
}

static void test_validate(void **state)
{
	(void)state;
	const struct sim_params good = load("ib-hdr");
	struct sim_params p;

#define BROKEN(stmt) do { \
		p = good; \
		stmt; \
		assert_int_equal(sim_params_validate(&p), -EINVAL); \
	} while (0)
	BROKEN(p.link.rate_bps = 0);
	BROKEN(p.link.mtu_bytes = 3000);
	BROKEN(p.link.mtu_bytes = 8192);
	BROKEN(p.link.mtu_bytes = 128);
	BROKEN(p.link.type = (enum sim_link)SIM_LINK_COUNT);
	BROKEN(p.link.flow_ctrl = SIM_FC_COUNT);
	BROKEN(p.sw.mode = SIM_SWITCH_MODE_COUNT);
	BROKEN(p.sw.sched = SIM_SWITCH_SCHED_COUNT);
	BROKEN(p.rnic.timeout_exp = 32);
	BROKEN(p.rnic.retry_cnt = 8);
	BROKEN(p.rnic.rnr_retry = 8);
	BROKEN(p.rnic.min_rnr_timer = 32);
	BROKEN(p.rnic.max_outstanding_pkts = 0);
	BROKEN(p.rnic.max_outstanding_pkts = (1u << 23) + 1);
	BROKEN(p.rnic.ack_coalesce_pkts = 0);
	BROKEN(p.rnic.wqe_bytes = 0);
	BROKEN(p.pcie.gen = SIM_PCIE_GEN_COUNT);
	BROKEN(p.pcie.lanes = 0);
	BROKEN(p.host.gpu_dma = SIM_GPU_DMA_COUNT);
	BROKEN(memset(p.name, 'a', sizeof(p.name)));
#undef BROKEN
	for (uint32_t mtu = 256; mtu <= 4096; mtu *= 2) {
		p = good;
		p.link.mtu_bytes = mtu;
		assert_int_equal(sim_params_validate(&p), 0);
	}
	assert_int_equal(sim_params_validate(NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_preset_loads),
		cmocka_unit_test(test_preset_families),
		cmocka_unit_test(test_link_rates),
		cmocka_unit_test(test_pcie_rates),
		cmocka_unit_test(test_timers),
		cmocka_unit_test(test_unknown_name),
		cmocka_unit_test(test_names_list),
		cmocka_unit_test(test_field_table),
		cmocka_unit_test(test_print_lines),
		cmocka_unit_test(test_print_ideal_exact),
		cmocka_unit_test(test_print_each_field_own_line),
		cmocka_unit_test(test_print_enum_out_of_range),
		cmocka_unit_test(test_validate),
	};

	return cmocka_run_group_tests_name("sim_params", tests, NULL, NULL);
}
