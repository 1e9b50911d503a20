# SPDX-License-Identifier: GPL-2.0
#
# fairnvme: out-of-tree build of fairnvme.ko, its tests and tools.
#
#   make                 build the module (W=1 for extra warnings)
#   make install         install into /lib/modules/<kver>/extra, run depmod;
#                        and fairnvme-top, fairnvme-weightd with its unit
#                        (install-tools: PREFIX, SYSTEMD_UNITDIR, DESTDIR)
#   make check           unit tests in user space, then the guest tests on
#                        6.1, the systemd guest's (guest-full) on 6.1, then
#                        both on 6.12 (guest-tests2, guest-full2), then t01
#                        with the modules DKMS builds (guest-dkms); one
#                        case per feature and kernel (check-extended: all)
#   make check-extended  check with every case, the peers and the long
#                        runs (FNV_GUEST_ARGS=peers=1,extended=1)
#   make unit            unit tests only
#   make ssdsim          the emulated SSD of the guest tests (fnvssd.ko,
#                        Documentation/fnvssd.rst) for KVER; ssdsim2 for KVER2
#   make vmtest          guest tests only (TESTS=t01,t03 for a subset)
#   make full-image      the full guest's Debian root (systemd, bpftrace,
#                        blktrace, python3; mmdebstrap, about 1.5 min, cached
#                        in .build/full-image/ until its package list or
#                        selftests/vm/mkrootfs.sh changes)
#   make guest-full      selftests/full/ in that guest on KVER (FULL_TESTS=f01
#                        for a subset); guest-full2 on KVER2
#   make bench           null_blk overhead of fairnvme vs. other schedulers
#   make demo            three weighted cgroups on an emulated NVMe
#   make deps            install the Debian packages the above need
#   make dkms-install    install with DKMS, which rebuilds it for each new
#                        kernel (KVER=, or DKMS_KVERS="k1 k2"; default: the
#                        running kernel); make dkms-uninstall removes it
#   make dkms-build-check
#                        DKMS builds it for KVER and KVER2 (or DKMS_KVERS) in
#                        a scratch tree, installing nothing: TAP, and each
#                        module in .build/dkms/<kver>/fairnvme.ko (about 30 s)
#   make check-debug     some guest tests (DEBUG_TESTS) on kernels built from
#                        linux-source-6.1 and -6.12 (DEBUG_KERNELS) with
#                        lockdep, DEBUG_ATOMIC_SLEEP and KASAN (each built
#                        once, cached in .build/debug-kernel/<series>/)
#
# Variables: KVER (kernel release), KDIR (its build tree), KSRC (a kernel
# source tree of the same version for the private block/ headers; default:
# extracted from Debian's linux-source-X.Y package).

ifeq ($(strip $(KVER)),)
ifneq ($(KDIR),)
KVER := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
else
# The running kernel when it is a 6.1 with its build tree there (the
# kernels include/fairnvme/compat.h supports), else the newest installed
# Debian 12 6.1 headers; tools/install-deps.sh makes the same choice.
KVER := $(shell r=$$(uname -r); case "$$r" in (6.1.*) \
	[ -e /lib/modules/$$r/build/Makefile ] && { echo $$r; exit 0; } ;; esac; \
	ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | \
	sed 's|.*/linux-headers-||' | sort -V | tail -n 1)
endif
endif
ifeq ($(strip $(KDIR)),)
KDIR := $(firstword $(wildcard /lib/modules/$(KVER)/build) \
		    /usr/src/linux-headers-$(KVER))
endif
KSERIES := $(shell echo '$(KVER)' | cut -d. -f1-2)
KSRC_TARBALL ?= /usr/src/linux-source-$(KSERIES).tar.xz
BUILD := $(CURDIR)/.build

ifneq ($(KSRC),)
BLOCKINC := $(abspath $(KSRC))/block
else
BLOCKINC := $(BUILD)/linux-$(KSERIES)/block
endif

# The module's version (MODULE_VERSION, modinfo's "version:"): git describe
# in a git checkout, else the VERSION file at the root (make dkms-install
# writes one into the copy of the sources DKMS builds, which has no .git),
# else "unknown". Exported to kbuild, which compiles it into
# fairnvme-iosched.o alone. "make version" prints it.
FNV_VERSION := $(shell { test -e .git && git describe --always --dirty 2>/dev/null || \
	head -n 1 VERSION 2>/dev/null; } | tr -cd 'A-Za-z0-9._+~-')
