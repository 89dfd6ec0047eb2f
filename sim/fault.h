/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/fault.h — faults the simulator injects into a run, beyond the key
 * and receive faults it shares with the data executor (core/exec.h
 * struct cc_fault): a link that goes down and maybe comes back, a NIC that
 * stops acknowledging, a GPU that runs slow.  How each acts on the models
 * (sim/exec_fault.c applies them) and what a run then ends with:
 *
 *   link-down  every packet that occupies the link — from the start of its
 *              serialization to its last bit's arrival — at any moment of
 *              [from, until) is lost, both directions of the cable: the
 *              physical layer loses the frame, so the receiver never sees
 *              it (sim/link.h outages).  The RC transport recovers as from
 *              any loss: a sequence NAK when later packets arrive (IBA
 *              9.7.5.1.3), else the local ACK timeout (IBA 9.7.6.1.3,
 *              4.096 us x 2^rnic.timeout_exp), go-back-N each time.  A link
 *              down longer than retry_cnt + 1 timeouts — for good, at
 *              until = never — ends the QP with IBV_WC_RETRY_EXC_ERR (IBA
 *              9.7.6.1.3) and the run with CC_RUN_COMPLETION_ERROR.
 *   no-ack     from `from` on, rank r's RNIC, as a responder, sends no
 *              ACK, NAK or atomic ACK (the AETH-only responses, IBA
 *              9.7.5.2); it still accepts requests, writes their payloads
 *              and answers READs.  Its requesters time out, resend, and
 *              end with IBV_WC_RETRY_EXC_ERR after retry_cnt retries.
 *   slow-gpu   rank r's GPU and its CPU reduce thread run every reduce and
 *              copy `factor` times slower: their per-op overhead times F,
 *              their memory bandwidth over F (sim/compute.h), so a job of
 *              cost c takes F c, give or take a picosecond of rounding.  The
 *              kernel launch and the GPU's PCIe link to staging buffers are
 *              not slowed.  The run completes; the straggler slows every
 *              rank that waits on it.
 *
 * Text form (`cclab sim --fault`, a scenario's `faults:` list):
 *
 *   link-down:NODE->NODE@T1[-T2]     the link(s) joining two nodes of the
 *                                    topology ("h0.gpu0->h1.gpu0",
 *                                    "node0.gpu3->rail3"), both directions
 *   link-down:rank=R[,port=P]@T1[-T2] the link on port P (default 0) of
 *                                    rank R's NIC
 *   no-ack:rank=R[@T]                from T (default 0)
 *   slow-gpu:rank=RxF                F a decimal >= 1 ("2", "1.5"), at most
 *                                    three decimals
 *
 * R is a rank, or `all` for no-ack and slow-gpu; times are util/units.h
 * times ("10us", "1.5ms", "0"); T2 omitted or `never`: the link stays
 * down.  Faults are data: the same faults and seed give the same run.
 */
#ifndef CCLAB_SIM_FAULT_H
#define CCLAB_SIM_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/net.h"
#include "sim/time.h"

enum cc_sim_fault_kind {
	CC_SIM_FAULT_LINK_DOWN,
	CC_SIM_FAULT_NO_ACK,
	CC_SIM_FAULT_SLOW_GPU,
	CC_SIM_FAULT_KIND_COUNT
};
extern const char *const cc_sim_fault_kind_name[CC_SIM_FAULT_KIND_COUNT]; /* "link-down", ... */

#define CC_SIM_FAULT_ALL UINT32_MAX   /* rank: every rank (no-ack, slow-gpu) */
#define CC_SIM_FAULT_TEXT_LEN 160     /* enough for cc_sim_fault_format() */
#define CC_SIM_FAULT_MAX_FACTOR 1000u /* slow-gpu: F at most */

struct cc_sim_fault {
	enum cc_sim_fault_kind kind;
	/* link-down: the links joining nodes `from` and `to`; from[0] == 0:
	 * the link on port `port` of rank `rank`'s NIC. */
	char from[SIM_NET_NAME_LEN], to[SIM_NET_NAME_LEN];
	uint32_t rank;      /* or CC_SIM_FAULT_ALL */
	uint32_t port;
	sim_time_ps at_ps;    /* link-down: down from; no-ack: silent from */
	sim_time_ps until_ps; /* link-down: up again at; SIM_TIME_NEVER: never */
	uint32_t factor_milli; /* slow-gpu: F x 1000 (2000: twice as slow) */
};

/* Parses one fault in the text form above.  0, or -EINVAL with a message
 * in err saying what was expected (err may be NULL). */
int cc_sim_fault_parse(const char *s, struct cc_sim_fault *out, char *err, size_t errlen);

/* The text form of f, which cc_sim_fault_parse() reads back as f. */
char *cc_sim_fault_format(const struct cc_sim_fault *f, char *buf, size_t len);

/* Checks faults[0 .. n) against finished network net: ranks and ports in
 * range, nodes that exist and are joined by a link.  0, or -EINVAL with a
 * message in err naming the fault (err may be NULL). */
int cc_sim_faults_check(const struct cc_sim_fault *faults, uint32_t n, const struct sim_net *net,
			char *err, size_t errlen);

/* The network links fault f (link-down, checked) takes down: their
 * indices into net->links, at most max stored; returns how many. */
uint32_t cc_sim_fault_links(const struct cc_sim_fault *f, const struct sim_net *net,
			    uint32_t *links, uint32_t max);

#endif /* CCLAB_SIM_FAULT_H */
