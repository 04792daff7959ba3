# The types of the module CMake generates from _build_flags.py.in.
CXX_STANDARD: str
FP_FLAGS: list[str]
OPENMP_FLAGS: list[str]
CORE_USES_OPENMP: bool
CORE_X86_64_V2: bool
