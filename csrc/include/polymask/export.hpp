// export.hpp -- POLYMASK_API marks the core's public C++ API.
//
// The core library (libpolymask_core) is built with hidden visibility
// (-fvisibility=hidden, -fvisibility-inlines-hidden): a symbol leaves it only
// where a public header in include/polymask/ marks it POLYMASK_API.  Classes
// are marked as classes, so their typeinfo and vtables are visible too: an
// exception type thrown in the core (Interrupted) must be the same type in an
// extension module that catches it.  Internals (namespace detail, the headers
// beside the sources) stay inside the library.
#pragma once

#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(POLYMASK_BUILDING_CORE)
#define POLYMASK_API __declspec(dllexport)
#else
#define POLYMASK_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define POLYMASK_API __attribute__((visibility("default")))
#else
#define POLYMASK_API
#endif

// POLYMASK_HIDDEN keeps a private part of a POLYMASK_API class inside the
// library.  A member or a nested class takes the visibility of the class
// around it, not the -fvisibility=hidden default, so without it the private
// parts (Polygon::build, LabelIndex::Parts, PointIndex::Bands) would be
// exported, internal types in their signatures and all
// (csrc/tests/check_exports.cmake refuses that).
#if defined(__GNUC__) || defined(__clang__)
#define POLYMASK_HIDDEN __attribute__((visibility("hidden")))
#else
#define POLYMASK_HIDDEN
#endif
