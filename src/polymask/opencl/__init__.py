"""polymask on OpenCL devices: the one module that imports pyopencl.

What it owns, in the order a learner meets it:

* **Kernels are files.**  ``kernels/pixel.cl`` (one work-item per pixel)
  and ``kernels/scanline.cl`` (one work-item per row) ship inside the
  package and are found by :func:`kernel_dir`.  Both include the C++
  core's predicate header ``polymask/crossing.h``, installed beside them,
  so the device compiles the very lines the C++ core compiles.
* **Devices.**  :func:`devices` lists what is here (type, compute units,
  memory, fp64).  :func:`select_device` picks one: an explicit argument (a
  ``pyopencl.Device`` or a string such as ``"cpu"``, ``"gpu"``,
  ``"gpu:1"``, ``"0:1"``), else ``$POLYMASK_DEVICE``, else
  ``$PYOPENCL_CTX``, else the best device that can build the kernels.
  ``POLYMASK_OPENCL=0`` turns OpenCL off.
* **Precision.**  Double on devices with fp64: then the mask equals the
  contract bit for bit.  Float32 otherwise, or with
  ``precision="single"``: see :data:`SINGLE_PRECISION_NOTE` for the bound.
* **A resident engine.**  :class:`MaskEngine` builds each program once,
  keeps the polygon and the output buffer on the device across calls (they
  only grow), enqueues without waiting, and copies back on request.
  Vertices given as a ``pyopencl.array.Array`` give a result that stays on
  the device: compute follows data.
* **Profiling.**  With ``profiling=True`` the engine reads kernel and
  transfer times from OpenCL events; :func:`profile` returns their medians.
* **Errors.**  Build failures raise :class:`OpenCLBuildError` with the
  device and the build log; other OpenCL failures raise
  :class:`OpenCLError` naming the device; a missing runtime raises
  :class:`OpenCLUnavailable` (an ImportError) saying how to install one.
"""
from __future__ import annotations

import importlib.resources
import os
import re
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from polymask._validation import as_shape, as_vertices, output_buffer

try:
    import pyopencl as cl
except ImportError as _error:  # reported by unavailable_reason(), never raised at import
    cl = None
    _PYOPENCL_IMPORT_ERROR = f"{type(_error).__name__}: {_error}"
else:
    _PYOPENCL_IMPORT_ERROR = ""

#: Set to 0 to turn OpenCL off (the stage then reports itself unavailable).
OPENCL_ENV = "POLYMASK_OPENCL"
#: Device choice for polymask, in the forms select_device() accepts.
DEVICE_ENV = "POLYMASK_DEVICE"
#: PyOpenCL's own device choice, honoured after POLYMASK_DEVICE.
PYOPENCL_ENV = "PYOPENCL_CTX"

#: How to get a runtime, quoted by every "OpenCL is not available" message.
INSTALL_HINT = (
    "install PyOpenCL and an OpenCL runtime: `pip install 'polymask[opencl]'` brings PyOpenCL and "
    "PoCL, a CPU runtime (pocl-binary-distribution); where that PoCL cannot build kernels for this "
    "CPU, install the system's (Debian/Ubuntu: `apt-get install pocl-opencl-icd`, which "
    "scripts/install-opencl.sh does for you), or a GPU vendor's OpenCL driver"
)

