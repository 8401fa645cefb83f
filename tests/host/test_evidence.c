/* SPDX-License-Identifier: MIT */
/* The parsers of make profile, make sanitize and make sass on samples (tests/host/evidence.sh). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"

static void test_the_evidence_parsers_read_their_samples(void)
{
    char cmd[512];
    const char *b = getenv("BUILD_DIR") ? getenv("BUILD_DIR") : "build";
    snprintf(cmd, sizeof cmd,
             "BUILD='%s' sh tests/host/evidence.sh >/tmp/reduce-evidence.%d.out 2>&1", b,
             (int)getpid());
    int st = system(cmd);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(cmd, sizeof cmd, "cat /tmp/reduce-evidence.%d.out >&2", (int)getpid());
        if (system(cmd) != 0) fprintf(stderr, "(no output)\n");
    }
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    snprintf(cmd, sizeof cmd, "rm -f /tmp/reduce-evidence.%d.out", (int)getpid());
    if (system(cmd) != 0) fprintf(stderr, "cannot remove the output of evidence.sh\n");
}

CU_TestInfo evidence_tests[] = {
    {"the evidence parsers read their samples (SASS, ncu export, sanitizer logs)",
     test_the_evidence_parsers_read_their_samples},
    CU_TEST_INFO_NULL,
};
