#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/fairnvme-weightd on a fake cgroup tree (TAP).

Directories on the test's own temporary file system stand for cgroups.
Their io.weight files are written as a user would (inotify sees those
writes as on cgroupfs); io.fairnvme.weight is written through the daemon's
write(), replaced here by one with the kernel file's semantics: each
write(2) is one setting, "default W", "MAJ:MIN W" or "MAJ:MIN default".
The daemon runs in a thread of this process.
"""

import os
import shutil
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
from taptool import done, load, ok, plan  # noqa: E402

W = load("fairnvme-weightd")


def kernel_write(path, line):
    """io.fairnvme.weight's semantics: one setting per write."""
    try:
        with open(path) as f:
            dflt, devs = W.parse(f.read())
    except OSError:
        return False
    key, val = line.split()
    if key == "default":
        dflt = val
    elif val == "default":
        devs.pop(key, None)
    else:
        devs[key] = val
    text = "default %s\n" % (dflt or "100")
    text += "".join("%s %s\n" % kv for kv in sorted(devs.items()))
    with open(path, "w") as f:
        f.write(text)
    return True


W.write = kernel_write


def mkcg(path, weight="default 100\n", fnv="default 100\n"):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "io.fairnvme.weight"), "w") as f:
        f.write(fnv)
    with open(os.path.join(path, "io.weight"), "w") as f:
        f.write(weight)


def fnv(path):
    with open(os.path.join(path, "io.fairnvme.weight")) as f:
        return f.read()


def set_weight(path, text):
    with open(os.path.join(path, "io.weight"), "w") as f:
        f.write(text)


def wait_for(cond, timeout):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if cond():
            return time.monotonic() - t0
        time.sleep(0.001)
    return None


class Args:
    def __init__(self, root, rescan=60.0):
        self.root = root
        self.rescan = rescan
        self.verbose = False
        self.once = False


def main():
    plan(10)
    tmp = tempfile.mkdtemp(prefix="weightd.")
    try:
        root = tmp
        a = os.path.join(root, "machine.slice", "vm1")
        b = os.path.join(root, "system.slice", "docker-1.scope")
        mkcg(os.path.dirname(a))
        mkcg(a, "default 300\n259:0 50\n", "default 100\n8:16 700\n")
        mkcg(os.path.dirname(b))
        mkcg(b, "default 250\n")
        n = W.sync_all(Args(root))
        ok(fnv(a) == "default 300\n259:0 50\n" and fnv(b) == "default 250\n",
           "--once: default and per-device lines mirrored, a line io.weight lacks reset "
           "(vm1: %r, docker-1: %r), %d cgroups changed" % (fnv(a), fnv(b), n))
        ok(W.sync_all(Args(root)) == 0, "--once again: nothing to change")
        ok(W.sync(Args(root), os.path.join(root, "gone")) is False,
           "a cgroup that vanished is skipped, no error")

        w = W.Watcher(Args(root, rescan=0.3))
        th = threading.Thread(target=w.run, daemon=True)
        th.start()
        wait_for(lambda: a in w.dirs and b in w.dirs, 2)
        set_weight(a, "default 800\n")
        dt = wait_for(lambda: fnv(a).startswith("default 800\n"), 2)
        ok(dt is not None and dt <= 0.1,
           "io.weight written: io.fairnvme.weight follows within 100 ms (%s)" %
           ("%.1f ms" % (dt * 1000) if dt is not None else "never"))

        c = os.path.join(root, "system.slice", "new.service")
        os.makedirs(c)
        mkcg(c, "default 42\n")
        dt = wait_for(lambda: fnv(c) == "default 42\n", 2)
        ok(dt is not None and dt <= 0.1,
           "a new cgroup is synced (%s)" %
           ("%.1f ms" % (dt * 1000) if dt is not None else "never"))
        set_weight(c, "default 43\n")
        dt = wait_for(lambda: fnv(c) == "default 43\n", 2)
        ok(dt is not None and dt <= 0.1, "... and watched: a change follows")

        shutil.rmtree(c)
        set_weight(b, "default 123\n")
        dt = wait_for(lambda: fnv(b) == "default 123\n", 2)
        ok(dt is not None, "a removed cgroup does not stop the daemon")

        kernel_write(os.path.join(a, "io.fairnvme.weight"), "default 5")
        dt = wait_for(lambda: fnv(a).startswith("default 800\n"), 2)
        ok(dt is not None,
           "io.weight wins: a direct write to io.fairnvme.weight is undone by the rescan (%s)" %
           ("%.0f ms" % (dt * 1000) if dt is not None else "never"))

        # a burst of cgroups: all synced
        for i in range(50):
            mkcg(os.path.join(root, "burst", "c%d" % i), "default %d\n" % (i + 1))
        dt = wait_for(lambda: all(fnv(os.path.join(root, "burst", "c%d" % i)) ==
                                  "default %d\n" % (i + 1) for i in range(50)), 3)
        ok(dt is not None, "50 cgroups made in a burst are all synced")
        ok(th.is_alive(), "the daemon is still running after all of it")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
