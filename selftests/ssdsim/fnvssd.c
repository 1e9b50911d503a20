// SPDX-License-Identifier: GPL-2.0
/*
 * fnvssd: an emulated NVMe-like SSD, for fairnvme's guest tests and
 * benchmarks only (never installed). Devices are made in configfs, as
 * null_blk's are:
 *
 *   mkdir /sys/kernel/config/fnvssd/NAME
 *   echo 4 >/sys/kernel/config/fnvssd/NAME/channels   (any attribute)
 *   echo 1 >/sys/kernel/config/fnvssd/NAME/power      (/dev/fnvssd<index>)
 *   echo 0 >/sys/kernel/config/fnvssd/NAME/power
 *   rmdir /sys/kernel/config/fnvssd/NAME              (powers off too)
 *
 * Attributes: name, unit, default, range. Writing one fails with -EBUSY
 * while the device is powered on and with -EINVAL out of its range, and
 * leaves the old value.
 *
 *   size_mb           capacity, MiB; 1024; 16..65536
 *   submit_queues     hardware queues, one submission queue each; 1;
 *                     1..nr_cpu_ids
 *   hw_queue_depth    tags per hardware queue; 64; 1..1024
 *   channels          flash channels; 2; 1..16
 *   dies_per_channel  dies on each channel; 2; 1..16
 *   page_kb           flash page, KiB; 16; 4..64, a power of 2
 *   t_read_us         tR, a page read into its die's register, us; 1500;
 *                     1..1000000
 *   t_prog_us         tPROG, a page program, us; 6000; 1..1000000
 *   t_xfer_us         one page over its channel, us; 100; 1..1000000
 *   cache_kb          volatile write cache, KiB; 1024; 0..1048576 (0: each
 *                     write is programmed before it completes, as a FUA one
 *                     is, while the device still advertises a write cache)
 *   memory_backed     0 or 1; 0: reads return zeros, writes are discarded;
 *                     1: the data is kept, in pages allocated on first
 *                     write and freed at power off (fio verify works)
 *   requeue_every     every Nth read or write (not FUA, not a flush) of at
 *                     least requeue_min_kb is given back instead of
 *                     completed, once, as the nvme driver gives back a
 *                     request on a retryable error or a controller reset
 *                     (blk_mq_requeue_request()); 0; 0..1000000 (0: never)
 *                     Every request has RQF_DONTPREP set, as nvme sets it,
 *                     so blk-mq retries one given back from the hardware
 *                     queue's dispatch list, not through the elevator.
 *   requeue_min_kb    the least size requeue_every counts, KiB; 0; 0..128
 *   power             0 or 1; 1 makes the disk, 0 removes it: requests
 *                     in flight complete first, new ones fail
 *   index             read only: the N of /dev/fnvssdN, fixed at mkdir
 *
 * The disk: 512-byte logical blocks, 4 KiB physical ones, requests of at
 * most 128 KiB, no discard, and a volatile write cache with FUA, so that
 * the block layer sends flush requests and REQ_FUA writes down.
 *
 * The model: discrete events, at times in ns of CLOCK_MONOTONIC.
 *
 * - Flash page p (byte offset / page size) is on die p % (channels *
 *   dies_per_channel), on channel die % channels. A read or a programmed
 *   write is one operation per page it covers (a per-request count) and
 *   completes when the last one is done.
 * - A die runs one operation at a time. It has a FIFO of foreground
 *   operations (page reads, and page programs of FUA writes) and a count
 *   of dirty cached bytes. When idle, it starts the first foreground
 *   operation if any; else a background program of min(dirty, page) if it
 *   has a page of dirty data, or any dirty data while a flush or a write
 *   waiting for cache room is pending (without the latter, dirty data
 *   below a page on each die could fill the cache for good). So a read
 *   does not wait for a background program that has not started (the read
 *   priority of real SSDs), but waits for one in progress and for the FUA
 *   programs ahead of it: the read/program interference of the TABS paper.
 *   While a flush or a write waits for a die's dirty data, the die runs a
 *   background program after every FNV_FG_RUN (8) foreground operations,
 *   so that reads cannot hold them back for ever.
 * - A page read holds its die for t_read_us; the page then crosses its
 *   channel, and the operation is done at max(die done, channel free) +
 *   t_xfer_us. A program, FUA or background, holds its die for t_xfer_us +
 *   t_prog_us (data in, then program); programs do not contend for the
 *   channels (not modelled).
 * - A write without FUA enters the cache at once if it has room: its bytes
 *   go to the dirty count of the die of each page they fall in, and it
 *   completes t_xfer_us later (the host transfer). Else it waits in a FIFO
 *   until background programs free room: a program frees its bytes when it
 *   ends. FUA writes, every write when cache_kb is 0, and writes larger
 *   than the whole cache are programmed in the foreground instead.
 * - A flush completes when all the data dirty on its arrival is programmed
 *   (on each die, the cumulative bytes programmed from the cache reach the
 *   cumulative bytes that had entered it), FNV_FLUSH_NS (2 us) after
 *   that, or after its arrival with nothing dirty. A write with
 *   REQ_PREFLUSH (the block layer sends none to a device with FUA) is such
 *   a flush, then the write.
 * - Arbitration: queue_rq() only appends the request to its hardware
 *   queue's submission queue, as a host does to an NVMe SQ. The controller
 *   fetches commands round robin over the submission queues, one per queue
 *   per turn (an NVMe controller's default arbitration), while fewer than
 *   max_active = 4 * (number of dies) are in the model (fetched and not
 *   complete: also writes waiting for cache room and flushes), and again
 *   whenever one completes. fnv_pick_sq() is the place for a weighted
 *   round robin over priority classes.
 *
 * Not modelled: garbage collection, the mapping table, the order of a FUA
 * write and cached data of the same blocks, rewrites in the cache (each
 * write is programmed).
 *
 * Events come from hrtimers run in softirq: one per die (its operation's
 * end) and one per request (its completion, when later than the event
 * that ends its last operation). The model is under one spinlock per
 * device; requests are ended once it is dropped. Data are copied (memory
 * backed) or reads zeroed in queue_rq(), before the request is queued.
 * There is no .timeout: a request the block layer finds late (30 s) has
 * its timer re-armed, and completes when the model says.
 *
 * Statistics, /sys/kernel/debug/fnvssd/NAME/stats while powered on, one
 * key=value a line (writing to the file zeroes the counters): reads,
 * writes_cached (entered the cache on arrival), writes_waited (waited for
 * cache room first), writes_fua (programmed in the foreground), flushes,
 * cache_fill_kb (dirty now), cache_kb, read_interference (reads that found
 * a program in progress or FUA programs queued ahead on one of their
 * dies), read_interference_us (the longest such wait of each of them,
 * summed), completed (commands) and late_us (how long after their model
 * time they completed, summed: the guest's timers fire late, under TCG by
 * 0.05 to 0.4 ms, which a user sees and the model does not), active
 * (commands in the model), and each die's busy time on
 * reads and on programs (dieN_read_us, dieN_prog_us, charged when an
 * operation starts).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/configfs.h>
#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/idr.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#define FNV_COMPAT_BLKDEV
#include <fairnvme/compat.h>

#define FNV_LBS			512
#define FNV_PBS			4096
#define FNV_MAX_BYTES		(128 * 1024)
/* flash pages one request may cover: 4 KiB ones, and not aligned */
#define FNV_MAX_OPS		(FNV_MAX_BYTES / (4 * 1024) + 1)
/* a flush with nothing to wait for completes this much after its arrival */
#define FNV_FLUSH_NS		(2 * NSEC_PER_USEC)
/* foreground operations in a row while background work waits, at most */
#define FNV_FG_RUN		8
/* commands in the model at most, per die */
#define FNV_ACTIVE_PER_DIE	4

