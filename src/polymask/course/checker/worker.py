"""The process that runs a learner's code: ``python -I worker.py REPLY_FD ARENA_FD``.

It knows nothing about right and wrong, and nothing it says is believed.
The checker drives it one request at a time through stdin (one JSON line
per request) and reads one JSON line back per request on REPLY_FD.  The
polygons arrive, and the learner's raw masks go back, through ARENA_FD, a
shared memory file the checker made: the checker copies each answer out
the moment the reply arrives, computes the reference only then, and
compares in its own process.  So this file only has to be convenient for
an honest learner; a dishonest one may rewrite every function in it and
gain nothing but a wrong answer or a protocol violation.

This file is run as a script, not imported as ``polymask.course.checker.worker``,
so polymask's compiled modules are never loaded here.  Before the
learner's code runs, a PEP 578 audit hook refuses to start a process or
to load polymask (its modules, its compiled libraries, by name or by
path): the hook reports the refusal on the reply channel and ends the
process, so catching the exception does not help.  Audit hooks cannot be
removed from Python; native code can still do what any process may do,
which is why the checker trusts none of this.

Stdin is also the lifeline: at end of file (the checker finished, was
interrupted or died) this process exits.
"""
import importlib.machinery
import importlib.util
import inspect
import json
import mmap
import os
import sys
import traceback
from typing import Any

import numpy as np

_THIS_FILE = os.path.abspath(__file__)
# polymask's installed package folder (this file is polymask/course/checker/worker.py).
_PACKAGE_DIR = os.path.realpath(os.path.dirname(os.path.dirname(os.path.dirname(_THIS_FILE))))
_CHECKER_DIR = os.path.realpath(os.path.dirname(_THIS_FILE))
# Bound now: learner code that swaps os.write or os._exit cannot blunt the audit hook.
_write, _exit, _realpath = os.write, os._exit, os.path.realpath
# Changes to files by name: refused when either name is one of polymask's files.
_FILE_EVENTS = frozenset({"os.link", "os.rename", "os.symlink", "os.remove", "os.rmdir", "os.truncate", "os.chmod",
                          "os.chown", "os.utime", "shutil.copyfile", "shutil.move", "shutil.rmtree"})
_PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                             "os.fork", "os.forkpty", "pty.spawn"})
REFUSED_EXIT = 86


def _polymask_file(name) -> str | None:
    """`name` relative to polymask's package when it is polymask's own code (not this checker), else None."""
    if not isinstance(name, (str, bytes, os.PathLike)):
        return None
    text = os.fsdecode(name)
    if "polymask" not in text.lower():
        return None
    path = _realpath(text)
    if os.path.basename(path).lower().startswith("libpolymask"):
        return os.path.basename(path)
    if path.startswith(_PACKAGE_DIR + os.sep) and not path.startswith(_CHECKER_DIR + os.sep):
        return os.path.relpath(path, os.path.dirname(_PACKAGE_DIR))
    return None


def install_guard(reply_fd: int) -> None:
    """Refuse processes and polymask's own code from here on (see the module docstring)."""

    def refuse(what: str) -> None:
        line = json.dumps({"refused": what}) + "\n"
        try:
            _write(reply_fd, line.encode())
        finally:
            _exit(REFUSED_EXIT)

    def hook(event, args):
        if event in _PROCESS_EVENTS:
            refuse(f"started a process ({event})")
        elif event == "import":
            module, filename = args[0], args[1]
            if module == "polymask" or str(module).startswith("polymask."):
                refuse(f"used polymask's own code (module {module})")
            elif _polymask_file(filename):
                refuse(f"used polymask's own code ({_polymask_file(filename)}, as module {module})")
        elif event in ("open", "ctypes.dlopen") and args and _polymask_file(args[0]):
            refuse(f"used polymask's own code ({_polymask_file(args[0])})")
        elif event in _FILE_EVENTS and any(_polymask_file(name) for name in args[:2]):
            named = next(_polymask_file(name) for name in args[:2] if _polymask_file(name))
            refuse(f"changed polymask's own files ({event} of {named})")
        elif event == "exec" and args and _polymask_file(getattr(args[0], "co_filename", None)):
            refuse(f"used polymask's own code ({_polymask_file(args[0].co_filename)})")

    sys.addaudithook(hook)


