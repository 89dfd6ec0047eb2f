/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_broadcast.c — the correctness matrix (tests/matrix.h) for
 * broadcast on NCCL's ring, the root moving with size and operator. */
#define MATRIX_COLL CC_BROADCAST
#define MATRIX_NAME "matrix_broadcast"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
