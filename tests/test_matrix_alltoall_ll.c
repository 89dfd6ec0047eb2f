/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_alltoall_ll.c — the correctness matrix (tests/matrix.h)
 * for alltoall on the direct algorithm with the LL protocol:
 * every slice in flagged lines (core/proto.h), slots reused. */
#define MATRIX_COLL CC_ALLTOALL
#define MATRIX_ALGO CC_ALGO_DIRECT
#define MATRIX_PROTO CC_PROTO_LL
#define MATRIX_NAME "matrix_alltoall_ll"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