/* A device's configuration: a directory in configfs */
struct fnv_cfg {
	struct config_item item;
	struct list_head node;		/* on fnv_cfgs */
	struct fnv_dev *dev;		/* while powered on */
	int index;
	unsigned int size_mb;
	unsigned int submit_queues;
	unsigned int hw_queue_depth;
	unsigned int channels;
	unsigned int dies_per_channel;
	unsigned int page_kb;
	unsigned int t_read_us;
	unsigned int t_prog_us;
	unsigned int t_xfer_us;
	unsigned int cache_kb;
	unsigned int memory_backed;
	unsigned int requeue_every;
	unsigned int requeue_min_kb;
};

enum fnv_kind { FNV_READ, FNV_WRITE, FNV_FLUSH };

/* a die's operation in progress */
enum fnv_die_state { FNV_IDLE, FNV_DIE_READ, FNV_DIE_PROG, FNV_DIE_BG };

/* A foreground operation on one flash page: a read, or a FUA program */
struct fnv_op {
	struct list_head node;		/* on its die's fg */
	struct fnv_cmd *cmd;
	bool prog;
};

/* The request's pdu */
struct fnv_cmd {
	/* on a submission queue, flush_wait, cache_wait or done */
	struct list_head node;
	struct hrtimer timer;		/* completion at a later time */
	struct fnv_dev *dev;
	enum fnv_kind kind;
	bool fua;
	bool preflush;
	bool requeue;			/* given back at its end, not ended */
	bool retried;			/* given back once: ended next time */
	unsigned int pending;		/* operations not done */
	ktime_t done_at;		/* the latest end of its operations */
	ktime_t end_at;			/* its completion, in model time */
	u64 pos;			/* bytes */
	u32 len;
	struct fnv_op ops[FNV_MAX_OPS];
	u64 marks[];			/* flush: each die's dirty_in on arrival */
};

struct fnv_die {
	struct hrtimer timer;		/* the end of its operation */
	struct fnv_dev *dev;
	struct list_head fg;		/* foreground operations, FIFO */
	unsigned int nr_fg_prog;	/* programs in fg */
	unsigned int fg_run;		/* fg operations since the last bg one */
	enum fnv_die_state state;
	struct fnv_op *cur;		/* foreground operation in progress */
	ktime_t busy_until;		/* end of the last operation started */
	unsigned int channel;
	u32 bg_bytes;			/* background program in progress */
	u64 dirty;			/* cached bytes not being programmed */
	u64 dirty_in;			/* cumulative bytes cached */
	u64 prog_done;			/* cumulative bytes programmed from it */
	u64 read_ns;			/* busy time, reads */
	u64 prog_ns;			/* busy time, programs */
};

struct fnv_stats {
	u64 reads;
	u64 writes_cached;
	u64 writes_waited;
	u64 writes_fua;
	u64 flushes;
	u64 read_interference;
	u64 read_interference_ns;
	/*
	 * Commands completed, and how long after their model time: the
	 * guest's timers fire late (under TCG, by hundreds of us), which
	 * adds to what a user sees but not to the model.
	 */
	u64 completed;
	u64 late_ns;
	u64 requeued;			/* given back (requeue_every) */
};

/* A powered-on device */
struct fnv_dev {
	spinlock_t lock;		/* the model: all below */
	struct fnv_cfg *cfg;
	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
	struct dentry *dbg;
	struct xarray pages;		/* memory backing, PAGE_SIZE pages */
	bool memory_backed;
	bool stopped;			/* at power off: start nothing more */
	unsigned int nr_dies;
	unsigned int nr_sq;
	unsigned int max_active;
	unsigned int page_shift;	/* flash page: log2 of its bytes */
	u32 page_bytes;
	u64 t_read;			/* ns */
	u64 t_prog;
	u64 t_xfer;
	u64 cache_bytes;
	unsigned int requeue_every;
	u32 requeue_min_bytes;
	unsigned int requeue_seen;	/* of the requests it counts */
	struct list_head *sqs;		/* one submission queue per hctx */
	unsigned int rr;		/* the next one of the round robin */
	unsigned int nr_active;		/* commands in the model */
	u64 cache_used;			/* dirty bytes, being programmed too */
	struct list_head cache_wait;	/* writes waiting for cache room */
	struct list_head flush_wait;	/* flushes, in arrival order */
	struct list_head done;		/* to end once the lock is dropped */
	ktime_t *ch_free;		/* when each channel is free */
	struct fnv_die *dies;
	struct fnv_stats st;
};

