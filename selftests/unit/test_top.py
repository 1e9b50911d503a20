#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/fairnvme-top on a fake sysfs/debugfs/cgroup tree (TAP).

A temporary directory holds sys/ (block/nvme0n1 using fairnvme, block/sda
using mq-deadline), debug/block/nvme0n1/sched/tenant_dump and cgroup/ (the
root, machine.slice/vm1, system.slice/docker-1.scope), whose directories'
inode numbers are the cgroup ids the dump names. The parsing, naming and
rate functions are called in this process; the command runs as a
subprocess (--sysfs, --debugfs, --cgroup pointed at the tree) while the
test advances the counters between its two samples.
"""

import ctypes
import ctypes.util
import json
import os
import shutil
import select
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
from taptool import diag, done, failed, load, ok, plan, tool_path  # noqa: E402

TOOL = tool_path("fairnvme-top")

T = load("fairnvme-top")

MM = "259:0"
ROOT_LINE = ("cgroup=1(root) weight=100 eff_weight=100 state=idle class=none "
             "vt_gap=0 queued=0 inflight=0 requests=1000 charged=4096 holder=0")
VM1_LINE = ("cgroup=4242 weight=300 eff_weight=300 state=saturated class=high "
            "vt_gap=512 queued=31 inflight=2 requests=81920 charged=335544320 "
            "holder=0")


def write(path, text):
    """Replace path's content at once (rename), as a reader sees a file."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


class Tree:
    """The fake machine; tenant counters kept here and written out."""

    def __init__(self, base):
        self.base = base
        self.sysfs = os.path.join(base, "sys")
        self.debugfs = os.path.join(base, "debug")
        self.cgroup = os.path.join(base, "cgroup")
        write(os.path.join(self.sysfs, "block", "nvme0n1", "dev"), MM + "\n")
        write(os.path.join(self.sysfs, "block", "nvme0n1", "queue", "scheduler"),
              "none mq-deadline [fairnvme]\n")
        write(os.path.join(self.sysfs, "block", "sda", "dev"), "8:0\n")
        write(os.path.join(self.sysfs, "block", "sda", "queue", "scheduler"),
              "[mq-deadline] none\n")
        self.dump = os.path.join(self.debugfs, "block", "nvme0n1", "sched",
                                 "tenant_dump")
        self.vm1 = os.path.join(self.cgroup, "machine.slice", "vm1")
        self.dock = os.path.join(self.cgroup, "system.slice", "docker-1.scope")
        for d in (self.vm1, self.dock):
            os.makedirs(d)
        # name -> [dir, weight, state, class, requests, rbytes, wbytes, lat, head]
        self.t = {
            "root": [self.cgroup, 100, "idle", "none", 1000, 10**6, 0, None, None],
            "vm1": [self.vm1, 300, "saturated", "high", 81920, 5 * 10**8,
                    10**7, 180, 20],
            "dock": [self.dock, 200, "balanced", "medium", 40000, 10**8,
                     2 * 10**8, 95, 7],
        }
        self.flush()

    def ino(self, name):
        return os.stat(self.t[name][0]).st_ino

    def flush(self):
        lines = []
        for name, (d, w, st, cl, req, rb, wb, lat, head) in self.t.items():
            cg = "1(root)" if name == "root" else str(os.stat(d).st_ino) \
                if os.path.isdir(d) else "999999999"
            lines.append("cgroup=%s weight=%d eff_weight=%d state=%s class=%s "
                         "vt_gap=0 queued=%d inflight=1 requests=%d charged=0 "
                         "holder=%d\n" % (cg, w, w, st, cl, w // 100, req,
                                          name == "vm1"))
            if not os.path.isdir(d):
                continue
            write(os.path.join(d, "io.stat"),
                  "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0\n"
                  "%s rbytes=%d wbytes=%d rios=0 wios=0 dbytes=0 dios=0\n" %
                  (MM, rb, wb))
            if lat is not None:
                write(os.path.join(d, "io.fairnvme.stat"),
                      "%s state=%s weight=%d eff_weight=%d sched_weight=%d "
                      "budget=0 comp_budget=0 lat_us=%d head_us=%d dev_us=1 "
                      "thresh_min_us=1\n" % (MM, st, w, w, w, lat, head))
        write(self.dump, "".join(lines))
        # an access time before the modification time: the tool's first read
        # updates it (relatime), which tells the test its first sample began
        st = os.stat(self.dump)
        os.utime(self.dump, ns=(st.st_mtime_ns - 10**10, st.st_mtime_ns))

    def bump(self, name, req=0, rb=0, wb=0):
        self.t[name][4] += req
        self.t[name][5] += rb
        self.t[name][6] += wb

    def argv(self, *more):
        return [sys.executable, TOOL, "--sysfs", self.sysfs, "--debugfs",
                self.debugfs, "--cgroup", self.cgroup] + list(more)

    def args(self):
        return T.parse_args(["--sysfs", self.sysfs, "--debugfs", self.debugfs,
                             "--cgroup", self.cgroup])


