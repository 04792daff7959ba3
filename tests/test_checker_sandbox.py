"""The learner's build and run are confined by the operating system, and the checker trusts
only an intact installation.

Submissions that would change polymask's files run against a throw-away copy of the
installed package (the checker runs from the copy, in a child process), so a sandbox
that failed would wreck the copy, never the installation the other tests use.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import polymask
from polymask.course import checker
from polymask.course.checker import integrity, sandbox
from tests import _exercise_support

ROOT = Path(__file__).resolve().parents[1]
DISHONEST = ROOT / "tests" / "dishonest"
SOLUTION_01 = ROOT / "exercises" / "solutions" / "01_python" / "mask.py"
SOLUTION_08 = ROOT / "exercises" / "solutions" / "08_scanline" / "mask.py"
build_cache = _exercise_support.build_cache
nothing_outlives_a_test = _exercise_support.nothing_outlives_a_test

needs_sandbox = pytest.mark.skipif(not sandbox.current().enforced,
                                   reason="no sandbox on this machine (the header test covers that case)")


def _submission(tmp_path, name, as_name="mask.py"):
    folder = tmp_path / "learner"
    folder.mkdir(exist_ok=True)
    target = folder / as_name
    shutil.copyfile(DISHONEST / name, target)
    return target


@pytest.fixture
def package_copy(tmp_path):
    """A throw-away copy of the installed package with its install record: (site folder, package folder)."""
    installed = Path(polymask.__file__).resolve().parent
    site = tmp_path / "site"
    shutil.copytree(installed, site / "polymask", ignore=shutil.ignore_patterns("__pycache__"))
    for record in installed.parent.glob("polymask-*.dist-info"):
        shutil.copytree(record, site / record.name)
    return site, site / "polymask"


def _check_from(site, exercise, path, timeout=120):
    """`polymask check` run by a child Python that imports polymask from `site`: (exit code, report)."""
    program = ("import sys; sys.path.insert(0, sys.argv[1]); from polymask.course.checker import check; "
               "r = check(sys.argv[2], sys.argv[3], timing=False, progress=False); print(r); sys.exit(r.exit_code)")
    done = subprocess.run([sys.executable, "-c", program, str(site), exercise, str(path)], capture_output=True,
                          text=True, timeout=timeout, check=False)
    return done.returncode, done.stdout + done.stderr


# ---- the header ------------------------------------------------------------------------------------------


def test_the_verdict_header_names_the_sandbox():
    report = str(checker.check("08", SOLUTION_08, timing=False))
    lines = report.splitlines()
    assert lines[0].startswith("PASS") and lines[1] == f"  ({sandbox.current().describe()})", report
    if sys.platform.startswith("linux") and sandbox.current().enforced:
        assert lines[1].startswith("  (sandboxed: ") and "killed with the checker" in lines[1]


def test_without_a_sandbox_the_header_says_so_and_the_guards_stay(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox, "current", lambda: sandbox.Sandbox())
    result = checker.check("01", _submission(tmp_path, "stage_by_path.py"), timing=False)
    lines = str(result).splitlines()
    assert result.status == "wrong" and lines[0].startswith("FAIL"), str(result)
    assert lines[1].startswith("  (NOT sandboxed: "), str(result)
    assert "used polymask's own code (polymask/_core" in str(result)


def test_the_probe_finds_what_this_kernel_offers():
    found = sandbox.current()
    if sys.platform.startswith("linux") and os.geteuid() == 0 and shutil.which("unshare"):
        assert "--net" in found.unshare and "--pid" in found.unshare, found  # root can always make namespaces
    assert "sandboxed" in found.describe()


# ---- what the sandbox stops --------------------------------------------------------------------------------


@needs_sandbox
@pytest.mark.parametrize("name", ["link_stage.py", "replace_stage.py", "rename_api.py"])
def test_a_submission_cannot_change_the_installed_package(tmp_path, package_copy, name):
    site, package = package_copy
    code, report = _check_from(site, "01", _submission(tmp_path, name))
    assert code == 1 and "\nFAIL" in "\n" + report and "PASS" not in report, report
    assert integrity.modified_files(package) == [], report  # the copy is as it was installed


@needs_sandbox
def test_the_sandbox_alone_stops_a_rename_of_the_package(tmp_path, package_copy):
    # The worker's audit hook would refuse os.rename first; without it, the file system still says no.
    site, package = package_copy
    worker = package / "course" / "checker" / "worker.py"
    worker.write_text(worker.read_text().replace("sys.addaudithook(hook)", "pass"))
    record = next(site.glob("polymask-*.dist-info")) / "RECORD"
    rows = [line.split(",") for line in record.read_text().splitlines()]
    record.write_text("".join(",".join([name, integrity._digest(worker) if name.endswith("checker/worker.py")
                                         else digest, *rest]) + "\n" for name, digest, *rest in rows))
    code, report = _check_from(site, "01", _submission(tmp_path, "rename_api.py"))
    # Landlock refuses the rename; in a mount namespace the worker does not even see the file.
    assert code == 1 and "FAIL" in report, report
    assert "Permission denied" in report or "Errno" in report or "polymask's own files hidden" in report, report
    assert (package / "_api.py").is_file()


@needs_sandbox
def test_a_submission_cannot_write_into_the_checkout(tmp_path):
    result = checker.check("01", _submission(tmp_path, "write_checkout.py"), timing=False)
    assert result.status == "wrong" and "Permission denied" in str(result), str(result)
    assert not (tmp_path / "learner" / "planted.txt").exists()


@needs_sandbox
def test_a_submission_has_no_network(tmp_path):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.2)
        path = _submission(tmp_path, "network.py")
        (path.parent / "port").write_text(str(server.getsockname()[1]))
        result = checker.check("01", path, timing=False)
        with pytest.raises(OSError):  # nobody called
            server.accept()
    assert result.status == "wrong" and "raised" in str(result), str(result)


@needs_sandbox
def test_a_worker_that_kills_its_parent_kills_only_itself(tmp_path):
    # In its own PID namespace the worker's parent is not there to be killed (getppid() is 0).
    code, report = _check_from(sys.prefix, "01", _submission(tmp_path, "kill_checker.py"))
    assert code == 1 and report.startswith("FAIL"), report


@needs_sandbox
def test_the_worker_dies_with_the_checker(tmp_path):
    path = tmp_path / "mask.py"
    path.write_text("import time\n\ndef point_inside(polygon, px, py):\n    return False\n\n"
                    "def mask(vertices, shape):\n    time.sleep(600)\n")
    program = ("from polymask.course.checker import check; import sys; "
               "check('01', sys.argv[1], timing=False, progress=False)")
    checker_process = subprocess.Popen([sys.executable, "-c", program, str(path)])
    from polymask.course.checker.runner import descendants

    deadline, workers = time.monotonic() + 60, set()
    while time.monotonic() < deadline and not workers:
        time.sleep(0.1)
        workers = {pid for pid in descendants({checker_process.pid})
                   if b"worker.py" in Path(f"/proc/{pid}/cmdline").read_bytes()}
    assert workers, "no worker started"
    below = descendants({checker_process.pid})
    checker_process.send_signal(signal.SIGKILL)
    checker_process.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(pid) for pid in below):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in below)


def _alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# ---- an intact installation -------------------------------------------------------------------------------


def test_the_installed_package_matches_its_record():
    assert integrity.modified_files() == []


def test_a_modified_installation_is_refused(package_copy, monkeypatch):
    _, package = package_copy
    assert integrity.modified_files(package) == []
    with open(package / "_api.py", "a") as handle:
        handle.write("\n# changed\n")
    (package / "course" / "checker" / "extra.py").write_text("")
    monkeypatch.setattr(integrity, "PACKAGE_DIR", package)
    result = checker.check("01", SOLUTION_01, timing=False)
    assert result.status == "error" and result.exit_code == 2, str(result)
    assert "polymask/_api.py (changed)" in str(result) and "checker/extra.py (added)" in str(result)


def test_a_lost_install_record_is_refused(package_copy):
    site, package = package_copy
    for record in site.glob("polymask-*.dist-info"):
        shutil.rmtree(record)
    assert "no install record" in integrity.refusal(package)


@needs_sandbox
def test_a_sandboxed_program_has_no_capabilities_even_as_root(tmp_path):
    probe = ("import socket\nstatus = open('/proc/self/status').read()\n"
             "print([line for line in status.splitlines() if line.startswith('CapEff')][0])\n"
             "try:\n    socket.sethostname('learner')\n    print('renamed the host')\nexcept OSError as error:\n"
             "    print('refused', error.errno)\n")
    box = sandbox.current()
    done = subprocess.run(box.command([sys.executable, "-I", "-c", probe], tmp_path), capture_output=True,
                          text=True, timeout=60, env=box.environment(dict(os.environ), tmp_path), check=False)
    assert done.returncode == 0, done.stderr
    if box.landlock_abi:
        assert "CapEff:\t0000000000000000" in done.stdout, done.stdout
    assert "renamed the host" not in done.stdout and socket.gethostname() != "learner"


# ---- polymask's files hidden from the worker ------------------------------------------------------


needs_mount_namespace = pytest.mark.skipif(not sandbox.current().hides,
                                           reason="no mount namespace on this machine: the header says so")


@needs_mount_namespace
@pytest.mark.parametrize("name", ["stage_by_fd.py", "core_by_fd.py"])
def test_polymask_binaries_are_out_of_reach_by_descriptor_paths(tmp_path, name):
    # Opened relative to a folder descriptor and loaded from /proc/self/fd/N: no path names polymask.
    result = checker.check("01", _submission(tmp_path, name), timing=False, progress=False)
    report = str(result)
    assert not result.passed and result.status in ("wrong", "error"), report
    assert "No such file or directory" in report and "polymask's own files hidden" in report, report


def test_the_header_says_whether_polymask_files_are_hidden():
    hidden = sandbox.Sandbox(unshare=("--mount", "--pid"), landlock_abi=0).describe()
    shown = sandbox.Sandbox(unshare=("--pid",), landlock_abi=4).describe()
    assert "polymask's own files hidden" in hidden and "own mount namespace" in hidden
    assert "polymask's own files NOT hidden (no mount namespace here" in shown
    assert "polymask's files visible (the exercise's host code" in sandbox.Sandbox(("--mount",)).describe(hide=False)