def describe_exception(error: BaseException) -> str:
    """The exception and the innermost frames outside this file, so the learner sees their line."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if os.path.abspath(frame.filename) != _THIS_FILE][-3:]
    where = "".join(traceback.format_list(frames))
    return f"{type(error).__name__}: {error}\n{where}".rstrip()


# ---- loading --------------------------------------------------------------------------------


def bind_census(library: str):
    """polymask::polygon_census() of the core library at `library`, as a function returning 3 ints.

    Called before the guard and before the learner's module loads: the module's
    own link to the core then finds this very copy already loaded (the loader
    matches it by soname), so the counts are those of the polygons it makes.
    """
    import ctypes

    class Census(ctypes.Structure):
        _fields_ = [("polygons", ctypes.c_int64), ("vertices", ctypes.c_int64), ("bytes", ctypes.c_int64)]

    # The Itanium C++ ABI's name of polymask::polygon_census() (GCC and Clang on Linux).
    census = ctypes.CDLL(library)._ZN8polymask14polygon_censusEv
    census.restype, census.argtypes = Census, []

    def read() -> tuple:
        counts = census()
        return counts.polygons, counts.vertices, counts.bytes
    return read


def load_module(path: str, name: str):
    """The learner's module, by the loader its file kind needs (a suffix-less symlink is fine)."""
    path = os.fspath(path)
    loader: importlib.machinery.SourceFileLoader | importlib.machinery.ExtensionFileLoader
    if path.endswith(".py"):
        loader = importlib.machinery.SourceFileLoader(name, path)
    else:
        loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    assert spec is not None and spec.loader is not None  # given a loader, a spec always has it
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def wrong_entry_points(module, entry_points) -> list:
    """The entry points the exercise needs that `module` lacks or spells differently."""
    problems = []
    for entry in entry_points:
        qualified, _, params = entry.partition("(")
        wanted = [p.strip() for p in params.rstrip(")").split(",") if p.strip()]
        target = module
        for part in qualified.split("."):
            target = getattr(target, part, None)
        if not callable(target):
            problems.append(f"no {'method' if '.' in qualified else 'function'} {entry}")
            continue
        try:
            names = list(inspect.signature(target).parameters)
        except (TypeError, ValueError):  # a signature Python cannot read: trust the name
            continue
        if names[:len(wanted)] != wanted:
            problems.append(f"{qualified}({', '.join(names)}) where {entry} is expected")
    return problems


def output_problem(got, shape):
    """Why `got` is not a mask of `shape`, or None when it is one."""
    if not isinstance(got, np.ndarray):
        return (f"mask() returned {type(got).__name__} {got!r:.60}; "
                f"expected a NumPy array of shape {shape} and dtype bool")
    if got.shape != tuple(shape):
        return (f"mask() returned an array of shape {got.shape}; expected shape {tuple(shape)} "
                "(rows, cols): rows come from y, columns from x")
    if got.dtype != np.bool_:
        return (f"mask() returned dtype {got.dtype}; expected dtype bool "
                "(a uint8 buffer of 0s and 1s can be returned as result.view(bool))")
    return None


# ---- the request loop ---------------------------------------------------------------------------


