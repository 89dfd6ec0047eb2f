/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/usage.c — help text.  Names of collectives, transports, types and
 * operators come from the library's own tables, so the help cannot drift
 * from what the parsers accept. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/p2p.h"
#include "core/dtype.h"
#include "sim/params.h"
#include "sim/topo.h"
#include "util/units.h"

#define FOR_SCHEDULE (1u << CLI_SCHEDULE)
#define FOR_CHECK (1u << CLI_CHECK)
#define FOR_SIM (1u << CLI_SIM)
#define FOR_LOOP (FOR_CHECK | FOR_SIM)

static void names(FILE *f, const char *const *tab, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "|" : "", tab[i] ? tab[i] : "?");
}

static void links_option(FILE *f)
{
	fprintf(f, "      --links FILE        write every link's bytes, busy time and utilisation\n"
		   "                          in the LAST size as CSV (scripts/plot.sh links)\n");
}

/* The simulator's faults and wall-clock limit (`cclab sim`, and `cclab run`
 * with a scenario). */
static void fault_options(FILE *f)
{
	fprintf(f, "      --fault FAULT       inject a fault (repeatable; docs/simulator.md,\n"
		   "                          \"Fault injection\"):\n"
		   "                          link-down:NODE->NODE@T1[-T2] or\n"
		   "                          link-down:rank=R[,port=P]@T1[-T2]: the link is\n"
		   "                          down from T1 to T2 (never: for good), both ways;\n"
		   "                          no-ack:rank=R[@T]: R's NIC stops acknowledging;\n"
		   "                          slow-gpu:rank=RxF: R's GPU is F times slower\n"
		   "                          (R: a rank, or all for these two);\n"
		   "                          rkey|lkey|norecv:RANK:OP as 'cclab run' takes\n");
	fprintf(f, "      --model packet|flow packet: every packet through NICs, links and\n"
		   "                          switches (default); flow: each message one flow,\n"
		   "                          links shared max-min fairly, no loss, PFC, ECN\n"
		   "                          or queues: faster for large messages\n");
	fprintf(f, "      --wall-limit S      stop a size after S real seconds (or a time:\n"
		   "                          500ms), building its schedule included; its row\n"
		   "                          fails with status time_limit (default %u)\n",
		CLI_DEFAULT_WALL_LIMIT_S);
	fprintf(f, "  -j, --jobs N            simulate up to N sizes at once, 1 to %u (default:\n"
		   "                          $CCLAB_JOBS, else the processors); rows in order,\n"
		   "                          every output the same as with -j 1\n", CLI_MAX_JOBS);
}

/* The options only `cclab sim` has. */
static void sim_options(FILE *f)
{
	const char *const *presets = sim_params_preset_names();
	int n = 0;

	while (presets[n])
		n++;
	fprintf(f, "      --fabric NAME       ");
	names(f, presets, n);
	fprintf(f, "\n"
		   "                          (default %s); docs/fabric.md gives every value;\n"
		   "                          or a fabric file (FILE.yaml: docs/calibrate.md)\n",
		CLI_DEFAULT_FABRIC);
	fprintf(f, "      --topology NAME     ");
	names(f, sim_topo_kind_name, SIM_TOPO_KIND_COUNT);
	fprintf(f, ": ring cables each NIC to its two neighbours\n"
		   "                          (only they can talk), star cables every NIC to\n"
		   "                          one switch, node puts every GPU on one host's\n"
		   "                          NVSwitch, railopt makes a host of\n"
		   "                          --ranks-per-node GPUs on an NVSwitch per node\n"
		   "                          and cables GPU g of each to rail switch g,\n"
		   "                          the rails to one spine (default: ring for -A\n"
		   "                          ring in rank order, node for nvls, railopt for\n"
		   "                          nvlstree and collnetchain, star for the rest)\n");
	fprintf(f, "      --nics M            railopt: M NICs per GPU, NIC j of GPU g on rail\n"
		   "                          switch g_j, NCCL's channel c on NIC c mod M,\n"
		   "                          all crossing the GPU's one PCIe link\n"
		   "      --pcie-switches S   each host's GPUs and NICs behind S PCIe switches,\n"
		   "                          those behind one sharing its uplink to host\n"
		   "                          memory (host staging's way; docs/yaml.md)\n");
	fprintf(f, "      --check 0|1         1: carry the data and count #wrong (default);\n"
		   "                          0: timing only, #wrong N/A, no buffers (as\n"
		   "                          nccl-tests' -c/--check; -c is --collective here)\n");
	fprintf(f, "      --gpus-per-thread G each thread launches G GPUs' kernels in turn, as\n"
		   "                          nccl-tests' -g: an iteration takes at least\n"
		   "                          software.group_cpu_ps + G x launch_cpu_ps\n"
		   "                          (default 1; docs/simulator.md, \"The launching\n"
		   "                          thread\")\n"
		   "      --agg-iters M       M collectives a group, one launch for all (-m)\n"
		   "      --cuda-graph        launched from a CUDA graph (-G): no such floor\n"
		   "      --verbs-run         predict cclab's own verbs executor (cclab run):\n"
		   "                          no NCCL network plugin on the proxy\n"
		   "                          (software.net_step_ps 0; docs/simulator.md)\n");
	fprintf(f, "      --trace FILE        write a Chrome trace (Perfetto, chrome://tracing)\n"
		   "                          of the LAST size only to FILE, atomically; a FILE\n"
		   "                          ending in .csv gets one CSV line per event instead\n"
		   "                          (scripts/plot.sh timeline)\n");
	links_option(f);
	fault_options(f);
}

