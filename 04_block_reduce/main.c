// SPDX-License-Identifier: MIT
#include "stage.h"
extern const stage_t stage_04_block_reduce;
int main(int argc, char **argv) { return stage_main(&stage_04_block_reduce, argc, argv); }
