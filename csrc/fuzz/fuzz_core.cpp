// fuzz_core.cpp -- libFuzzer target for the C++ core (polygon + both fills).
//
// Built by scripts/fuzz.sh with clang++ -fsanitize=fuzzer,address,undefined.
// It drives Polygon, fill_per_pixel, fill_scanline and the label burn
// rasterize<uint8_t> (one polygon, value 1).  Each input is decoded into a polygon (vertices mixing small grid values with
// raw bit patterns: NaN, infinities, subnormals, huge values), optional ring
// splits, a small window anywhere in a +-2^31 plane, a fill rule and a thread
// count.  Then both fills run on it, and this target checks:
//
//   * nothing crashes and no sanitizer fires (the sanitizers do that part);
//   * only the documented exceptions come out, and only for the documented
//     reasons: std::invalid_argument for inconsistent ring ends or a negative
//     window, never for well-formed input;
//   * every byte of the window is written with 0 or 1, and the padding
//     between rows (row_stride > width) is never touched;
//   * when every coordinate is finite, the scanline fill equals the
//     per-pixel fill byte for byte, with one or two threads, and filling the
//     window in two halves equals filling it at once, and burning the
//     polygon into a cleared label image claims exactly the mask's pixels
//     (for non-finite input the burn is only checked for memory safety);
//   * with the even-odd rule, the scanline mask does not depend on the
//     thread count or on how the window is split, even for non-finite input.
//
// Non-finite input is outside the contract (polymask.mask rejects it), and
// the core promises only memory safety for it: a NaN vertex opens its ring,
// so a row's windings no longer sum to zero and the scanline's prefix count
// stops matching the per-pixel rule.  Under the nonzero rule the sweep then
// even depends on the order of tied crossings at +-inf, which differs from
// one band of rows to the next, so those checks are limited to finite input.
//
// The coverage sweep (coverage.hpp) is driven on the same input: it must
// refuse non-finite vertices and negative windows with invalid_argument and,
// for finite input, write every element of the window with a value in
// [0, 1] (never NaN) and no padding, give the same values with one or two
// threads and for the window cut in halves (rows and columns), and
// all_touched (fill_touched) must be exactly coverage > 0; so must the
// label burn of all_touched (rasterize_touched), and coverage_crops must
// equal coverage over the same window.
//
// The point predicate (points.hpp) is driven on the same finite input:
// contains_points at the window's pixel centres and contains_grid over the
// window's rows and columns must both be the scanline mask, and at probe
// points around every vertex (the vertex, the next double either way in x
// and in y), on every edge (its midpoint, and where it crosses the nearest
// integer row) contains_points must equal Polygon::contains, the per-pixel
// rule.
//
// The bytes left after the polygon are a COCO counts string
// (rle_decompress): it must be refused with invalid_argument or read, and
// what is read must survive rle_compress unchanged; merged with itself it
// covers the same pixels, and with its complement (the runs shifted by one)
// it intersects nowhere and unites into every pixel.
//
// Any failed check calls abort(), which libFuzzer reports as a crash and
// saves the input.  Windows are at most 40x40 and polygons at most 64
// vertices, so every input runs in well under a millisecond.
//
// Input layout (missing bytes read as 0, so every byte string is valid):
//   byte 0      flags: bit 0 rule (nonzero), bit 1 two threads,
//               bits 2-3 ring mode (0 one ring, 1 valid splits, 2 raw ring
//               ends that may be inconsistent, 3 no rings at all),
//               bit 4 window origin scaled by 2^16, bit 5 negative height,
//               bits 6-7 row padding (row_stride - width)
//   bytes 1-4   row0, col0 as little-endian int16
//   bytes 5-6   height, width (each mod 41)
//   byte 7      vertex count (mod 65)
//   byte 8      ring count (mod 5), then one byte per ring
//   then        one coordinate at a time (x then y for each vertex): a tag
//               byte picks the encoding, see read_coordinate().
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