FNV_VERSION := $(or $(FNV_VERSION),unknown)

export KVER FNV_VERSION

.PHONY: all modules install install-tools clean check check-extended unit vmtest bench demo deps \
	guest-tests guest-bench guest-demo checkpatch sparse modules2 guest-tests2 \
	ssdsim ssdsim2 \
	check-debug debug-kernel guest-tests-debug guest-tests-debug-one version \
	dkms-install dkms-uninstall dkms-build-check guest-dkms \
	full-image guest-full guest-full2

all: modules

$(BUILD)/linux-$(KSERIES)/block/elevator.h:
	@test -n '$(KVER)' || { echo 'fairnvme: no kernel to build for:' \
		'install linux-headers-amd64 (make deps) or set KDIR=' >&2; exit 1; }
	@test -f '$(KSRC_TARBALL)' || { echo 'fairnvme: $(KSRC_TARBALL)' \
		'missing: apt-get install linux-source-$(KSERIES), or set KSRC=' >&2; exit 1; }
	@h=$$(dpkg-query -W -f='$${Version}' linux-headers-$(KVER) 2>/dev/null); \
	s=$$(dpkg-query -W -f='$${Version}' linux-source-$(KSERIES) 2>/dev/null); \
	if [ -n "$$h" ] && [ -n "$$s" ] && [ "$$h" != "$$s" ]; then \
		echo "fairnvme: linux-source-$(KSERIES) $$s differs from" \
		     "linux-headers-$(KVER) $$h: the block/ headers taken from" \
		     "it fix struct layouts the module relies on. Install" \
		     "linux-source-$(KSERIES)=$$h, or set KSRC= to a matching kernel source tree" >&2; \
		exit 1; \
	fi
	mkdir -p $(BUILD)/linux-$(KSERIES)
	tar -xJf $(KSRC_TARBALL) -C $(BUILD)/linux-$(KSERIES) \
		--strip-components=1 --wildcards \
		'linux-source-$(KSERIES)/block/*.h'

modules: $(BLOCKINC)/elevator.h
	@test -e '$(KDIR)/Makefile' || { echo 'fairnvme: no kernel build tree' \
		'at $(KDIR): apt-get install linux-headers-$(KVER), or set KDIR=' >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) FNV_BLOCKINC=$(BLOCKINC) modules

install: modules install-tools
	$(MAKE) -C $(KDIR) M=$(CURDIR) FNV_BLOCKINC=$(BLOCKINC) \
		INSTALL_MOD_DIR=extra modules_install
	depmod -a $(KVER)

# fairnvme-top, fairnvme-weightd and its systemd unit (enable it with
# "systemctl enable --now fairnvme-weightd"), the bpftrace scripts into
# $(PREFIX)/share/fairnvme/bpftrace
PREFIX ?= /usr/local
SYSTEMD_UNITDIR ?= /etc/systemd/system
# Static: the same binary goes into the test guest as /extra/fairnvme-blknotes
$(BUILD)/fairnvme-blknotes: tools/fairnvme-blknotes.c
	mkdir -p $(BUILD)
	$(CC) -static -O2 -Wall -o $@ $<

