"""Whether OpenCL can run here, and at which precision.

:func:`available` and :func:`unavailable_reason` say whether the device a
call would use (``discovery.py``'s choice) builds polymask's kernels, and
why not; :func:`describe_default_device` names it in one line.  Precision
is double where the device has fp64; ``precision="single"`` runs on
devices without it, within the bound of :data:`SINGLE_PRECISION_NOTE`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from polymask._describe import short_repr
from polymask.opencl import programs
from polymask.opencl.common import (
    INSTALL_HINT,
    OPENCL_ENV,
    PYOPENCL_IMPORT_ERROR,
    OpenCLError,
    OpenCLUnavailable,
    cl,
    device_label,
    turned_off,
)
from polymask.opencl.discovery import device_type_name, devices, has_fp64, select_device
from polymask.typing import ShapeLike

PRECISIONS = ("auto", "double", "single")

SINGLE_PRECISION_NOTE = """\
Float32 bound.  With precision="single" the vertices are rounded to float32
and the contract's x_cross is evaluated in float32 (contraction off).  Let
M = max(1, rows, cols, max |vertex coordinate|) and u = 2**-24.  Rounding a
vertex moves it by at most sqrt(2)*u*M; the five operations of x_cross add
at most 5u relative error to (x[j]-x[i])*t (|x[j]-x[i]| <= 2M) and the final
addition u*M, so the float32 crossing lies within 11u*M (13u*M with a
2.5-ulp division) of the exact crossing of the rounded edge.  A pixel can
only change if it lies between the two crossings, hence:

  distance: every pixel where the float32 mask differs from the contract
            lies within 2**-20 * M (= 16u*M) of the polygon's boundary;
  count:    at most sum over edges of (ceil(edge length) + 1) pixels differ,
            provided 2**-20 * M < 1/3 (M below about 3.5e5): a band that
            thin holds at most one pixel centre per column (or row).

The bound needs coordinates within float32 range and image sides below
2**24; tests/test_opencl_contract.py checks it against exact arithmetic.
"""


def single_precision_tolerance(vertices: ArrayLike, shape: ShapeLike) -> float:
    """The float32 distance bound 2**-20 * M for this polygon and image (see SINGLE_PRECISION_NOTE).

    Parameters
    ----------
    vertices : array_like
        The polygon's (x, y) vertices.
    shape : (rows, cols)
        The image shape.

    Returns
    -------
    float
        2**-20 times the largest of 1, the image's sides and the largest
        absolute coordinate: in single precision, only pixels closer than
        this to an edge may differ from the contract.

    Raises
    ------
    ValueError
        If `vertices` cannot be read as (x, y) pairs of numbers.

    Examples
    --------
    >>> from polymask import opencl
    >>> opencl.single_precision_tolerance([(0, 0), (100, 0), (0, 100)], (1024, 1024))
    0.0009765625
    """
    coordinates = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    largest = float(np.abs(coordinates).max()) if coordinates.size else 0.0
    return 2.0**-20 * max(1.0, float(shape[0]), float(shape[1]), largest)


def unavailable_reason() -> str | None:
    """Why OpenCL cannot be used here, or None when a device can build polymask's kernels.

    Returns
    -------
    str or None
        A sentence that says what is missing and how to install it, or None.

    Examples
    --------
    >>> from polymask import opencl
    >>> (opencl.unavailable_reason() is None) == opencl.available()
    True
    """
    if turned_off():
        return f"OpenCL is turned off by {OPENCL_ENV}=0; unset it to use an OpenCL device"
    if cl is None:
        return f"PyOpenCL cannot be imported ({PYOPENCL_IMPORT_ERROR}); {INSTALL_HINT}"
    if not devices():
        return f"no OpenCL platform with a device was found; {INSTALL_HINT}"
    try:
        # The device a call would use ($POLYMASK_DEVICE and all), and it must build the kernels.
        device = select_device()
        programs.program(device, "pixel", has_fp64(device))
    except (OpenCLError, OpenCLUnavailable, ValueError) as error:
        return str(error)
    return None


def require() -> None:
    """Raise OpenCLUnavailable (an ImportError) with the reason if OpenCL cannot be used here.

    Raises
    ------
    OpenCLUnavailable
        With :func:`unavailable_reason`'s sentence, if no device here can
        build and run polymask's kernels.

    Examples
    --------
    >>> from polymask import opencl
    >>> if opencl.available():
    ...     opencl.require()              # returns quietly where OpenCL works
    """
    reason = unavailable_reason()
    if reason is not None:
        raise OpenCLUnavailable(reason)


def available() -> bool:
    """True when an OpenCL device here can build and run polymask's kernels.

    Returns
    -------
    bool
        Whether :func:`mask` can run here.

    Examples
    --------
    >>> from polymask import opencl
    >>> isinstance(opencl.available(), bool)
    True
    """
    return unavailable_reason() is None


def describe_default_device() -> str:
    """One line on the device the OpenCL backend would use, or why there is none.

    Returns
    -------
    str
        The device's name, type, compute units, fp64 and platform; or
        "none (reason)".

    Examples
    --------
    >>> from polymask import opencl
    >>> line = opencl.describe_default_device()
    >>> line.startswith("none (") != opencl.available()
    True
    """
    reason = unavailable_reason()
    if reason is not None:
        return f"none ({reason.splitlines()[0]})"
    device = select_device()
    return (
        f"{device.name.strip()} ({device_type_name(device)}, {device.max_compute_units} compute units, "
        f"fp64: {'yes' if has_fp64(device) else 'no'}; {device.platform.version.strip()})"
    )


def resolve_precision(precision: str, device: cl.Device) -> bool:
    """True for double, False for float32: "auto" is double where the device has fp64."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}, got {short_repr(precision)}")
    fp64 = has_fp64(device)
    if precision == "double" and not fp64:
        raise OpenCLError(
            f"precision='double' needs fp64, which device {device_label(device)} lacks; "
            "use precision='single' (see polymask.opencl.SINGLE_PRECISION_NOTE) or another device"
        )
    return fp64 if precision == "auto" else precision == "double"
