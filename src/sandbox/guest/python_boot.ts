/**
 * The Python half of the guest's Python runner, run once in a child after Pyodide has loaded:
 * the `cordon` module (`input`, `ToolError`), connector objects whose tools are awaitable
 * (`await github.list_pull_requests(owner="x")` or with one dict), and `_cordon_run`, which
 * runs a block notebook style (the last expression statement is the result), turns the result
 * into plain JSON, and describes an uncaught exception with the user's own frames only.
 * Everything crosses to JavaScript as JSON text, so no Python object leaks into the host's
 * values.
 *
 * @module
 */

/** The file name user code runs under (its frames are the ones a traceback keeps). */
export const PYTHON_FILE = "main.py";

/** The boot source (Python). `_cordon_host` is the guest's JavaScript module. */
export const PYTHON_BOOT = `
import sys, json, types, traceback, os, io
from pyodide.code import eval_code_async
from pyodide.ffi import run_sync
import _cordon_host

_FILE = ${JSON.stringify(PYTHON_FILE)}
sys.executable = "python"
sys.argv = [_FILE]
# "_" is the host's path of the script that started Pyodide.
os.environ.pop("_", None)

def _no_processes(*args, **kwargs):
    raise PermissionError("Cordon's sandbox starts no processes; ask the host for a tool that does this")

import posix
for _name in ("system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp"):
    for _mod in (os, posix):
        if hasattr(_mod, _name):
            setattr(_mod, _name, _no_processes)

class ToolError(Exception):
    """A connector call that failed: .code is Cordon's error code, .details what it sent."""
    def __init__(self, message, code="tool_error", details=None, _token=None):
        super().__init__(message)
        self.code = code
        self.details = details
        self._token = _token

cordon = types.ModuleType("cordon", "Cordon's run: input, and ToolError for failed tool calls.")
cordon.ToolError = ToolError
cordon.input = None
sys.modules["cordon"] = cordon

def _tool_args(args, kwargs):
    if len(args) > 1:
        raise TypeError("a tool takes one dict of arguments, or keyword arguments")
    if not args:
        return kwargs
    if kwargs:
        if not isinstance(args[0], dict):
            raise TypeError("keyword arguments go with a dict, not with a " + type(args[0]).__name__)
        return {**args[0], **kwargs}
    return args[0]

class _Tool:
    __slots__ = ("_connector", "_tool")
    def __init__(self, connector, tool):
        self._connector = connector
        self._tool = tool
    async def __call__(self, *args, **kwargs):
        a = _tool_args(args, kwargs)
        text = await _cordon_host.call(self._connector, self._tool, json.dumps(a))
        out = json.loads(text)
        if out["ok"]:
            return out.get("value")
        raise ToolError(out["message"], out["code"], out.get("details"), out["token"])
    def __repr__(self):
        return f"<tool {self._connector}.{self._tool}>"

class Connector:
    """A connector: each tool is an attribute; await it with keyword arguments or one dict."""
    def __init__(self, name, tools):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_tools", frozenset(tools))
    def __getattr__(self, tool):
        if tool in self._tools:
            return _Tool(self._name, tool)
        raise AttributeError(f"connector {self._name} has no tool {tool!r}; it has {', '.join(sorted(self._tools))}")
    def __setattr__(self, name, value):
        raise AttributeError("a connector cannot be changed")
    def __dir__(self):
        return sorted(self._tools)
    def __repr__(self):
        return f"<connector {self._name}>"

class _NotPlain(Exception):
    def __init__(self, path, what):
        self.path = path
        self.what = what

def _plain(v, path):
    if v is None or isinstance(v, (bool, str, int)):
        return v
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise _NotPlain(path, "a float that is not finite")
        return v
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise _NotPlain(path, f"a dict key of type {type(k).__name__} (keys must be str)")
            out[k] = _plain(x, f"{path}[{k!r}]")
        return out
    if isinstance(v, (list, tuple)):
        return [_plain(x, f"{path}[{i}]") for i, x in enumerate(v)]
    raise _NotPlain(path, f"a value of type {type(v).__name__}")

_NO_PACKAGES = "Cordon offers Pyodide's bundled modules only (the standard library); packages cannot be installed"

def _describe(e, fname=_FILE):
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == fname]
    line = frames[-1].lineno if frames else None
    column = (frames[-1].colno or 0) + 1 if frames else 1
    if isinstance(e, SyntaxError) and e.filename == fname:
        line = e.lineno
        column = e.offset or 1
    name = type(e).__name__
    text = str(e)
    if isinstance(e, ModuleNotFoundError):
        text = f"No module named {e.name!r}: {_NO_PACKAGES}"
    elif isinstance(e, SyntaxError):
        text = f"{e.msg} (line {e.lineno})"
    tb = "Traceback (most recent call last):\\n" + "".join(traceback.format_list(frames))
    tb += "".join(traceback.format_exception_only(e))
    kind = "tool" if isinstance(e, ToolError) and e._token else "script"
    return {"kind": kind, "token": getattr(e, "_token", None), "name": name,
            "message": f"{name}: {text}" if text else name, "traceback": tb, "line": line, "column": column}

def _flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass

class _Stdin(io.TextIOBase):
    """A program's standard input: lines the host sends, read as they arrive."""
    def readable(self):
        return True
    def _prompted(self):
        # What the program printed without a newline (a prompt) shows before it waits.
        _flush()
        _cordon_host.flush_output()
    def readline(self, size=-1):
        self._prompted()
        line = run_sync(_cordon_host.stdin_readline())
        return line if size is None or size < 0 else line[:size]
    def read(self, size=-1):
        self._prompted()
        return run_sync(_cordon_host.stdin_read(-1 if size is None else size))
    def __iter__(self):
        while True:
            line = self.readline()
            if not line:
                return
            yield line

def _exit_status(e):
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1

def _begin_program(program, cwd, g):
    sys.argv = [program["argv0"], *program["args"]]
    os.environ.clear()
    os.environ.update(program["env"])
    sys.stdin = _Stdin()
    g["__file__"] = program["argv0"]
    if cwd and program["cwd"]:
        here = os.path.join(cwd, program["cwd"])
        os.makedirs(here, exist_ok=True)
        os.chdir(here)
    return program["argv0"] if program["argv0"].endswith(".py") else _FILE

# One namespace for the child's life: a session's later blocks see what earlier ones defined
# (a child outside a session runs one block only).
_globals = {"__name__": "__main__", "__builtins__": __builtins__}

async def _cordon_run(source, input_json, connectors_json, cwd, program_json=""):
    value = json.loads(input_json)
    cordon.input = value
    g = _globals
    g["INPUT"] = value
    for name, tools in json.loads(connectors_json).items():
        g[name] = Connector(name, tools)
    fname = _FILE
    program = json.loads(program_json) if program_json else None
    try:
        if cwd:
            os.chdir(cwd)
        if program:
            fname = _begin_program(program, cwd, g)
        result = await eval_code_async(source, g, filename=fname)
    except SystemExit as e:
        _flush()
        if not program:
            return json.dumps({"ok": False, **_describe(e, fname)})
        return json.dumps({"ok": True, "value": _exit_status(e)})
    except BaseException as e:
        _flush()
        return json.dumps({"ok": False, **_describe(e, fname)})
    _flush()
    if program:
        return json.dumps({"ok": True, "value": 0})
    try:
        return json.dumps({"ok": True, "value": _plain(result, "result")}, allow_nan=False)
    except _NotPlain as e:
        return json.dumps({"ok": False, "kind": "result", "path": e.path, "what": e.what})
    except RecursionError:
        return json.dumps({"ok": False, "kind": "result", "path": "result", "what": "a value nested too deep (or a cycle)"})
`;
