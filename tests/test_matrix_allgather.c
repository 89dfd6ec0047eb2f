/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_allgather.c — the correctness matrix (tests/matrix.h) for allgather. */
#define MATRIX_COLL CC_ALLGATHER
#define MATRIX_NAME "matrix_allgather"
#include "tests/matrix.h"
