// build_info.cpp -- how this core was compiled, so users can ask.
#ifdef _OPENMP
#include <omp.h>
#endif

#include "polymask/core.hpp"

#ifndef POLYMASK_VERSION
#define POLYMASK_VERSION "unknown"
#endif
#ifndef POLYMASK_COMPILER
#define POLYMASK_COMPILER "unknown"
#endif
#ifndef POLYMASK_BUILD_TYPE
#define POLYMASK_BUILD_TYPE "unknown"
#endif

namespace polymask {

BuildInfo build_info()
{
    BuildInfo info;
    info.version = POLYMASK_VERSION;
    info.compiler = POLYMASK_COMPILER;
    info.build_type = POLYMASK_BUILD_TYPE;
#ifdef _OPENMP
    info.openmp = true;
    info.openmp_version = _OPENMP;
#endif
    info.max_threads = default_threads();
    info.threading = "polymask thread pool (std::thread, dynamic chunks, fork-safe)";
    info.thread_cap = thread_cap();
    return info;
}

}  // namespace polymask
