/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/test_matrix_allreduce_tree.c — the correctness matrix
 * (tests/matrix.h) for the double binary tree allreduce (core/tree.c):
 * k = 1..17 and 33 cover odd k (tree 1 shifted) and even k (mirrored). */
#define MATRIX_COLL CC_ALLREDUCE
#define MATRIX_ALGO CC_ALGO_TREE
#define MATRIX_NAME "matrix_allreduce_tree"
#define MATRIX_QUICK_BY_DEFAULT
#include "tests/matrix.h"
