/* SPDX-License-Identifier: MIT */
/* The host suite: runs anywhere, GPU or not. */
#include <CUnit/Basic.h>
#include <stdio.h>

#include "suites.h"

int main(void)
{
    CU_SuiteInfo suites[] = {
        {"cli: flags and their validation", NULL, NULL, NULL, NULL, cli_tests},
        {"data: inputs, patterns and half conversion", NULL, NULL, NULL, NULL, data_tests},
        {"check: references and pass/fail rules", NULL, NULL, NULL, NULL, check_tests},
        {"report: statistics, bytes and CSV", NULL, NULL, NULL, NULL, report_tests},
        {"program: exit codes of the stage binaries", NULL, NULL, NULL, NULL, program_tests},
        {"course: assignment generator and grader", NULL, NULL, NULL, NULL, assign_tests},
        {"results: the CSV reader, the blocks and BENCHMARKS.md", NULL, NULL, NULL, NULL, results_tests},
        {"evidence: the profile, sanitize and SASS parsers", NULL, NULL, NULL, NULL, evidence_tests},
        {"multi-GPU: parts, --gpus, bus bytes, all-reduce checks", NULL, NULL, NULL, NULL, multi_gpu_tests},
        CU_SUITE_INFO_NULL,
    };
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    if (CU_register_suites(suites) != CUE_SUCCESS) {
        fprintf(stderr, "cannot register suites: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    unsigned ran = CU_get_number_of_tests_run(), tests_failed = CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    printf("\nhost: %u passed, %u failed\n", ran - tests_failed, tests_failed);
    if (ran == 0) {
        fprintf(stderr, "host suite: no test ran\n");
        return 1;
    }
    return failed ? 1 : 0;
}
