/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_reduce_tree.c — the correctness matrix (tests/matrix.h)
 * for reduce up NCCL's binary tree (core/tree.c), relabelled so the moving
 * root sits on top. */
#define MATRIX_COLL CC_REDUCE
#define MATRIX_ALGO CC_ALGO_TREE
#define MATRIX_NAME "matrix_reduce_tree"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
