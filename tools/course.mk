# SPDX-License-Identifier: MIT
# course.mk: the course kit.
#   make assignment [STAGES=...]   the exercise tree: build/assignment/ and a tarball
#   make grade [STAGES=...]        grade the working tree on this GPU: build/grade/results.json
