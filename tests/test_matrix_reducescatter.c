/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_reducescatter.c — the correctness matrix (tests/matrix.h) for reducescatter. */
#define MATRIX_COLL CC_REDUCESCATTER
#define MATRIX_NAME "matrix_reducescatter"
#include "tests/matrix.h"