[[noreturn]] void fail(const char *what, const Window &w, FillRule rule, int threads)
{
    std::fprintf(stderr, "fuzz_core: %s (window row0=%lld col0=%lld %lldx%lld, rule=%d, threads=%d)\n", what,
                 static_cast<long long>(w.row0), static_cast<long long>(w.col0),
                 static_cast<long long>(w.height), static_cast<long long>(w.width), static_cast<int>(rule),
                 threads);
    std::abort();
}

// A window-sized buffer with `padding` canary bytes after each row but the
// last, allocated to the exact byte so ASan sees any write past the window.
struct Canvas {
    static constexpr uint8_t kUnwritten = 0xCD;
    static constexpr uint8_t kCanary = 0xAB;

    Canvas(const Window &w, int64_t padding, uint8_t initial = kUnwritten) : stride(w.width + padding)
    {
        const int64_t bytes = w.height > 0 && w.width > 0 ? (w.height - 1) * stride + w.width : 0;
        pixels.assign(static_cast<size_t>(bytes), kCanary);
        for (int64_t r = 0; r < w.height && w.width > 0; ++r) {
            std::memset(pixels.data() + r * stride, initial, static_cast<size_t>(w.width));
        }
    }
    uint8_t *data() { return pixels.empty() ? nullptr : pixels.data(); }

    int64_t stride;
    std::vector<uint8_t> pixels;
};

// Every window byte is 0 or 1 and every padding byte still holds the canary.
void check_canvas(const Canvas &canvas, const Window &w, FillRule rule, int threads)
{
    for (size_t k = 0; k < canvas.pixels.size(); ++k) {
        const int64_t col = static_cast<int64_t>(k) % canvas.stride;
        const uint8_t value = canvas.pixels[k];
        if (col < w.width) {
            if (value > 1) fail("a window byte was not written with 0 or 1", w, rule, threads);
        } else if (value != Canvas::kCanary) {
            fail("a padding byte between rows was overwritten", w, rule, threads);
        }
    }
}

// Coverage of `w` into a row-padded buffer; padding holds -1 (a canary no fraction takes).
std::vector<double> coverage_canvas(const Polygon &polygon, const Window &w, int64_t stride, FillRule rule,
                                    int threads)
{
    std::vector<double> out(static_cast<size_t>(w.height * stride), -1.0);
    polymask::coverage<double>(polygon, w, out.data(), stride, rule, threads);
    return out;
}

