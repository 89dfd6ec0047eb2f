/* SPDX-License-Identifier: BSD-3-Clause */
/* sim/pcie.h — the RNIC's PCIe link: DMA writes, DMA reads and MMIO writes
 * as streams of TLPs on two independent directions.
 *
 * Directions (seen from the device):
 *   upstream   device -> root complex: Memory Write (MWr) TLPs of DMA
 *              writes, Memory Read (MRd) requests of DMA reads;
 *   downstream root complex -> device: Completions with Data (CplD) of DMA
 *              reads, and the host's MMIO writes (doorbells, BlueFlame).
 * PCIe links are dual simplex, so the two never share bandwidth (PCI Express
 * Base Specification 4.0, 4.2: one differential pair per direction per
 * lane).
 *
 * TLP costs (PCIe Base Spec 4.0, 2.2: a TLP is a 3 or 4 DW header, the
 * payload, an optional ECRC, wrapped by the Data Link Layer's sequence
 * number and LCRC and the Physical Layer's framing).  As in pcie-bench's
 * model (Neugebauer et al., "Understanding PCIe performance for end host
 * networking", SIGCOMM 2018, section 3 and pcie-model/model/pcie.py), each
 * TLP costs its payload plus a fixed overhead, at the data rate after line
 * coding (sim_pcie_params.rate_bps):
 *   DMA write of B bytes: ceil(B / MPS) MWr TLPs of at most MPS payload
 *              bytes, + tlp_overhead_bytes each (64-bit address: 24);
 *   DMA read of B bytes:  ceil(B / MRRS) MRd TLPs of tlp_overhead_bytes
 *              upstream; the root complex answers request i, once it has
 *              arrived, with ceil(len_i / MPS) CplD TLPs of at most MPS
 *              payload bytes, + cpl_overhead_bytes each (20), downstream.
 * Buffers are assumed aligned to MPS, so completions are split at MPS, not
 * at the smaller Read Completion Boundary (Base Spec 2.3.1.1); DLLPs (ACKs,
 * flow-control updates) and flow-control credit stalls are not modelled —
 * pcie-bench folds them into the per-TLP overhead and measures the rest.
 *
 * Timing.  Each direction is one FIFO of TLP batches served in order: a
 * batch serializes TLP by TLP (each sim_serialize_ps(), rounded up per TLP
 * as on a network link) and its last TLP is delivered latency_ps after its
 * last byte left.  Except the transmit path's read requests
 * (sim_pcie_dma_read()): they pass the DMA writes queued there.  A NIC
 * queues its receive path's writes and its transmit path's read requests
 * apart and issues them to the link TLP by TLP in turn, so a transmit MRd
 * waits for the write TLP on the wire (about 9 ns at Gen4 x16, MPS 256,
 * left out here), not for the receive backlog still queued inside the NIC;
 * in one FIFO, a NIC receiving faster than its upstream can write would
 * starve its own transmit (two cables on a k = 2 ring: a rank's send rate
 * fell to a third).  Nothing it reads can be data those writes carry: the
 * software posts a send only after it has seen what it sends.  Such an MRd
 * starts when the transmit requests before it have left, at once
 * otherwise, and the direction's free time moves by its serialization, so
 * the writes queued after it leave that much later: the link's time is
 * counted once.  Writes already queued keep their times (each early by at
 * most the 24-byte requests that passed it).  A responder's read for a
 * READ response (sim_pcie_dma_read_ordered()) stays in the FIFO behind
 * every write queued before it: a READ must return the data of the WRITEs
 * before it on its QP (IBA's RC ordering), and PCIe lets no read request
 * pass a posted write (Base Spec 2.4.1, the ordering table).
 *
 * The root complex turns a read request into completions at the instant it
 * arrives (its memory access time is part of latency_ps, see params.c).
 * rate_bps 0 is an unlimited link: only latency counts.
 * Closed forms, idle link, rate r, latency L, ser(x) = ceil(8x * 1e12 / r):
 *   write B:  (k-1) * ser(MPS + oh) + ser(last + oh) + L,   k = ceil(B/MPS)
 *   read B:   ser(oh) + L + [CplD of every request, back to back if the
 *             downstream is the bottleneck] + L.
 *
 * Completion: a callback at the picosecond the last byte is in host memory
 * (write: the last MWr delivered) or in the device (read: the last CplD of
 * the last request delivered — completions come back in request order, as
 * the FIFO serves them).
 *
 * Events (sim/event.h's head-of-line contract): per direction at most
 * SIM_PCIE_DIR_EVENTS pending — the delivery of the earliest batch not yet
 * delivered — and as many for the transmit read requests' own line.
 * Nothing reacts to a batch's last TLP leaving, so its start and end are
 * computed when it is queued (FIFO: it starts when the one before it ends)
 * and only its delivery is an event; deliveries on one delay line never go
 * backwards (FIFO start, constant latency).  A write is one batch whatever
 * its size; a read is one batch per request in each direction.
 * Batches are allocated at submission, none in a handler, so a running
 * simulation never fails for memory.
 *
 * A PCIe switch's uplink (struct sim_pcie_uplink).  Where a topology puts
 * devices behind a PCIe switch (docs/yaml.md `pcie:`), their traffic to
 * host memory also crosses the switch's one link to the root complex,
 * which they share; traffic between two devices of one switch (GPUDirect
 * RDMA: the NIC and its GPU) turns at the switch and never reaches it
 * (Base Spec 4.0, 1.3.3: a switch routes a TLP port to port by address).
 * A switch arbitrates its egress TLP by TLP among its ingress ports, so
 * two busy devices each get half of the uplink.  The model keeps that
 * share without events of its own, for the two kinds of user it has:
 *   - a device's DMA batches (the *_via calls: a NIC's payload, one packet
 *     at most) take their time on their own link as without the uplink,
 *     and on the uplink in the order they are handed to the link (one
 *     device's backlog on its own link does not hold another's); a batch
 *     is delivered when the later of the two ends.  While a bulk transfer
 *     holds the uplink (below) a batch shares it: for as long as the bulk
 *     transfers have left, at most its own serialization, it takes that
 *     much longer and pushes them back by as much;
 *   - a bulk transfer (sim_pcie_uplink_bulk(): a GPU kernel's loads and
 *     stores of staging buffers, sim/gpu_host.h) takes what the batches
 *     already queued leave, after the bulk transfers before it; its end
 *     moves by every batch that shares the uplink with it later, as does
 *     every bulk transfer's queued behind it (sim_pcie_uplink_bulk_end(),
 *     which its owner checks when it ends).
 * Each TLP flight through the switch adds its hop latency
 * (sim_pcie_uplink.latency_ps).  A line's deliveries stay in order: a
 * batch is not delivered before one queued ahead of it on its line.
 */
