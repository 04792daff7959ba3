"""One compiled copy of the C++ core per process, and so one thread pool.

The core is one shared library, ``polymask/lib/libpolymask_core.so``, which
every extension module that calls it links (``_core``, ``_coco``,
``_coverage_sweep`` and the stages that wrap it).  Linked statically, each
module carried a copy of its own, with its own pool, thread cap and interrupt
hook, and a pipeline calling several of them from many Python threads ran
several times the cap.

* The installed files: one core library; every module that needs the core
  lists it as a dynamic dependency and defines none of the core's functions
  itself (read from the modules' ELF symbol tables, no tool needed).
* At run time: one mapping of the library after every module is imported,
  and eight Python threads calling every module's fills at once never run
  more pool threads than the cap, counted in ``/proc/self/task``.
"""
from __future__ import annotations

import importlib
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import polymask

PACKAGE_DIR = Path(polymask.__file__).resolve().parent
#: The modules that call the core (the other stages are plain Cython on purpose).
CORE_CLIENTS = ["polymask._core", "polymask._coco", "polymask._coverage_sweep", "polymask._line_cells",
                "polymask._points", "polymask._polygons", "polymask.course.stages.cython_cpp",
                "polymask.course.stages.cython_class", "polymask.course.stages.cython_prange"]

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads ELF files and /proc")


