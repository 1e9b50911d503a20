#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit test of tools/fairnvme-blknotes on a synthetic blktrace stream (TAP).

The stream holds what `blktrace -o -` writes on a kernel with
CONFIG_BLK_CGROUP: a process note, a queued read, and two notes with the
cgroup flag and an 8-byte cgroup id before their text (1, the root, as
written when the blk tracer's blk_cgroup option is off, and 4242). The
filter must clear the flag, take the id out (keeping a real one as
"[cgid N] " before the text) and pass the rest unchanged. If blkparse is
installed, the filtered stream shows both notes through it; Debian 12's
blkparse (blktrace 1.2.0) shows neither without the filter (printed).
"""

import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
from taptool import diag, done, ok, plan, skip  # noqa: E402

TOOL = os.path.join(HERE, "fairnvme-blknotes")
MAGIC = 0x65617407
HDR = "=IIQQIIIIIHH"
NOTIFY = 1 << (10 + 16)
MSG = NOTIFY | 2
CG = 1 << 8
QUEUE = 1 | (1 << 16)
DEV = (259 << 20) | 1
NOTE1 = b"fairnvme state busy->idle mult=1 lat_us=80 thresh_us=900\0"
NOTE2 = b"fairnvme eff_weight 100->150 weight=100\0"


def rec(seq, t, action, pdu=b"", sector=0, nbytes=0):
    return struct.pack(HDR, MAGIC, seq, t, sector, nbytes, action, 100, DEV,
                       0, 0, len(pdu)) + pdu


def parse(data):
    """The records of a stream: (action, pdu) pairs; None if cut short."""
    out = []
    size = struct.calcsize(HDR)
    while data:
        if len(data) < size:
            return None
        f = struct.unpack(HDR, data[:size])
        pdu = data[size:size + f[10]]
        if len(pdu) != f[10]:
            return None
        out.append((f[5], pdu))
        data = data[size + f[10]:]
    return out


def run(data, cmd=None):
    return subprocess.run(cmd or [TOOL], input=data, capture_output=True,
                          timeout=30)


STREAM = (rec(1, 1000, NOTIFY, b"fio\0" + b"\0" * 12) +
          rec(2, 2000, QUEUE, sector=8, nbytes=4096) +
          rec(3, 3000, MSG | CG, struct.pack("=Q", 1) + NOTE1) +
          rec(4, 4000, MSG | CG, struct.pack("=Q", 4242) + NOTE2))

plan(8)
r = run(STREAM)
recs = parse(r.stdout)
ok(r.returncode == 0 and recs is not None and len(recs) == 4,
   "4 records in, 4 well-formed records out (rc %d)" % r.returncode)
recs = recs or [(0, b"")] * 4
ok(recs[0] == (NOTIFY, b"fio\0" + b"\0" * 12) and
   recs[1] == (QUEUE, b"") and r.stdout[:96] == STREAM[:96],
   "records without the cgroup flag pass byte for byte")
ok(recs[2] == (MSG, NOTE1),
   "root's note: flag cleared, id 1 taken out, text as written")
ok(recs[3] == (MSG, b"[cgid 4242] " + NOTE2),
   "a cgroup's note: flag cleared, its id before the text: %r" % (recs[3][1][:24],))
bad = run(b"\x00" * 48 + STREAM)
ok(bad.returncode == 1 and b"bad magic" in bad.stderr,
   "not a blktrace stream: exit 1 and says why (rc %d)" % bad.returncode)
cut = run(STREAM[:-5])
ok(cut.returncode == 1 and b"cut short" in cut.stderr,
   "a payload cut short: exit 1 (rc %d)" % cut.returncode)

bp = shutil.which("blkparse")
if not bp:
    skip("no blkparse (apt-get install blktrace)",
         "blkparse shows the root's note through the filter")
    skip("no blkparse",
         "blkparse shows the cgroup's note, with its id, through the filter")
else:
    raw = run(STREAM, [bp, "-i", "-"]).stdout.decode(errors="replace")
    out = run(r.stdout, [bp, "-i", "-"]).stdout.decode(errors="replace")
    diag("blkparse without the filter: %d fairnvme notes; with it:"
         % raw.count(" fairnvme "))
    for line in out.splitlines():
        if " m " in line:
            diag(line)
    ok(" m   N fairnvme state busy->idle mult=1" in out,
       "blkparse shows the root's note through the filter")
    ok(" m   N [cgid 4242] fairnvme eff_weight 100->150" in out,
       "blkparse shows the cgroup's note, with its id, through the filter")
sys.exit(done())
