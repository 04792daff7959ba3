"""A fill that runs out of memory says what needed it: the result, or the polygon's edges."""
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import resource
    import numpy as np
    import polymask

    count = 20_000_000  # 320 MB of vertices; the fill's edges need about 1.1 GB more
    angles = np.linspace(0, 2 * np.pi, count, endpoint=False)
    vertices = np.c_[50 + 40 * np.cos(angles), 50 + 40 * np.sin(angles)]
    with open("/proc/self/status") as status:
        used = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    limit = used + 400 * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        polymask.mask(vertices, (100, 100), threads=1)
    except MemoryError as error:
        print(error)
    else:
        print("no MemoryError")
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_a_huge_polygon_on_a_small_mask_blames_its_edges():
    finished = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    message = finished.stdout.strip()
    if message == "no MemoryError":
        pytest.skip("the limit did not bite on this machine")
    assert "20,000,000 edges need about 1.1 GB" in message, finished.stdout + finished.stderr
    assert "100x100 mask" in message and "(0.0 GB)" not in message


def test_a_huge_mask_still_blames_the_mask():
    from polymask._outputs import fill_memory_error

    assert "cannot allocate a 100000x100000 mask (10.0 GB)" in str(fill_memory_error((100000, 100000), 24, "mask",
                                                                                        "hint"))
