/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_allreduce.c — the correctness matrix (tests/matrix.h) for allreduce. */
#define MATRIX_COLL CC_ALLREDUCE
#define MATRIX_NAME "matrix_allreduce"
#include "tests/matrix.h"