install-tools: $(BUILD)/fairnvme-blknotes
	install -D -m 0755 $(BUILD)/fairnvme-blknotes $(DESTDIR)$(PREFIX)/bin/fairnvme-blknotes
	install -D -m 0755 tools/fairnvme-weightd $(DESTDIR)$(PREFIX)/sbin/fairnvme-weightd
	install -D -m 0755 tools/fairnvme-top $(DESTDIR)$(PREFIX)/sbin/fairnvme-top
	install -d $(DESTDIR)$(PREFIX)/share/fairnvme/bpftrace
	install -m 0755 tools/bpftrace/*.bt $(DESTDIR)$(PREFIX)/share/fairnvme/bpftrace/
	mkdir -p $(DESTDIR)$(SYSTEMD_UNITDIR)
	sed 's|@SBINDIR@|$(PREFIX)/sbin|' tools/fairnvme-weightd.service.in \
		>$(DESTDIR)$(SYSTEMD_UNITDIR)/fairnvme-weightd.service

clean:
	$(MAKE) -C selftests/unit clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR) FNV_BLOCKINC=$(BLOCKINC) clean
	rm -rf $(BUILD)

deps:
	tools/install-deps.sh

version:
	@echo '$(FNV_VERSION)'

# DKMS (dkms.conf, tools/dkms.sh): the sources, with a VERSION file, are
# copied to /usr/src/fairnvme-<version> and DKMS builds them with this
# Makefile for each kernel, taking the block/ headers from that kernel's
# linux-source-X.Y. dkms-install installs for DKMS_KVERS, else KVER when
# given, else the running kernel; dkms-build-check builds for DKMS_KVERS,
# else KVER and KVER2.
DKMS_INSTALL_KVERS = $(or $(DKMS_KVERS),$(if $(filter command line environment,\
	$(origin KVER)),$(KVER),$(shell uname -r)))

dkms-install:
	tools/dkms.sh install $(DKMS_INSTALL_KVERS)

dkms-uninstall:
	tools/dkms.sh uninstall

dkms-build-check:
	tools/dkms.sh check $(or $(DKMS_KVERS),$(KVER) $(KVER2))

# The modules DKMS built load and serve I/O in a guest of each kernel:
# t01 (load, select, I/O, unload, load by request_module and by alias)
# with the DKMS-built module in the initramfs instead of ours.
guest-dkms: dkms-build-check
	FAIRNVME_KO=$(BUILD)/dkms/$(KVER)/fairnvme.ko \
		selftests/vm/run.sh --run tests --tests t01 \
		--out $${TMPDIR:-/tmp}/fnv-vm-dkms
	FAIRNVME_KO=$(BUILD)/dkms/$(KVER2)/fairnvme.ko KVER=$(KVER2) \
		selftests/vm/run.sh --run tests --tests t01 \
		--out $${TMPDIR:-/tmp}/fnv-vm-dkms-$(KVER2)

unit:
	$(MAKE) -C selftests/unit run

# The targets that boot a guest install what is missing first, then run
# make again so that the kernel version is found on a fresh machine.
check: deps
	$(MAKE) unit
	$(MAKE) guest-tests
	$(MAKE) guest-full
	$(MAKE) guest-tests2
	$(MAKE) guest-full2
	$(MAKE) guest-dkms

# Every case, the peers and the long runs: check with the guests' printed
# comparisons (peers=1) and the scripts marked "# fnv-extended"
check-extended: deps
	$(MAKE) check FNV_GUEST_ARGS="$${FNV_GUEST_ARGS:+$$FNV_GUEST_ARGS,}peers=1,extended=1"

vmtest: deps
	$(MAKE) guest-tests

bench: deps
	$(MAKE) guest-bench

demo: deps
	$(MAKE) guest-demo

# The emulated SSD the guest tests run on (selftests/ssdsim, fnvssd.ko;
# Documentation/fnvssd.rst), built for each kernel in a copy of its
# sources and shipped to the guest as /extra/fnvssd.ko. Tests only: never
# installed.
SSD_SRC := $(CURDIR)/selftests/ssdsim
ssd-module = rm -rf $(BUILD)/ssdsim-$(1) && mkdir -p $(BUILD)/ssdsim-$(1) && \
	cp $(SSD_SRC)/Kbuild $(SSD_SRC)/fnvssd.c $(BUILD)/ssdsim-$(1)/ && \
	$(MAKE) -C $(2) M=$(BUILD)/ssdsim-$(1) FNV_INC=$(CURDIR)/include modules

ssdsim:
	$(call ssd-module,$(KVER),$(KDIR))

ssdsim2:
	$(call ssd-module,$(KVER2),/usr/src/linux-headers-$(KVER2))

guest-tests: modules ssdsim $(BUILD)/fairnvme-blknotes
	FAIRNVME_EXTRA_FILES="$(strip $(FAIRNVME_EXTRA_FILES) $(BUILD)/ssdsim-$(KVER)/fnvssd.ko $(BUILD)/fairnvme-blknotes)" \
		selftests/vm/run.sh --run tests $(if $(TESTS),--tests $(TESTS))

# The second LTS kernel, 6.12 (tools/install-deps.sh installs the newest
# of Debian 12's archive; KVER2= picks another): the module is built in a
# copy of the sources, so that the one for KVER stays as it is, and every
# guest test runs on it too (TESTS2=t01,t21 for a subset; TESTS= sets
# both).
KVER2 ?= $(shell ls -d /usr/src/linux-headers-6.12.*-amd64 2>/dev/null | \
	sed 's|.*/linux-headers-||' | sort -V | tail -n 1)
