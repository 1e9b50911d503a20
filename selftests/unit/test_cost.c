// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the learned cost model (cost.c): synthetic devices bound
 * by commands, by bytes, and by both, seen through per-tenant sums as the
 * kernel feeds them; the charge of 4 KiB and 64 KiB requests; convergence
 * after the device changes.
 */
#include <string.h>

#include <fairnvme/cost.h>
#include "tap.h"

/* @n requests of @sect sectors each with service time @ns, as one tenant */
static void feed(struct fnv_cm *m, int t, u64 n, u64 sect, u64 ns)
{
	fnv_cm_add(m, t, n, n * sect, n * ns);
}

static double charge(struct fnv_cm *m, int t, u64 sect)
{
	return (double)fnv_cm_charge(m->c_cmd[t], m->c_sect[t], sect);
}

/* periods of a 4 KiB and a 64 KiB reader, and a 4 KiB writer */
static void run(struct fnv_cm *m, int periods, u64 r4, u64 r64, u64 w4)
{
	int i;

	for (i = 0; i < periods; i++) {
		feed(m, FNV_CM_READ, 40, 8, r4);
		feed(m, FNV_CM_READ, 10, 128, r64);
		feed(m, FNV_CM_WRITE, 20, 8, w4);
		fnv_cm_update(m);
	}
}

static void test_untrained(void)
{
	struct fnv_cm m;

	fnv_cm_init(&m);
	tap_ok(charge(&m, FNV_CM_READ, 8) == 8 && charge(&m, FNV_CM_READ, 128) == 128,
	       "untrained: a request costs its sectors");
	feed(&m, FNV_CM_READ, FNV_CM_MIN_NR - 1, 128, 500000);
	fnv_cm_update(&m);
	tap_ok(charge(&m, FNV_CM_READ, 128) == 128,
	       "fewer than FNV_CM_MIN_NR samples: still bytes");
	tap_ok(charge(&m, FNV_CM_WRITE, 0) == 1, "a charge is never 0");
}

static void test_command_bound(void)
{
	struct fnv_cm m;

	/* 2000 commands/s whatever their size: 500 us each */
	fnv_cm_init(&m);
	run(&m, 20, 500000, 500000, 500000);
	tap_near(charge(&m, FNV_CM_READ, 8), 8, 0.05, "command-bound: 4 KiB read costs 8");
	tap_near(charge(&m, FNV_CM_READ, 128), 8, 0.05,
		 "command-bound: 64 KiB read costs as much as 4 KiB");
	tap_near(charge(&m, FNV_CM_WRITE, 8), 8, 0.05, "command-bound: 4 KiB write costs 8");
	tap_diag("cmd_ns %llu sect_ns16 %llu",
		 (unsigned long long)m.cmd_ns[0], (unsigned long long)m.sect_ns16[0]);
}

static void test_bytes_bound(void)
{
	struct fnv_cm m;

	/* 4 MB/s: 1 us per 4 KiB... 1 ms per 8 sectors, nothing per command */
	fnv_cm_init(&m);
	run(&m, 20, 1000000, 16000000, 1000000);
	tap_near(charge(&m, FNV_CM_READ, 8), 8, 0.05, "bytes-bound: 4 KiB read costs 8");
	tap_near(charge(&m, FNV_CM_READ, 128), 128, 0.05,
		 "bytes-bound: 64 KiB read costs 128 (time-fair is byte-fair)");
	tap_near(charge(&m, FNV_CM_READ, 64), 64, 0.05,
		 "bytes-bound: 32 KiB read, never seen, costs 64");
}

static void test_mixed(void)
{
	struct fnv_cm m;

	/* 100 us per command + 10 us per sector; writes twice the reads */
	fnv_cm_init(&m);
	run(&m, 20, 180000, 1380000, 360000);
	tap_near(charge(&m, FNV_CM_READ, 128), 8.0 * 1380 / 180, 0.05,
		 "linear: 64 KiB read costs 1380/180 of a 4 KiB read");
	tap_near(charge(&m, FNV_CM_WRITE, 8), 16, 0.05,
		 "linear: 4 KiB write costs twice a 4 KiB read");
	tap_near((double)m.cmd_ns[FNV_CM_READ], 100000, 0.05,
		 "linear: 100 us per command found");
	tap_near((double)m.sect_ns16[FNV_CM_READ] / 65536, 10000, 0.05,
		 "linear: 10 us per sector found");
}

static void test_one_size(void)
{
	struct fnv_cm m;
	int i;

	/* only 4 KiB: no slope to find; writes cost 3x reads */
	fnv_cm_init(&m);
	for (i = 0; i < 10; i++) {
		feed(&m, FNV_CM_READ, 30, 8, 200000);
		feed(&m, FNV_CM_WRITE, 30, 8, 600000);
		fnv_cm_update(&m);
	}
	tap_ok(m.sect_ns16[FNV_CM_READ] == 0, "one size: no per-sector cost");
	tap_near(charge(&m, FNV_CM_WRITE, 8), 24, 0.05, "one size: a write costs 3 reads");
}