#ifndef CCLAB_SIM_PCIE_H
#define CCLAB_SIM_PCIE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/params.h"
#include "sim/time.h"

enum sim_pcie_dirn {
	SIM_PCIE_UP,   /* device to host: MWr, MRd */
	SIM_PCIE_DOWN, /* host to device: CplD, MMIO MWr */
	SIM_PCIE_NDIR
};

/* done_ps is when the last byte is in place; it equals sim_now(). */
typedef void (*sim_pcie_done_fn)(struct sim_engine *eng, void *ctx, uint64_t arg,
				 sim_time_ps done_ps);

struct sim_pcie_item; /* one batch of TLPs (pcie.c) */

/* A bulk transfer an uplink holds: its id and its end as it stands. */
struct sim_pcie_bulk {
	uint64_t id;
	sim_time_ps end;
};
#define SIM_PCIE_BULK_RING 64
#define SIM_PCIE_BULK_NONE UINT64_MAX

/* A PCIe switch's link to the root complex, shared by the devices behind
 * it (above); per direction as seen from the devices. */
struct sim_pcie_uplink {
	uint64_t rate_bps;                    /* per direction; 0: unlimited */
	sim_time_ps latency_ps;               /* the switch's hop, each flight */
	sim_time_ps batch_free[SIM_PCIE_NDIR]; /* devices' batches: the last one's end */
	sim_time_ps bulk_free[SIM_PCIE_NDIR];  /* bulk transfers: the last one's end */
	/* The latest SIM_PCIE_BULK_RING bulk transfers a direction holds, by
	 * id (ring[d][id % SIM_PCIE_BULK_RING]), ends in id order; NULL: the
	 * uplink takes none (sim_pcie_uplink_bulk() ids then say so). */
	struct sim_pcie_bulk (*ring)[SIM_PCIE_BULK_RING];
	uint64_t bulk_ids[SIM_PCIE_NDIR];     /* ids given */
	sim_time_ps busy_ps[SIM_PCIE_NDIR];    /* serialization of everything on it */
	uint64_t wire_bytes[SIM_PCIE_NDIR];    /* its TLPs' bytes, headers included */
	uint64_t payload_bytes[SIM_PCIE_NDIR]; /* of those, data */
	/* A GPU's own link as its NICs cross it to reach its memory (several
	 * NICs per GPU): a device's upstream is this link's downstream. */
	bool reversed;
};

struct sim_pcie_dir_stats {
	uint64_t tlps;          /* queued (their times are fixed then) */
	uint64_t payload_bytes; /* data carried by those TLPs */
	uint64_t wire_bytes;    /* payload + per-TLP overhead */
	uint64_t batches;
};

struct sim_pcie_dir {
	struct sim_pcie_item *fl_head, *fl_tail; /* queued, serializing or in flight, by due time */
	sim_time_ps free_at;   /* when the last queued batch's last TLP has left */
	sim_time_ps seg_start; /* start of the back-to-back run that ends at free_at */
	sim_time_ps busy_ps;   /* every queued batch's serialization */
	bool fl_armed;       /* a delivery event is pending for fl_head */
	bool fl_running;     /* inside the delivery handler */
	struct sim_pcie_dir_stats st;
};