/* --json and --csv, which every command with the size loop has. */
static void output_options(FILE *f)
{
	fprintf(f, "      --json FILE         also write the results to FILE as JSON; the\n"
		   "                          file is replaced atomically, complete or not at all\n");
	fprintf(f, "      --csv FILE          also write one CSV line per size to FILE\n"
		   "                          (scripts/plot.sh busbw draws it), atomically\n");
}

/* `cclab run`: a scenario file, or the verbs executor on real RNICs. */
void run_usage(FILE *f)
{
	fprintf(f, "Usage: cclab run SCENARIO.yaml [--set KEY=VALUE]... [OPTIONS]\n"
		   "       cclab run [-n K] [COLLECTIVE OPTIONS] [VERBS OPTIONS]\n\n"
		   "With a scenario: runs what the file says: the collective on its topology\n"
		   "and fabric, for its sizes, with its executors (sim, data, verbs: measured\n"
		   "on this host's RDMA devices, then compared with sim's prediction), and\n"
		   "holds the results to its expectations.  With a p2p: section it runs one of\n"
		   "perftest's tests instead, as 'cclab p2p' does, on the scenario's\n"
		   "topology (ranks 0 and 1) and fabric.  docs/yaml.md documents every key;\n"
		   "a bad file is reported with its file:line:col, exit status 2, nothing run.\n"
		   "Exit status 1 when a run fails, #wrong is not 0, a time is below the\n"
		   "bound, or an expectation is not met (each named on stderr).\n\n"
		   "Scenario options (and the verbs options below, for executor verbs):\n"
		   "      --set KEY=VALUE     set a key before the file is read, as if written\n"
		   "                          in it (repeatable): sizes.max=1GiB,\n"
		   "                          transport=send_recv, fabric.link.prop_delay_ps=2us\n");
	output_options(f);
	links_option(f);
	fprintf(f, "      --trace FILE        write a Chrome trace of the LAST size's simulation\n"
		   "                          (FILE.csv: CSV, one line per event)\n");
	fault_options(f);
	fprintf(f, "  -h, --help              this text\n\n"
		   "The files describe the verbs run if it is listed, else the simulator's.\n\n"
		   "Without a scenario: the same schedules on real RDMA devices through\n"
		   "libibverbs (docs/backend.md, docs/cluster.md), one process per rank:\n"
		   "under srun or mpirun the launcher gives the ranks (rank 0's address from\n"
		   "--bootstrap or CCLAB_BOOTSTRAP); otherwise -n K starts K ranks on this\n"
		   "host.  Each size runs -w warm-up and --iters timed iterations; the table\n"
		   "is nccl-tests' (time: each rank's mean, averaged over ranks).  The\n"
		   "collective options are 'cclab sim's: -c -A -P -r -t -b -e -f -d -o\n"
		   "--channels --ring-order --ranks-per-node --chunk-bytes --slot-bytes\n"
		   "--slots --seed --check --memory --json --csv --trace\n"
		   "(--trace: the last iteration of the LAST size, every rank).\n\n"
		   "Verbs options:\n"
		   "  -n, --nranks K          ranks (default: the launcher's, else 1)\n"
		   "      --device NAME       RDMA device (default: the first with an active\n"
		   "                          port; cclab devices lists them)\n"
		   "      --port N            its port (default: the first active one)\n"
		   "      --gid-index N       GID to address QPs by (default: a RoCE v2 GID\n"
		   "                          holding an IPv4 address; the LID on InfiniBand)\n"
		   "      --mtu BYTES         path MTU (default: the port's active MTU)\n"
		   "      --bootstrap H:P     rank 0's TCP rendezvous (default: $CCLAB_BOOTSTRAP)\n"
		   "  -w, --warmup N          untimed iterations per size (default %u)\n"
		   "      --iters N           timed iterations per size (default %u)\n"
		   "      --timeout S         seconds without progress before a rank reports\n"
		   "                          what it waits for and from whom (default %u)\n"
		   "      --fault K:R:OP      test an error path: rank R's post op OP goes out\n"
		   "                          with a corrupted key (K = rkey, lkey), or its\n"
		   "                          receive is not posted (K = norecv: RNR)\n"
		   "      --rnr-retry N       RNR retries, 0 to 7 (default: the schedule's 7,\n"
		   "                          forever, as NCCL)\n"
		   "      --device-map LIST   with --memory gpu: the GPU of each local rank, as\n"
		   "                          0,1,2,3 (default: local rank modulo the GPUs)\n"
		   "      --gpu-dma MODE      with --memory gpu: auto (NCCL's choice: dma-buf,\n"
		   "                          else peer memory, else host staging), gdr, or\n"
		   "                          host-staging (docs/gpu.md)\n\n"
		   "Examples:\n"
		   "  cclab run scenarios/demo.yaml --csv demo.csv\n"
		   "  scripts/plot.sh busbw demo.png demo.csv\n"
		   "  cclab run -n 4 -b 4 -e 4M --device rxe0 --json measured.json\n"
		   "  srun -N 2 --ntasks-per-node 8 cclab run -b 1M -e 1G \\\n"
		   "      --bootstrap node01:29500 --json measured.json\n",
		CLI_DEFAULT_WARMUP, CLI_DEFAULT_ITERS, CLI_DEFAULT_TIMEOUT_S);
}