def run(argv, timeout=20):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def run_bumped(tree, argv, bumps):
    """Run the tool; after its first sample (+0.1 s) apply bumps, flush."""
    tree.flush()
    # the tool's first open of tenant_dump (inotify IN_OPEN, whatever the
    # mount's atime options) marks its first sample
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6",
                       use_errno=True)
    ifd = libc.inotify_init1(0o4000 | 0o2000000)     # NONBLOCK | CLOEXEC
    if ifd < 0 or libc.inotify_add_watch(ifd, os.fsencode(tree.dump),
                                         0x20) < 0:   # IN_OPEN
        raise OSError(ctypes.get_errno(), "inotify")
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    r, _, _ = select.select([ifd], [], [], 5)
    os.close(ifd)
    if not r:
        diag("first open of tenant_dump not seen in 5 s; bumping anyway")
    time.sleep(0.1)
    for b in bumps:
        tree.bump(*b[:1], **b[1])
    tree.flush()
    out, err = p.communicate(timeout=20)
    return p.returncode, out, err


def close(x, want, tol=0.10):
    return x is not None and abs(x - want) <= tol * want


def main():
    plan(21)
    tmp = tempfile.mkdtemp(prefix="fnvtop.")
    try:
        tree = Tree(tmp)

        # -- parse_dump
        d = T.parse_dump(ROOT_LINE + "\n" + VM1_LINE + "\ngarbage line\n\n")
        ok(len(d) == 2 and d[0]["cgroup_id"] == 1 and d[0]["root"] is True and
           d[0]["requests"] == 1000 and d[0]["state"] == "idle",
           "parse_dump: 2 tenants from 2 lines plus garbage; cgroup=1(root) -> "
           "id 1, root true, requests 1000, state idle")
        v = d[1] if len(d) > 1 else {}
        ok(v.get("cgroup_id") == 4242 and v.get("root") is False and
           v.get("weight") == 300 and v.get("eff_weight") == 300 and
           v.get("state") == "saturated" and v.get("class") == "high" and
           v.get("queued") == 31 and v.get("inflight") == 2 and
           v.get("requests") == 81920 and v.get("charged") == 335544320 and
           v.get("holder") is False,
           "parse_dump: cgroup=4242 weight 300 eff 300 saturated high queued 31 "
           "inflight 2 requests 81920 charged 335544320 holder false")

        # -- io.stat / io.fairnvme.stat lines
        ok(T.io_bytes(tree.vm1, MM) == (5 * 10**8, 10**7) and
           T.io_latency(tree.vm1, MM) == (180, 20) and
           T.io_latency(tree.cgroup, MM) == (None, None),
           "io.stat 259:0 line -> (500000000, 10000000); io.fairnvme.stat -> "
           "lat_us 180, head_us 20; root without io.fairnvme.stat -> (None, None)")

        # -- id -> path
        m = T.CgroupMap(tree.cgroup)
        ok(m.lookup(tree.ino("vm1")) == "/machine.slice/vm1" and
           m.lookup(tree.ino("dock")) == "/system.slice/docker-1.scope" and
           m.lookup(1, root=True) == "/" and m.lookup(tree.ino("root")) == "/",
           "cgroup ids (directory inodes) map to /machine.slice/vm1, "
           "/system.slice/docker-1.scope and / (root)")
        m.new_sample()
        ok(m.lookup(123456789) == T.GONE,
           "an id with no directory maps to \"(gone)\"")
        late = os.path.join(tree.cgroup, "late.slice")
        os.makedirs(late)
        m.new_sample()
        ok(m.lookup(os.stat(late).st_ino) == "/late.slice",
           "a cgroup made after the first walk: found by walking again on the miss")
        os.rmdir(late)

        # -- rates from two snapshots with known deltas
        args = tree.args()
        s1 = T.sample(args, "nvme0n1", MM)
        tree.bump("vm1", req=500, rb=2 * 10**6, wb=10**6)
        tree.bump("dock", req=100)
        tree.flush()
        s2 = T.sample(args, "nvme0n1", MM)
        rows = T.rates(s1, s2, 0.5)
        by = {r["cgroup"]: r for r in rows}
        r1 = by.get("/machine.slice/vm1", {})
        ok(r1.get("iops") == 1000.0 and r1.get("read_mbps") == 4.0 and
           r1.get("write_mbps") == 2.0 and r1.get("lat_us") == 180 and
           r1.get("holder") is True,
           "rates: vm1 requests +500, rbytes +2e6, wbytes +1e6 over 0.5 s = "
           "1000.0 IOPS, 4.0 MB/s read, 2.0 MB/s write (got %s, %s, %s)" %
           (r1.get("iops"), r1.get("read_mbps"), r1.get("write_mbps")))
        ok([r["cgroup"] for r in rows] ==
           ["/machine.slice/vm1", "/system.slice/docker-1.scope", "/"] and
           by["/"]["iops"] == 0.0 and by["/"]["lat_us"] is None and
           by["/system.slice/docker-1.scope"]["iops"] == 200.0,
           "rows sorted by IOPS: vm1 (1000), docker-1 (200), / (0, lat_us None)")
        s1["tenants"].pop((tree.ino("dock"), False))
        rows = T.rates(s1, s2, 0.5)
        rd = [r for r in rows if r["cgroup"] == "/system.slice/docker-1.scope"]
        ok(rd and rd[0]["new"] is True and rd[0]["iops"] == 0.0 and
           " 0 new " in T.render_text([("nvme0n1", MM, rows)]),
           "a tenant only in the second sample: 0 IOPS, marked \"new\" in text")

        # -- device discovery
        ok(T.discover(args) == ["nvme0n1"],
           "default discovery: [nvme0n1] (sda, [mq-deadline], ignored)")

        # -- the command: --once --json while counters advance
        # vm1 +300 requests, +3e6 read bytes; docker-1 +150, +1.5e6 written
        rc, out, err = run_bumped(
            tree, tree.argv("--once", "--json", "--interval", "0.3"),
            [("vm1", {"req": 300, "rb": 3 * 10**6}),
             ("dock", {"req": 150, "wb": 15 * 10**5})])
        try:
            j = json.loads(out)
        except ValueError:
            j = None
            diag("stdout: %r stderr: %r" % (out, err))
        devs = j["devices"] if j else []
        ten = {t["cgroup"]: t for t in devs[0]["tenants"]} if devs else {}
        ok(rc == 0 and j is not None and j["interval_s"] == 0.3 and
           [(x["device"], x["majmin"]) for x in devs] == [("nvme0n1", MM)] and
           set(ten) == {"/", "/machine.slice/vm1",
                        "/system.slice/docker-1.scope"},
           "--once --json: exit 0, interval_s 0.3, one device nvme0n1 259:0 "
           "(sda not listed), 3 tenants (rc %d)" % rc)
        jv = ten.get("/machine.slice/vm1", {})
        jd = ten.get("/system.slice/docker-1.scope", {})
        ok(close(jv.get("iops"), 1000.0) and close(jd.get("iops"), 500.0) and
           ten.get("/", {}).get("iops") == 0.0,
           "--json IOPS within 10%%: vm1 +300 req / 0.3 s = 1000 (got %s), "
           "docker-1 +150 / 0.3 s = 500 (got %s), root 0" %
           (jv.get("iops"), jd.get("iops")))
        ok(close(jv.get("read_mbps"), 10.0) and jv.get("write_mbps") == 0.0 and
           close(jd.get("write_mbps"), 5.0),
           "--json MB/s within 10%%: vm1 read 3e6 B / 0.3 s = 10.0 (got %s), "
           "docker-1 write 1.5e6 B / 0.3 s = 5.0 (got %s)" %
           (jv.get("read_mbps"), jd.get("write_mbps")))
        jr = ten.get("/", {})
        ok(jv.get("cgroup_id") == tree.ino("vm1") and jv.get("root") is False and
           jv.get("weight") == 300 and jv.get("state") == "saturated" and
           jv.get("class") == "high" and jv.get("lat_us") == 180 and
           jv.get("head_us") == 20 and jv.get("queued") == 3 and
           jv.get("inflight") == 1 and jv.get("holder") is True and
           jr.get("root") is True and jr.get("cgroup_id") == 1 and
           jr.get("lat_us") is None and "new" not in jv,
           "--json fields: vm1 weight 300 saturated high lat_us 180 head_us 20 "
           "queued 3 inflight 1 holder true; root: root true, id 1, lat_us null")

        # -- text mode --once
        rc, out, err = run_bumped(
            tree, tree.argv("--once", "--interval", "0.3"),
            [("vm1", {"req": 30}), ("dock", {"req": 300})])
        lines = out.splitlines()
        body = [ln.split()[0] for ln in lines[2:] if ln.strip()]
        ok(rc == 0 and lines and lines[0].startswith("nvme0n1 259:0  tenants: 3") and
           len(lines) > 1 and lines[1].split() == list(T.COLUMNS) and
           body == ["/system.slice/docker-1.scope", "/machine.slice/vm1", "/"] and
           "\x1b[" not in out,
           "--once text: header \"nvme0n1 259:0  tenants: 3\", the column line, "
           "rows sorted docker-1 (+300 req) > vm1 (+30) > / (0), no screen clear")
        if failed():
            diag(out + err)

        # -- errors
        rc, out, err = run(tree.argv("--once", "--interval", "0.1", "sda"))
        ok(rc == 1 and "sda: does not use fairnvme" in err and out == "",
           "a named device not using fairnvme: exit 1, \"sda: does not use "
           "fairnvme\" (%r)" % err.strip())
        rc, out, err = run(tree.argv("--once", "--interval", "0.1", "nvme9n9"))
        ok(rc == 1 and "nvme9n9: no such block device" in err,
           "a named device that does not exist: exit 1 (%r)" % err.strip())
        nofnv = os.path.join(tmp, "sys-nofnv")
        shutil.copytree(os.path.join(tree.sysfs, "block", "sda"),
                        os.path.join(nofnv, "block", "sda"))
        rc, out, err = run([sys.executable, TOOL, "--sysfs", nofnv, "--debugfs",
                            tree.debugfs, "--cgroup", tree.cgroup, "--once"])
        ok(rc == 1 and "no device uses fairnvme" in err,
           "no device uses fairnvme: exit 1, \"no device uses fairnvme\" (%r)" %
           err.strip())
        rc, out, err = run([sys.executable, TOOL, "--sysfs", tree.sysfs,
                            "--debugfs", os.path.join(tmp, "nodebug"),
                            "--cgroup", tree.cgroup, "--once"])
        ok(rc == 1 and "mount -t debugfs none /sys/kernel/debug" in err and
           "CONFIG_BLK_DEBUG_FS" in err,
           "debugfs dir missing: exit 1, says mount -t debugfs none "
           "/sys/kernel/debug and CONFIG_BLK_DEBUG_FS (%r)" % err.strip())

        # -- a removed cgroup, a vanished dump
        shutil.rmtree(tree.dock)
        rc, out, err = run_bumped(
            tree, tree.argv("--once", "--json", "--interval", "0.3"),
            [("vm1", {"req": 300})])
        try:
            ten = {t["cgroup"]: t for t in
                   json.loads(out)["devices"][0]["tenants"]}
        except (ValueError, LookupError):
            ten = {}
            diag("stdout: %r stderr: %r" % (out, err))
        g = ten.get(T.GONE, {})
        ok(rc == 0 and err == "" and g.get("cgroup_id") == 999999999 and
           g.get("lat_us") is None and g.get("read_mbps") == 0.0 and
           close(ten.get("/machine.slice/vm1", {}).get("iops"), 1000.0),
           "a tenant whose cgroup was removed: shown as \"(gone)\", no bytes or "
           "latency, exit 0, vm1 still 1000 IOPS (got %s)" %
           ten.get("/machine.slice/vm1", {}).get("iops"))
        os.unlink(tree.dump)
        s = T.sample(args, "nvme0n1", MM)
        txt = T.render_text([("nvme0n1", MM, None)])
        ok(s is None and "gone" in txt and
           json.loads(T.render_json([("nvme0n1", MM, None)], 1.0))["devices"] == [],
           "tenant_dump vanished (scheduler switched): sample() is None, "
           "text says gone, JSON leaves the device out")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
