/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_allreduce_hier.c — the correctness matrix
 * (tests/matrix.h) for the hierarchical allreduce (core/hier.c): nodes of
 * every size that divides k, from one rank per node to one node. */
#define MATRIX_COLL CC_ALLREDUCE
#define MATRIX_ALGO CC_ALGO_HIER
#define MATRIX_NAME "matrix_allreduce_hier"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