/* A command's lines in `cclab help`: "  NAME ARGS" in 16 columns, then
 * the summary, its further lines under its first. */
static void command_lines(FILE *f, const char *name, const char *args, const char *summary)
{
	char head[32];

	snprintf(head, sizeof(head), "%s%s%s", name, *args ? " " : "", args);
	fprintf(f, "  %-16s", head);
	for (const char *p = summary;; p++) {
		size_t n = strcspn(p, "\n");

		fprintf(f, "%s%.*s\n", p == summary ? "" : "                  ", (int)n, p);
		p += n;
		if (!*p)
			break;
	}
}

void cli_usage_main(FILE *f)
{
	fprintf(f,
		"Usage: cclab COMMAND [OPTIONS]\n"
		"\n"
		"cclab turns a collective (ring allreduce, reduce-scatter, all-gather) into\n"
		"each rank's verbs-level work and runs it.\n"
		"\n"
		"Commands:\n");
	for (int c = 0; c < CLI_CMD_COUNT; c++)
		for (int k = 0; k < 2 && cli_commands[c].forms[k].summary; k++)
			command_lines(f, cli_commands[c].name, cli_commands[c].forms[k].args,
				      cli_commands[c].forms[k].summary);
	fprintf(f,
		"  all_reduce_perf ...\n"
		"                  as nccl-tests: its flags, its whole text, simulated; also\n"
		"                  all_gather_perf, reduce_scatter_perf, broadcast_perf,\n"
		"                  reduce_perf, alltoall_perf, sendrecv_perf, or cclab linked\n"
		"                  under the name\n"
		"  ib_write_bw ...\n"
		"                  as perftest: its flags; -d DEV waits as the server, HOST is\n"
		"                  its client, neither simulates; also ib_write_lat, ib_read_bw,\n"
		"                  ib_read_lat, ib_send_bw, ib_send_lat, ib_atomic_bw,\n"
		"                  ib_atomic_lat, or cclab linked under the name\n"
		"  help [COMMAND]  this text, or the options of COMMAND\n"
		"  --version       print the version (" CCLAB_VERSION ")\n"
		"\n"
		"Run 'cclab help COMMAND' or 'cclab COMMAND --help' for its options.\n"
		"Exit status: 0 success, 1 failure (wrong results, run errors), 2 bad usage.\n");
}

