/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_allreduce_hd.c — the correctness matrix (tests/matrix.h)
 * for halving-doubling allreduce (core/halving.c): k = 1..17 and 33 cover
 * powers of two and every fix-up shape below 17. */
#define MATRIX_COLL CC_ALLREDUCE
#define MATRIX_ALGO CC_ALGO_HALVING_DOUBLING
#define MATRIX_NAME "matrix_allreduce_hd"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