#: Kernel id -> (file under kernels/, kernel function name).
KERNELS = {
    "pixel": ("pixel.cl", "pm_mask_pixel"),
    "scanline": ("scanline.cl", "pm_mask_scanline"),
}

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
2**24; tests/test_opencl.py checks it against exact arithmetic.
"""


def single_precision_tolerance(vertices, shape) -> float:
    """The float32 distance bound 2**-20 * M for this polygon and image (see SINGLE_PRECISION_NOTE)."""
    coordinates = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    largest = float(np.abs(coordinates).max()) if coordinates.size else 0.0
    return 2.0**-20 * max(1.0, float(shape[0]), float(shape[1]), largest)


# ---- errors ---------------------------------------------------------------------------


class OpenCLUnavailable(ImportError):
    """No usable OpenCL here: PyOpenCL, a platform or a working device is missing, or it is off."""


class OpenCLError(RuntimeError):
    """An OpenCL operation failed; the message names the device."""


class OpenCLBuildError(OpenCLError):
    """A kernel did not build; the message names the device and holds the build log."""


def _device_label(device) -> str:
    return f"{device.name.strip()!r} on {device.platform.name.strip()!r} ({device.platform.version.strip()})"


# ---- availability ---------------------------------------------------------------------


def unavailable_reason() -> str | None:
    """Why OpenCL cannot be used here, or None when a device can build polymask's kernels."""
    if os.environ.get(OPENCL_ENV, "").strip() == "0":
        return f"OpenCL is turned off by {OPENCL_ENV}=0; unset it to use an OpenCL device"
    if cl is None:
        return f"PyOpenCL cannot be imported ({_PYOPENCL_IMPORT_ERROR}); {INSTALL_HINT}"
    if not devices():
        return f"no OpenCL platform with a device was found; {INSTALL_HINT}"
    try:
        # The device a call would use ($POLYMASK_DEVICE and all), and it must build the kernels.
        device = select_device()
        _program(device, "pixel", _has_fp64(device))
    except (OpenCLError, OpenCLUnavailable, ValueError) as error:
        return str(error)
    return None


def require() -> None:
    """Raise OpenCLUnavailable (an ImportError) with the reason if OpenCL cannot be used here."""
    reason = unavailable_reason()
    if reason is not None:
        raise OpenCLUnavailable(reason)


def available() -> bool:
    """True when an OpenCL device here can build and run polymask's kernels."""
    return unavailable_reason() is None


# ---- kernels as package resources --------------------------------------------------------


def kernel_dir() -> Path:
    """The installed kernels/ folder: the .cl files, precision.h and polymask/crossing.h."""
    folder = Path(str(importlib.resources.files("polymask").joinpath("kernels")))
    missing = [name for name in ("pixel.cl", "scanline.cl", "precision.h", "polymask/crossing.h")
               if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"polymask's OpenCL kernel files are missing from {folder}: {', '.join(missing)}; "
            "they are installed by CMake (src/polymask/CMakeLists.txt), so reinstall polymask")
    return folder


def kernel_source(kernel: str) -> str:
    """The OpenCL C source of `kernel` ("pixel" or "scanline")."""
    filename, _ = _kernel_entry(kernel)
    return (kernel_dir() / filename).read_text()


def _kernel_entry(kernel: str) -> tuple[str, str]:
    try:
        return KERNELS[kernel]
    except (KeyError, TypeError):
        raise ValueError(f"kernel must be one of {', '.join(map(repr, KERNELS))}, got {kernel!r}") from None


def build_options(use_double: bool) -> list[str]:
    """Options for clBuildProgram: the include path, the precision, and no shortcuts.

    Contraction is turned off in the kernels (#pragma OPENCL FP_CONTRACT OFF);
    here we only ask for a correctly rounded float division and never pass
    -cl-mad-enable or -cl-fast-relaxed-math.
    """
    return ["-I", str(kernel_dir()), f"-DPM_USE_DOUBLE={1 if use_double else 0}",
            "-cl-fp32-correctly-rounded-divide-sqrt"]


def build_program(source: str, device=None, options=(), label: str = "<source>"):
    """Build OpenCL C `source` for `device`; OpenCLBuildError with the build log on failure."""
    _require_pyopencl()
    device = select_device(device)
    return _build(_context_for(device), device, source, list(options), label)


def _build(context, device, source, options, label):
    program = cl.Program(context, source)
    try:
        return program.build(options=options, devices=[device])
    except cl.Error as error:
        log = ""
        try:
            log = program.get_build_info(device, cl.program_build_info.LOG).strip()
        except Exception:  # a failed query must not hide the build error: PyOpenCL's message holds the log too
            pass
        summary = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise OpenCLBuildError(
            f"building {label} for device {_device_label(device)} failed (options: {' '.join(options)}): "
            f"{summary}\nbuild log:\n{log or str(error)}") from None