static DEFINE_MUTEX(fnv_lock);		/* configuration, power on/off */
static LIST_HEAD(fnv_cfgs);
static DEFINE_IDA(fnv_ida);
static int fnv_major;
static struct dentry *fnv_dbg_root;

/* ------------------------------------------------------------ model ---- */

static struct fnv_die *fnv_die_of(struct fnv_dev *dev, u64 page)
{
	u32 die;

	div_u64_rem(page, dev->nr_dies, &die);
	return &dev->dies[die];
}

/* The die is idle: start its next operation, if it has one. */
static void fnv_die_kick(struct fnv_die *die, ktime_t now)
{
	struct fnv_dev *dev = die->dev;
	struct fnv_op *op;
	u64 ns;

	if (die->state != FNV_IDLE || dev->stopped)
		return;
	op = list_first_entry_or_null(&die->fg, struct fnv_op, node);
	/*
	 * Reads come first, but not for ever: while a flush or a write
	 * waits for this die's dirty data, one background program goes
	 * after every FNV_FG_RUN foreground operations, or reads kept on
	 * one die would hold that flush (an fsync) back without end.
	 */
	if (op && die->dirty && die->fg_run >= FNV_FG_RUN &&
	    (!list_empty(&dev->flush_wait) || !list_empty(&dev->cache_wait)))
		op = NULL;
	if (op) {
		die->fg_run++;
		list_del(&op->node);
		die->cur = op;
		if (op->prog) {
			die->nr_fg_prog--;
			die->state = FNV_DIE_PROG;
		} else {
			die->state = FNV_DIE_READ;
		}
	} else if (die->dirty &&
		   (die->dirty >= dev->page_bytes ||
		    !list_empty(&dev->flush_wait) ||
		    !list_empty(&dev->cache_wait))) {
		die->bg_bytes = min_t(u64, die->dirty, dev->page_bytes);
		die->dirty -= die->bg_bytes;
		die->fg_run = 0;
		die->state = FNV_DIE_BG;
	} else {
		return;
	}
	if (die->state == FNV_DIE_READ) {
		ns = dev->t_read;
		die->read_ns += ns;
	} else {
		ns = dev->t_xfer + dev->t_prog;
		die->prog_ns += ns;
	}
	if (ktime_before(now, die->busy_until))
		now = die->busy_until;
	die->busy_until = ktime_add_ns(now, ns);
	hrtimer_start(&die->timer, die->busy_until, HRTIMER_MODE_ABS_PINNED_SOFT);
}

static void fnv_kick_all(struct fnv_dev *dev, ktime_t now)
{
	unsigned int i;

	for (i = 0; i < dev->nr_dies; i++)
		fnv_die_kick(&dev->dies[i], now);
}

/* The command is complete: out of the model, ended once the lock drops. */
static void fnv_cmd_done(struct fnv_cmd *cmd)
{
	struct fnv_dev *dev = cmd->dev;
	s64 late = ktime_to_ns(ktime_sub(ktime_get(), cmd->end_at));

	dev->st.completed++;
	if (late > 0)
		dev->st.late_ns += late;
	dev->nr_active--;
	if (dev->requeue_every && cmd->kind != FNV_FLUSH && !cmd->fua &&
	    !cmd->preflush && !cmd->retried &&
	    cmd->len >= dev->requeue_min_bytes &&
	    ++dev->requeue_seen >= dev->requeue_every) {
		dev->requeue_seen = 0;
		cmd->requeue = true;
		dev->st.requeued++;
	}
	list_add_tail(&cmd->node, &dev->done);
}

static void fnv_cmd_end_at(struct fnv_cmd *cmd, ktime_t t)
{
	cmd->end_at = t;
	if (ktime_after(t, ktime_get()))
		hrtimer_start(&cmd->timer, t, HRTIMER_MODE_ABS_PINNED_SOFT);
	else
		fnv_cmd_done(cmd);
}

static void fnv_op_done(struct fnv_cmd *cmd, ktime_t end)
{
	if (ktime_after(end, cmd->done_at))
		cmd->done_at = end;
	if (!--cmd->pending)
		fnv_cmd_end_at(cmd, cmd->done_at);
}

/* Time the programs ahead of a read queued on @die now hold the die. */
static u64 fnv_prog_ahead(struct fnv_die *die, ktime_t now)
{
	struct fnv_dev *dev = die->dev;
	u64 ns = (u64)die->nr_fg_prog * (dev->t_xfer + dev->t_prog);

	if ((die->state == FNV_DIE_PROG || die->state == FNV_DIE_BG) &&
	    ktime_after(die->busy_until, now))
		ns += ktime_to_ns(ktime_sub(die->busy_until, now));
	return ns;
}

/* A read, or a write programmed in the foreground: one op per page. */
static void fnv_queue_ops(struct fnv_cmd *cmd, bool prog, ktime_t now)
{
	struct fnv_dev *dev = cmd->dev;
	u64 first = cmd->pos >> dev->page_shift;
	u64 last = (cmd->pos + cmd->len - 1) >> dev->page_shift;
	u64 page, wait = 0;
	struct fnv_op *op = cmd->ops;

	cmd->pending = last - first + 1;
	cmd->done_at = 0;
	for (page = first; page <= last; page++, op++) {
		struct fnv_die *die = fnv_die_of(dev, page);

		op->cmd = cmd;
		op->prog = prog;
		if (prog)
			die->nr_fg_prog++;
		else
			wait = max(wait, fnv_prog_ahead(die, now));
		list_add_tail(&op->node, &die->fg);
		fnv_die_kick(die, now);
	}
	if (wait) {
		dev->st.read_interference++;
		dev->st.read_interference_ns += wait;
	}
}