def elf_dynamic_symbols(path: Path) -> tuple[set[str], set[str], list[str]]:
    """(defined, undefined) dynamic symbol names of a 64-bit little-endian ELF file, and its DT_NEEDED list."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, f"{path} is not a 64-bit little-endian ELF file"
    section_offset, = struct.unpack_from("<Q", data, 0x28)
    entry_size, count, _ = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, section_offset + k * entry_size) for k in range(count)]
    # (name, type, flags, addr, offset, size, link, info, align, entsize)
    by_type = {}
    for section in sections:
        by_type.setdefault(section[1], []).append(section)
    dynsym = by_type[11][0]  # SHT_DYNSYM
    strings = sections[dynsym[6]]

    def text(offset: int) -> str:
        start = strings[4] + offset
        return data[start:data.index(b"\0", start)].decode()

    defined, undefined = set(), set()
    for k in range(dynsym[5] // 24):
        name, _info, _other, section_index, _value, _size = struct.unpack_from("<IBBHQQ", data, dynsym[4] + 24 * k)
        if name:
            (defined if section_index != 0 else undefined).add(text(name))
    needed = []
    for dynamic in by_type.get(6, []):  # SHT_DYNAMIC
        for k in range(dynamic[5] // 16):
            tag, value = struct.unpack_from("<qQ", data, dynamic[4] + 16 * k)
            if tag == 1:  # DT_NEEDED
                needed.append(text(value))
    return defined, undefined, needed


def _module_file(name: str) -> Path:
    return Path(importlib.import_module(name).__file__)


@linux_only
def test_the_package_holds_one_core_library():
    copies = sorted(p.relative_to(PACKAGE_DIR) for p in PACKAGE_DIR.rglob("*polymask_core*"))
    assert copies == [Path("lib/libpolymask_core.so")]
    assert polymask.get_library_dirs() == [str(PACKAGE_DIR / "lib")]


@linux_only
@pytest.mark.parametrize("name", CORE_CLIENTS)
def test_each_module_links_the_shared_core_and_carries_no_copy(name):
    defined, undefined, needed = elf_dynamic_symbols(_module_file(name))
    assert "libpolymask_core.so" in needed, needed
    # The library exports the core's public API (hidden visibility: only what
    # the public headers mark POLYMASK_API), never its internals such as the
    # pool's entry point, so a module can only reach the pool through it.
    core_defined, _, _ = elf_dynamic_symbols(PACKAGE_DIR / "lib" / "libpolymask_core.so")
    assert {symbol for symbol in core_defined if "set_interrupt_check" in symbol}, "the core exports no API"
    internal = {symbol for symbol in core_defined if symbol.startswith("_ZN8polymask6detail")}
    assert not internal, sorted(internal)[:5]
    # No function of the polymask namespace is defined in the module (a copy
    # of the core would define hundreds); it only refers to the library's.
    own = {symbol for symbol in defined if symbol.startswith("_ZN8polymask")}
    assert not own, sorted(own)[:5]
    assert {symbol for symbol in undefined if symbol.startswith("_ZN8polymask")}


def test_learner_builds_link_the_same_library():
    from polymask.course.build import compile_flags

    _, link_args = compile_flags(link_core=True)
    assert f"-Wl,-rpath,{PACKAGE_DIR / 'lib'}" in link_args


# Run in a fresh interpreter: the pool's threads live as long as the process,
# so the count must start from a process that has started none.
_COUNT_THREADS = textwrap.dedent("""
    import os, threading, time
    import numpy as np
    import polymask
    import polymask._core
    from polymask import coco
    from polymask.course import stages

    # Helpers planned by the work alone: on a loaded machine the pool would
    # otherwise find no free core and thread no call, and the count says nothing.
    polymask._core._reset_pool_learning(adaptive=False)

    def tasks():
        return len(os.listdir("/proc/self/task"))

    cap = polymask.build_info()["thread_cap"]
    star = np.array([[200 + 180 * np.cos(t) * (0.5 + 0.5 * (k % 2)), 200 + 180 * np.sin(t) * (0.5 + 0.5 * (k % 2))]
                     for k, t in enumerate(np.linspace(0, 2 * np.pi, 400, endpoint=False))])
    squares = [np.array([[x, y], [x + 30, y], [x + 30, y + 30], [x, y + 30]], float)
               for x in range(0, 2000, 40) for y in range(0, 2000, 40)]
    calls = [
        lambda: polymask.mask(star, (3000, 3000), threads=cap),
        lambda: polymask.mask(star, (3000, 3000), threads=cap, all_touched=True),
        lambda: polymask.coverage(star, (1500, 1500), threads=cap),
        lambda: polymask.rasterize(squares, (2000, 2000), threads=cap),
        lambda: polymask.masks(squares[:64], (600, 600), threads=cap),
        lambda: coco.encode(squares, 2000, 2000, threads=cap),
    ]
    for call in calls:
        call()  # every module loaded (and warm) before the count starts
    python_threads = 8
    start = threading.Barrier(python_threads + 1)
    stop = threading.Event()

    def loop(k):
        start.wait()
        while not stop.is_set():
            calls[k % len(calls)]()

    workers = [threading.Thread(target=loop, args=(k,)) for k in range(python_threads)]
    for worker in workers:
        worker.start()
    start.wait()
    peak = 0
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        peak = max(peak, tasks())
        time.sleep(0.002)
    stop.set()
    for worker in workers:
        worker.join()
    maps = open("/proc/self/maps").read()
    libraries = sorted({line.split()[-1] for line in maps.splitlines() if "polymask_core" in line})
    statistics = polymask._core.pool_statistics()
    assert statistics["threaded_calls"] > 0 and statistics["unpaid_calls"] <= statistics["threaded_calls"], statistics
    assert 0 <= statistics["penalty"] <= 6 and statistics["longest_wait_ms"] >= 0, statistics
    print(peak, python_threads, cap, libraries)
""")


@linux_only
def test_every_module_shares_one_pool_and_its_cap():
    completed = subprocess.run([sys.executable, "-c", _COUNT_THREADS], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    peak_text, python_text, cap_text, libraries = completed.stdout.split(" ", 3)
    peak, python_threads, cap = int(peak_text), int(python_text), int(cap_text)
    assert libraries.strip() == repr([str(PACKAGE_DIR / "lib" / "libpolymask_core.so")])
    # The main thread, the eight callers, and at most `cap` pool threads.  Other
    # libraries' threads (NumPy's BLAS pool) are counted in the slack below:
    # a pool per module would reach several times the cap.
    baseline = subprocess.run([sys.executable, "-c", "import os, numpy, polymask; from polymask import coco; "
                               "from polymask.course import stages; print(len(os.listdir('/proc/self/task')))"],
                              capture_output=True, text=True, timeout=120)
    idle = int(baseline.stdout)
    assert peak <= idle + python_threads + cap, (peak, idle, python_threads, cap)