_programs: dict = {}
_programs_lock = threading.Lock()
_build_count = 0


def _program(device, kernel: str, use_double: bool):
    """The built program of `kernel` for `device`: compiled once per process, then cached."""
    global _build_count
    key = (device.int_ptr, kernel, use_double)
    with _programs_lock:
        program = _programs.get(key)
        if program is None:
            filename, _ = _kernel_entry(kernel)
            program = _build(_context_for(device), device, kernel_source(kernel),
                             build_options(use_double), f"kernels/{filename}")
            _programs[key] = program
            _build_count += 1
        return program


def build_count() -> int:
    """How many kernel programs this process has compiled (each is built once per device and precision)."""
    return _build_count


# ---- devices -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceInfo:
    """One OpenCL device, as devices() lists it."""

    #: What select_device() accepts for exactly this device: "cpu:0", "gpu:1", ...
    key: str
    name: str
    platform: str
    #: "gpu", "cpu", "accelerator" or "other".
    type: str
    compute_units: int
    global_memory_bytes: int
    #: Largest single buffer the device allows: bounds the mask size.
    max_alloc_bytes: int
    #: True when the device does double precision (then the mask is bit-exact).
    fp64: bool
    device: object = field(repr=False, compare=False)


_TYPE_NAMES = ("gpu", "accelerator", "cpu")


def _type_name(device) -> str:
    for name in _TYPE_NAMES:
        if device.type & getattr(cl.device_type, name.upper()):
            return name
    return "other"


def _has_fp64(device) -> bool:
    return bool(device.double_fp_config) or "cl_khr_fp64" in device.extensions.split()


_devices_cache: list | None = None


def devices() -> list[DeviceInfo]:
    """Every OpenCL device here, platform by platform; [] when there is none (or OpenCL is off)."""
    global _devices_cache
    if cl is None or os.environ.get(OPENCL_ENV, "").strip() == "0":
        return []
    if _devices_cache is None:
        found, per_type = [], {}
        try:
            platforms = cl.get_platforms()
        except cl.Error:  # the ICD loader's "no platform" (PLATFORM_NOT_FOUND_KHR)
            platforms = []
        for platform in platforms:
            try:
                platform_devices = platform.get_devices()
            except cl.Error:  # a platform with no devices
                platform_devices = []
            for device in platform_devices:
                kind = _type_name(device)
                index = per_type.get(kind, 0)
                per_type[kind] = index + 1
                found.append(DeviceInfo(
                    key=f"{kind}:{index}", name=device.name.strip(), platform=platform.name.strip(),
                    type=kind, compute_units=int(device.max_compute_units),
                    global_memory_bytes=int(device.global_mem_size),
                    max_alloc_bytes=int(device.max_mem_alloc_size), fp64=_has_fp64(device), device=device))
        _devices_cache = found
    return list(_devices_cache)


def _preference(info: DeviceInfo):
    rank = _TYPE_NAMES.index(info.type) if info.type in _TYPE_NAMES else len(_TYPE_NAMES)
    return (rank, not info.fp64, -info.compute_units)


def _first_that_builds(candidates: list[DeviceInfo], wanted: str):
    """The most preferred candidate that builds the pixel kernel (a broken runtime is skipped)."""
    failures = []
    for info in sorted(candidates, key=_preference):
        try:
            _program(info.device, "pixel", info.fp64)
        except OpenCLBuildError as error:
            failures.append(f"  {info.key} {info.name!r} ({info.platform}): {_first_error_line(str(error))}")
            continue
        return info.device
    detail = "\n".join(failures) if failures else "  (none)"
    raise OpenCLError(f"no OpenCL device {wanted} can build polymask's kernels:\n{detail}\n{INSTALL_HINT}")


def _first_error_line(log: str) -> str:
    for line in log.splitlines():
        if "error" in line.lower():
            return line.strip()
    return log.strip().splitlines()[0] if log.strip() else ""


