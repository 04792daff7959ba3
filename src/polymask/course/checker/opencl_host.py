"""Exercise 07's host side: the learner's kernel built through polymask.opencl, as mask(vertices, shape).

The learner writes only the kernel (a .cl file); this module, run inside
the worker, builds it with the precision switch and ``precision.h`` -- not
polymask's own kernels or its crossing predicate -- and launches it one work-item per pixel on a mask buffer
that starts as 2s, so a pixel the kernel never wrote is seen.  The checker's
window probe (some work-items only, at an offset) runs a build in which the
launch's size reads as the whole image (see launch_claims).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

#: Name of the kernel a .cl exercise must define.
OPENCL_KERNEL = "mask_pixel"


def precision_folder(kernel_dir) -> Path:
    """A folder holding only polymask's precision.h (in the build cache), the one header 07 hands out."""
    import hashlib

    from polymask.course.build import cache_dir

    text = (Path(kernel_dir) / "precision.h").read_text(encoding="utf-8")
    folder = cache_dir() / f"learner-cl-include-{hashlib.sha256(text.encode()).hexdigest()[:16]}"
    if not (folder / "precision.h").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f"precision.h.{os.getpid()}.partial"
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, folder / "precision.h")
    return folder


def launch_claims(rows: int, cols: int) -> str:
    """Lines put before the kernel in the window probe's build: the launch's size reads as the whole image.

    A kernel whose one work-item computes the range the launch covers, found from
    get_global_size or get_num_groups, then computes the whole image and writes
    outside the window; a kernel that computes its own pixel from get_global_id
    never asks, and is built and runs as before (``#line 1`` keeps its line numbers).
    """
    size = f"((size_t)((d) == 0 ? {int(cols)} : (d) == 1 ? {int(rows)} : 1))"
    return (f"#define get_global_size(d) {size}\n#define get_num_groups(d) ({size} / get_local_size(d))\n"
            "#line 1\n")


def opencl_mask_function(path):
    """Build the learner's kernel through polymask.opencl's engine; a host mask(vertices, shape)."""
    import pyopencl as cl

    from polymask import opencl

    path = Path(path)
    # precision="double" refuses a device without fp64, with a message naming it.
    engine = opencl.MaskEngine(precision="double")
    # polymask's own kernels and its crossing predicate stay out of reach: only precision.h.
    options = [option for option in opencl.build_options(use_double=True) if not option.startswith("-I")]
    options = [option for option in options if option != str(opencl.kernel_dir())]
    options = ["-I", str(precision_folder(opencl.kernel_dir())), *options]
    text = path.read_text(encoding="utf-8")
    program = opencl.build_program(text, engine.device, options=options, label=str(path))
    names = program.get_info(cl.program_info.KERNEL_NAMES).split(";")
    if OPENCL_KERNEL not in names:
        raise LookupError(f"{path} defines no kernel named {OPENCL_KERNEL!r}; it defines: "
                          f"{', '.join(n for n in names if n) or 'no kernel at all'}")
    kernel = getattr(program, OPENCL_KERNEL)
    context, command_queue = engine.context, engine.queue
    unwritten = np.uint8(2)

    def mask(vertices, shape, window=None):
        """The kernel's mask; with `window` (row, col, rows, cols) only those work-items run, and the
        pixels they did not write stay 2 (the checker's one-work-item-per-pixel probe)."""
        rows, cols = shape
        h_xy = np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1)
        n_vertices = h_xy.size // 2
        if h_xy.size == 0:
            h_xy = np.zeros(2)  # an OpenCL buffer cannot be empty; n_vertices = 0 says there are none
        d_xy = cl.Buffer(context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=h_xy)
        h_mask = np.empty((rows, cols), dtype=np.uint8)
        d_mask = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, h_mask.nbytes)
        cl.enqueue_fill_buffer(command_queue, d_mask, unwritten, 0, h_mask.nbytes)
        size, offset = ((cols, rows), None) if window is None else \
            ((int(window[3]), int(window[2])), (int(window[1]), int(window[0])))
        launched = kernel if window is None else getattr(
            opencl.build_program(launch_claims(rows, cols) + text, engine.device, options=options, label=str(path)),
            OPENCL_KERNEL)
        launched(command_queue, size, None, d_xy, np.int32(n_vertices), d_mask, np.int32(rows), np.int32(cols),
                 global_offset=offset)
        cl.enqueue_copy(command_queue, h_mask, d_mask)
        command_queue.finish()
        if window is not None:
            return h_mask.view(bool)  # the 2s stay: the checker counts them
        bad = np.count_nonzero(h_mask > 1)
        if bad:
            raise ValueError(f"the kernel left {bad} of {h_mask.size} pixels unwritten (or wrote values "
                             "other than 0 and 1): every work-item must write mask[row * cols + col] = 0 or 1")
        return h_mask.view(bool)

    return mask
