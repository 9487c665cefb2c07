# SPDX-License-Identifier: GPL-2.0
# Front door for devmem TCP on Linux 6.1 LTS. `make help` lists the targets.

H := harness

.PHONY: help deps rebase debian-config tree kernel tools checkpatch check check-full check-debug check-kcsan test vm quilt series demo bench deb system-test vm-bundle vm-bundle-test fuzz upstream-kernel clean

help:
	@echo "make deps        install missing apt packages and virtme-ng (venv in build/)"
	@echo "make tree        lay down build/src: pinned 6.1 base + our files + patches/series"
	@echo "make rebase      move the base to the newest linux-source-6.1 served (REBASE_TO=<version>):"
	@echo "                 the series refreshed, rebuilt, records and host checks; then commit"
	@echo "make debian-config  rewrite config/debian-net.config from Debian's linux-config-6.1"
	@echo "make kernel      build bzImage out of tree (build/obj) with ccache"
	@echo "make tools       headers_install + build the kselftests against them"
	@echo "make checkpatch  checkpatch.pl --strict over the series and new files"
	@echo "make check       all of the above, the kselftests in QEMU, then the lifetime and"
	@echo "                 bad-input tests again on a debug kernel (DEVMEM_DEBUG=0: skip)"
	@echo "make check-full  make check with the long streams at 1 GiB (128 MiB in make check)"
	@echo "                 and make system-test (a Debian 12 image from our packages)"
	@echo "make check-debug the whole suite on the debug kernel (KASAN, lockdep, kmemleak)"
	@echo "make check-kcsan the concurrency-heavy tests on a KCSAN kernel; its races sorted"
	@echo "make vm          interactive shell in the VM on the built kernel"
	@echo "make quilt       shell in build/quilt to edit patches/ with quilt"
	@echo "make series      git format-patch series in build/series, verified with git am"
	@echo "make demo        the end-to-end demo (stream into a udmabuf, validate);"
	@echo "                 DEMO_NIC=e1000e, DEMO_MEM=p2p, DEMO_RX=zcrx (io_uring zero-copy receive)"
	@echo "make bench       bind cost, devmem vs copy, DONTNEED cost (tables, CSV, PNG in build/bench)"
	@echo "make deb         Debian packages in build/deb: linux-image/-headers (Debian 12's config,"
	@echo "                 DEB_CONFIG=fleet: the test kernel's) and devmem-tcp-tools"
	@echo "make system-test a Debian 12 image in build/, the packages installed with dpkg, booted"
	@echo "                 from its own disk (systemd, udev): the end-to-end receive and send there"
	@echo "make vm-bundle   build/vm-bundle: QEMU with its libraries, the kernel, a guest root, for a"
	@echo "                 machine with /dev/kvm and no QEMU (VM_BUNDLE=build/vm-bundle harness/bench.sh)"
	@echo "make vm-bundle-test  the bundle booted here under TCG: hdsim and e1000e receive through it"
	@echo "make fuzz        syzkaller (SYZKALLER_SRC=<its repository> the first time) against a"
	@echo "                 KCOV + KASAN kernel for FUZZ_MIN minutes (60); coverage of our files"
	@echo "make upstream-kernel  upstream's kernel (Debian's newest linux-source-7.x, from"
	@echo "                 experimental) in build/upstream/src, built in build/obj-upstream"
	@echo "make clean       remove build/ (keeps the ccache)"

deps:
	@$(H)/deps.sh

tree: deps
	@$(H)/tree.sh

rebase: deps
	@$(H)/rebase.sh

debian-config: tree
	@$(H)/debian-config.sh update

kernel: tree
	@$(H)/kernel.sh

tools: kernel
	@$(H)/tools.sh

checkpatch: tree
	@$(H)/checkpatch.sh

check: tools
	@$(H)/check.sh

check-full: tools
	@CHECK_FULL=1 $(H)/check.sh

# The debug kernel: own objects (build/obj-debug), kselftests and logs;
# harness/debug.sh builds it and runs the whole suite on it.
check-debug: tree
	@$(H)/debug.sh all

# The KCSAN kernel (build/obj-kcsan): the concurrency-heavy tests of
# harness/data/kcsan-tests, its data races sorted; the result is
# recorded in harness/data/kcsan-result
check-kcsan: tree
	@$(H)/kcsan.sh

test: check

vm: tools
	@$(H)/vm.sh

quilt: tree
	@$(H)/quilt-shell.sh

series: tree
	@$(H)/series.sh

demo: tools
	@$(H)/demo.sh

bench: tools
	@$(H)/bench.sh

deb: tools
	@$(H)/deb.sh

system-test: tools
	@$(H)/system-test.sh

vm-bundle: tools
	@$(H)/vm-bundle.sh

vm-bundle-test: vm-bundle
	@$(H)/vm-bundle-test.sh

# Not part of make check: hours of CPU, and syzkaller's source from outside.
fuzz: tools
	@$(H)/fuzz.sh

# Not part of make check: upstream's kernel to run our tests beside
# (issue #75, plans/upstream-check.md); a kernel build of its own.
upstream-kernel: deps
	@$(H)/upstream.sh fetch
	@$(H)/upstream.sh build

clean:
	rm -rf build
