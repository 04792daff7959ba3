// line_walk.cpp -- the cells GDAL burns for lines (lines.hpp): Bresenham's
// walk and the all-touched walk, each line's cells sorted and made unique.
#include "polymask/lines.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "checks.hpp"
#include "interrupt_hook.hpp"

namespace polymask {
namespace {

// Segments closer than this (in pixels) to an axis are walked as one column or row.
constexpr double kAxisTolerance = 0.01;
// A column or row run leaves out its far end's cell when the end is this close past a cell side.
constexpr double kEndTolerance = 1e-4;
// The smallest step the walk takes across a row side.
constexpr double kRowStep = 1e-9;
// Coordinates below this keep Bresenham's error term 2 * minor * k inside int64.
constexpr double kReach = 1073741824.0;  // 2^30

// The cells of one line, kept when inside the image, as flat indices.
struct CellSink {
    int64_t height, width;
    std::vector<int64_t> &cells;
    void add(int64_t row, int64_t col) const
    {
        if (row >= 0 && row < height && col >= 0 && col < width) cells.push_back(row * width + col);
    }
};

// Python's floor division for a positive divisor.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Bresenham's line from the cell holding (bx, by) to the cell holding (ex, ey),
// its last cell with `with_end`; only the steps whose major coordinate is in
// the image.  The minor axis has advanced ceil((2 minor k - major) / (2 major))
// after k major steps: the integer error term's closed form.
void bresenham(double bx, double by, double ex, double ey, bool with_end, const CellSink &sink)
{
    const int64_t col0 = static_cast<int64_t>(std::floor(bx)), row0 = static_cast<int64_t>(std::floor(by));
    const int64_t col1 = static_cast<int64_t>(std::floor(ex)), row1 = static_cast<int64_t>(std::floor(ey));
    const int64_t run_x = std::abs(col1 - col0), run_y = std::abs(row1 - row0);
    const int64_t step_x = col0 > col1 ? -1 : 1, step_y = row0 > row1 ? -1 : 1;
    const bool x_major = run_x >= run_y;
    const int64_t major = std::max(run_x, run_y), minor = std::min(run_x, run_y);
    const int64_t steps = major + (with_end ? 1 : 0);
    const int64_t origin = x_major ? col0 : row0, step = x_major ? step_x : step_y;
    const int64_t side = x_major ? sink.width : sink.height;
    const int64_t low = std::clamp<int64_t>(step > 0 ? -origin : origin - (side - 1), 0, steps);
    const int64_t high = std::clamp<int64_t>((step > 0 ? side - 1 - origin : origin) + 1, low, steps);
    const int64_t span = std::max<int64_t>(major, 1);
    for (int64_t k = low; k < high; ++k) {
        const int64_t across = major > 0 ? -floor_div(span - 2 * minor * k, 2 * span) : 0;
        if (x_major) {
            sink.add(row0 + across * step_y, col0 + k * step);
        } else {
            sink.add(row0 + k * step, col0 + across * step_x);
        }
    }
}

// A run of cells along one row or column: `along` from floor(low) to
// floor(high - 1e-4), clipped to [0, run_side), at the row or column `fixed`.
template <class Add>
void run(double fixed, double low, double high, int64_t fixed_side, int64_t run_side, Add add)
{
    if (!(fixed >= 0 && fixed < static_cast<double>(fixed_side))) return;
    const double first = std::max(std::floor(low), 0.0);
    const double last = std::min(std::floor(high - kEndTolerance), static_cast<double>(run_side - 1));
    for (double along = first; along <= last; along += 1.0) add(static_cast<int64_t>(fixed), static_cast<int64_t>(along));
}

// The cells one segment passes through, walked left to right after GDAL's clip.
void touched(double x, double y, double x_end, double y_end, const CellSink &sink)
{
    const double height = static_cast<double>(sink.height), width = static_cast<double>(sink.width);
    if ((y < 0 && y_end < 0) || (y > height && y_end > height) || (x < 0 && x_end < 0) ||
        (x > width && x_end > width)) {
        return;
    }
    if (x > x_end) {
        std::swap(x, x_end);
        std::swap(y, y_end);
    }
    if (std::floor(x) == std::floor(x_end) || std::abs(x - x_end) < kAxisTolerance) {  // one column
        run(std::floor(x_end), std::min(y, y_end), std::max(y, y_end), sink.width, sink.height,
            [&](int64_t col, int64_t row) { sink.add(row, col); });
        return;
    }
    if (std::floor(y) == std::floor(y_end) || std::abs(y - y_end) < kAxisTolerance) {  // one row
        run(std::floor(y), x, x_end, sink.height, sink.width, [&](int64_t row, int64_t col) { sink.add(row, col); });
        return;
    }
    const double slope = (y_end - y) / (x_end - x);
    if (x_end > width) {
        y_end = y_end - (x_end - width) * slope;
        x_end = width;
    }
    if (x < 0.0) {
        y = y + (0.0 - x) * slope;
        x = 0.0;
    }
    const bool rising = y_end > y;
    if (rising && y < 0.0) {
        x = x + (0.0 - y) / slope;
        y = 0.0;
    }
    if (rising && y_end >= height) x_end = x_end + (y_end - height) / slope;  // GDAL's clip of the far end, as it is
    if (!rising && y >= height) {
        x = x + (height - y) / slope;
        y = height;
    }
    if (!rising && y_end < 0.0) x_end = x_end - y_end / slope;
    // y moves one way along the walk: once past the image no later cell burns.
    while (x >= 0.0 && x < x_end && !(slope > 0 && y >= height) && !(slope < 0 && y < 0.0)) {
        const double col = std::floor(x), row = std::floor(y);
        if (row >= 0 && row < height) sink.add(static_cast<int64_t>(row), static_cast<int64_t>(col));
        const double step_x = std::floor(x + 1.0) - x;
        const double step_y = step_x * slope;
        if (std::floor(y + step_y) == row) {  // the next column on the same row
            x = x + step_x;
            y = y + step_y;
            continue;
        }
        const double across = slope < 0 ? std::min(row - y, -kRowStep) : std::max(row + 1 - y, kRowStep);
        x = x + across / slope;
        y = y + across;
    }
}

}  // namespace

void line_cells(const double *xy, int64_t n_vertices, const int64_t *line_ends, int64_t n_lines, int64_t height,
                int64_t width, bool all_touched, std::vector<int64_t> &cell_ends, std::vector<int64_t> &pixels)
{
    const char *who = "polymask::line_cells";
    detail::check_ends(who, "line_ends", line_ends, n_lines, n_vertices, "vertex count");
    if (height < 0 || width < 0) throw std::invalid_argument(std::string(who) + ": negative image side");
    for (int64_t i = 0; i < 2 * n_vertices; ++i) {
        if (!(std::abs(xy[i]) < kReach)) {
            throw std::invalid_argument(std::string(who) + ": coordinates must be finite and below 2^30, got " +
                                        std::to_string(xy[i]));
        }
    }
    cell_ends.assign(static_cast<size_t>(n_lines), 0);
    pixels.clear();
    detail::Poller poller;
    std::vector<int64_t> cells;
    const CellSink sink{height, width, cells};
    // A line's cells made unique: at its end, and whenever they have doubled since,
    // so a line crossing the image again and again holds no more than twice its cells.
    const auto unique_cells = [&cells]() {
        std::sort(cells.begin(), cells.end());
        cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    };
    for (int64_t k = 0, first = 0; k < n_lines; first = line_ends[k++]) {
        cells.clear();
        size_t compacted = 0;
        for (int64_t i = first; i + 1 < line_ends[k]; ++i) {
            if (poller.should_stop()) throw Interrupted();
            const double *start = xy + 2 * i, *end = start + 2;
            if (all_touched) {
                touched(start[0], start[1], end[0], end[1], sink);
            } else {  // from the second end; the first end's cell on the first segment only
                bresenham(end[0], end[1], start[0], start[1], i == first, sink);
            }
            if (cells.size() > std::max<size_t>(2 * compacted, size_t{1} << 22)) {
                unique_cells();
                compacted = cells.size();
            }
        }
        unique_cells();
        pixels.insert(pixels.end(), cells.begin(), cells.end());
        cell_ends[static_cast<size_t>(k)] = static_cast<int64_t>(pixels.size());
    }
}

}  // namespace polymask
