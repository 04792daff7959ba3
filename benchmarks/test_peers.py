"""Every peer library on the standard problem, beside the floor.

polymask.mask itself is timed in this group by test_stage_ladder.py (its
``scanline`` row), so it is not timed twice.

extra_info records how many pixels each peer disagrees with the mask
contract: several use other boundary conventions (see polymask.course.peers).
"""
import numpy as np
import pytest

import polymask
from polymask.course import peers
from polymask.course.problems import standard_problem

GROUP = "standard 1024x1024, 24 vertices"


@pytest.mark.parametrize("peer", peers.PEERS, ids=[peer.id for peer in peers.PEERS])
def test_peer(benchmark, peer):
    available, reason = peer.availability()
    assert available, f"the test extra installs every peer; {peer.id} is missing: {reason}"
    vertices, shape = standard_problem()
    benchmark.group = GROUP
    result = benchmark(peer.function, vertices, shape)
    from benchmarks._support import record

    record(benchmark, backend=peer.id, kind="peer", shape=shape, n_vertices=len(vertices),
           result=result, expected=polymask.mask(vertices, shape))
    benchmark.extra_info["convention"] = peer.convention


def test_floor(benchmark):
    vertices, shape = standard_problem()
    out = np.empty(shape, bool)
    benchmark.group = GROUP
    benchmark(out.fill, False)
    benchmark.extra_info.update(backend="floor", kind="floor", size=list(shape), n_vertices=len(vertices))