void check_coverage(const Polygon &polygon, const Window &window, FillRule rule, int threads, int64_t padding,
                    bool all_finite)
{
    if (window.height == 0 || window.width == 0) return;
    const int64_t stride = window.width + padding;
    if (!all_finite) {
        std::vector<double> out(static_cast<size_t>(window.height * stride), -1.0);
        bool refused = false;
        try {
            polymask::coverage<double>(polygon, window, out.data(), stride, rule, threads);
        } catch (const std::invalid_argument &) {
            refused = true;
        }
        if (!refused) fail("coverage accepted non-finite vertices", window, rule, threads);
        for (double v : out) {
            if (v != -1.0) fail("a refused coverage wrote to the output", window, rule, threads);
        }
        return;
    }
    const auto full = coverage_canvas(polygon, window, stride, rule, threads);
    for (size_t k = 0; k < full.size(); ++k) {
        const int64_t col = static_cast<int64_t>(k) % stride;
        const double v = full[k];
        if (col < window.width) {
            if (!(v >= 0.0 && v <= 1.0)) fail("a coverage value is outside [0, 1] or NaN", window, rule, threads);
        } else if (v != -1.0) {
            fail("coverage overwrote the padding between rows", window, rule, threads);
        }
    }
    if (coverage_canvas(polygon, window, stride, rule, 1) != full) {
        fail("thread count changed the coverage", window, rule, threads);
    }
    // Halves of the window (rows, then columns) equal the same slices.
    for (int axis = 0; axis < 2; ++axis) {
        const int64_t extent = axis == 0 ? window.height : window.width;
        if (extent < 2) continue;
        Window first = window, second = window;
        if (axis == 0) {
            first.height = extent / 2;
            second.row0 += first.height;
            second.height -= first.height;
        } else {
            first.width = extent / 2;
            second.col0 += first.width;
            second.width -= first.width;
        }
        for (const Window &part : {first, second}) {
            const auto values = coverage_canvas(polygon, part, part.width, rule, threads);
            for (int64_t r = 0; r < part.height; ++r) {
                for (int64_t c = 0; c < part.width; ++c) {
                    const double whole = full[(r + part.row0 - window.row0) * stride + (c + part.col0 - window.col0)];
                    if (values[r * part.width + c] != whole) fail("a coverage window differs from its slice", window, rule, threads);
                }
            }
        }
    }
    // all_touched is coverage > 0, element for element.
    Canvas touched(window, padding);
    polymask::fill_touched(polygon, window, touched.data(), touched.stride, rule, threads);
    check_canvas(touched, window, rule, threads);
    for (int64_t r = 0; r < window.height; ++r) {
        for (int64_t c = 0; c < window.width; ++c) {
            if (touched.pixels[r * touched.stride + c] != (full[r * stride + c] > 0.0 ? 1 : 0)) {
                fail("fill_touched differs from coverage > 0", window, rule, threads);
            }
        }
    }
    // The label image's all_touched burn (value 7 over a background of 3)
    // claims exactly those cells, and coverage_crops with the window as the
    // one box gives the same fractions (into a buffer of exactly its size).
    std::vector<uint16_t> labels(static_cast<size_t>(window.height * stride), 3);
    const uint16_t seven = 7;
    polymask::rasterize_touched(&polygon, 1, &seven, window, labels.data(), stride, rule, threads);
    std::vector<double> crop(static_cast<size_t>(window.height * window.width), 0.0);
    const polymask::MaskBox box{window.row0, window.col0, window.height, window.width};
    const int64_t offset = 0;
    polymask::coverage_crops(&polygon, 1, &box, crop.data(), &offset, rule, threads);
    for (int64_t r = 0; r < window.height; ++r) {
        for (int64_t c = 0; c < stride; ++c) {
            const uint16_t label = labels[static_cast<size_t>(r * stride + c)];
            if (c >= window.width) {
                if (label != 3) fail("rasterize_touched overwrote the padding between rows", window, rule, threads);
                continue;
            }
            if (label != (touched.pixels[r * touched.stride + c] ? 7 : 3)) {
                fail("rasterize_touched differs from fill_touched", window, rule, threads);
            }
            if (crop[static_cast<size_t>(r * window.width + c)] != full[r * stride + c]) {
                fail("coverage_crops differs from coverage", window, rule, threads);
            }
        }
    }
}

// The polygon (rings, vertices as exact hexadecimal doubles) and the point
// where a check failed, so the failure can be replayed outside the fuzzer.
void dump_polygon(const Polygon &polygon, double px, double py)
{
    std::fprintf(stderr, "fuzz_core: at the point (%a, %a) of the polygon with ring ends", px, py);
    for (int64_t end : polygon.ring_ends()) std::fprintf(stderr, " %lld", static_cast<long long>(end));
    std::fprintf(stderr, " and vertices\n");
    const auto xy = polygon.xy();
    for (size_t k = 0; k + 1 < xy.size(); k += 2) std::fprintf(stderr, "  (%a, %a)\n", xy[k], xy[k + 1]);
}

