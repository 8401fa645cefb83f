/* SPDX-License-Identifier: MIT */
#include "multi_gpu.h"
extern const team_stage team_08_all_reduce;
int main(int argc, char **argv) { return team_main(&team_08_all_reduce, argc, argv); }