/* A write with room in the cache enters it. */
static void fnv_cache_enter(struct fnv_cmd *cmd, ktime_t now)
{
	struct fnv_dev *dev = cmd->dev;
	u64 pos = cmd->pos, end = cmd->pos + cmd->len;

	dev->cache_used += cmd->len;
	while (pos < end) {
		u64 page = pos >> dev->page_shift;
		u64 next = min(end, (page + 1) << dev->page_shift);
		struct fnv_die *die = fnv_die_of(dev, page);

		die->dirty += next - pos;
		die->dirty_in += next - pos;
		fnv_die_kick(die, now);
		pos = next;
	}
	fnv_cmd_end_at(cmd, ktime_add_ns(now, dev->t_xfer));
}

/* Room was freed: let in the writes waiting for it, in order. */
static void fnv_cache_admit(struct fnv_dev *dev, ktime_t now)
{
	struct fnv_cmd *cmd;

	while ((cmd = list_first_entry_or_null(&dev->cache_wait,
					       struct fnv_cmd, node))) {
		if (dev->cache_used + cmd->len > dev->cache_bytes)
			break;
		list_del(&cmd->node);
		fnv_cache_enter(cmd, now);
	}
}

static void fnv_write_start(struct fnv_cmd *cmd, ktime_t now)
{
	struct fnv_dev *dev = cmd->dev;

	if (cmd->fua || cmd->len > dev->cache_bytes) {
		dev->st.writes_fua++;
		fnv_queue_ops(cmd, true, now);
	} else if (list_empty(&dev->cache_wait) &&
		   dev->cache_used + cmd->len <= dev->cache_bytes) {
		dev->st.writes_cached++;
		fnv_cache_enter(cmd, now);
	} else {
		dev->st.writes_waited++;
		list_add_tail(&cmd->node, &dev->cache_wait);
		/* idle dies now program their partial pages too */
		fnv_kick_all(dev, now);
	}
}

static bool fnv_flush_reached(struct fnv_dev *dev, struct fnv_cmd *cmd)
{
	unsigned int i;

	for (i = 0; i < dev->nr_dies; i++)
		if (dev->dies[i].prog_done < cmd->marks[i])
			return false;
	return true;
}

/*
 * Complete the flushes whose data is programmed. Their marks only grow in
 * arrival order, so they complete in that order.
 */
static void fnv_flush_check(struct fnv_dev *dev, ktime_t now)
{
	struct fnv_cmd *cmd;

	while ((cmd = list_first_entry_or_null(&dev->flush_wait,
					       struct fnv_cmd, node))) {
		if (!fnv_flush_reached(dev, cmd))
			break;
		list_del(&cmd->node);
		if (cmd->kind == FNV_WRITE)
			fnv_write_start(cmd, now);
		else
			fnv_cmd_end_at(cmd, ktime_add_ns(now, FNV_FLUSH_NS));
	}
}

static void fnv_flush_start(struct fnv_cmd *cmd, ktime_t now)
{
	struct fnv_dev *dev = cmd->dev;
	unsigned int i;

	dev->st.flushes++;
	for (i = 0; i < dev->nr_dies; i++)
		cmd->marks[i] = dev->dies[i].dirty_in;
	list_add_tail(&cmd->node, &dev->flush_wait);
	fnv_flush_check(dev, now);
	/* idle dies now program their partial pages too */
	if (!list_empty(&dev->flush_wait))
		fnv_kick_all(dev, now);
}

static void fnv_cmd_start(struct fnv_cmd *cmd, ktime_t now)
{
	switch (cmd->kind) {
	case FNV_READ:
		cmd->dev->st.reads++;
		fnv_queue_ops(cmd, false, now);
		break;
	case FNV_WRITE:
		if (cmd->preflush)
			fnv_flush_start(cmd, now);
		else
			fnv_write_start(cmd, now);
		break;
	case FNV_FLUSH:
		fnv_flush_start(cmd, now);
		break;
	}
}

/*
 * Command arbitration: the next submission queue to fetch a command from,
 * or NULL when all are empty. Round robin, one command per queue per turn,
 * as an NVMe controller's default arbitration. A weighted round robin over
 * priority classes would replace this function alone: keep a class per
 * queue and a credit per class here.
 */
static struct list_head *fnv_pick_sq(struct fnv_dev *dev)
{
	unsigned int i, n;

	for (i = 0; i < dev->nr_sq; i++) {
		n = (dev->rr + i) % dev->nr_sq;
		if (!list_empty(&dev->sqs[n])) {
			dev->rr = (n + 1) % dev->nr_sq;
			return &dev->sqs[n];
		}
	}
	return NULL;
}

/* Fetch commands into the model while it has room for them. */
static void fnv_fetch(struct fnv_dev *dev, ktime_t now)
{
	struct list_head *sq;
	struct fnv_cmd *cmd;

	while (!dev->stopped && dev->nr_active < dev->max_active) {
		sq = fnv_pick_sq(dev);
		if (!sq)
			break;
		cmd = list_first_entry(sq, struct fnv_cmd, node);
		list_del(&cmd->node);
		dev->nr_active++;
		fnv_cmd_start(cmd, now);
	}
}

/*
 * Drop the lock: fetch what completions made room for, then end the
 * completed requests, outside the lock (their completion may submit).
 */
static void fnv_unlock(struct fnv_dev *dev, unsigned long flags)
	__releases(&dev->lock)
{
	struct fnv_cmd *cmd;
	LIST_HEAD(done);

	fnv_fetch(dev, ktime_get());
	list_splice_init(&dev->done, &done);
	spin_unlock_irqrestore(&dev->lock, flags);
	while ((cmd = list_first_entry_or_null(&done, struct fnv_cmd, node))) {
		list_del_init(&cmd->node);
		if (cmd->requeue) {
			/* as nvme_retry_req(): retried from hctx->dispatch */
			cmd->requeue = false;
			cmd->retried = true;
			blk_mq_requeue_request(blk_mq_rq_from_pdu(cmd), true);
			continue;
		}
		blk_mq_end_request(blk_mq_rq_from_pdu(cmd), BLK_STS_OK);
	}
}

static enum hrtimer_restart fnv_die_timer(struct hrtimer *timer)
{
	struct fnv_die *die = container_of(timer, struct fnv_die, timer);
	struct fnv_dev *dev = die->dev;
	enum fnv_die_state state;
	unsigned long flags;
	struct fnv_op *op;
	ktime_t now, *ch;

