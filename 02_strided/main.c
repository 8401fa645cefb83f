// SPDX-License-Identifier: MIT
#include "stage.h"
extern const stage_t stage_02_strided;
int main(int argc, char **argv) { return stage_main(&stage_02_strided, argc, argv); }