_best: object = None


def _best_device():
    """GPU before accelerator before CPU, fp64 first, most compute units first; must build the kernels."""
    global _best
    if _best is None:
        _best = _first_that_builds(devices(), "here")
    return _best


def _listing() -> str:
    found = devices()
    if not found:
        return "there are none"
    return "devices here: " + "; ".join(f"{info.key} = {info.name!r} ({info.platform})" for info in found)


_TYPE_SPEC = re.compile(r"^(gpu|cpu|accelerator|acc)(?::(\d+))?$")
_INDEX_SPEC = re.compile(r"^(\d+)(?::(\d+))?$")


def _device_from_string(spec: str, source: str):
    text = spec.strip().lower()
    found = devices()
    expected = ("expected 'gpu', 'cpu' or 'accelerator' (optionally ':N' for the N-th of that type), "
                "'PLATFORM:DEVICE' numbers as in PYOPENCL_CTX, or part of a device or platform name")
    match = _TYPE_SPEC.match(text)
    if match:
        kind = "accelerator" if match.group(1) == "acc" else match.group(1)
        of_type = [info for info in found if info.type == kind]
        if match.group(2) is None:
            if not of_type:
                raise ValueError(f"{source} = {spec!r}: no {kind} device here; {_listing()}")
            return _first_that_builds(of_type, f"of type {kind}")
        index = int(match.group(2))
        if index >= len(of_type):
            raise ValueError(f"{source} = {spec!r}: there are {len(of_type)} {kind} devices, "
                             f"so the index must be below {len(of_type)}; {_listing()}")
        return of_type[index].device
    match = _INDEX_SPEC.match(text)
    if match:
        # PYOPENCL_CTX's numbering: platforms as the ICD loader lists them.
        platform_index, device_index = int(match.group(1)), int(match.group(2) or 0)
        by_platform = {}
        for info in found:
            by_platform.setdefault(info.device.platform.int_ptr, []).append(info)
        try:
            platforms = cl.get_platforms()
        except cl.Error:
            platforms = []
        if platform_index >= len(platforms) or device_index >= len(by_platform.get(platforms[platform_index].int_ptr, [])):
            raise ValueError(f"{source} = {spec!r}: no platform {platform_index} with a device "
                             f"{device_index}; {_listing()}")
        return by_platform[platforms[platform_index].int_ptr][device_index].device
    named = [info for info in found if text and (text in info.name.lower() or text in info.platform.lower())]
    if named:
        return _first_that_builds(named, f"matching {spec!r}")
    raise ValueError(f"{source} = {spec!r} names no OpenCL device; {expected}; {_listing()}")


def select_device(device=None):
    """The pyopencl.Device to use.

    `device` may be a pyopencl.Device, a DeviceInfo, or a string: "gpu",
    "cpu", "accelerator" (the best of that type), "gpu:1" (the second GPU,
    counted across platforms as devices() lists them), "0:1" (platform 0,
    device 1, as in PYOPENCL_CTX), or part of a device or platform name.
    None means $POLYMASK_DEVICE, then $PYOPENCL_CTX, then the best device
    here that builds the kernels (GPU, accelerator, CPU; fp64 first).
    """
    _require_pyopencl()
    if device is None:
        for variable in (DEVICE_ENV, PYOPENCL_ENV):
            spec = os.environ.get(variable, "").strip()
            if spec:
                return _device_from_string(spec, f"${variable}")
        if not devices():
            raise OpenCLUnavailable(f"no OpenCL platform with a device was found; {INSTALL_HINT}")
        return _best_device()
    if isinstance(device, cl.Device):
        return device
    if isinstance(device, DeviceInfo):
        return device.device
    if isinstance(device, str):
        return _device_from_string(device, "device")
    raise TypeError(f"device must be None, a pyopencl.Device, a DeviceInfo or a string such as 'cpu' "
                    f"or 'gpu:1', got {device!r} (type {type(device).__name__})")


