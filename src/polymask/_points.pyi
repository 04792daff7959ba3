"""Types of polymask._points, the point queries' binding (src/polymask/_points.pyx)."""
import numpy as np
import numpy.typing as npt

def contains(
    vertices: npt.NDArray[np.float64],
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    out: npt.NDArray[np.uint8],
    rule: int = 0,
    threads: int = 0,
    ring_ends: npt.NDArray[np.int64] | None = None,
) -> None: ...
def contains_grid(
    vertices: npt.NDArray[np.float64],
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    out: npt.NDArray[np.uint8],
    rule: int = 0,
    threads: int = 0,
    ring_ends: npt.NDArray[np.int64] | None = None,
) -> None: ...
class PolygonLabels:
    def __init__(
        self,
        vertices: npt.NDArray[np.float64],
        ring_ends: npt.NDArray[np.int64],
        polygon_ends: npt.NDArray[np.int64],
    ) -> None: ...
    @property
    def indexed_polygons(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    def which(
        self,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        out: npt.NDArray[np.int64],
        rule: int = 0,
        threads: int = 0,
    ) -> None: ...
    def which_grid(
        self,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        out: npt.NDArray[np.int64],
        rule: int = 0,
        threads: int = 0,
    ) -> None: ...

def which_polygon(
    vertices: npt.NDArray[np.float64],
    ring_ends: npt.NDArray[np.int64],
    polygon_ends: npt.NDArray[np.int64],
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    out: npt.NDArray[np.int64],
    rule: int = 0,
    threads: int = 0,
) -> None: ...
