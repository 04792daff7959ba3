"""Where the installed C++ core lives: its headers and its shared library.

CMake installs both into the package (src/polymask/CMakeLists.txt:
``polymask/include`` and ``polymask/lib``), so a Cython or C++ extension
built outside polymask can include ``polymask/core.hpp`` and link the very
``libpolymask_core`` that polymask's own modules link, sharing its thread
pool, its thread cap and its Ctrl-C hook.
"""
from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def get_include() -> str:
    """The folder holding the C++ core's public headers (``polymask/core.hpp``, ``polymask/crossing.h``).

    Pass it to the compiler (``-I``) to build C++ or Cython code against
    the core.

    Returns
    -------
    str
        The folder's path.

    Raises
    ------
    FileNotFoundError
        If the headers are not installed (a broken install).

    Examples
    --------
    >>> import os, polymask
    >>> os.path.isfile(os.path.join(polymask.get_include(), "polymask", "core.hpp"))
    True
    """
    folder = PACKAGE_DIR / "include"
    if not (folder / "polymask" / "core.hpp").is_file():
        raise FileNotFoundError(f"polymask's C++ headers are not installed in {folder}; they are "
                                "installed by CMake (src/polymask/CMakeLists.txt), so reinstall polymask")
    return str(folder)


def get_library_dirs() -> list[str]:
    """The folders holding the core's shared library (link with ``-lpolymask_core``).

    A module linked against it must also find it at run time: add these
    folders to its run-time search path (``-Wl,-rpath,FOLDER``).

    Returns
    -------
    list of str
        The folders' paths.

    Raises
    ------
    FileNotFoundError
        If the library is not installed (a broken install).

    Examples
    --------
    >>> import glob, os, polymask
    >>> [bool(glob.glob(os.path.join(folder, "*polymask_core*")))
    ...  for folder in polymask.get_library_dirs()]
    [True]
    """
    folder = PACKAGE_DIR / "lib"
    if not any(folder.glob("*polymask_core*")):
        raise FileNotFoundError(f"polymask's core library is not installed in {folder}; it is "
                                "installed by CMake (src/polymask/CMakeLists.txt), so reinstall polymask")
    return [str(folder)]
