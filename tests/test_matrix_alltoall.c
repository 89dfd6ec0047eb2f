/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_alltoall.c — the correctness matrix (tests/matrix.h)
 * for all-to-all, pairwise (core/direct.c): the one algorithm that builds
 * it. */
#define MATRIX_COLL CC_ALLTOALL
#define MATRIX_ALGO CC_ALGO_DIRECT
#define MATRIX_NAME "matrix_alltoall"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
