"""The sandbox the learner's build and run happen in, enforced by the operating system.

Two maintained kernel features, each used when it works here:

* **Namespaces, through util-linux's** ``unshare(1)``: a network namespace
  with no interface up (no network), a PID namespace (the learner sees
  none of the machine's processes, and when the worker -- the namespace's
  first process -- ends, the kernel kills everything it started), an IPC
  namespace, and a mount namespace where it works, in which confine.py hides
  polymask's files from the worker but what the exercise hands out.  As root
  that needs nothing more; as an ordinary user a user namespace
  (``--map-root-user``) comes first.  ``--kill-child`` kills the worker
  when ``unshare`` dies.
* **Landlock** (Linux 5.13+, unprivileged): the whole file system can be
  read -- the installed polymask and the checkout included -- and only one
  private folder written; no TCP (ABI 4+); no signals out of the sandbox
  (ABI 6+).  Applied by :mod:`~polymask.course.checker.confine` before the
  worker's Python starts.

Both are probed once per process (``unshare ... true``; Landlock's ABI
version).  Every sandboxed command also gets ``PR_SET_PDEATHSIG``: it dies
with the checker.  Where neither feature works, :func:`current` says so, the
verdict's header says so, and the worker's own guards (an audit hook,
a child subreaper) are all that stands.
"""
from __future__ import annotations

import ctypes
import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

CONFINE_FILE = Path(__file__).with_name("confine.py")
_NAMESPACE_FLAGS = ("--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child")
#: A mount namespace of the worker's own, where polymask's files are hidden (used when it works here).
_MOUNT_FLAG = "--mount"


@dataclass(frozen=True)
class Sandbox:
    """What confines the learner here: unshare's arguments (empty: none) and Landlock's ABI (0: none)."""

    unshare: tuple = ()
    landlock_abi: int = 0

    @property
    def enforced(self) -> bool:
        return bool(self.unshare or self.landlock_abi)

    def describe(self, hide: bool = True) -> str:
        """The verdict header's line (`hide`: whether this check hides polymask's files from the worker)."""
        if not self.enforced:
            return ("NOT sandboxed: neither Landlock nor unshare(1) namespaces work on this machine, so your code "
                    "ran with the checker's own rights, behind the checker's guards only")
        parts = []
        if self.landlock_abi:
            parts.append(f"Landlock ABI {self.landlock_abi} (read-only file system but one private folder, "
                         "no capabilities"
                         + (", no TCP" if self.landlock_abi >= 4 else "")
                         + (", no signals out" if self.landlock_abi >= 6 else "") + ")")
        if self.unshare:
            parts.append("unshare namespaces (no network, own PID, IPC and host-name namespaces"
                         + (", own mount namespace" if self.hides else "")
                         + (", as an unprivileged user" if "--user" in self.unshare else "") + ")")
        hidden = ("polymask's own files hidden but what the exercise hands out" if self.hides and hide else
                  "polymask's files visible (the exercise's host code is polymask's own)" if self.hides else
                  "polymask's own files NOT hidden (no mount namespace here; only the checker's guards refuse them)")
        return "sandboxed: " + " + ".join(parts) + f"; {hidden}; killed with the checker"

    @property
    def hides(self) -> bool:
        """Whether the worker gets a mount namespace in which polymask's files can be hidden."""
        return _MOUNT_FLAG in self.unshare

    def command(self, argv: list, writable: Path, hide: tuple = (), show: tuple = ()) -> list:
        """`argv` run confined: dies with the checker, in the namespaces, under Landlock.

        With a mount namespace, the folders in `hide` are empty for `argv` but for
        the paths in `show` (see confine.py); without one, they stay as they are.
        """
        confine = [sys.executable, "-I", "-S", str(CONFINE_FILE), "--parent-death"]
        hiding: list = []
        if self.hides:
            hiding = [item for folder in hide for item in ("--hide", str(folder))]
            hiding += [item for path in show for item in ("--show", str(path))]
        inner = list(argv)
        if self.landlock_abi:
            inner = confine + hiding + ["--landlock", str(self.landlock_abi), "--write", str(writable),
                                        "--no-capabilities", "--"] + inner
        if self.unshare:
            unshare = shutil.which("unshare") or "unshare"
            inner = [unshare, *self.unshare] + (inner if self.landlock_abi else confine + hiding + ["--"] + inner)
        return confine + ["--"] + inner

    def confine(self, command: list, writable: Path) -> tuple[list, dict | None]:
        """(command, environment) that run `command` confined (unchanged, None: no sandbox here)."""
        if not self.enforced:
            return command, None
        return self.command(command, writable), self.environment(dict(os.environ), writable)

    def environment(self, base: dict, writable: Path) -> dict:
        """`base` with home, caches and temporary files inside the writable folder."""
        return dict(base, HOME=str(writable), TMPDIR=str(writable), XDG_CACHE_HOME=str(writable / "cache"),
                    POLYMASK_BUILD_CACHE=str(writable / "build"))


def _landlock_abi() -> int:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        version = libc.syscall(444, None, 0, 1)  # landlock_create_ruleset(NULL, 0, CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def _unshare_flags() -> tuple:
    program = shutil.which("unshare")
    if program is None or not sys.platform.startswith("linux"):
        return ()
    mounting = (_MOUNT_FLAG,) + _NAMESPACE_FLAGS
    user = ("--user", "--map-root-user")
    for flags in (mounting, user + mounting, _NAMESPACE_FLAGS, user + _NAMESPACE_FLAGS):
        if os.geteuid() == 0 and "--user" in flags:
            continue
        try:
            done = subprocess.run([program, *flags, "true"], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return flags
    return ()


@functools.lru_cache(maxsize=1)
def current() -> Sandbox:
    """The sandbox this machine allows (probed once per process)."""
    if not sys.platform.startswith("linux"):
        return Sandbox()
    sandbox = Sandbox(_unshare_flags(), _landlock_abi())
    if sandbox.enforced and not _works(sandbox):
        return Sandbox()
    return sandbox


def _works(sandbox: Sandbox) -> bool:
    """Whether a confined `python -c pass` runs (Landlock may exist but refuse, e.g. in some containers)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="polymask-sandbox-probe-") as folder:
        try:
            done = subprocess.run(sandbox.command([sys.executable, "-I", "-S", "-c", "pass"], Path(folder)),
                                  capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return done.returncode == 0
