#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series as `make series` emits it, checked cheaply for `make check`:
# every patch applies with `git am` onto the pristine base, the result is
# build/src exactly, the deltas of files that grow across patches come
# back out of the final files, and checkpatch --strict passes on every
# patch. Building every prefix stays with `make series`.
. "$(dirname "$0")/lib.sh"

SERIES_BUILD=0 "$REPO/harness/series.sh"