void cli_usage_hint(enum cli_cmd cmd)
{
	if (cmd < CLI_CMD_COUNT)
		fprintf(stderr, "Try 'cclab %s --help'.\n", cli_cmd_name(cmd));
	else
		fprintf(stderr, "Try 'cclab help'.\n");
}

void cli_usage(FILE *f, enum cli_cmd cmd)
{
	const unsigned me = 1u << cmd;
	char chunk[CC_FMT_BYTES_LEN], slot[CC_FMT_BYTES_LEN], dflt[CC_FMT_BYTES_LEN];

	cc_format_bytes(chunk, sizeof(chunk), CC_DEFAULT_CHUNK_BYTES);
	cc_format_bytes(slot, sizeof(slot), CC_DEFAULT_SLOT_BYTES);
	cc_format_bytes(dflt, sizeof(dflt), CLI_DEFAULT_BYTES);

	if (cmd < CLI_CMD_COUNT && cli_commands[cmd].usage) {
		cli_commands[cmd].usage(f);
		return;
	}
	if (cmd == CLI_SCHEDULE) {
		fprintf(f, "Usage: cclab schedule -n K [OPTIONS]\n\n"
			   "Builds the schedule of one collective and prints every rank's buffers,\n"
			   "memory regions, queues and ops (or, with --primitives, one line per\n"
			   "NCCL primitive: rank R channel C chunk I step S PRIMITIVE).\n\n");
	} else if (cmd == CLI_SIM) {
		fprintf(f, "Usage: cclab sim -n K [OPTIONS]\n\n"
			   "For each size from -b to -e, multiplying by -f (nccl-tests' loop),\n"
			   "builds the schedule, runs it once on the discrete-event simulator (CPU,\n"
			   "PCIe, RNIC, links and switch of --fabric, joined as --topology) and\n"
			   "prints nccl-tests' table, out-of-place half: the simulated time in us,\n"
			   "algbw and busbw, and #wrong (the data is carried and checked, as by\n"
			   "'cclab check', unless --check 0).  A time below the alpha-beta lower\n"
			   "bound or a busbw above the link rate is a model bug: reported on stderr,\n"
			   "exit status 1.  Exit status 0 only if every run completed within those\n"
			   "bounds with #wrong 0 (or unchecked).  A run still going after %u\n"
			   "simulated seconds (a peer that never posts a receive, with NCCL's\n"
			   "infinite RNR retry) is stopped and reported as stuck.\n\n",
			   CLI_SIM_TIME_LIMIT_S);
	} else {
		fprintf(f, "Usage: cclab check -n K [OPTIONS]\n\n"
			   "For each size from -b to -e, multiplying by -f (nccl-tests' loop),\n"
			   "builds the schedule, runs it on the data executor (functional, no\n"
			   "time) and prints nccl-tests' table, out-of-place half, with time,\n"
			   "algbw and busbw N/A.  Exit status 0 only if every run completed and\n"
			   "#wrong is 0 everywhere.\n\n");
	}
	fprintf(f, "Options:\n");
	fprintf(f, "  -n, --nranks K          number of ranks, 1 to %u (required)\n", CLI_MAX_RANKS);
	fprintf(f, "  -c, --collective NAME   ");
	names(f, cc_coll_name, CC_COLL_COUNT);
	fprintf(f, " (default %s)\n", cc_coll_name[CC_ALLREDUCE]);
	fprintf(f, "  -A, --algorithm NAME    ");
	names(f, cc_algo_name, CC_ALGO_COUNT);
	fprintf(f, " (default %s; NCCL_ALGO's\n"
		   "                          role; halving-doubling, hierarchical: allreduce\n"
		   "                          only; tree: allreduce, broadcast, reduce;\n"
		   "                          nvls: allreduce, reducescatter, allgather on\n"
		   "                          one NVSwitch node; nvlstree: allreduce, NVLS in\n"
		   "                          each node of --ranks-per-node, trees between\n"
		   "                          them; collnetchain: allreduce, a chain in each\n"
		   "                          node, SHARP in the switches between them (sim:\n"
		   "                          a fabric with switch.sharp: 1);\n"
		   "                          docs/schedule.md); sim: auto,\n"
		   "                          NCCL's own choice per size, protocol and channels\n"
		   "                          too unless given (docs/nccl-tuning.md)\n",
		cc_algo_name[CC_ALGO_RING]);
	fprintf(f, "  -P, --protocol NAME     ");
	names(f, cc_proto_name, CC_PROTO_COUNT);
	fprintf(f, " (default %s; NCCL_PROTO's\n"
		   "                          role: how slices sit in slots, core/proto.h)\n",
		cc_proto_name[CC_PROTO_SIMPLE]);
	if (me & FOR_SIM)
		fprintf(f, "      --nccl-version V    the NCCL release whose choices auto follows\n"
			   "                          (default: the newest cclab has)\n"
			   "      --env NCCL_X=VALUE  a variable of the run modelled, in NCCL's\n"
			   "                          syntax (NCCL_ALGO, NCCL_PROTO, NCCL_MIN_NCHANNELS,\n"
			   "                          ...), for auto; repeatable\n");
	fprintf(f, "  -r, --root RANK         broadcast and reduce: the root (default 0)\n");
	fprintf(f, "      --channels C        the ring (the tree's pair, nvls) over C\n"
		   "                          channels, each its own QPs and part of the\n"
		   "                          array (NCCL's nChannels; default 1)\n");
	fprintf(f, "      --ring-order NAME   rank (0..k-1) or rail: each channel's ring\n"
		   "                          leaves and enters nodes on one rail, the rail\n"
		   "                          rotating with the channel (needs nodes), as\n"
		   "                          NCCL's rings (default: rail under -A auto on\n"
		   "                          nodes of several ranks, else rank)\n");
	fprintf(f, "      --ranks-per-node G  ranks node*G .. node*G+G-1 share a node: what\n"
		   "                          -A hierarchical, --ring-order rail and the\n"
		   "                          tree allreduce (a chain per node) use, and\n"
		   "                          what crosses the network (NCCL's IB verbs)\n"
		   "                          or stays in the node (a scenario's topology\n"
		   "                          gives it; --topology node, -A nvls: k;\n"
		   "                          default: a node per rank)\n");
	fprintf(f, "  -t, --transport NAME    ");
	names(f, cc_transport_name, CC_TRANSPORT_COUNT);
	fprintf(f, " (default %s)\n", cc_transport_name[CC_WRITE_IMM]);
	if (me & FOR_SCHEDULE)
		fprintf(f, "  -b, --bytes SIZE        size in bytes (default %s); also --minbytes\n",
			dflt);
	if (me & FOR_LOOP) {
		fprintf(f, "  -b, --minbytes SIZE     first size (default %s)\n", dflt);
		fprintf(f, "  -e, --maxbytes SIZE     last size (default: the -b size)\n");
		fprintf(f, "  -f, --stepfactor N      multiply the size by N >= 2 each step "
			   "(default %u)\n", CLI_DEFAULT_FACTOR);
	}
	fprintf(f, "  -d, --datatype NAME     ");
	names(f, cc_dtype_name, CC_DTYPE_COUNT);
	fprintf(f, " (default %s)\n", cc_dtype_name[CC_FLOAT32]);
	fprintf(f, "  -o, --op NAME           ");
	names(f, cc_redop_name, CC_REDOP_COUNT);
	fprintf(f, " (default %s; none for allgather)\n", cc_redop_name[CC_SUM]);
	if (me & FOR_SCHEDULE) {
		fprintf(f, "      --rank R            print only rank R, building its ops alone (default:\n"
			   "                          every rank)\n");
		fprintf(f, "      --primitives        print NCCL primitives instead of verbs ops\n");
	}
	fprintf(f, "      --chunk-bytes SIZE  bytes per chunk, at most 2*slots-1 slots (default %s:\n"
		   "                          4 slots, fewer with --slots below 3; LL and\n"
		   "                          LL128: one slot; tree, simple and ll128: per\n"
		   "                          size, NCCL's rules, one slot halved for small\n"
		   "                          ones)\n",
		chunk);
	fprintf(f, "      --slot-bytes SIZE   data a staging slot holds, the largest message\n"
		   "                          (default %s; LL %llu, LL128 %llu: NCCL's steps)\n",
		slot, (unsigned long long)cc_proto_slot_bytes(CC_PROTO_LL),
		(unsigned long long)cc_proto_slot_bytes(CC_PROTO_LL128));
	fprintf(f, "      --slots N           slots per connection, 1 to %u (default %u)\n",
		CLI_MAX_SLOTS, CC_DEFAULT_NSLOTS);
	fprintf(f, "      --gpu-dma MODE      NIC access to GPU memory (default: %s):\n"
		   "                          %s, or %s: staging buffers in\n"
		   "                          pinned host memory that the GPU reads and writes\n"
		   "                          across its PCIe link (NCCL_NET_GDR_LEVEL=LOC)\n",
		me & FOR_SIM ? "the fabric's" : sim_gpu_dma_name[SIM_GPU_DMA_GPUDIRECT],
		sim_gpu_dma_name[SIM_GPU_DMA_GPUDIRECT], sim_gpu_dma_name[SIM_GPU_DMA_HOST_STAGING]);
	if (me & (FOR_SCHEDULE | FOR_CHECK))
		fprintf(f, "      --gdr-flush         NCCL's GDR flush: a 1-byte RDMA READ on a loopback\n"
			   "                          QP after each Simple slice received from another\n"
			   "                          node into GPU memory (NCCL before Hopper; sim\n"
			   "                          decides it from the fabric's GPU)\n");
	fprintf(f, "      --memory host|gpu   where the user buffers live (default gpu)\n");
	if (me & FOR_LOOP)
		fprintf(f, "      --seed S            seed of the input values (default %u)\n",
			CLI_DEFAULT_SEED);
	if (me & FOR_CHECK)
		fprintf(f, "      --order-seed S      seed of the interleaving of ranks and queues "
			   "(default %u)\n", CLI_DEFAULT_SEED);
	if (me & FOR_SIM)
		sim_options(f);
	if (me & FOR_LOOP)
		output_options(f);
	fprintf(f, "  -h, --help              this text\n\n");
	fprintf(f,
		"SIZE is a number of bytes with an optional K, M, G or T suffix (powers of 1024,\n"
		"as nccl-tests' K/M/G; KiB, MiB, GiB, TiB and KB ... TB, also powers of 1024,\n"
		"accepted; any case), e.g. 4096, 64K, 1.5M.\n"
		"As in nccl-tests, a size is the whole array: count = SIZE / type size for\n"
		"allreduce, SIZE / type size / K for reducescatter, allgather and\n"
		"alltoall, rounded down to whole 16-byte units per rank.\n");
	if (cmd == CLI_SIM)
		fprintf(f, "\nExample: 4 ranks, 64 KiB to 256 MiB, HDR InfiniBand through one switch,\n"
			   "with a JSON report and a trace of the 256 MiB run:\n"
			   "  cclab sim -n 4 -b 64K -e 256M --fabric ib-hdr --topology star \\\n"
			   "      --json sim.json --trace sim-trace.json\n");
}
