// testing.hpp -- hooks for the C++ tests, internal to the core.
//
// Not under include/, not installed and not exported: the shared library
// hides them like any internal (check_exports.cmake fails if one leaves
// it), and the GoogleTest suites that call them link the same objects as
// the static polymask_core_internal (csrc/tests/CMakeLists.txt).
#pragma once

#include <cstdint>

namespace polymask {
namespace testing {

// Cut every fill into bands of exactly `rows` rows and use the asked thread
// count whatever the work (0 restores the work-based choice).  Returns the
// previous setting.  Masks must not depend on it.
int64_t set_chunk_rows_for_testing(int64_t rows);

// Whether fill_touched may mark cells with AVX2 where the CPU has it (false:
// the portable code everywhere); returns the previous value.
bool allow_touched_simd_for_testing(bool allowed);

}  // namespace testing
}  // namespace polymask
