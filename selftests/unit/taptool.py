# SPDX-License-Identifier: GPL-2.0
"""TAP output and tool loading for the Python unit tests of tools/.

plan(n), ok(cond, desc), skip(reason, desc), diag(msg) print kselftest's
TAP, as tap.h does for the C tests: plan(n) first, the number of points
declared up front, then the points as they run. done() prints the totals
and returns the test's exit status: 1 if a point failed or the points run
do not match the plan ("# Planned N tests but ran M"). failed() says
whether a point failed so far. load(name) imports tools/NAME, a script
without .py, as a module.
"""

import importlib.machinery
import importlib.util
import os
import sys

sys.dont_write_bytecode = True
TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "tools")
_planned = None
_n = 0
_fail = 0
_skip = 0


def _bail(why):
    print("Bail out! %s" % why, flush=True)
    sys.exit(1)


def plan(n):
    global _planned
    if _planned is not None or _n:
        _bail("plan() after the plan or a point")
    _planned = n
    print("TAP version 13")
    print("1..%d" % n, flush=True)


def _point():
    global _n
    if _planned is None:
        _bail("a test point before plan()")
    _n += 1


def ok(cond, desc):
    global _fail
    _point()
    if cond:
        print("ok %d - %s" % (_n, desc), flush=True)
    else:
        _fail += 1
        print("not ok %d - %s" % (_n, desc), flush=True)


def skip(reason, desc):
    """A point that could not run: a missing prerequisite, not a failure."""
    global _skip
    _point()
    _skip += 1
    print("ok %d - %s # SKIP %s" % (_n, desc, reason), flush=True)


def diag(msg):
    for line in str(msg).splitlines():
        print("# " + line)


def failed():
    return _fail > 0


def done():
    if _planned is None:
        _bail("done() without plan()")
    kept = _planned == _n
    if not kept:
        print("# Planned %d tests but ran %d" % (_planned, _n))
    print("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:%d"
          % (_n - _fail - _skip, _fail, _skip, 0 if kept else 1), flush=True)
    return 1 if _fail or not kept else 0


def tool_path(name):
    return os.path.join(TOOLS, name)


def load(name):
    modname = name.replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(modname, tool_path(name))
    spec = importlib.util.spec_from_loader(modname, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
