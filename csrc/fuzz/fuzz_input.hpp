// fuzz_input.hpp -- how fuzz_core.cpp reads its bytes: a Reader that yields
// zeros past the end, and coordinates drawn from grids near the window, raw
// bit patterns and a table of special values.  Included by fuzz_core.cpp
// alone, so its helpers stay in an unnamed namespace.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "polymask/core.hpp"
#include "polymask/coverage.hpp"
#include "polymask/points.hpp"
#include "polymask/rasterize.hpp"
#include "polymask/rle.hpp"

namespace {

using polymask::FillRule;
using polymask::Polygon;
using polymask::Window;

// Reads the fuzz input front to back; past the end it yields zeros, so a
// short input is still a valid (small) case rather than a rejected one.
class Reader {
public:
    Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}

    uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }

    // The bytes not read yet, as text.
    std::string rest()
    {
        std::string text(reinterpret_cast<const char *>(data_) + std::min(pos_, size_),
                         size_ - std::min(pos_, size_));
        pos_ = size_;
        return text;
    }

    template <class T>
    T raw()
    {
        unsigned char bytes[sizeof(T)] = {};
        for (unsigned char &b : bytes) b = byte();
        T value;
        std::memcpy(&value, bytes, sizeof(T));
        return value;
    }

private:
    const uint8_t *data_;
    size_t size_;
    size_t pos_ = 0;
};

// Values that break naive arithmetic: the fuzzer reaches them by index
// instead of having to guess a whole 8-byte pattern.
const double kSpecial[] = {
    std::numeric_limits<double>::quiet_NaN(),
    -std::numeric_limits<double>::quiet_NaN(),
    std::numeric_limits<double>::infinity(),
    -std::numeric_limits<double>::infinity(),
    std::numeric_limits<double>::max(),
    -std::numeric_limits<double>::max(),
    std::numeric_limits<double>::min(),         // smallest normal
    std::numeric_limits<double>::denorm_min(),  // smallest subnormal
    -std::numeric_limits<double>::denorm_min(),
    0.0,
    -0.0,
    1e300,
    -1e300,
    1e-300,
    9007199254740992.0,    // 2^53: the last exact integer step
    9223372036854775808.0, // 2^63: just outside int64
    -9223372036854775808.0,
    0.5,
    0.49999999999999994,   // nextafter(0.5, 0)
    2147483647.0,          // the Python API's largest side
};
constexpr unsigned kSpecialCount = sizeof(kSpecial) / sizeof(kSpecial[0]);

// One coordinate.  `origin` is the window's row0 or col0, so grid values
// land on and around the window however far it is from the image origin.
double read_coordinate(Reader &in, double origin)
{
    const uint8_t tag = in.byte();
    switch (tag % 8) {
    case 0: case 1: case 2: case 3:  // half-integer grid near the window: the common case
        return origin + static_cast<int8_t>(in.byte()) * 0.5;
    case 4:  // any bit pattern at all
        return in.raw<double>();
    case 5:
        return kSpecial[in.byte() % kSpecialCount];
    case 6:  // a fine grid (1/256) near the window: many near-ties with pixel centres
        return origin + in.raw<int16_t>() / 256.0;
    default:  // a float32 bit pattern widened: another family of odd values
        return static_cast<double>(in.raw<float>());
    }
}

}  // namespace
