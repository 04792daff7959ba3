// testing.hpp -- hooks for tests, exported by the core but not public.
//
// Not under include/ and not installed: a user of the core never sees
// them.  The GoogleTest suite and the Python binding (_core.pyx, for the
// Python tests) include this header from the source tree at build time;
// the functions are exported (POLYMASK_API) so both can call them in the
// shared library.
#pragma once

#include <cstdint>

#include "polymask/export.hpp"

namespace polymask {
namespace testing {

// Cut every fill into bands of exactly `rows` rows and use the asked thread
// count whatever the work (0 restores the work-based choice).  Returns the
// previous setting.  Masks must not depend on it.
POLYMASK_API int64_t set_chunk_rows_for_testing(int64_t rows);

// Whether fill_touched may mark cells with AVX2 where the CPU has it (false:
// the portable code everywhere); returns the previous value.
POLYMASK_API bool allow_touched_simd_for_testing(bool allowed);

}  // namespace testing
}  // namespace polymask
