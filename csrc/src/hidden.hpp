// hidden.hpp -- POLYMASK_HIDDEN: keeps a class nested in an exported one
// inside the core library.
//
// A nested class takes the visibility of the class around it, not the
// -fvisibility=hidden default, so the private parts of a POLYMASK_API class
// (LabelIndex::Parts, PointIndex::Bands) would be exported, internal types
// in their signatures and all (csrc/tests/check_exports.cmake refuses that).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define POLYMASK_HIDDEN __attribute__((visibility("hidden")))
#else
#define POLYMASK_HIDDEN
#endif
