/* SPDX-License-Identifier: MIT */
/* 06_coop_groups/tuned/testing.h: for the gpu suite only (tests/gpu/test_gpu.c). The tuned
   row-sum dispatcher plans from the GPU it runs on; the suite must also check, on any GPU, the
   plans a GPU without thread-block clusters gets (flagged partials where a cluster would finish
   a row). Nothing else calls this. */
#ifndef COOP_TUNED_TESTING_H
#define COOP_TUNED_TESTING_H

#ifdef __cplusplus
extern "C" {
#endif

/* 1: plan every later launch of 06's `dispatch` as on a GPU without clusters; 0: as the GPU is
   (the default). The workspace size does not change: it is sized for both. */
void coop_rows_plan_without_clusters(int on);

#ifdef __cplusplus
}
#endif

#endif /* COOP_TUNED_TESTING_H */
