// rle.hpp -- COCO run-length encodings straight from the scanline spans.
//
// COCO stores an instance mask of an h x w image as run lengths over its
// pixels in column-major order (pixel (r, c) is position c * h + r), starting
// with a run of zeros (possibly empty) and alternating; the counts are then
// compressed into a string (6 bits per character, differences of counts two
// apart).  Both are the format pycocotools reads.
//
// The encoder never holds a dense mask.  The scanline sweep (csrc/src/scanline.hpp)
// gives each row's inside spans; a pixel starts or ends a column-major run
// exactly where its membership differs from the pixel above it, so the
// symmetric difference of consecutive rows' spans lists every run boundary.
// Those (column, row) toggles, put in column order by a counting sort, are
// the runs.  Work per object is its rows plus its run boundaries.
//
// An object is the union of one or more parts, each a Polygon filled by its
// own rings under `rule` (COCO's polygons: a list of parts, united).  Many
// objects of one image are encoded in one call, threaded across objects
// through detail::parallel_for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "polymask/core.hpp"

namespace polymask {

// COCO run lengths of object o = union of parts [object_ends[o-1],
// object_ends[o]) of `parts` (object_ends[-1] taken as 0), on a height x
// width image whose pixel (r, c) is the contract's sample point (x=c, y=r).
// When `strings` is non-null, each object's counts are also compressed into
// COCO's string form there, and `counts` is left holding empty vectors.
// height * width must be below 2^32 (COCO's counts are 32-bit).  Throws
// std::invalid_argument for bad sizes or ends.  threads is an upper bound
// (0: the default; core.hpp, resolve_threads): the encoder starts as many as
// the objects' work is worth.
POLYMASK_API void rle_encode(const Polygon *parts, int64_t n_parts, const int64_t *object_ends, int64_t n_objects,
                             int64_t height, int64_t width, FillRule rule, int threads,
                             std::vector<std::vector<uint32_t>> &counts,
                             std::vector<std::string> *strings = nullptr);

// The same, for parts given as rings of one flat vertex list (the layout of
// polygons_from_rings in rasterize.hpp): ring k is vertices
// [ring_ends[k-1], ring_ends[k]), part p is rings [part_ends[p-1],
// part_ends[p]), object o is parts [object_ends[o-1], object_ends[o]).  The
// parts' edge tables are built by the threads that encode them.
POLYMASK_API void rle_encode(const double *xy, int64_t n_vertices, const int64_t *ring_ends, int64_t n_rings,
                             const int64_t *part_ends, int64_t n_parts, const int64_t *object_ends,
                             int64_t n_objects, int64_t height, int64_t width, FillRule rule, int threads,
                             std::vector<std::vector<uint32_t>> &counts,
                             std::vector<std::string> *strings = nullptr);

// COCO's counts string (pycocotools' rleToString): LEB128-like, 5 bits per
// character plus a continuation bit, offset by 48, each count from the
// third on stored as the difference to the count two before it.
POLYMASK_API std::string rle_compress(const uint32_t *counts, int64_t n_counts);

// The inverse (pycocotools' rleFrString).  Throws std::invalid_argument for
// a character outside '0'..'o', a string that ends inside a number, or a
// count outside [0, 2^32).
POLYMASK_API std::vector<uint32_t> rle_decompress(const char *text, int64_t n_chars);

// The pixels of runs in COCO's order (column-major, starting with a run of
// 0s): out[0 .. sum of counts) gets 0 and 1 bytes, run by run (pycocotools'
// rleDecode for one RLE).  The counts must sum to n_pixels; throws
// std::invalid_argument otherwise.
POLYMASK_API void rle_decode(const uint32_t *counts, int64_t n_counts, uint8_t *out, int64_t n_pixels);

// Union (intersect = false) or intersection of two RLEs of the same image
// size: the runs of the result, in COCO's form.  Both must cover the same
// number of pixels; throws std::invalid_argument otherwise.
POLYMASK_API std::vector<uint32_t> rle_merge(const uint32_t *a, int64_t n_a, const uint32_t *b, int64_t n_b, bool intersect);

// Union (intersect = false) or intersection of many RLEs of the same image
// size, in one pass rather than a pairwise chain that walks the growing
// result once per RLE: up to 16 RLEs, merged in pairs, then pairs of those
// (each run walked once a level); more, on images of few pixels per run (COCO's), a depth count
// per pixel, O(pixels + runs); on sparse images, the pairwise chain.  All
// must cover the same number of pixels; throws std::invalid_argument
// otherwise.  No RLE gives {0}.
POLYMASK_API std::vector<uint32_t> rle_merge_many(const std::vector<std::vector<uint32_t>> &rles, bool intersect);

// Pixels inside both RLEs (same pixel count assumed, not checked).
POLYMASK_API uint64_t rle_intersection_area(const uint32_t *a, int64_t n_a, const uint32_t *b, int64_t n_b);

}  // namespace polymask