def describe_default_device() -> str:
    """One line on the device the OpenCL backend would use, or why there is none."""
    reason = unavailable_reason()
    if reason is not None:
        return f"none ({reason.splitlines()[0]})"
    device = select_device()
    return (f"{device.name.strip()} ({_type_name(device)}, {device.max_compute_units} compute units, "
            f"fp64: {'yes' if _has_fp64(device) else 'no'}; {device.platform.version.strip()})")


def _require_pyopencl():
    if cl is None:
        raise OpenCLUnavailable(f"PyOpenCL cannot be imported ({_PYOPENCL_IMPORT_ERROR}); {INSTALL_HINT}")
    if os.environ.get(OPENCL_ENV, "").strip() == "0":
        raise OpenCLUnavailable(f"OpenCL is turned off by {OPENCL_ENV}=0; unset it to use an OpenCL device")


_contexts: dict = {}
_contexts_lock = threading.Lock()

# OpenCL runtimes do not survive fork(): a child forked after a context
# existed inherits handles to driver threads and device state that stayed in
# the parent (PoCL's pthread device hangs there).  The child gets a clear
# error instead of a hang.
_forked_after_use = False


def _after_fork_in_child():
    global _forked_after_use
    if _contexts:
        _forked_after_use = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _check_not_forked():
    if _forked_after_use:
        raise OpenCLError(
            "this process was forked from one that had already used OpenCL, and OpenCL runtimes do "
            "not survive fork(); use the 'spawn' or 'forkserver' start method "
            "(multiprocessing.get_context('spawn')), or use OpenCL only after forking")


def _context_for(device):
    """One context per device, shared by every engine on it (programs are per context)."""
    _check_not_forked()
    with _contexts_lock:
        context = _contexts.get(device.int_ptr)
        if context is None:
            try:
                context = cl.Context([device])
            except cl.Error as error:
                raise OpenCLError(f"creating a context on device {_device_label(device)} failed: {error}") from None
            _contexts[device.int_ptr] = context
        return context