struct sim_pcie {
	struct sim_engine *eng;
	uint64_t rate_bps;      /* per direction; 0: unlimited */
	sim_time_ps latency_ps; /* one way */
	uint32_t mps, mrrs, tlp_oh, cpl_oh;
	struct sim_pcie_dir dir[SIM_PCIE_NDIR];
	/* Upstream read requests: their own delay line (only fl_*, free_at
	 * used); their TLPs count in dir[SIM_PCIE_UP]'s time and stats. */
	struct sim_pcie_dir mrd;
	struct sim_pcie_item *free; /* recycled batches */
};

/* Engine events one link (both directions) can have pending at once. */
#define SIM_PCIE_DIR_EVENTS 1
#define SIM_PCIE_MAX_EVENTS ((SIM_PCIE_NDIR + 1) * SIM_PCIE_DIR_EVENTS)

/* 0, or -EINVAL for a NULL engine or params, or MPS / MRRS of 0. */
int sim_pcie_init(struct sim_pcie *p, struct sim_engine *eng, const struct sim_pcie_params *pp);

/* Frees every batch, queued or in flight (their callbacks never run). */
void sim_pcie_destroy(struct sim_pcie *p);

/* The device writes `bytes` to host memory; fn (may be NULL) runs when the
 * last byte is there.  0, -EINVAL for 0 bytes, or -ENOMEM. */
int sim_pcie_dma_write(struct sim_pcie *p, uint64_t bytes, sim_pcie_done_fn fn, void *ctx,
		       uint64_t arg);

/* The three DMA calls, the batches also crossing uplink `via` (NULL: none,
 * as the calls without _via). */
int sim_pcie_dma_write_via(struct sim_pcie *p, struct sim_pcie_uplink *via, uint64_t bytes,
			   sim_pcie_done_fn fn, void *ctx, uint64_t arg);
int sim_pcie_dma_read_via(struct sim_pcie *p, struct sim_pcie_uplink *via, uint64_t bytes,
			  sim_pcie_done_fn fn, void *ctx, uint64_t arg);
int sim_pcie_dma_read_ordered_via(struct sim_pcie *p, struct sim_pcie_uplink *via,
				  uint64_t bytes, sim_pcie_done_fn fn, void *ctx, uint64_t arg);

/* fn runs once every DMA write the device has queued so far is in host
 * memory: at once (before returning) where none is still on its way, else
 * when the last of them lands.  PCIe keeps posted writes in order (Base
 * Spec 4.0, 2.4.1), so what the device writes after them — a zero-length
 * WRITE WITH IMM's completion behind the WRITE it follows — lands after
 * them.  0, or -ENOMEM. */
int sim_pcie_after_writes(struct sim_pcie *p, sim_pcie_done_fn fn, void *ctx, uint64_t arg);

/* A bulk transfer of `ps` (payload_bytes of data in wire_bytes of TLPs) on
 * uplink u's direction d from `from` on (above):
 * its end as things stand (`from` when ps is 0), and in *id (may be NULL)
 * what sim_pcie_uplink_bulk_end() takes to tell its end later, after the
 * batches that shared the uplink with it meanwhile (SIM_PCIE_BULK_NONE
 * where u keeps no ring, or ps is 0). */
sim_time_ps sim_pcie_uplink_bulk(struct sim_pcie_uplink *u, enum sim_pcie_dirn d,
				 sim_time_ps from, sim_time_ps ps, uint64_t payload_bytes,
				 uint64_t wire_bytes, uint64_t *id);
/* Bulk transfer id's end now; 0 where it is not known (SIM_PCIE_BULK_NONE,
 * or more than SIM_PCIE_BULK_RING transfers ago). */
sim_time_ps sim_pcie_uplink_bulk_end(const struct sim_pcie_uplink *u, enum sim_pcie_dirn d,
				     uint64_t id);

/* The device reads `bytes` from host memory for what it transmits; fn runs
 * when the last byte is in the device.  Its requests pass the writes queued
 * upstream (above).  0, -EINVAL for 0 bytes, or -ENOMEM (nothing queued). */
int sim_pcie_dma_read(struct sim_pcie *p, uint64_t bytes, sim_pcie_done_fn fn, void *ctx,
		      uint64_t arg);

/* The same, its requests behind every write queued before them: a
 * responder's read of what a READ returns. */
int sim_pcie_dma_read_ordered(struct sim_pcie *p, uint64_t bytes, sim_pcie_done_fn fn, void *ctx,
			      uint64_t arg);

/* The host writes `bytes` into device BAR space (a doorbell, a BlueFlame
 * WQE), as MWr TLPs of at most MPS bytes, downstream. */
int sim_pcie_mmio_write(struct sim_pcie *p, uint64_t bytes, sim_pcie_done_fn fn, void *ctx,
			uint64_t arg);

/* Time direction d spent serializing up to sim_now(), the current batch's
 * elapsed part included. */
sim_time_ps sim_pcie_busy_ps(const struct sim_pcie *p, enum sim_pcie_dirn d);

static inline const struct sim_pcie_dir_stats *sim_pcie_stats(const struct sim_pcie *p,
							       enum sim_pcie_dirn d)
{
	return &p->dir[d].st;
}

/* True if nothing is queued, serializing or in flight in either direction. */
bool sim_pcie_idle(const struct sim_pcie *p);

#endif /* CCLAB_SIM_PCIE_H */
