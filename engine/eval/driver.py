# The Python side of aw eval: one long-lived interpreter whose globals
# survive between cells. It speaks JSON lines with the broker over its own
# stdin and stdout (the protocol); the cell's prints are captured and sent
# as stream frames, and what processes write to the real stdout goes to
# stderr, so nothing a cell does can forge a frame.
import ast
import base64
import io
import json
import os
import queue
import re
import shlex
import signal
import sys
import threading
import traceback

_proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
_proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
os.dup2(2, 1)
sys.stdin = open(os.devnull)
_lock = threading.Lock()
_runs = queue.Queue()
_results = {}
_result_ready = threading.Condition()
_main = threading.main_thread().ident
_interrupt_ok = threading.Event()


def _send(frame):
    with _lock:
        _proto_out.write(json.dumps(frame) + "\n")
        _proto_out.flush()


def _reader():
    for line in _proto_in:
        try:
            frame = json.loads(line)
        except ValueError:
            continue
        kind = frame.get("type")
        if kind == "run":
            _runs.put(frame)
        elif kind == "tool_result":
            with _result_ready:
                _results[frame["id"]] = frame
                _result_ready.notify_all()
        elif kind == "interrupt":
            if _interrupt_ok.is_set():
                signal.pthread_kill(_main, signal.SIGINT)
    os._exit(0)


class _Stream(io.TextIOBase):
    def __init__(self, name):
        self.name = name

    def writable(self):
        return True

    def write(self, s):
        if s:
            _send({"type": "stream", "name": self.name, "text": s})
        return len(s)


class ToolError(Exception):
    """A bridged aw call that failed: code and message from its envelope."""

    def __init__(self, code, message, envelope):
        super().__init__("%s: %s" % (code, message))
        self.code, self.envelope = code, envelope


_next_tool = [0]


def tool(name, args=None):
    """Call one of the workspace's aw tools (the same jail, gate, approvals
    and tier as any call): tool("read", {"path": "README.md"}). Returns the
    envelope's data; a failed call raises ToolError."""
    _next_tool[0] += 1
    tid = _next_tool[0]
    _send({"type": "tool", "id": tid, "name": name, "args": args or {}})
    with _result_ready:
        while tid not in _results:
            _result_ready.wait()
        frame = _results.pop(tid)
    env = frame.get("envelope") or {}
    if not env.get("ok"):
        err = env.get("error") or {}
        raise ToolError(err.get("code", "INTERNAL"), err.get("message", "the call failed"), env)
    return env.get("data")


def _shell(line):
    data = tool("command.run", {"line": line})
    if isinstance(data, dict):
        if data.get("status") == "pending_approval":
            print("(staged for approval: %s)" % data.get("approval", {}).get("id", ""))
            return data
        if data.get("stdoutTail"):
            sys.stdout.write(data["stdoutTail"])
        if data.get("stderrTail"):
            sys.stderr.write(data["stderrTail"])
    return None


def _timeit(code, env):
    import timeit

    t = timeit.Timer(code, globals=env)
    n, _ = t.autorange()
    best = min(t.repeat(repeat=5, number=n)) / n
    for unit, scale in (("s", 1), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)):
        if best * scale >= 1 or unit == "ns":
            break
    print("%.3g %s per loop (best of 5, %d loops each)" % (best * scale, unit, n))


def _pip(args):
    _shell("python3 -m pip " + args)
    # The next import sees what was just installed.
    import importlib

    importlib.invalidate_caches()
    for name in [a for a in shlex.split(args)[1:] if not a.startswith("-")]:
        base = re.split(r"[<>=!\[]", name)[0].replace("-", "_")
        for mod in list(sys.modules):
            if mod == base or mod.startswith(base + "."):
                del sys.modules[mod]


_magic = re.compile(r"^(\s*)(!|%)(.*)$")


def _rewrite(code):
    """The IPython idioms people type, as plain Python."""
    lines = code.split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        name, _, rest = first[2:].partition(" ")
        body = "\n".join(lines[1:])
        if name in ("bash", "sh", "script"):
            return "\n".join("_aw_shell(%r)" % l for l in body.split("\n") if l.strip())
        if name == "timeit":
            return "_aw_timeit(%r, globals())" % body
        if name == "capture":
            return body
        raise SyntaxError("aw eval does not know the cell magic %%%%%s (it knows %%%%bash, %%%%timeit)" % name)
    out = []
    for l in lines:
        m = _magic.match(l)
        if not m:
            out.append(l)
            continue
        indent, kind, rest = m.groups()
        if kind == "!":
            out.append("%s_aw_shell(%r)" % (indent, rest.strip()))
            continue
        name, _, arg = rest.partition(" ")
        arg = arg.strip()
        if name == "cd":
            out.append("%s__import__('os').chdir(%r)" % (indent, os.path.expanduser(arg) if arg else "."))
        elif name == "pip":
            out.append("%s_aw_pip(%r)" % (indent, arg))
        elif name == "timeit":
            out.append("%s_aw_timeit(%r, globals())" % (indent, arg))
        elif name in ("matplotlib", "load_ext", "autoreload", "config"):
            out.append(indent + "pass")
        else:
            out.append(l)  # the % operator, or a syntax error Python names
    return "\n".join(out)


def _display_value(value):
    """A notebook's rendering: a table for a pandas frame, repr otherwise."""
    to_string = getattr(value, "to_string", None)
    if type(value).__name__ in ("DataFrame", "Series") and callable(to_string):
        return {"mime": "text/plain", "data": to_string(max_rows=60, max_cols=20), "table": True}
    return {"mime": "text/plain", "data": repr(value)}


def display(*values):
    for v in values:
        _send(dict({"type": "display"}, **_display_value(v)))


def _figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    for num in plt.get_fignums():
        fig = plt.figure(num)
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        _send({"type": "display", "mime": "image/png", "data": base64.b64encode(buf.getvalue()).decode()})
    plt.close("all")


_env = {"__name__": "__main__", "__builtins__": __builtins__, "tool": tool, "display": display, "ToolError": ToolError,
        "_aw_shell": _shell, "_aw_timeit": _timeit, "_aw_pip": _pip}


def _run(code):
    result = None
    tree = ast.parse(_rewrite(code), "<cell>", "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<cell>", "exec"), _env)
    if last is not None:
        value = eval(compile(last, "<cell>", "eval"), _env)
        if value is not None:
            _env["_"] = value
            result = _display_value(value)
    _figures()
    return result


def _clean_traceback(e):
    tb = traceback.TracebackException.from_exception(e)
    # Only the cell's own frames: the driver's are not the user's code.
    tb.stack = traceback.StackSummary.from_list([f for f in tb.stack if f.filename == "<cell>"])
    return "".join(tb.format())


def main():
    threading.Thread(target=_reader, daemon=True).start()
    sys.stdout, sys.stderr = _Stream("stdout"), _Stream("stderr")
    _send({"type": "ready", "version": sys.version.split()[0]})
    while True:
        frame = _runs.get()
        done = {"type": "done", "id": frame.get("id")}
        try:
            _interrupt_ok.set()
            try:
                done["result"] = _run(frame["code"])
            finally:
                _interrupt_ok.clear()
            done["ok"] = True
        except KeyboardInterrupt as e:
            done["ok"], done["error"] = False, {"ename": "KeyboardInterrupt", "evalue": "interrupted", "traceback": _clean_traceback(e)}
        except BaseException as e:  # SystemExit too: the interpreter lives on
            done["ok"], done["error"] = False, {"ename": type(e).__name__, "evalue": str(e), "traceback": _clean_traceback(e)}
        sys.stdout.flush()
        _send(done)


main()
