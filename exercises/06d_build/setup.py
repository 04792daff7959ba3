"""Exercise 06d, the build: compile the given mask.pyx as C++ with OpenMP, optimised.

mask.pyx (given, do not edit it: the checker builds its own copy) is a typed
per-pixel loop whose rows ``prange`` splits over threads.  Cython turns it
into source code; this file decides what the compiler makes of that source.
Write the extension module "mask" from mask.pyx so that it is compiled as
C++, compiled and linked with OpenMP, optimised, and without fast-math
(the contract promises bit-for-bit results).  Stuck?  ``polymask check 06d --hint``.

Build it:  cd exercises/06d_build && python setup.py build_ext --inplace
Check it:  polymask check 06d exercises/06d_build/setup.py
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

# TODO: describe the extension module "mask" built from mask.pyx (language, compiler
# and linker flags) and give it, cythonized, to setup().
extension = Extension("mask", sources=["mask.pyx"])
setup(name="mask", ext_modules=cythonize([extension]))