MOD2 := $(BUILD)/module-$(KVER2)
TESTS2 ?= $(TESTS)

modules2:
	@test -n '$(KVER2)' || { echo 'fairnvme: no 6.12 kernel headers:' \
		'tools/install-deps.sh installs them, or set KVER2=' >&2; exit 1; }
	$(MAKE) KVER=$(KVER2) KDIR= $(BUILD)/linux-$(shell echo '$(KVER2)' | cut -d. -f1-2)/block/elevator.h
	rm -rf $(MOD2) && mkdir -p $(MOD2) && \
	cp -r Kbuild $(wildcard *.c *.h) include $(MOD2)/
	$(MAKE) -C /usr/src/linux-headers-$(KVER2) M=$(MOD2) \
		FNV_BLOCKINC=$(BUILD)/linux-$(shell echo '$(KVER2)' | cut -d. -f1-2)/block modules

guest-tests2: modules2 ssdsim2 $(BUILD)/fairnvme-blknotes
	FAIRNVME_KO=$(MOD2)/fairnvme.ko KVER=$(KVER2) \
	FAIRNVME_EXTRA_FILES="$(strip $(FAIRNVME_EXTRA_FILES) $(BUILD)/ssdsim-$(KVER2)/fnvssd.ko $(BUILD)/fairnvme-blknotes)" \
		selftests/vm/run.sh --run tests $(if $(TESTS2),--tests $(TESTS2)) \
		--out $${TMPDIR:-/tmp}/fnv-vm-$(KVER2)

# The many-tenant part of the benchmark forks one QD1 reader per cgroup
# from this static binary, shipped into the guest as /extra/qd1read
# (without it, tools/bench-guest.sh falls back to busybox dd).
$(BUILD)/qd1read: tools/qd1read.c
	mkdir -p $(BUILD)
	$(CC) -static -O2 -Wall -o $@ $<

# The full guest (selftests/vm/run.sh --image full): Debian 12 with systemd,
# bpftrace, blktrace and python3 (selftests/vm/mkrootfs.sh: mmdebstrap once,
# cached in .build/full-image/), booted from an ext4 image read-only, the
# module tree, fairnvme.ko, tools/ and selftests/full/ on a per-run disk;
# runs selftests/full/f[0-9]*.sh (FULL_TESTS=f01,f02 for a subset).
FULL_TESTS ?=

full-image:
	selftests/vm/mkrootfs.sh >/dev/null

guest-full: modules ssdsim $(BUILD)/fairnvme-blknotes full-image
	FAIRNVME_EXTRA_FILES="$(strip $(FAIRNVME_EXTRA_FILES) $(BUILD)/ssdsim-$(KVER)/fnvssd.ko $(BUILD)/fairnvme-blknotes)" \
		selftests/vm/run.sh --image full --run tests $(if $(FULL_TESTS),--tests $(FULL_TESTS)) \
		--out $${TMPDIR:-/tmp}/fnv-full

guest-full2: modules2 ssdsim2 $(BUILD)/fairnvme-blknotes full-image
	FAIRNVME_KO=$(MOD2)/fairnvme.ko KVER=$(KVER2) \
	FAIRNVME_EXTRA_FILES="$(strip $(FAIRNVME_EXTRA_FILES) $(BUILD)/ssdsim-$(KVER2)/fnvssd.ko $(BUILD)/fairnvme-blknotes)" \
		selftests/vm/run.sh --image full --run tests $(if $(FULL_TESTS),--tests $(FULL_TESTS)) \
		--out $${TMPDIR:-/tmp}/fnv-full-$(KVER2)

guest-bench: modules $(BUILD)/qd1read
	FAIRNVME_EXTRA_FILES="$(strip $(FAIRNVME_EXTRA_FILES) $(BUILD)/qd1read)" \
		selftests/vm/run.sh --run bench

guest-demo: modules
	selftests/vm/run.sh --run demo

