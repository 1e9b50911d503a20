// SPDX-License-Identifier: GPL-2.0
/*
 * fairnvme-blknotes - let an old blkparse show blktrace notes
 *
 *   blktrace -d /dev/nvme0n1 -o - | fairnvme-blknotes | blkparse -i -
 *
 * Since Linux 4.14 (35fe6d763229, "block: use standard blktrace API to
 * output cgroup info for debug notes") every note a kernel built with
 * CONFIG_BLK_CGROUP writes (BFQ's, fairnvme's) carries the __BLK_TN_CGROUP
 * flag and an 8-byte cgroup id before its text. blkparse learned this in
 * blktrace 1.3.0; Debian 12 ships 1.2.0, which drops every such note.
 * This filter copies blktrace's binary stream from stdin to stdout and
 * turns each record with the flag into one without it: the flag cleared,
 * the cgroup id taken out of the payload and, if it names a cgroup (not 1,
 * the root, written when the blk tracer's blk_cgroup option is off), put
 * before a note's text as "[cgid N] ". Other records pass unchanged.
 * Native byte order only (the machine that ran blktrace); exit status 1
 * on a record that is not blktrace's.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* include/uapi/linux/blktrace_api.h */
struct blk_io_trace {
	uint32_t magic;
	uint32_t sequence;
	uint64_t time;
	uint64_t sector;
	uint32_t bytes;
	uint32_t action;
	uint32_t pid;
	uint32_t device;
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;
};

#define BLK_IO_TRACE_MAGIC	0x65617400
#define BLK_TA_CGROUP		(1U << 8)	/* __BLK_TA_CGROUP, __BLK_TN_CGROUP */
#define BLK_TN_MESSAGE		((1U << (10 + 16)) | 2)	/* NOTIFY | __BLK_TN_MESSAGE */

static int copy(void *buf, size_t len)
{
	return fread(buf, 1, len, stdin) == len;
}

int main(void)
{
	static char pdu[65536 + 32];
	struct blk_io_trace t;
	unsigned long long n = 0;

	while (copy(&t, sizeof(t))) {
		size_t len = t.pdu_len;

		n++;
		if ((t.magic & 0xffffff00) != BLK_IO_TRACE_MAGIC) {
			fprintf(stderr, "fairnvme-blknotes: record %llu: bad magic 0x%x (not blktrace's output, or another byte order)\n",
				n, t.magic);
			return 1;
		}
		if (len && !copy(pdu, len)) {
			fprintf(stderr, "fairnvme-blknotes: record %llu: payload cut short\n",
				n);
			return 1;
		}
		if ((t.action & BLK_TA_CGROUP) && len >= sizeof(uint64_t)) {
			uint64_t cgid;
			char tag[32];
			size_t tl = 0;

			memcpy(&cgid, pdu, sizeof(cgid));
			len -= sizeof(cgid);
			memmove(pdu, pdu + sizeof(cgid), len);
			t.action &= ~BLK_TA_CGROUP;
			if (t.action == BLK_TN_MESSAGE && cgid > 1) {
				tl = (size_t)snprintf(tag, sizeof(tag),
						      "[cgid %llu] ",
						      (unsigned long long)cgid);
				if (len + tl > 65535)
					tl = 0;
				memmove(pdu + tl, pdu, len);
				memcpy(pdu, tag, tl);
				len += tl;
			}
			t.pdu_len = (uint16_t)len;
		}
		if (fwrite(&t, sizeof(t), 1, stdout) != 1 ||
		    (len && fwrite(pdu, 1, len, stdout) != len))
			return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
