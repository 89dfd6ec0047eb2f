/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_allreduce_hd_ll128.c — the correctness matrix (tests/matrix.h)
 * for allreduce on the halving-doubling algorithm with the LL128 protocol:
 * every slice in flagged lines (core/proto.h), slots reused. */
#define MATRIX_COLL CC_ALLREDUCE
#define MATRIX_ALGO CC_ALGO_HALVING_DOUBLING
#define MATRIX_PROTO CC_PROTO_LL128
#define MATRIX_NAME "matrix_allreduce_hd_ll128"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