	spin_lock_irqsave(&dev->lock, flags);
	now = die->busy_until;
	state = die->state;
	op = die->cur;
	die->state = FNV_IDLE;
	die->cur = NULL;
	switch (state) {
	case FNV_DIE_READ:
		ch = &dev->ch_free[die->channel];
		if (ktime_before(*ch, now))
			*ch = now;
		*ch = ktime_add_ns(*ch, dev->t_xfer);
		fnv_op_done(op->cmd, *ch);
		break;
	case FNV_DIE_PROG:
		fnv_op_done(op->cmd, now);
		break;
	case FNV_DIE_BG:
		die->prog_done += die->bg_bytes;
		dev->cache_used -= die->bg_bytes;
		die->bg_bytes = 0;
		fnv_cache_admit(dev, now);
		fnv_flush_check(dev, now);
		break;
	case FNV_IDLE:
		break;
	}
	fnv_die_kick(die, now);
	fnv_unlock(dev, flags);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart fnv_cmd_timer(struct hrtimer *timer)
{
	struct fnv_cmd *cmd = container_of(timer, struct fnv_cmd, timer);
	struct fnv_dev *dev = cmd->dev;
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	fnv_cmd_done(cmd);
	fnv_unlock(dev, flags);
	return HRTIMER_NORESTART;
}

/* ------------------------------------------------------------- data ---- */

/* The backing page of @idx; allocated on write. NULL: none, or no memory. */
static struct page *fnv_page(struct fnv_dev *dev, pgoff_t idx, bool alloc)
{
	struct page *page = xa_load(&dev->pages, idx), *old;

	if (page || !alloc)
		return page;
	page = alloc_page(GFP_NOIO | __GFP_NOWARN | __GFP_ZERO);
	if (!page)
		return NULL;
	old = xa_cmpxchg(&dev->pages, idx, NULL, page, GFP_NOIO | __GFP_NOWARN);
	if (!old)
		return page;
	__free_page(page);	/* another writer's, or an error */
	return xa_is_err(old) ? NULL : old;
}

/* Copy a write's data in, or a read's out (zeros where nothing is kept). */
static blk_status_t fnv_copy(struct fnv_dev *dev, struct request *rq)
{
	bool write = req_op(rq) == REQ_OP_WRITE;
	u64 pos = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	struct req_iterator iter;
	struct bio_vec bv;

	if (write && !dev->memory_backed)
		return BLK_STS_OK;
	rq_for_each_segment(bv, rq, iter) {
		unsigned int done = 0, off, n;
		struct page *page = NULL;

		while (done < bv.bv_len) {
			off = offset_in_page(pos);
			n = min_t(unsigned int, bv.bv_len - done, PAGE_SIZE - off);
			if (dev->memory_backed) {
				page = fnv_page(dev, pos >> PAGE_SHIFT, write);
				if (write && !page)
					return BLK_STS_RESOURCE;
			}
			if (write)
				memcpy_page(page, off, bv.bv_page,
					    bv.bv_offset + done, n);
			else if (page)
				memcpy_page(bv.bv_page, bv.bv_offset + done,
					    page, off, n);
			else
				memzero_page(bv.bv_page, bv.bv_offset + done, n);
			done += n;
			pos += n;
		}
	}
	return BLK_STS_OK;
}

static void fnv_free_pages(struct fnv_dev *dev)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&dev->pages, idx, page) {
		__free_page(page);
		cond_resched();
	}
	xa_destroy(&dev->pages);
}

/* ----------------------------------------------------------- blk-mq ---- */

static blk_status_t fnv_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct fnv_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct fnv_dev *dev = cmd->dev;
	unsigned long flags;
	blk_status_t sts;

	switch (req_op(rq)) {
	case REQ_OP_READ:
		cmd->kind = FNV_READ;
		break;
	case REQ_OP_WRITE:
		cmd->kind = FNV_WRITE;
		break;
	case REQ_OP_FLUSH:
		cmd->kind = FNV_FLUSH;
		break;
	default:
		return BLK_STS_NOTSUPP;
	}
	cmd->pos = (u64)blk_rq_pos(rq) << SECTOR_SHIFT;
	cmd->len = blk_rq_bytes(rq);
	cmd->fua = cmd->kind == FNV_WRITE && (rq->cmd_flags & REQ_FUA);
	cmd->preflush = cmd->kind == FNV_WRITE &&
			(rq->cmd_flags & REQ_PREFLUSH);
	if (cmd->kind != FNV_FLUSH) {
		if (!cmd->len || cmd->len > FNV_MAX_BYTES)
			return BLK_STS_IOERR;
		/* before the start: a request given back must be idle */
		sts = fnv_copy(dev, rq);
		if (sts)
			return sts;
	}

	/*
	 * As nvme_prep_rq(): prepared once, so that a request given back is
	 * retried from the dispatch list, around the elevator
	 */
	if (!(rq->rq_flags & RQF_DONTPREP)) {
		cmd->requeue = false;
		cmd->retried = false;
		rq->rq_flags |= RQF_DONTPREP;
	}
	blk_mq_start_request(rq);
	spin_lock_irqsave(&dev->lock, flags);
	if (dev->stopped) {
		spin_unlock_irqrestore(&dev->lock, flags);
		return BLK_STS_IOERR;
	}
	list_add_tail(&cmd->node, hctx->driver_data);
	fnv_unlock(dev, flags);
	return BLK_STS_OK;
}

static int fnv_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			 unsigned int hctx_idx)
{
	struct fnv_dev *dev = data;

	hctx->driver_data = &dev->sqs[hctx_idx];
	return 0;
}

static int fnv_init_request(struct blk_mq_tag_set *set, struct request *rq,
			    unsigned int hctx_idx, unsigned int numa_node)
{
	struct fnv_cmd *cmd = blk_mq_rq_to_pdu(rq);

	cmd->dev = set->driver_data;
	INIT_LIST_HEAD(&cmd->node);
	hrtimer_init(&cmd->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_SOFT);
	cmd->timer.function = fnv_cmd_timer;
	return 0;
}

