// SPDX-License-Identifier: MIT
#include "stage.h"
extern const stage_t stage_05_packed;
int main(int argc, char **argv) { return stage_main(&stage_05_packed, argc, argv); }
