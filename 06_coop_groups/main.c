/* SPDX-License-Identifier: MIT */
#include "stage.h"
extern const stage_t stage_06_coop_groups;
int main(int argc, char **argv) { return stage_main(&stage_06_coop_groups, argc, argv); }