// contains_points and contains_grid at the window's pixel centres are the
// scanline mask; at probes around the vertices and on the edges,
// contains_points is Polygon::contains.  Finite input only.
void check_points(const Polygon &polygon, const Window &window, const Canvas &scanline, FillRule rule, int threads)
{
    if (window.height > 0 && window.width > 0) {
        const int64_t n = window.height * window.width;
        std::vector<double> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
        std::vector<double> columns(static_cast<size_t>(window.width)), rows(static_cast<size_t>(window.height));
        for (int64_t c = 0; c < window.width; ++c) columns[c] = static_cast<double>(window.col0 + c);
        for (int64_t r = 0; r < window.height; ++r) {
            rows[r] = static_cast<double>(window.row0 + r);
            for (int64_t c = 0; c < window.width; ++c) {
                x[r * window.width + c] = columns[c];
                y[r * window.width + c] = rows[r];
            }
        }
        std::vector<uint8_t> points(static_cast<size_t>(n), Canvas::kUnwritten);
        std::vector<uint8_t> grid(static_cast<size_t>(n), Canvas::kUnwritten);
        polymask::contains_points(polygon, x.data(), y.data(), n, points.data(), rule, threads);
        polymask::contains_grid(polygon, columns.data(), window.width, rows.data(), window.height, grid.data(), rule,
                                threads);
        for (int64_t r = 0; r < window.height; ++r) {
            for (int64_t c = 0; c < window.width; ++c) {
                const uint8_t expected = scanline.pixels[r * scanline.stride + c];
                if (points[r * window.width + c] != expected) {
                    dump_polygon(polygon, columns[c], rows[r]);
                    fail("contains_points differs from the mask", window, rule, threads);
                }
                if (grid[r * window.width + c] != expected) fail("contains_grid differs from the mask", window, rule, threads);
            }
        }
    }
    const auto xy = polygon.xy();
    const int64_t n_vertices = polygon.vertex_count();
    std::vector<double> px, py;
    const double inf = std::numeric_limits<double>::infinity();
    for (int64_t v = 0; v < n_vertices; ++v) {
        const double x0 = xy[2 * v], y0 = xy[2 * v + 1];
        const int64_t w = (v + 1) % n_vertices;
        const double x1 = xy[2 * w], y1 = xy[2 * w + 1];
        const double probe_x[] = {x0, std::nextafter(x0, -inf), std::nextafter(x0, inf), x0, x0, x0 * 0.5 + x1 * 0.5};
        const double probe_y[] = {y0, y0, y0, std::nextafter(y0, -inf), std::nextafter(y0, inf), y0 * 0.5 + y1 * 0.5};
        for (int k = 0; k < 6; ++k) {
            px.push_back(probe_x[k]);
            py.push_back(probe_y[k]);
        }
        const double row = std::round(y0 * 0.5 + y1 * 0.5);  // the edge's crossing of an integer row, if any
        if (polymask::pm_edge_crosses_row(y0, y1, row)) {
            px.push_back(polymask::pm_x_cross(x0, y0, x1, y1, row));
            py.push_back(row);
        }
    }
    for (size_t k = 0; k < px.size(); ++k) {
        if (!std::isfinite(px[k]) || !std::isfinite(py[k])) {
            px.erase(px.begin() + static_cast<std::ptrdiff_t>(k));
            py.erase(py.begin() + static_cast<std::ptrdiff_t>(k));
            --k;
        }
    }
    if (px.empty()) return;
    std::vector<uint8_t> inside(px.size(), Canvas::kUnwritten);
    polymask::contains_points(polygon, px.data(), py.data(), static_cast<int64_t>(px.size()), inside.data(), rule,
                              threads);
    for (size_t k = 0; k < px.size(); ++k) {
        if (inside[k] != (polygon.contains(px[k], py[k], rule) ? 1 : 0)) {
            dump_polygon(polygon, px[k], py[k]);
            fail("contains_points differs from Polygon::contains at a probe point", window, rule, threads);
        }
    }
}

uint64_t rle_area(const std::vector<uint32_t> &counts)
{
    uint64_t area = 0;
    for (size_t k = 1; k < counts.size(); k += 2) area += counts[k];
    return area;
}

