/* SPDX-License-Identifier: MIT */
#include "baselines.h"
int main(int argc, char **argv) { return stage_main(&stage_baselines, argc, argv); }
