// SPDX-License-Identifier: GPL-2.0
/*
 * qd1read - many cheap QD1 O_DIRECT readers, one per cgroup, for the
 * 1000-tenant part of the benchmark (tools/bench-guest.sh). Built static
 * by the Makefile and shipped into the guest as /extra/qd1read.
 *
 * usage: qd1read DEV CGROUP_DIR...
 *
 * For each CGROUP_DIR, forks a child that moves itself into that cgroup
 * (writes 0 to its cgroup.procs), opens DEV with O_DIRECT and reads 4 KiB
 * at random 4 KiB-aligned offsets, one read at a time, until it is killed
 * (cgroup.kill). The parent returns once every child has moved itself and
 * opened the device: exit status 0, or 1 if any child failed to start.
 * Per-tenant counts come from the cgroups' io.stat, not from here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BS 4096

static int join_cgroup(const char *dir)
{
	char path[4096];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static void reader(const char *dev, const char *cg, int ready)
{
	uint64_t x, blocks;
	void *buf;
	off_t size;
	int fd;
	char st = 1;

	if (join_cgroup(cg)) {
		fprintf(stderr, "qd1read: %s: %s\n", cg, strerror(errno));
		_exit(1);
	}
	fd = open(dev, O_RDONLY | O_DIRECT);
	size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	if (fd < 0 || size < BS || posix_memalign(&buf, BS, BS)) {
		fprintf(stderr, "qd1read: %s: %s\n", dev, strerror(errno));
		_exit(1);
	}
	/* the parent only waits for this byte: the reader runs from here on */
	if (write(ready, &st, 1) != 1)
		_exit(1);
	close(ready);
	blocks = size / BS;
	x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL | 1;
	for (;;) {
		/* xorshift64 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (pread(fd, buf, BS, (off_t)(x % blocks) * BS) != BS) {
			fprintf(stderr, "qd1read: read %s: %s\n", dev, strerror(errno));
			_exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	int p[2], i, n = 0, bad = 0;
	char st;

	if (argc < 3) {
		fprintf(stderr, "usage: qd1read DEV CGROUP_DIR...\n");
		return 2;
	}
	if (pipe(p))
		return 1;
	for (i = 2; i < argc; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("qd1read: fork");
			bad = 1;
			break;
		}
		if (pid == 0) {
			close(p[0]);
			reader(argv[1], argv[i], p[1]);
		}
		n++;
	}
	close(p[1]);
	/* one byte per started reader; EOF early when one failed */
	for (i = 0; i < n; i++)
		if (read(p[0], &st, 1) != 1) {
			bad = 1;
			break;
		}
	return bad;
}
