/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_allreduce_hier_ll.c — the correctness matrix
 * (tests/matrix.h) for the hierarchical allreduce with the LL protocol. */
#define MATRIX_COLL CC_ALLREDUCE
#define MATRIX_ALGO CC_ALGO_HIER
#define MATRIX_PROTO CC_PROTO_LL
#define MATRIX_NAME "matrix_allreduce_hier_ll"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