def resolve_precision(precision: str, device) -> bool:
    """True for double, False for float32: "auto" is double where the device has fp64."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}, got {precision!r}")
    fp64 = _has_fp64(device)
    if precision == "double" and not fp64:
        raise OpenCLError(f"precision='double' needs fp64, which device {_device_label(device)} lacks; "
                          "use precision='single' (see polymask.opencl.SINGLE_PRECISION_NOTE) or another device")
    return fp64 if precision == "auto" else precision == "double"


# ---- the engine -----------------------------------------------------------------------------


def _seconds(event) -> float:
    return (event.profile.end - event.profile.start) * 1e-9


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


class MaskEngine:
    """Masks on one OpenCL device, with the program and buffers kept between calls.

    >>> engine = MaskEngine("cpu")                       # doctest: +SKIP
    >>> engine.mask([(1, 1), (9, 2), (5, 8)], (10, 10))  # doctest: +SKIP

    The program is built once per device, kernel and precision (shared by
    every engine in the process).  The polygon and the mask live in device
    buffers that grow when needed and are reused otherwise, so repeated
    masks of one size pay neither allocation nor compilation.  `enqueue`
    returns at once with the kernel's event; `result` waits and copies the
    mask back.  An engine is not meant to be shared by threads without a
    lock: it serialises its own calls with one.
    """

    #: Work-group shapes: (16, 4) pixels, 64 rows.  Any image size works:
    #: the NDRange is rounded up and the kernels skip the extra work-items.
    PIXEL_GROUP = (16, 4)
    SCANLINE_GROUP = 64

    def __init__(self, device=None, *, precision: str = "auto", profiling: bool = False):
        self.device = select_device(device)
        self.use_double = resolve_precision(precision, self.device)
        self.precision = "double" if self.use_double else "single"
        self.dtype = np.dtype(np.float64 if self.use_double else np.float32)
        self.profiling = bool(profiling)
        self.context = _context_for(self.device)
        properties = cl.command_queue_properties.PROFILING_ENABLE if self.profiling else 0
        try:
            self.queue = cl.CommandQueue(self.context, self.device, properties=properties)
        except cl.Error as error:
            raise OpenCLError(f"creating a command queue on device {_device_label(self.device)} "
                              f"failed: {error}") from None
        #: Compilations and device-buffer allocations this engine caused (for tests and curiosity).
        self.builds = 0
        self.allocations = 0
        self._kernels = {}
        self._d_vertices = None
        self._d_mask = None
        self._h_vertices = None  # kept alive until its non-blocking upload is done
        self._shape = None
        self._events = {}
        self._lock = threading.RLock()

    def __repr__(self):
        return f"MaskEngine(device={self.device.name.strip()!r}, precision={self.precision!r})"

    # -- pieces --

    def _kernel(self, kernel: str):
        """The cl.Kernel object for `kernel`, built once (per process) and kept by this engine."""
        found = self._kernels.get(kernel)
        if found is None:
            before = build_count()
            program = _program(self.device, kernel, self.use_double)
            self.builds += build_count() - before
            found = cl.Kernel(program, _kernel_entry(kernel)[1])
            self._kernels[kernel] = found
        return found

    def _buffer(self, current, nbytes: int, flags, what: str):
        """`current` if it holds `nbytes`, else a new, larger device buffer."""
        nbytes = max(nbytes, 16)  # OpenCL forbids empty buffers
        if current is not None and current.size >= nbytes:
            return current
        if nbytes > self.device.max_mem_alloc_size:
            raise OpenCLError(
                f"the {what} needs {nbytes:,} bytes, but device {_device_label(self.device)} allows at most "
                f"{self.device.max_mem_alloc_size:,} bytes per buffer; use a smaller image or polymask.mask")
        try:
            buffer = cl.Buffer(self.context, flags, nbytes)
        except cl.Error as error:
            raise OpenCLError(f"allocating {nbytes:,} bytes for the {what} on device "
                              f"{_device_label(self.device)} failed: {error}") from None
        self.allocations += 1
        return buffer

    def _launch(self, kernel: str, d_vertices, n_vertices: int, d_mask, shape, wait_for):
        rows, cols = shape
        program_kernel = self._kernel(kernel)
        limit = program_kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, self.device)
        if kernel == "pixel":
            group_cols = min(self.PIXEL_GROUP[0], limit)
            local = (group_cols, max(1, min(self.PIXEL_GROUP[1], limit // group_cols)))
            global_size = (_round_up(cols, local[0]), _round_up(rows, local[1]))
        else:
            local = (min(self.SCANLINE_GROUP, limit),)
            global_size = (_round_up(rows, local[0]),)
        program_kernel.set_args(d_vertices, np.int32(n_vertices), d_mask, np.int32(rows), np.int32(cols))
        try:
            return cl.enqueue_nd_range_kernel(self.queue, program_kernel, global_size, local, wait_for=wait_for)
        except cl.Error as error:
            raise OpenCLError(f"running kernel {kernel!r} ({global_size} work-items in groups of {local}) on "
                              f"device {_device_label(self.device)} failed: {error}") from None

    def _check_size(self, shape):
        rows, cols = shape
        if rows * cols > self.device.max_mem_alloc_size:
            raise OpenCLError(
                f"a {rows}x{cols} mask needs {rows * cols:,} bytes, but device {_device_label(self.device)} "
                f"allows at most {self.device.max_mem_alloc_size:,} bytes per buffer; "
                "use a smaller image or polymask.mask")

    # -- host vertices, resident output --

    def enqueue(self, vertices, shape, *, kernel: str = "pixel"):
        """Upload the polygon and start the kernel; return its event without waiting.

        The mask stays in the engine's device buffer until `result()`.
        """
        _check_not_forked()
        coordinates = as_vertices(vertices)
        shape = as_shape(shape)
        _kernel_entry(kernel)
        self._check_size(shape)
        with np.errstate(over="ignore"):  # float32 rounds huge coordinates to inf, like the device would
            h_vertices = np.ascontiguousarray(coordinates, dtype=self.dtype)
        with self._lock:
            self._d_vertices = self._buffer(self._d_vertices, h_vertices.nbytes, cl.mem_flags.READ_ONLY,
                                            "polygon")
            self._d_mask = self._buffer(self._d_mask, shape[0] * shape[1], cl.mem_flags.READ_WRITE, "mask")
            self._events = {}
            wait_for = None
            if len(h_vertices):
                self._h_vertices = h_vertices
                upload = cl.enqueue_copy(self.queue, self._d_vertices, h_vertices, is_blocking=False)
                self._events["upload"] = upload
                wait_for = [upload]
            event = self._launch(kernel, self._d_vertices, len(h_vertices), self._d_mask, shape, wait_for)
            self._events["kernel"] = event
            self._shape = shape
            return event

    def result(self, out=None) -> np.ndarray:
        """Wait for the last `enqueue` and copy its mask back (into `out` if given)."""
        with self._lock:
            if self._shape is None:
                raise RuntimeError("result() needs a mask: call enqueue(vertices, shape) first")
            result, buffer = output_buffer(out, self._shape)
            _wait_in_python(self._events["kernel"])
            try:
                download = cl.enqueue_copy(self.queue, buffer, self._d_mask,
                                           wait_for=[self._events["kernel"]], is_blocking=True)
            except cl.Error as error:
                raise OpenCLError(f"copying a {self._shape} mask back from device "
                                  f"{_device_label(self.device)} failed: {error}") from None
            self._events["download"] = download
            self._h_vertices = None
            return result

    def mask(self, vertices, shape, *, kernel: str = "pixel", out=None):
        """The mask of `vertices` on a `shape` image.

        Host vertices give a NumPy bool array (copied back).  A
        pyopencl.array.Array of vertices gives a pyopencl.array.Array of
        bool that stays on the device (compute follows data).
        """
        if _is_device_array(vertices):
            if out is not None:
                raise ValueError("out= is for host results; device-resident vertices give a device array")
            return self.mask_on_device(vertices, shape, kernel=kernel)
        with self._lock:
            self.enqueue(vertices, shape, kernel=kernel)
            return self.result(out)

    # -- device-resident vertices and result --

    def mask_on_device(self, d_vertices, shape, *, kernel: str = "pixel"):
        """The mask as a new pyopencl.array.Array of bool, computed from device-resident vertices.

        `d_vertices` is an (N, 2) pyopencl.array.Array of float32 or float64
        in this engine's context.  Nothing is copied to or from the host.
        Device data is not checked for finite values (that would need a
        copy back); the kernels give some mask for them, not an error.
        """
        import pyopencl.array as cl_array

        shape = as_shape(shape)
        _kernel_entry(kernel)
        if not _is_device_array(d_vertices):
            raise TypeError(f"d_vertices must be a pyopencl.array.Array, got {type(d_vertices).__name__}")
        if d_vertices.ndim != 2 or d_vertices.shape[1] != 2:
            raise ValueError(f"vertices must have shape (N, 2) of (x, y) pairs, got a device array of "
                             f"shape {d_vertices.shape}")
        if d_vertices.dtype not in (np.float32, np.float64):
            raise TypeError(f"device vertices must be float32 or float64, got dtype {d_vertices.dtype}")
        if d_vertices.context != self.context:
            raise ValueError(f"the vertices live in another OpenCL context (device "
                             f"{d_vertices.queue.device.name.strip() if d_vertices.queue else '?'!r}); this "
                             f"engine runs on device {_device_label(self.device)}")
        if not d_vertices.flags.c_contiguous:
            raise ValueError("device vertices must be C-contiguous; pass d_vertices.copy()")
        self._check_size(shape)
        with self._lock:
            wait_for = list(d_vertices.events)
            if d_vertices.dtype != self.dtype or d_vertices.offset:
                # A conversion (or an offset view's copy) on the device: still no host round trip.
                d_vertices = d_vertices.astype(self.dtype, queue=self.queue)
                wait_for = list(d_vertices.events)
            n_vertices = d_vertices.shape[0]
            if n_vertices:
                vertex_buffer = d_vertices.base_data
            else:
                self._d_vertices = self._buffer(self._d_vertices, 16, cl.mem_flags.READ_ONLY, "polygon")
                vertex_buffer = self._d_vertices
            try:
                d_mask = cl_array.empty(self.queue, shape, dtype=np.bool_)
            except cl.Error as error:
                raise OpenCLError(f"allocating a {shape} mask on device {_device_label(self.device)} "
                                  f"failed: {error}") from None
            event = self._launch(kernel, vertex_buffer, n_vertices, d_mask.base_data, shape, wait_for or None)
            d_mask.add_event(event)
            self._events = {"kernel": event}
            return d_mask

    # -- profiling --

    def timings(self) -> dict:
        """Seconds of the last call, from OpenCL events: kernel, upload, download, transfer (= both)."""
        if not self.profiling:
            raise RuntimeError("timings() needs an engine made with profiling=True")
        if "kernel" not in self._events:
            raise RuntimeError("timings() needs a finished call: call mask() first")
        for event in self._events.values():
            event.wait()
        upload = _seconds(self._events["upload"]) if "upload" in self._events else 0.0
        download = _seconds(self._events["download"]) if "download" in self._events else 0.0
        return {"kernel_s": _seconds(self._events["kernel"]), "upload_s": upload, "download_s": download,
                "transfer_s": upload + download}


def _is_device_array(value) -> bool:
    if cl is None:
        return False
    # Only a caller who imported pyopencl.array can hold one: no need to import it here.
    array_module = sys.modules.get("pyopencl.array")
    return array_module is not None and isinstance(value, array_module.Array)


def _wait_in_python(event) -> None:
    """Wait for `event` in short sleeps, so Ctrl-C raises KeyboardInterrupt within milliseconds.

    A blocking wait inside the driver would hold Python's signal handlers
    until the kernel ends (seconds for a large per-pixel mask).  The kernel
    itself cannot be cancelled: after Ctrl-C it still runs to its end on
    the device, but nothing is returned.
    """
    while event.command_execution_status > 0:  # QUEUED, SUBMITTED, RUNNING; 0 done, < 0 failed
        time.sleep(0.0002)


# ---- module-level conveniences ------------------------------------------------------------

_engines: dict = {}
_engines_lock = threading.Lock()


def engine(device=None, precision: str = "auto") -> MaskEngine:
    """The process's shared engine for (device, precision), made on first use."""
    _check_not_forked()
    chosen = select_device(device)
    key = (chosen.int_ptr, precision)
    with _engines_lock:
        found = _engines.get(key)
        if found is None:
            found = MaskEngine(chosen, precision=precision)
            _engines[key] = found
        return found