# The debug kernels (selftests/vm/build-debug-kernel.sh, one per series in
# DEBUG_KERNELS, each cached by source and config) and the module built
# against each in a copy of the sources, so that the module for the Debian
# kernel stays as it is. DEBUG_TESTS: guest tests of loading, switching,
# removal and teardown under I/O, tenant churn, io.max and the depth moving
# while cgroups go (t28), the paths where locking bugs hide. A KASAN and
# lockdep kernel under TCG is several times slower: their time limits are
# multiplied by DEBUG_TIMEOUT_SCALE, and timing=0 (lib.sh's timing_off)
# relaxes or skips their points on speed and shares. Both kernels run even
# when the first fails to build or to pass; the target fails if either did.
FNV_DEBUG_KERNEL_DIR ?= $(BUILD)/debug-kernel
export FNV_DEBUG_KERNEL_DIR
DEBUG_KERNELS ?= 6.1 6.12
DEBUG_MOD := $(BUILD)/debug-module
DEBUG_TESTS ?= t01,t02,t05,t06,t07,t08,t14,t17,t18,t28
DEBUG_TIMEOUT_SCALE ?= 3
# each kernel's run's hard limit: the tests take about 17 minutes, and a
# kernel deadlock stops the guest's own watchdog too
DEBUG_TIMEOUT ?= 2700

check-debug: deps
	tools/install-deps.sh --debug-kernel
	$(MAKE) guest-tests-debug

debug-kernel:
	@for s in $(DEBUG_KERNELS); do \
		selftests/vm/build-debug-kernel.sh $$s || exit 1; \
	done

# each series built (or found cached) right before its run, so that one
# that fails to build or to pass leaves the other's run as it is
guest-tests-debug:
	@rc=0; for s in $(DEBUG_KERNELS); do \
		t0=$$(date +%s); \
		selftests/vm/build-debug-kernel.sh $$s && \
		$(MAKE) --no-print-directory guest-tests-debug-one DEBUG_SERIES=$$s; \
		r=$$?; [ $$r = 0 ] || rc=$$r; \
		echo "check-debug: $$s: exit $$r in $$(($$(date +%s) - t0)) s"; \
	done; exit $$rc

# one series' run: DEBUG_SERIES=6.1 or 6.12
guest-tests-debug-one:
	@test -n '$(DEBUG_SERIES)' || { echo 'fairnvme: DEBUG_SERIES= (6.1 or 6.12) missing' >&2; exit 2; }
	set -a && . $(FNV_DEBUG_KERNEL_DIR)/$(DEBUG_SERIES)/current/env && set +a && \
	rm -rf $(DEBUG_MOD)-$(DEBUG_SERIES) && mkdir -p $(DEBUG_MOD)-$(DEBUG_SERIES) && \
	cp -r Kbuild $(wildcard *.c *.h) include $(DEBUG_MOD)-$(DEBUG_SERIES)/ && \
	$(MAKE) -C "$$KDIR" M=$(DEBUG_MOD)-$(DEBUG_SERIES) FNV_BLOCKINC="$$KDIR/block" modules && \
	FAIRNVME_KO=$(DEBUG_MOD)-$(DEBUG_SERIES)/fairnvme.ko \
	FNV_TIMEOUT_SCALE=$(DEBUG_TIMEOUT_SCALE) \
	FNV_GUEST_ARGS="timing=0$${FNV_GUEST_ARGS:+,$$FNV_GUEST_ARGS}" \
	selftests/vm/run.sh --run tests --tests $(DEBUG_TESTS) \
		--timeout $(DEBUG_TIMEOUT) --out $${TMPDIR:-/tmp}/fnv-vm-debug-$(DEBUG_SERIES)

CHECKPATCH ?= $(BUILD)/linux-$(KSERIES)/scripts/checkpatch.pl
KFILES := fairnvme-iosched.c fairnvme-ctl.c fairnvme-sysfs.c fairnvme-cgroup.c \
	  fairnvme-debugfs.c \
	  fairnvme.h budget.c state.c d2fq.c cost.c depth.c include/fairnvme/*.h \
	  include/trace/events/fairnvme.h selftests/ssdsim/fnvssd.c

$(BUILD)/linux-$(KSERIES)/scripts/checkpatch.pl:
	mkdir -p $(BUILD)/linux-$(KSERIES)
	tar -xJf $(KSRC_TARBALL) -C $(BUILD)/linux-$(KSERIES) \
		--strip-components=1 \
		linux-source-$(KSERIES)/scripts/checkpatch.pl \
		linux-source-$(KSERIES)/scripts/spelling.txt \
		linux-source-$(KSERIES)/scripts/const_structs.checkpatch

checkpatch: $(CHECKPATCH)
	$(CHECKPATCH) --no-tree --strict -f $(KFILES)

sparse: $(BLOCKINC)/elevator.h
	$(MAKE) -C $(KDIR) M=$(CURDIR) FNV_BLOCKINC=$(BLOCKINC) C=2 modules
