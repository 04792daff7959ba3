"""scripts/learn.sh: sets up the course's environment once, rebuilds only when a source
changed, and opens Jupyter Lab on the notebooks (as root too).

Run in a folder whose setup, Python and Jupyter are stand-ins that only record that
they ran.
"""

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _fake_checkout(tmp_path):
    """learn.sh in a folder whose setup, Python and Jupyter only record that they ran."""
    import stat

    def script(path, body):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(path.stat().st_mode | stat.S_IEXEC)

    (tmp_path / "scripts").mkdir()
    shutil.copyfile(ROOT / "scripts" / "learn.sh", tmp_path / "scripts" / "learn.sh")
    # The real setup.sh checks the OpenCL device unless POLYMASK_OPENCL=0: the fake records it.
    script(
        tmp_path / "scripts" / "setup.sh",
        'echo "setup $*" >> calls.log; mkdir -p .venv/bin; '
        '[ "$POLYMASK_OPENCL" = 0 ] || echo "device check" >> calls.log',
    )
    script(tmp_path / "scripts" / "install-opencl.sh", 'echo "device check" >> calls.log')
    script(tmp_path / ".venv" / "bin" / "python", 'echo "python $*" >> calls.log')
    script(tmp_path / ".venv" / "bin" / "jupyter", 'echo "jupyter $*" >> calls.log')
    script(tmp_path / "fakebin" / "id", "echo 0")  # `id -u` says root
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "module.py").write_text("")
    return tmp_path


def test_learn_sh_rebuilds_only_when_a_source_changed_and_allows_root(tmp_path):
    import subprocess
    import time

    checkout = _fake_checkout(tmp_path)
    environment = dict(os.environ, PATH=f"{checkout / 'fakebin'}{os.pathsep}{os.environ['PATH']}")

    def learn(*arguments):
        (checkout / "calls.log").write_text("")
        subprocess.run(
            ["bash", str(checkout / "scripts" / "learn.sh"), *arguments],
            check=True,
            env=environment,
            capture_output=True,
            text=True,
        )
        return (checkout / "calls.log").read_text()

    first = learn("--setup-only")
    assert "setup notebooks" in first  # first time: build
    assert first.count("device check") == 1, first  # the OpenCL device is checked once
    assert "setup" not in learn("--setup-only")  # nothing changed: no build
    time.sleep(1.1)
    (checkout / "src" / "module.py").write_text("# changed\n")
    assert "setup notebooks" in learn("--setup-only")  # a source changed: build
    assert "setup notebooks" in learn("--setup-only", "--rebuild")
    calls = learn("--no-browser")
    assert "setup" not in calls
    assert "jupyter lab --notebook-dir=notebooks --no-browser --allow-root" in calls
