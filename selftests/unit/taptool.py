# SPDX-License-Identifier: GPL-2.0
"""TAP output and tool loading for the Python unit tests of tools/.

plan(n), ok(cond, desc), diag(msg) print kselftest's TAP; failed() says
whether a point failed (the test's exit status); load(name) imports
tools/NAME, a script without .py, as a module.
"""

import importlib.machinery
import importlib.util
import os
import sys

sys.dont_write_bytecode = True
TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "tools")
_n = 0
_fail = 0


def plan(n):
    print("TAP version 13")
    print("1..%d" % n)


def ok(cond, desc):
    global _n, _fail
    _n += 1
    if cond:
        print("ok %d - %s" % (_n, desc))
    else:
        _fail += 1
        print("not ok %d - %s" % (_n, desc))


def diag(msg):
    for line in str(msg).splitlines():
        print("# " + line)


def failed():
    return _fail > 0


def tool_path(name):
    return os.path.join(TOOLS, name)


def load(name):
    modname = name.replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(modname, tool_path(name))
    spec = importlib.util.spec_from_loader(modname, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