/* Before the pdu is freed: its timer's callback may still be returning. */
static void fnv_exit_request(struct blk_mq_tag_set *set, struct request *rq,
			     unsigned int hctx_idx)
{
	struct fnv_cmd *cmd = blk_mq_rq_to_pdu(rq);

	hrtimer_cancel(&cmd->timer);
}

static const struct blk_mq_ops fnv_mq_ops = {
	.queue_rq	= fnv_queue_rq,
	.init_hctx	= fnv_init_hctx,
	.init_request	= fnv_init_request,
	.exit_request	= fnv_exit_request,
};

static const struct block_device_operations fnv_fops = {
	.owner		= THIS_MODULE,
};

/* ------------------------------------------------------------ stats ---- */

static int fnv_stats_show(struct seq_file *m, void *v)
{
	struct fnv_dev *dev = m->private;
	struct fnv_stats *st = &dev->st;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&dev->lock, flags);
	seq_printf(m, "reads=%llu\nwrites_cached=%llu\nwrites_waited=%llu\n",
		   st->reads, st->writes_cached, st->writes_waited);
	seq_printf(m, "writes_fua=%llu\nflushes=%llu\n",
		   st->writes_fua, st->flushes);
	seq_printf(m, "cache_fill_kb=%llu\ncache_kb=%llu\n",
		   dev->cache_used >> 10, dev->cache_bytes >> 10);
	seq_printf(m, "read_interference=%llu\nread_interference_us=%llu\n",
		   st->read_interference,
		   div_u64(st->read_interference_ns, NSEC_PER_USEC));
	seq_printf(m, "completed=%llu\nlate_us=%llu\nrequeued=%llu\n",
		   st->completed, div_u64(st->late_ns, NSEC_PER_USEC),
		   st->requeued);
	seq_printf(m, "active=%u\n", dev->nr_active);
	for (i = 0; i < dev->nr_dies; i++)
		seq_printf(m, "die%u_read_us=%llu\ndie%u_prog_us=%llu\n",
			   i, div_u64(dev->dies[i].read_ns, NSEC_PER_USEC),
			   i, div_u64(dev->dies[i].prog_ns, NSEC_PER_USEC));
	spin_unlock_irqrestore(&dev->lock, flags);
	return 0;
}

static int fnv_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, fnv_stats_show, inode->i_private);
}

/* Writing anything zeroes the counters. */
static ssize_t fnv_stats_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct fnv_dev *dev = ((struct seq_file *)file->private_data)->private;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&dev->lock, flags);
	memset(&dev->st, 0, sizeof(dev->st));
	for (i = 0; i < dev->nr_dies; i++) {
		dev->dies[i].read_ns = 0;
		dev->dies[i].prog_ns = 0;
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	return count;
}

static const struct file_operations fnv_stats_fops = {
	.owner		= THIS_MODULE,
	.open		= fnv_stats_open,
	.read		= seq_read,
	.write		= fnv_stats_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* ------------------------------------------------------- power on/off ---- */

/* No operation starts after this; waits for the die timers' callbacks. */
static void fnv_stop(struct fnv_dev *dev)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&dev->lock, flags);
	dev->stopped = true;
	spin_unlock_irqrestore(&dev->lock, flags);
	for (i = 0; i < dev->nr_dies; i++)
		hrtimer_cancel(&dev->dies[i].timer);
}

static void fnv_dev_free(struct fnv_dev *dev)
{
	fnv_free_pages(dev);
	kfree(dev->dies);
	kfree(dev->ch_free);
	kfree(dev->sqs);
	kfree(dev);
}

static struct fnv_dev *fnv_dev_alloc(struct fnv_cfg *cfg)
{
	unsigned int i, nr_dies = cfg->channels * cfg->dies_per_channel;
	struct fnv_dev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return NULL;
	xa_init(&dev->pages);
	dev->dies = kcalloc(nr_dies, sizeof(*dev->dies), GFP_KERNEL);
	dev->ch_free = kcalloc(cfg->channels, sizeof(*dev->ch_free),
			       GFP_KERNEL);
	dev->sqs = kcalloc(cfg->submit_queues, sizeof(*dev->sqs), GFP_KERNEL);
	if (!dev->dies || !dev->ch_free || !dev->sqs) {
		fnv_dev_free(dev);
		return NULL;
	}
	spin_lock_init(&dev->lock);
	dev->cfg = cfg;
	dev->memory_backed = cfg->memory_backed;
	dev->nr_dies = nr_dies;
	dev->nr_sq = cfg->submit_queues;
	dev->max_active = FNV_ACTIVE_PER_DIE * nr_dies;
	dev->page_shift = ilog2(cfg->page_kb) + 10;
	dev->page_bytes = 1U << dev->page_shift;
	dev->t_read = (u64)cfg->t_read_us * NSEC_PER_USEC;
	dev->t_prog = (u64)cfg->t_prog_us * NSEC_PER_USEC;
	dev->t_xfer = (u64)cfg->t_xfer_us * NSEC_PER_USEC;
	dev->cache_bytes = (u64)cfg->cache_kb << 10;
	dev->requeue_every = cfg->requeue_every;
	dev->requeue_min_bytes = cfg->requeue_min_kb << 10;
	for (i = 0; i < dev->nr_sq; i++)
		INIT_LIST_HEAD(&dev->sqs[i]);
	INIT_LIST_HEAD(&dev->cache_wait);
	INIT_LIST_HEAD(&dev->flush_wait);
	INIT_LIST_HEAD(&dev->done);
	for (i = 0; i < nr_dies; i++) {
		struct fnv_die *die = &dev->dies[i];

		hrtimer_init(&die->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_PINNED_SOFT);
		die->timer.function = fnv_die_timer;
		die->dev = dev;
		INIT_LIST_HEAD(&die->fg);
		die->channel = i % cfg->channels;
	}
	return dev;
}