static void test_writes_only(void)
{
	struct fnv_cm m;
	int i;

	fnv_cm_init(&m);
	for (i = 0; i < 10; i++) {
		feed(&m, FNV_CM_WRITE, 30, 8, 600000);
		fnv_cm_update(&m);
	}
	tap_near(charge(&m, FNV_CM_WRITE, 8), 8, 0.05,
		 "writes only: a 4 KiB write is the unit");
	tap_near(charge(&m, FNV_CM_READ, 8), 8, 0.05,
		 "writes only: reads are charged as writes");
}

static void test_converges(void)
{
	struct fnv_cm m;
	int i;

	/* bytes-bound for 10 s, then command-bound: within 2 s (20 periods) */
	fnv_cm_init(&m);
	run(&m, 100, 1000000, 16000000, 1000000);
	for (i = 0; i < 20; i++)
		run(&m, 1, 500000, 500000, 500000);
	tap_ok(charge(&m, FNV_CM_READ, 128) < 8 * 1.25,
	       "the model follows a changed device within 2 s: 64 KiB costs %.1f",
	       charge(&m, FNV_CM_READ, 128));
}

static void test_quiet(void)
{
	struct fnv_cm m;
	int i;

	fnv_cm_init(&m);
	run(&m, 20, 500000, 500000, 500000);
	for (i = 0; i < 50; i++)
		fnv_cm_update(&m);	/* an idle device: no samples */
	tap_ok(charge(&m, FNV_CM_READ, 128) == 8 && m.known[FNV_CM_READ],
	       "a device gone idle keeps its model (64 KiB costs %.0f)",
	       charge(&m, FNV_CM_READ, 128));
}

static void test_noise_and_range(void)
{
	struct fnv_cm m;
	int i;

	/* a slope that says a larger request is cheaper: clamped to 0 */
	fnv_cm_init(&m);
	run(&m, 20, 900000, 100000, 500000);
	tap_ok(m.sect_ns16[FNV_CM_READ] == 0 && charge(&m, FNV_CM_READ, 128) >= 1,
	       "negative slope: per command only");
	/* stalls of seconds and huge sums do not overflow */
	fnv_cm_init(&m);
	for (i = 0; i < 100; i++) {
		feed(&m, FNV_CM_READ, 100000, 2048, 5000000000ULL);
		feed(&m, FNV_CM_READ, 100000, 8, 5000000000ULL);
		fnv_cm_update(&m);
	}
	tap_ok(charge(&m, FNV_CM_READ, 8) >= 1 && charge(&m, FNV_CM_READ, 2048) <= 16,
	       "stalls of 5 s per request, 2e8 sectors a period: no overflow (%.0f)",
	       charge(&m, FNV_CM_READ, 2048));
}

/* wrr_mode=off charges the fit in ns: the same for every tenant */
static void test_time_ns(void)
{
	struct fnv_cm m;
	int i;

	fnv_cm_init(&m);
	tap_ok(fnv_cm_time_ns(&m, FNV_CM_READ, 8) == 0 &&
	       fnv_cm_time_ns(&m, FNV_CM_WRITE, 8) == 0,
	       "time_ns: 0 (per-tenant cost) while nothing is known");
	/* reads only: 100 us per command, 50 us per 4 KiB (12.5 us/sector) */
	for (i = 0; i < 20; i++) {
		feed(&m, FNV_CM_READ, 40, 8, 200000);
		feed(&m, FNV_CM_READ, 10, 128, 1700000);
		fnv_cm_update(&m);
	}
	tap_near((double)fnv_cm_time_ns(&m, FNV_CM_READ, 8), 200000, 0.01,
		 "time_ns: 4 KiB read 200 us");
	tap_near((double)fnv_cm_time_ns(&m, FNV_CM_READ, 128), 1700000, 0.01,
		 "time_ns: 64 KiB read 1.7 ms");
	tap_near((double)fnv_cm_time_ns(&m, FNV_CM_WRITE, 8), 200000, 0.01,
		 "time_ns: a write without a fit of its own costs a read's");
	tap_near((double)fnv_cm_time_ns(&m, FNV_CM_WRITE, 0), 100000, 0.01,
		 "time_ns: a discard (0 sectors) costs one command");
}

int main(void)
{
	tap_plan(3 +		/* test_untrained */
		 3 +		/* test_command_bound */
		 3 +		/* test_bytes_bound */
		 4 +		/* test_mixed */
		 2 +		/* test_one_size */
		 2 +		/* test_writes_only */
		 1 +		/* test_converges */
		 1 +		/* test_quiet */
		 2 +		/* test_noise_and_range */
		 5);		/* test_time_ns */
	test_untrained();
	test_command_bound();
	test_bytes_bound();
	test_mixed();
	test_one_size();
	test_writes_only();
	test_converges();
	test_quiet();
	test_noise_and_range();
	test_time_ns();
	return tap_done();
}
