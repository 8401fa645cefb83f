// SPDX-License-Identifier: MIT
#include "stage.h"
extern const stage_t stage_03_shuffle;
int main(int argc, char **argv) { return stage_main(&stage_03_shuffle, argc, argv); }