static int fnv_power_on(struct fnv_cfg *cfg)
{
	struct blk_mq_tag_set *set;
	struct gendisk *disk;
	struct fnv_dev *dev;
	int ret;

	lockdep_assert_held(&fnv_lock);
	dev = fnv_dev_alloc(cfg);
	if (!dev)
		return -ENOMEM;

	set = &dev->tag_set;
	set->ops = &fnv_mq_ops;
	set->nr_hw_queues = cfg->submit_queues;
	set->queue_depth = cfg->hw_queue_depth;
	set->numa_node = NUMA_NO_NODE;
	set->cmd_size = sizeof(struct fnv_cmd) + dev->nr_dies * sizeof(u64);
	set->flags = BLK_MQ_F_SHOULD_MERGE;
	/* queue_rq() allocates the backing pages: it may sleep */
	if (dev->memory_backed)
		set->flags |= BLK_MQ_F_BLOCKING;
	set->driver_data = dev;
	ret = blk_mq_alloc_tag_set(set);
	if (ret)
		goto out_free;

	disk = fnv_alloc_disk(set, dev, FNV_LBS, FNV_PBS,
			      FNV_MAX_BYTES >> SECTOR_SHIFT);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto out_tags;
	}
	dev->disk = disk;
	set_capacity(disk, (sector_t)cfg->size_mb << (20 - SECTOR_SHIFT));
	disk->major = fnv_major;
	disk->first_minor = cfg->index;
	disk->minors = 1;
	disk->fops = &fnv_fops;
	disk->private_data = dev;
	snprintf(disk->disk_name, DISK_NAME_LEN, "fnvssd%d", cfg->index);
	ret = add_disk(disk);
	if (ret)
		goto out_disk;

	dev->dbg = debugfs_create_dir(config_item_name(&cfg->item),
				      fnv_dbg_root);
	debugfs_create_file("stats", 0644, dev->dbg, dev, &fnv_stats_fops);
	WRITE_ONCE(cfg->dev, dev);
	pr_info("%s: %u MiB, %u x %u dies, %u KiB pages, cache %u KiB\n",
		disk->disk_name, cfg->size_mb, cfg->channels,
		cfg->dies_per_channel, cfg->page_kb, cfg->cache_kb);
	return 0;

out_disk:
	fnv_stop(dev);
	put_disk(disk);
out_tags:
	blk_mq_free_tag_set(set);
out_free:
	fnv_dev_free(dev);
	return ret;
}

/*
 * del_gendisk() fails new I/O and waits for the requests in flight, which
 * the model completes as usual; then no request is left, and no timer but
 * the dies' (background programs), which fnv_stop() ends. The requests'
 * timers are waited for by fnv_exit_request() when the tag set is freed,
 * which is before put_disk() (virtio_blk's order): a request's timer may
 * still be returning from ending another request (one of blk-flush's, say)
 * when del_gendisk() sees the queue empty, and the queue's last reference,
 * put_disk()'s, frees the hardware contexts that callback still uses (on a
 * BLK_MQ_F_BLOCKING queue nothing else waits for a softirq).
 */
static void fnv_power_off(struct fnv_cfg *cfg)
{
	struct fnv_dev *dev = cfg->dev;

	lockdep_assert_held(&fnv_lock);
	debugfs_remove_recursive(dev->dbg);
	del_gendisk(dev->disk);
	fnv_stop(dev);
	blk_mq_free_tag_set(&dev->tag_set);
	put_disk(dev->disk);
	pr_info("fnvssd%d: powered off\n", cfg->index);
	fnv_dev_free(dev);
	WRITE_ONCE(cfg->dev, NULL);
}

/* ---------------------------------------------------------- configfs ---- */

static struct fnv_cfg *to_fnv_cfg(struct config_item *item)
{
	return container_of(item, struct fnv_cfg, item);
}

/* The attributes below but power and index: unsigned ints of fnv_cfg */
static unsigned int *fnv_cfg_field(struct config_item *item, size_t off)
{
	return (unsigned int *)((char *)to_fnv_cfg(item) + off);
}

static ssize_t fnv_show_uint(struct config_item *item, char *page, size_t off)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(*fnv_cfg_field(item, off)));
}

static ssize_t fnv_store_uint(struct config_item *item, const char *page,
			      size_t count, size_t off, unsigned int min,
			      unsigned int max, bool pow2)
{
	unsigned int val;
	int ret;

	mutex_lock(&fnv_lock);
	if (to_fnv_cfg(item)->dev) {
		ret = -EBUSY;
	} else {
		ret = kstrtouint(page, 0, &val);
		if (!ret && (val < min || val > max ||
			     (pow2 && !is_power_of_2(val))))
			ret = -EINVAL;
		if (!ret)
			WRITE_ONCE(*fnv_cfg_field(item, off), val);
	}
	mutex_unlock(&fnv_lock);
	return ret ? ret : count;
}

/* as CONFIGFS_ATTR(fnv_cfg_, name), with a range */
#define FNV_CFG_ATTR(name, min, max, pow2)				\
static const size_t fnv_cfg_off_##name = offsetof(struct fnv_cfg, name); \
static ssize_t fnv_cfg_##name##_show(struct config_item *item,		\
				     char *page)			\
{									\
	return fnv_show_uint(item, page, fnv_cfg_off_##name);		\
}									\
static ssize_t fnv_cfg_##name##_store(struct config_item *item,	\
				      const char *page, size_t count)	\
{									\
	return fnv_store_uint(item, page, count, fnv_cfg_off_##name,	\
			      min, max, pow2);				\
}									\
static struct configfs_attribute fnv_cfg_attr_##name = {		\
	.ca_name	= #name,					\
	.ca_mode	= 0644,						\
	.ca_owner	= THIS_MODULE,					\
	.show		= fnv_cfg_##name##_show,			\
	.store		= fnv_cfg_##name##_store,			\
}

