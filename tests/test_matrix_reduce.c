/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_reduce.c — the correctness matrix (tests/matrix.h) for
 * reduce on NCCL's ring, the root moving with size and operator. */
#define MATRIX_COLL CC_REDUCE
#define MATRIX_NAME "matrix_reduce"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
