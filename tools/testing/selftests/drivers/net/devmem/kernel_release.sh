#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel under test is the one this build just produced: its release
# ends in -devmem and its release and version strings match the build's.

cd "$(dirname "$0")" || exit 1
. ../lib/ktap.sh

ktap_plan 3

if [ ! -r build_info ]; then
	ktap_fail "build_info present" "build_info missing: install through make tools"
	ktap_fail "release matches build"
	ktap_fail "version matches build"
	ktap_finish
fi
. ./build_info

rel=$(uname -r)
case "$rel" in
*-devmem | *-devmem-debug) ktap_pass "release ends in -devmem ($rel)" ;;
*) ktap_fail "release ends in -devmem" "got $rel" ;;
esac

if [ -n "$BUILD_RELEASE" ] && [ "$rel" = "$BUILD_RELEASE" ]; then
	ktap_pass "release matches build ($BUILD_RELEASE)"
else
	ktap_fail "release matches build" "running $rel, built $BUILD_RELEASE"
fi

if [ -n "$BUILD_UTS_VERSION" ] &&
   grep -qF -- "$BUILD_UTS_VERSION" /proc/version; then
	ktap_pass "version matches build ($BUILD_UTS_VERSION)"
else
	ktap_fail "version matches build" \
		"/proc/version '$(cat /proc/version)' lacks '$BUILD_UTS_VERSION'"
fi
ktap_finish
