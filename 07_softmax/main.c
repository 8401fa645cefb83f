/* SPDX-License-Identifier: MIT */
#include "stage.h"
extern const stage_t stage_07_softmax;
int main(int argc, char **argv) { return stage_main(&stage_07_softmax, argc, argv); }
