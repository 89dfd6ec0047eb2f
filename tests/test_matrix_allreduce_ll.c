/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_allreduce_ll.c — the correctness matrix (tests/matrix.h)
 * for allreduce on the ring algorithm with the LL protocol:
 * every slice in flagged lines (core/proto.h), slots reused. */
#define MATRIX_COLL CC_ALLREDUCE
#define MATRIX_ALGO CC_ALGO_RING
#define MATRIX_PROTO CC_PROTO_LL
#define MATRIX_NAME "matrix_allreduce_ll"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
