"""The See Also section of every public function and class of the library, kept in one table.

Each reference page ends its description with the functions a reader weighs
against this one (the sibling for many polygons, the lazy or device version,
the peer library's equivalent); the table below is where those relations live, so
one place says how the API hangs together and nothing drifts between pages.
Before numpydoc reads a docstring, the hook puts the entry's section in front of
its Examples; numpydoc then renders and links it like a section written in
the docstring.  Names of other libraries link through intersphinx (docs/conf.py);
``tests/test_see_also.py`` checks that every public function has an entry.
"""
from __future__ import annotations

_POLYGONS = "polymask.rasterize : Many polygons as one label image."
_DASK = "polymask.dask.mask : The same mask as a lazy Dask array, block by block."

#: Public name -> its See Also lines, in numpydoc's ``name : description`` form.
SEE_ALSO: dict[str, list[str]] = {
    # polymask
    "polymask.mask": [
        "polymask.masks : One mask (or a cropped one) per polygon.", _POLYGONS,
        "polymask.coverage : The share of each pixel's cell inside, not just in or out.",
        "polymask.contains : The same rule at any points, not only on a pixel grid.", _DASK,
        "polymask.opencl.mask : The same mask on an OpenCL device.",
        "rasterio.features.geometry_mask : The mask in rasterio, cells sampled at their centres.",
    ],
    "polymask.masks": [
        "polymask.mask : One polygon's mask.", _POLYGONS,
        "polymask.Crop : A cropped mask and where it sits in the image.",
        "polymask.coco.encode : The masks as COCO run-length encodings, without dense masks.",
    ],
    "polymask.Crop": [
        "polymask.masks : Makes them with ``crop=True``.",
        "polymask.coverages : Fractions cropped the same way.",
    ],
    "polymask.rasterize": [
        "polymask.masks : One mask per polygon instead of one label image.",
        "polymask.dask.rasterize : The same label image as a lazy Dask array.",
        "polymask.xarray.mask_2d : Region numbers on lon/lat and georeferenced grids.",
        "rasterio.features.rasterize : The label image in rasterio, under GDAL's rules.",
    ],
    "polymask.coverage": [
        "polymask.coverages : Cropped fractions for many polygons.",
        "polymask.mask : In or out; ``all_touched=\"exact\"`` is ``coverage > 0``.",
        "polymask.dask.coverage : The same fractions as a lazy Dask array.",
    ],
    "polymask.coverages": [
        "polymask.coverage : One polygon's fractions on the whole image.",
        "polymask.masks : In or out, cropped the same way.",
    ],
    "polymask.contains": [
        "polymask.contains_labels : Which of many polygons holds each point.",
        "polymask.mask : The same rule on a pixel grid.",
        "shapely.contains_xy : The test of points against a geometry in shapely.",
    ],
    "polymask.contains_labels": [
        "polymask.contains : One polygon, True or False per point.", _POLYGONS,
    ],
    "polymask.threads": [
        "polymask.build_info : The thread cap and how the fills are threaded.",
    ],
    "polymask.build_info": [
        "polymask.available_backends : Which backends run here, and why not.",
        "polymask.threads : The default thread count of the fills.",
    ],
    "polymask.available_backends": [
        "polymask.mask : Runs a backend by its id with ``backend=``.",
        "polymask.build_info : How this polymask was built.",
    ],
    "polymask.get_include": [
        "polymask.get_library_dirs : Where the core library to link lies.",
    ],
    "polymask.get_library_dirs": [
        "polymask.get_include : Where the core's headers lie.",
    ],
    # polymask.coco
    "polymask.coco.encode": [
        "polymask.coco.decode : The dense masks of encodings.",
        "polymask.coco.area : Each encoding's pixel count.",
        "polymask.masks : Dense masks of the same polygons.",
    ],
    "polymask.coco.decode": [
        "polymask.coco.encode : Encodings straight from polygons.",
    ],
    "polymask.coco.area": [
        "polymask.coco.iou : Overlap of two sets of encodings.",
        "polymask.coco.encode : Encodings straight from polygons.",
    ],
    "polymask.coco.iou": [
        "polymask.coco.area : Each encoding's pixel count.",
        "polymask.coco.merge : Union or intersection of encodings.",
    ],
    "polymask.coco.merge": [
        "polymask.coco.iou : Overlap of two sets of encodings.",
        "polymask.coco.area : Each encoding's pixel count.",
    ],
    # polymask.dask
    "polymask.dask.mask": [
        "polymask.mask : The same mask in memory; ``window=`` fills one block.",
        "dask.array.Array : What is returned.",
        "dask.array.to_zarr : Stores the blocks as they are computed.",
    ],
    "polymask.dask.rasterize": [
        "polymask.rasterize : The same label image in memory.",
        "polymask.dask.mask : One polygon's lazy mask.",
    ],
    "polymask.dask.coverage": [
        "polymask.coverage : The same fractions in memory.",
        "polymask.dask.mask : One polygon's lazy mask.",
    ],
    # polymask.xarray
    "polymask.xarray.mask": [
        "polymask.xarray.mask_2d : Region numbers of many polygons.",
        "polymask.contains : The same rule at any points.",
        "xarray.DataArray : What is returned.",
    ],
    "polymask.xarray.mask_2d": [
        "polymask.xarray.mask_3d : One boolean layer per region, for overlapping regions.",
        "polymask.rasterize : Label images on a pixel grid.",
    ],
    "polymask.xarray.mask_3d": [
        "polymask.xarray.mask_2d : One number per grid point.",
        "polymask.masks : One mask per polygon on a pixel grid.",
    ],
    # polymask.opencl
    "polymask.opencl.mask": [
        "polymask.mask : The same mask from the CPU core.",
        "polymask.opencl.MaskEngine : A device's program and buffers, kept between calls.",
        "polymask.opencl.unpack : The bool mask of a packed result.",
    ],
    "polymask.opencl.MaskEngine": [
        "polymask.opencl.engine : The process's shared engine for a device.",
        "polymask.opencl.mask : One mask through the shared engine.",
    ],
    "polymask.opencl.engine": [
        "polymask.opencl.MaskEngine : What is returned.",
        "polymask.opencl.release : Frees every shared engine's buffers.",
    ],
    "polymask.opencl.release": [
        "polymask.opencl.engine : Makes the shared engines.",
    ],
    "polymask.opencl.unpack": [
        "polymask.opencl.mask : Packs with ``packed=True``.",
        "numpy.unpackbits : The same unpacking for one row.",
    ],
    "polymask.opencl.profile": [
        "polymask.opencl.MaskEngine.timings : The last call's kernel and transfer times.",
    ],
    "polymask.opencl.devices": [
        "polymask.opencl.DeviceInfo : What is listed for each device.",
        "polymask.opencl.select_device : The device a call uses.",
    ],
    "polymask.opencl.DeviceInfo": [
        "polymask.opencl.devices : Lists them.",
    ],
    "polymask.opencl.select_device": [
        "polymask.opencl.devices : Every device here.",
        "polymask.opencl.describe_default_device : The default device in a line.",
    ],
    "polymask.opencl.describe_default_device": [
        "polymask.opencl.select_device : The device itself.",
    ],
    "polymask.opencl.available": [
        "polymask.opencl.unavailable_reason : Why not, when it is not.",
        "polymask.opencl.require : Raises with the reason instead.",
    ],
    "polymask.opencl.unavailable_reason": [
        "polymask.opencl.available : The same answer as a bool.",
    ],
    "polymask.opencl.require": [
        "polymask.opencl.available : The same check, as a bool.",
    ],
    "polymask.opencl.kernel_dir": [
        "polymask.opencl.kernel_source : One kernel's source.",
    ],
    "polymask.opencl.kernel_source": [
        "polymask.opencl.kernel_dir : The folder of the kernel files.",
        "polymask.opencl.build_program : Builds OpenCL C source for a device.",
    ],
    "polymask.opencl.build_program": [
        "polymask.opencl.build_options : The options it builds with.",
        "polymask.opencl.kernel_source : The source of polymask's kernels.",
    ],
    "polymask.opencl.build_options": [
        "polymask.opencl.build_program : Builds with them.",
    ],
    "polymask.opencl.single_precision_tolerance": [
        "polymask.opencl.mask : Computes in float32 with ``precision=\"single\"``.",
    ],
}


def _insert_see_also(app, what, name, obj, options, lines):
    entry = SEE_ALSO.get(name)
    if not entry or any(line.strip() == "See Also" for line in lines):
        return
    section = ["See Also", "--------", *entry, ""]
    for index in range(len(lines) - 1):
        if lines[index].strip() in ("Notes", "References", "Examples") and set(lines[index + 1].strip()) == {"-"}:
            lines[index:index] = section
            return
    lines.extend(["", *section])


def setup(app):
    app.connect("autodoc-process-docstring", _insert_see_also, priority=300)  # before numpydoc (500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