FNV_CFG_ATTR(size_mb, 16, 65536, false);
FNV_CFG_ATTR(submit_queues, 1, nr_cpu_ids, false);
FNV_CFG_ATTR(hw_queue_depth, 1, 1024, false);
FNV_CFG_ATTR(channels, 1, 16, false);
FNV_CFG_ATTR(dies_per_channel, 1, 16, false);
FNV_CFG_ATTR(page_kb, 4, 64, true);
FNV_CFG_ATTR(t_read_us, 1, 1000000, false);
FNV_CFG_ATTR(t_prog_us, 1, 1000000, false);
FNV_CFG_ATTR(t_xfer_us, 1, 1000000, false);
FNV_CFG_ATTR(cache_kb, 0, 1048576, false);
FNV_CFG_ATTR(memory_backed, 0, 1, false);
FNV_CFG_ATTR(requeue_every, 0, 1000000, false);
FNV_CFG_ATTR(requeue_min_kb, 0, 128, false);

static ssize_t fnv_cfg_power_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", !!READ_ONCE(to_fnv_cfg(item)->dev));
}

static ssize_t fnv_cfg_power_store(struct config_item *item,
				   const char *page, size_t count)
{
	struct fnv_cfg *cfg = to_fnv_cfg(item);
	bool on;
	int ret;

	ret = kstrtobool(page, &on);
	if (ret)
		return ret;
	mutex_lock(&fnv_lock);
	if (on && !cfg->dev)
		ret = fnv_power_on(cfg);
	else if (!on && cfg->dev)
		fnv_power_off(cfg);
	mutex_unlock(&fnv_lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(fnv_cfg_, power);

static ssize_t fnv_cfg_index_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", to_fnv_cfg(item)->index);
}
CONFIGFS_ATTR_RO(fnv_cfg_, index);

static struct configfs_attribute *fnv_cfg_attrs[] = {
	&fnv_cfg_attr_size_mb,
	&fnv_cfg_attr_submit_queues,
	&fnv_cfg_attr_hw_queue_depth,
	&fnv_cfg_attr_channels,
	&fnv_cfg_attr_dies_per_channel,
	&fnv_cfg_attr_page_kb,
	&fnv_cfg_attr_t_read_us,
	&fnv_cfg_attr_t_prog_us,
	&fnv_cfg_attr_t_xfer_us,
	&fnv_cfg_attr_cache_kb,
	&fnv_cfg_attr_memory_backed,
	&fnv_cfg_attr_requeue_every,
	&fnv_cfg_attr_requeue_min_kb,
	&fnv_cfg_attr_power,
	&fnv_cfg_attr_index,
	NULL,
};

static void fnv_cfg_release(struct config_item *item)
{
	struct fnv_cfg *cfg = to_fnv_cfg(item);

	ida_free(&fnv_ida, cfg->index);
	kfree(cfg);
}

static struct configfs_item_operations fnv_cfg_ops = {
	.release	= fnv_cfg_release,
};

static const struct config_item_type fnv_cfg_type = {
	.ct_item_ops	= &fnv_cfg_ops,
	.ct_attrs	= fnv_cfg_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_item *fnv_make_item(struct config_group *group,
					 const char *name)
{
	struct fnv_cfg *cfg;
	int index;

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return ERR_PTR(-ENOMEM);
	index = ida_alloc_max(&fnv_ida, MINORMASK, GFP_KERNEL);
	if (index < 0) {
		kfree(cfg);
		return ERR_PTR(index);
	}
	cfg->index = index;
	cfg->size_mb = 1024;
	cfg->submit_queues = 1;
	cfg->hw_queue_depth = 64;
	cfg->channels = 2;
	cfg->dies_per_channel = 2;
	cfg->page_kb = 16;
	cfg->t_read_us = 1500;
	cfg->t_prog_us = 6000;
	cfg->t_xfer_us = 100;
	cfg->cache_kb = 1024;
	config_item_init_type_name(&cfg->item, name, &fnv_cfg_type);
	mutex_lock(&fnv_lock);
	list_add_tail(&cfg->node, &fnv_cfgs);
	mutex_unlock(&fnv_lock);
	return &cfg->item;
}

static void fnv_drop_item(struct config_group *group, struct config_item *item)
{
	struct fnv_cfg *cfg = to_fnv_cfg(item);

	mutex_lock(&fnv_lock);
	if (cfg->dev)
		fnv_power_off(cfg);
	list_del_init(&cfg->node);
	mutex_unlock(&fnv_lock);
	config_item_put(item);
}

static struct configfs_group_operations fnv_group_ops = {
	.make_item	= fnv_make_item,
	.drop_item	= fnv_drop_item,
};

static const struct config_item_type fnv_group_type = {
	.ct_group_ops	= &fnv_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem fnv_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "fnvssd",
			.ci_type	= &fnv_group_type,
		},
	},
};

/* ------------------------------------------------------------ module ---- */

static int __init fnv_init(void)
{
	int ret;

	fnv_major = register_blkdev(0, "fnvssd");
	if (fnv_major < 0)
		return fnv_major;
	fnv_dbg_root = debugfs_create_dir("fnvssd", NULL);
	config_group_init(&fnv_subsys.su_group);
	mutex_init(&fnv_subsys.su_mutex);
	ret = configfs_register_subsystem(&fnv_subsys);
	if (ret) {
		debugfs_remove_recursive(fnv_dbg_root);
		unregister_blkdev(fnv_major, "fnvssd");
	}
	return ret;
}

/*
 * configfs holds a reference to the module for each device directory, so
 * all are removed (and powered off) by now; powering off what is left is
 * for safety only.
 */
static void __exit fnv_exit(void)
{
	struct fnv_cfg *cfg;

	configfs_unregister_subsystem(&fnv_subsys);
	mutex_lock(&fnv_lock);
	list_for_each_entry(cfg, &fnv_cfgs, node)
		if (cfg->dev)
			fnv_power_off(cfg);
	mutex_unlock(&fnv_lock);
	debugfs_remove_recursive(fnv_dbg_root);
	unregister_blkdev(fnv_major, "fnvssd");
	ida_destroy(&fnv_ida);
}

module_init(fnv_init);
module_exit(fnv_exit);

MODULE_DESCRIPTION("fnvssd: an emulated NVMe SSD for fairnvme's tests");
MODULE_LICENSE("GPL");
