#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series as `make series` emits it, checked cheaply for `make check`:
# every patch applies with `git am` onto the pristine base, the result is
# build/src exactly, the deltas of files that grow across patches come
# back out of the final files, and checkpatch --strict passes on every
# patch. Of the prefix builds, only those patches/series.built does not
# record (the patches changed since the last `make series`) run here, a
# few at most (harness/series-build.sh); `make series` builds them all.
. "$(dirname "$0")/lib.sh"

SERIES_BUILD=stale "$REPO/harness/series.sh"