class Worker:
    """One learner module (or, for the comparison row, one of polymask's stages) behind requests."""

    def __init__(self, reply_fd: int, arena_fd: int):
        self.reply_fd = reply_fd
        self.arena = mmap.mmap(arena_fd, 0)
        # Set by do_load: the learner's module and its mask function (or a stage's).
        self.module: Any = None
        self.mask: Any = None
        self.census: Any = None  # exercise 05: reads the core's live polygons (bind_census)
        self.calls: Any = None  # 04, 05: the counter of Polygon::contains calls; 03: of point_inside calls

    def reply(self, message: dict) -> None:
        data = (json.dumps(message) + "\n").encode()
        while data:
            data = data[os.write(self.reply_fd, data):]

    def vertices(self, item) -> np.ndarray:
        count = int(item["n_vertices"])
        flat = np.frombuffer(self.arena, dtype=np.float64, count=2 * count, offset=int(item["at"]))
        return flat.reshape(count, 2).copy()

    def put(self, item, values: np.ndarray) -> None:
        flat = np.ascontiguousarray(values).view(np.uint8).reshape(-1)
        self.arena[int(item["out"]):int(item["out"]) + flat.size] = flat.tobytes()

    # Each handler returns the reply of its request.

    def do_load(self, request) -> dict:
        kind = request["kind"]
        try:
            if request.get("stage"):  # the checker's comparison row: polymask's own stage, no guard
                from polymask.course import stages

                self.mask = stages.get(request["stage"]).load()
                return {"ok": True}
            if kind == "cl":
                from polymask.course.checker.opencl_host import opencl_mask_function

                self.mask = opencl_mask_function(request["module_path"])
                return {"ok": True}
            if request.get("census"):
                self.census = bind_census(request["census"])
            if request.get("count_calls"):
                import ctypes

                # Exported by the counting library the checker preloads (see checker/counting.py).
                self.calls = ctypes.c_longlong.in_dll(ctypes.CDLL(None), "polymask_checker_contains_calls")
            import ctypes

            # Bound before the learner's code runs, and used once it has loaded (opening the module earlier
            # would run its static initialisers before the guard).
            open_library, counter_type = ctypes.CDLL, ctypes.c_longlong
            install_guard(self.reply_fd)
            self.module = load_module(request["module_path"], request["module_name"])
            if request.get("count_symbol"):  # 03's watched build exports its counter of point_inside calls (probe.py)
                self.calls = counter_type.in_dll(open_library(request["module_path"]), request["count_symbol"])
            if not callable(getattr(self.module, "mask", None)):
                raise LookupError(f"{request['path']} defines no function mask(vertices, shape); the "
                                  "exercise's README says what it must define")
            problems = wrong_entry_points(self.module, request["entry_points"])
            if problems:
                return {"entry_points": problems}
            self.mask = self.module.mask
        except Exception as error:  # noqa: BLE001 -- any failure to load is the learner's to read
            return {"load_error": describe_exception(error)}
        return {"ok": True}

    def _each(self, request, compute) -> dict:
        results: list[dict[str, Any] | None] = []
        for item in request["items"]:
            try:
                with np.errstate(all="ignore"):  # far-out vertices overflow on purpose
                    got = compute(item)
                if got is not None:
                    problem = output_problem(got, tuple(item["shape"]))
                    if problem:
                        results.append({"kind": "output", "message": problem})
                        continue
                    self.put(item, got)
                results.append(None)
            except Exception as error:  # noqa: BLE001 -- the learner's exception, named with its case
                results.append({"kind": "raised", "message": describe_exception(error)})
        return {"results": results}

    def do_masks(self, request) -> dict:
        options = request.get("options") or {}
        return self._each(request, lambda item: self.mask(self.vertices(item), tuple(item["shape"]), **options))

    def do_counted_masks(self, request) -> dict:
        """Each item's mask, and how many counted calls it made (04, 05: the core's contains(); 03: point_inside)."""
        calls: list = []

        def counted(item):
            before = self.calls.value if self.calls is not None else None
            calls.append(None)  # stays None when the learner's code raises
            got = self.mask(self.vertices(item), tuple(item["shape"]))
            if before is not None:
                calls[-1] = self.calls.value - before
            return got
        reply = self._each(request, counted)
        reply["calls"] = calls
        return reply

    def do_polygon_masks(self, request) -> dict:
        """Exercise 05: build a Polygon, ask it for a mask, drop it -- once per item.

        With the census bound, each item also reports the core's live polygons,
        vertices and heap bytes made by building the Polygon and still alive after
        dropping it, for the checker to judge.
        """
        census = []

        def build_and_ask(item):
            vertices = self.vertices(item)
            census.append(None)  # stays None when the learner's code raises
            before = self.census() if self.census else None
            polygon = self.module.Polygon(vertices)
            built = self.census() if self.census else None
            got = polygon.mask(tuple(item["shape"]))
            del polygon
            if self.census:
                after = self.census()
                census[-1] = [b - a for a, b in zip(before, built)] + [c - a for a, c in zip(before, after)]
            return got
        reply = self._each(request, build_and_ask)
        if self.census:
            reply["census"] = census
        return reply

    def do_point_inside(self, request) -> dict:
        """Exercises 01 and 02: point_inside(polygon, px, py) at the pixels the checker chose."""

        def ask(item):
            polygon = tuple((float(x), float(y)) for x, y in self.vertices(item).tolist())
            answers = [bool(self.module.point_inside(polygon, float(px), float(py))) for px, py in item["points"]]
            self.put(item, np.array(answers, dtype=np.bool_))
            return None
        return self._each(request, ask)

    def do_counts(self, request) -> dict:
        """Exercise 06c: count_inside(vertices, shape, **options), an int, sent back as 8 bytes."""
        options = request.get("options") or {}

        def count(item):
            got = self.module.count_inside(self.vertices(item), tuple(item["shape"]), **options)
            if type(got) is not int:
                raise TypeError(f"count_inside returned {type(got).__name__} {got!r:.60}; expected an int")
            self.put(item, np.array([got], dtype=np.int64))
            return None
        return self._each(request, count)


def main(argv) -> int:
    reply_fd, arena_fd = int(argv[0]), int(argv[1])
    worker = Worker(reply_fd, arena_fd)
    for line in sys.stdin.buffer:  # EOF: the checker is done (or gone)
        request = json.loads(line)
        op = request["op"]
        if op == "exit":
            break
        try:
            message = getattr(worker, f"do_{op}")(request)
        except BaseException as error:  # noqa: BLE001 -- a failure outside the learner's calls
            message = {"raised": describe_exception(error)}
        worker.reply(message)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
