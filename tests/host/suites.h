/* SPDX-License-Identifier: MIT */
/* suites.h: the host suites, one per area, registered from one table. */
#ifndef SUITES_H
#define SUITES_H

#include <CUnit/CUnit.h>

extern CU_TestInfo cli_tests[];
extern CU_TestInfo data_tests[];
extern CU_TestInfo check_tests[];
extern CU_TestInfo report_tests[];
extern CU_TestInfo program_tests[];
extern CU_TestInfo assign_tests[];
extern CU_TestInfo results_tests[];
extern CU_TestInfo evidence_tests[];
extern CU_TestInfo multi_gpu_tests[];

#endif
