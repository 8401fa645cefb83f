// SPDX-License-Identifier: MIT
#include "stage.h"
extern const stage_t stage_01_naive;
int main(int argc, char **argv) { return stage_main(&stage_01_naive, argc, argv); }
