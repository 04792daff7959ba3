"""Confine this process, then become another: ``python -I -S confine.py [OPTIONS] -- PROGRAM ARGS...``.

Run as a script by the checker (see :mod:`~polymask.course.checker.sandbox`),
before any of the learner's code exists in the process; what it sets up
cannot be undone by the program it becomes:

* ``--no-capabilities``: empty the capability bounding set, so even root
  runs the program with no capabilities.
* ``--parent-death``: SIGKILL this process when its parent dies
  (``PR_SET_PDEATHSIG``; kept across ``exec``), so nothing outlives a
  checker that was killed.
* ``--hide DIR ... --show PATH ...``: in a mount namespace of its own (the
  caller's ``unshare --mount``), cover each hidden folder with an empty
  tmpfs, then bind each shown path back where it was: the program sees only
  what is shown of polymask's files, whatever path or descriptor it uses.
* ``--landlock ABI --write DIR``: a Landlock domain (Linux 5.13+): every
  file can be read and run, none written, created, renamed, linked or
  removed, except beneath each ``--write`` folder (and the harmless
  devices); no TCP bind or connect (ABI 4+); no signals to processes
  outside the domain and no abstract UNIX sockets (ABI 6+).  It needs
  ``PR_SET_NO_NEW_PRIVS``, which this also sets.

Only the standard library, with no site packages (``-S``): it starts in
milliseconds.  On any failure it exits 97 with the reason on stderr, so
a sandbox that cannot be set up is never mistaken for one that was.
"""
import ctypes
import os
import sys

SETUP_FAILED = 97
_PR_SET_PDEATHSIG, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS = 1, 24, 38
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC = 2, 4, 4096, 16384
_HIDDEN_PACKAGE = 'raise ImportError("polymask is not available to code being checked: compute the mask yourself")\n'
_LAST_CAPABILITY = 63  # past the kernel's last one: dropping an unknown capability fails harmlessly
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on every Linux architecture
_RULE_PATH_BENEATH = 1
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_READ = _EXECUTE | _READ_FILE | _READ_DIR
#: Devices a process may write without harm (and GPU device files, which OpenCL opens read-write).
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/dri", "/dev/kfd", "/dev/nvidiactl",
                    "/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidia1")

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]
    allowed_access: int
    parent_fd: int


def _check(result, what: str) -> int:
    if result < 0:
        raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")
    return result


def handled_fs(abi: int) -> int:
    """Every file-system right Landlock `abi` knows, but device ioctls (GPU drivers need them)."""
    rights = (1 << 13) - 1  # EXECUTE ... MAKE_SYM (ABI 1)
    if abi >= 2:
        rights |= 1 << 13  # REFER: linking or renaming across folders
    if abi >= 3:
        rights |= 1 << 14  # TRUNCATE
    return rights


def landlock(abi: int, writable: list) -> None:
    fs = handled_fs(abi)
    net = 0b11 if abi >= 4 else 0  # BIND_TCP, CONNECT_TCP: no rule allows either
    scoped = 0b11 if abi >= 6 else 0  # abstract UNIX sockets, signals
    fields = [fs, net, scoped][:1 if abi < 4 else 2 if abi < 6 else 3]
    attr = (ctypes.c_uint64 * len(fields))(*fields)
    ruleset = _check(_libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.sizeof(attr), 0),
                     "landlock_create_ruleset")
    rules = [("/", _READ)] + [(path, fs) for path in writable]
    rules += [(path, _READ_FILE | _WRITE_FILE) for path in WRITABLE_DEVICES if os.path.exists(path)]
    for path, access in rules:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        try:
            if not os.path.isdir(path):
                access &= _EXECUTE | _WRITE_FILE | _READ_FILE | (1 << 14)  # the rights a file can hold
            rule = _PathBeneath(access, fd)
            _check(_libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0),
                   f"landlock_add_rule({path})")
        finally:
            os.close(fd)
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
    _check(_libc.syscall(_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    os.close(ruleset)


def hide(hidden: list, shown: list) -> None:
    """Cover each of `hidden` with an empty tmpfs, then bind each of `shown` (beneath them) back in place."""
    kept = [(path, os.open(path, os.O_PATH | os.O_CLOEXEC)) for path in shown]  # reachable once covered
    packages = [folder for folder in hidden if os.path.isfile(os.path.join(folder, "__init__.py"))]
    for folder in hidden:
        _check(_libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"mode=0755"),
               f"mount an empty tmpfs on {folder}")
    for folder in packages:  # an empty folder would import as a namespace package: say why it is empty
        with open(os.path.join(folder, "__init__.py"), "w") as stub:
            stub.write(_HIDDEN_PACKAGE)
    for path, fd in kept:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.makedirs(path, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
        _check(_libc.mount(os.fsencode(f"/proc/self/fd/{fd}"), os.fsencode(path), None, _MS_BIND | _MS_REC, None),
               f"bind {path} back")
        os.close(fd)


def drop_capabilities() -> None:
    """Empty the capability bounding set, so a root learner's program execs with no capabilities
    (no module loading, no raw devices, no ptrace of others).  An ordinary user has none to drop."""
    for capability in range(_LAST_CAPABILITY + 1):
        _libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)


def main(argv: list) -> None:
    if "--" not in argv:
        raise SystemExit("usage: confine.py [--parent-death] [--hide DIR ... --show PATH ...] "
                         "[--landlock ABI --write DIR ...] -- PROGRAM ARGS")
    split = argv.index("--")
    options, program = argv[:split], argv[split + 1:]
    writable = [options[k + 1] for k, option in enumerate(options) if option == "--write"]
    hidden = [options[k + 1] for k, option in enumerate(options) if option == "--hide"]
    shown = [options[k + 1] for k, option in enumerate(options) if option == "--show"]
    try:
        if "--parent-death" in options:
            _check(_libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0), "PR_SET_PDEATHSIG")
            if os.getppid() == 1 and os.getpid() != 1:  # the parent died before the line above
                os._exit(SETUP_FAILED)
        if hidden:  # before Landlock, which forbids mounting
            hide(hidden, shown)
        if "--landlock" in options:
            landlock(int(options[options.index("--landlock") + 1]), writable)
        if "--no-capabilities" in options:
            drop_capabilities()
    except (OSError, ValueError, IndexError) as error:
        os.write(2, f"polymask sandbox: could not be set up: {error}\n".encode())
        os._exit(SETUP_FAILED)
    os.execv(program[0], program)


if __name__ == "__main__":
    main(sys.argv[1:])
