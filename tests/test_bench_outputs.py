"""``polymask bench`` when its output cannot be written: checked before the run, or one line and exit 2 after it."""
import os
import subprocess
import sys

import pytest

from polymask.bench import main as bench_main

SMALL = ["--size", "32", "--vertices", "5", "--repeats", "1", "--no-progress", "--stages", "scanline", "--no-peers"]
FULL = "/dev/full"
needs_dev_full = pytest.mark.skipif(not os.path.exists(FULL), reason="no /dev/full here")


def run_bench(*arguments, stdout=subprocess.PIPE):
    return subprocess.run([sys.executable, "-m", "polymask.bench", *arguments], stdout=stdout,
                          stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("arguments, message", [
    (["--stages", "nosuch"], "unknown stages ['nosuch']"),
    (["--stages", "scanline,nosuch,other"], "unknown stages ['nosuch', 'other']"),
    (["--plot", "x.txt"], "matplotlib cannot write .txt"),
    (["--plot", "noextension"], "matplotlib cannot write a file without an extension"),
])
def test_usage_errors_exit_2_before_the_run(arguments, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        bench_main([*SMALL[:-3], *arguments])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir()), "the check left a file behind"


@needs_dev_full
@pytest.mark.parametrize("option", ["--json", "--csv"])
def test_a_file_that_fails_after_the_run_is_one_line_and_exit_2(option):
    finished = run_bench(*SMALL, option, FULL)
    assert finished.returncode == 2
    lines = finished.stderr.strip().splitlines()
    assert lines == [f"polymask bench: cannot write {option} '{FULL}': No space left on device"], finished.stderr
    assert "scanline" in finished.stdout  # the table itself was printed


@needs_dev_full
def test_a_full_standard_output_is_one_line_and_exit_2():
    with open(FULL, "w") as full:
        finished = run_bench(*SMALL, stdout=full)
    assert finished.returncode == 2
    assert finished.stderr.strip().splitlines() == [
        "polymask bench: cannot write the table to standard output: No space left on device"], finished.stderr


def test_a_good_plot_extension_runs(tmp_path):
    target = tmp_path / "speedups.svg"
    assert bench_main([*SMALL, "--plot", str(target)]) == 0
    assert target.read_text().lstrip().startswith("<?xml")