// The rest of the input as a COCO counts string.
void check_rle(const std::string &text)
{
    const Window none{};
    std::vector<uint32_t> counts;
    try {
        counts = polymask::rle_decompress(text.data(), static_cast<int64_t>(text.size()));
    } catch (const std::invalid_argument &) {
        return;  // refused: the documented outcome for a corrupt string
    }
    const std::string again = polymask::rle_compress(counts.data(), static_cast<int64_t>(counts.size()));
    if (polymask::rle_decompress(again.data(), static_cast<int64_t>(again.size())) != counts) {
        fail("rle_compress(rle_decompress(text)) does not read back", none, FillRule::even_odd, 1);
    }
    uint64_t total = 0;
    for (uint32_t run : counts) total += run;
    // The complement: the same runs behind one more (or one fewer) empty run of zeros.
    std::vector<uint32_t> complement;
    if (!counts.empty() && counts.front() == 0) {
        complement.assign(counts.begin() + 1, counts.end());
    } else {
        complement.push_back(0);
        complement.insert(complement.end(), counts.begin(), counts.end());
    }
    const int64_t n = static_cast<int64_t>(counts.size()), m = static_cast<int64_t>(complement.size());
    const uint64_t area = rle_area(counts);
    if (rle_area(polymask::rle_merge(counts.data(), n, counts.data(), n, false)) != area ||
        rle_area(polymask::rle_merge(counts.data(), n, counts.data(), n, true)) != area ||
        polymask::rle_intersection_area(counts.data(), n, counts.data(), n) != area) {
        fail("an RLE merged with itself changed its area", none, FillRule::even_odd, 1);
    }
    if (polymask::rle_intersection_area(counts.data(), n, complement.data(), m) != 0 ||
        rle_area(polymask::rle_merge(counts.data(), n, complement.data(), m, true)) != 0 ||
        rle_area(polymask::rle_merge(counts.data(), n, complement.data(), m, false)) != total) {
        fail("an RLE and its complement overlap or leave pixels out", none, FillRule::even_odd, 1);
    }
}

void check_polygon_input(Reader &in);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Reader in(data, size);
    check_polygon_input(in);
    check_rle(in.rest());
    return 0;
}