def mask(vertices, shape, *, kernel: str = "pixel", precision: str = "auto", device=None, out=None):
    """The mask on an OpenCL device through the shared engine (see MaskEngine.mask)."""
    return engine(device, precision).mask(vertices, shape, kernel=kernel, out=out)


def profile(vertices, shape, *, kernel: str = "pixel", precision: str = "auto", repeats: int = 5,
            device=None) -> dict:
    """Kernel and transfer time of one mask, medians over `repeats` calls, from OpenCL events.

    One untimed call first builds the program and allocates the buffers.
    transfer_s is the polygon's upload plus the mask's download.  Returns
    kernel_s, transfer_s, upload_s, download_s (seconds), and the device,
    kernel, precision, shape and repeats.
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}")
    profiled = MaskEngine(device, precision=precision, profiling=True)
    profiled.mask(vertices, shape, kernel=kernel)  # warm-up: build and allocate
    samples = []
    for _ in range(repeats):
        profiled.mask(vertices, shape, kernel=kernel)
        samples.append(profiled.timings())
    report = {name: statistics.median(sample[name] for sample in samples) for name in samples[0]}
    report.update(device=profiled.device.name.strip(), platform=profiled.device.platform.name.strip(),
                  kernel=kernel, precision=profiled.precision, shape=tuple(as_shape(shape)),
                  repeats=repeats)
    return report
