/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/pcie_link.h — the PCIe link the closed-form tests of sim/pcie.c
 * use (test_sim_pcie.c, test_pcie_uplink.c): 100 Gb/s per direction (80 ps
 * per byte, so ser(x) = 80x exactly), one-way latency L = 250 ns, MPS 256,
 * MRRS 512, MWr/MRd overhead 24 B, CplD overhead 20 B.  Hence
 *   ser(MWr 256) = 280 * 80 = 22400    ser(MRd) = 24 * 80 = 1920
 *   ser(CplD 256) = 276 * 80 = 22080   L = 250000
 */
#ifndef CCLAB_TESTS_PCIE_LINK_H
#define CCLAB_TESTS_PCIE_LINK_H

#include <stdint.h>

#include "sim/params.h"

#define L_PS UINT64_C(250000)

static const struct sim_pcie_params test_pp = {
	.rate_bps = UINT64_C(100000000000),
	.latency_ps = L_PS,
	.gen = SIM_PCIE_GEN4,
	.lanes = 16,
	.mps_bytes = 256,
	.mrrs_bytes = 512,
	.tlp_overhead_bytes = 24,
	.cpl_overhead_bytes = 20,
};

#endif /* CCLAB_TESTS_PCIE_LINK_H */