namespace {

void check_polygon_input(Reader &in)
{
    const uint8_t flags = in.byte();
    const FillRule rule = (flags & 1) ? FillRule::nonzero : FillRule::even_odd;
    const int threads = (flags & 2) ? 2 : 1;
    const int ring_mode = (flags >> 2) & 3;
    const int64_t origin_scale = (flags & 16) ? 65536 : 1;
    const bool negative_height = (flags & 32) != 0;
    const int64_t padding = (flags >> 6) & 3;

    Window window;
    window.row0 = static_cast<int64_t>(in.raw<int16_t>()) * origin_scale;
    window.col0 = static_cast<int64_t>(in.raw<int16_t>()) * origin_scale;
    window.height = in.byte() % 41;
    window.width = in.byte() % 41;
    if (negative_height) window.height = -window.height - 1;

    const int64_t n_vertices = in.byte() % 65;
    const int ring_count_byte = in.byte() % 5;
    std::vector<int64_t> ring_ends;
    bool rings_valid = true;
    if (ring_mode == 0) {
        ring_ends.push_back(n_vertices);
    } else if (ring_mode == 1) {
        // Sorted cut points in [0, n], the last at n: always valid, rings of
        // any size including empty ones and 1- or 2-vertex ones.
        int64_t end = 0;
        for (int k = 0; k < ring_count_byte; ++k) {
            end = std::min<int64_t>(n_vertices, end + in.byte() % 17);
            ring_ends.push_back(end);
        }
        ring_ends.push_back(n_vertices);
    } else if (ring_mode == 2) {
        // Raw ring ends: may decrease, overshoot or stop short of n.
        for (int k = 0; k < ring_count_byte + 1; ++k) ring_ends.push_back(static_cast<int8_t>(in.byte()));
        int64_t previous = 0;
        for (int64_t end : ring_ends) {
            if (end < previous || end > n_vertices) rings_valid = false;
            previous = end;
        }
        if (previous != n_vertices) rings_valid = false;
    } else {
        // No rings: valid only without vertices.
        rings_valid = n_vertices == 0;
    }

    std::vector<double> xy(static_cast<size_t>(2 * n_vertices));
    bool all_finite = true;
    for (int64_t v = 0; v < n_vertices; ++v) {
        xy[2 * v] = read_coordinate(in, static_cast<double>(window.col0));
        xy[2 * v + 1] = read_coordinate(in, static_cast<double>(window.row0));
        all_finite = all_finite && std::isfinite(xy[2 * v]) && std::isfinite(xy[2 * v + 1]);
    }

    // The polygon: it must throw invalid_argument exactly when the rings are
    // inconsistent, and accept everything else, non-finite values included.
    Polygon polygon;
    try {
        polygon = Polygon(xy.empty() ? nullptr : xy.data(), n_vertices,
                          ring_ends.empty() ? nullptr : ring_ends.data(),
                          static_cast<int64_t>(ring_ends.size()));
    } catch (const std::invalid_argument &) {
        if (rings_valid) fail("Polygon rejected valid ring ends", window, rule, threads);
        return;
    }
    if (!rings_valid) fail("Polygon accepted inconsistent ring ends", window, rule, threads);

    // A negative window must be refused by both fills, before any write.
    if (window.height < 0) {
        uint8_t sentinel = Canvas::kCanary;
        const uint8_t label = 1;
        for (int which = 0; which < 3; ++which) {
            bool refused = false;
            try {
                if (which == 0) polymask::fill_per_pixel(polygon, window, &sentinel, 1, rule, threads);
                else if (which == 1) polymask::fill_scanline(polygon, window, &sentinel, 1, rule, threads);
                else polymask::rasterize<uint8_t>(&polygon, 1, &label, window, &sentinel, 1, rule, threads);
            } catch (const std::invalid_argument &) {
                refused = true;
            }
            if (!refused) fail("a fill accepted a negative window height", window, rule, threads);
        }
        if (sentinel != Canvas::kCanary) fail("a refused fill wrote to the output", window, rule, threads);
        double fraction = -1.0;
        bool refused = false;
        try {
            polymask::coverage<double>(polygon, window, &fraction, 1, rule, threads);
        } catch (const std::invalid_argument &) {
            refused = true;
        }
        if (!refused || fraction != -1.0) fail("coverage accepted a negative window height", window, rule, threads);
        return;
    }

    // Both fills, over the exact-size canvas.  Non-finite input only has to
    // stay memory-safe and well-formed; finite input must agree bit for bit.
    Canvas per_pixel(window, padding), scanline(window, padding), scanline_1(window, padding);
    polymask::fill_per_pixel(polygon, window, per_pixel.data(), per_pixel.stride, rule, 1);
    polymask::fill_scanline(polygon, window, scanline.data(), scanline.stride, rule, threads);
    polymask::fill_scanline(polygon, window, scanline_1.data(), scanline_1.stride, rule, 1);
    check_canvas(per_pixel, window, rule, 1);
    check_canvas(scanline, window, rule, threads);
    check_canvas(scanline_1, window, rule, 1);
    const bool deterministic = all_finite || rule == FillRule::even_odd;  // see the top of this file
    if (deterministic && scanline.pixels != scanline_1.pixels) {
        fail("thread count changed the scanline mask", window, rule, threads);
    }

    // The window split into a top and a bottom half, filled separately into
    // the same buffer, is the same as one fill.
    if (deterministic && window.height >= 2 && window.width > 0) {
        Canvas halves(window, padding);
        Window top = window, bottom = window;
        top.height = window.height / 2;
        bottom.row0 = window.row0 + top.height;
        bottom.height = window.height - top.height;
        polymask::fill_scanline(polygon, top, halves.data(), halves.stride, rule, threads);
        polymask::fill_scanline(polygon, bottom, halves.data() + top.height * halves.stride, halves.stride, rule,
                                threads);
        if (halves.pixels != scanline.pixels) fail("a window filled in two halves differs", window, rule, threads);
    }

    // Burned into a cleared label image with value 1, the polygon claims
    // exactly its mask's pixels (rasterize shares the sweep, not the sink).
    // Finite input only: with a NaN the row's crossings can be odd, and the
    // two sinks may then close the last span differently (both are safe).
    if (all_finite) {
        Canvas burned(window, padding, 0);
        const uint8_t label = 1;
        polymask::rasterize<uint8_t>(&polygon, 1, &label, window, burned.data(), burned.stride, rule, threads);
        check_canvas(burned, window, rule, threads);
        if (burned.pixels != scanline.pixels) fail("rasterize differs from the scanline mask", window, rule, threads);
    }

    if (all_finite && per_pixel.pixels != scanline.pixels) {
        fail("scanline differs from per-pixel on finite input", window, rule, threads);
    }

    check_coverage(polygon, window, rule, threads, padding, all_finite);
    if (all_finite) check_points(polygon, window, scanline, rule, threads);
}

}  // namespace
