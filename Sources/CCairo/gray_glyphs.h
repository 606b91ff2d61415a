#ifndef ASYNCLAYER_GRAY_GLYPHS_H
#define ASYNCLAYER_GRAY_GLYPHS_H

// Glyph compositing into one byte per pixel (TextTile's gray path, GlyphCompositor in A8 mode):
// what pixman does for an opaque solid source, OVER, an A8 glyph mask and an A8 destination,
// done here because pixman has no fast path for that combination and its general path (a
// scanline fetch, combine and store per glyph, with its buffers cleared) cost 4.2 M instructions
// on a 110-glyph tile against 0.36 M for the ARGB32 fast path. The arithmetic is pixman's:
// `MUL(x, y)` rounds x·y/255 to the nearest integer (no ties: 255 is odd), OVER is
// `m + MUL(d, 255 − m)`, and glyphs overlapping in a run are first summed, saturating, into a mask
// (pixman_composite_glyphs' ADD). The tests compare every pixel with the ARGB32 path.

#include <stddef.h>
#include <stdint.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/// pixman's MUL_UN8: x·y/255 rounded to nearest, exact for 8-bit operands.
static inline uint8_t asynclayer_mul_un8(uint32_t x, uint32_t y) {
  uint32_t t = x * y + 0x80;
  return (uint8_t)(((t >> 8) + t) >> 8);
}

/// OVER of 16 bytes: `d = m + MUL(d, 255 − m)` in 16-bit lanes (d·(255 − m) + 0x80 < 2^16, and
/// m + MUL(d, 255 − m) <= 255, so neither the sum nor the pack saturates). `MUL`'s
/// `((t >> 8) + t) >> 8` is `(t · 257) >> 16` for t < 2^16 (the two floors cannot differ: t + t/256
/// is less than one above the integer t + ⌊t/256⌋), one `pmulhuw` instead of a shift, an add and a
/// shift. Where the destination is still 0 (most of a glyph's box: a run's glyphs are drawn
/// apart, into bytes nothing has touched) the result is `m`, stored as it is.
#if defined(__x86_64__)
static inline void asynclayer_a8_over16(uint8_t *d, const uint8_t *m) {
  const __m128i zero = _mm_setzero_si128();
  __m128i coverage = _mm_loadu_si128((const __m128i *)m);
  __m128i pixels = _mm_loadu_si128((const __m128i *)d);
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(pixels, zero)) == 0xffff) {
    _mm_storeu_si128((__m128i *)d, coverage);
    return;
  }
  const __m128i all = _mm_set1_epi8((char)0xff), half = _mm_set1_epi16(0x80), round = _mm_set1_epi16(257);
  __m128i rest = _mm_xor_si128(coverage, all);
  __m128i low = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(pixels, zero), _mm_unpacklo_epi8(rest, zero)), half);
  __m128i high = _mm_add_epi16(_mm_mullo_epi16(_mm_unpackhi_epi8(pixels, zero), _mm_unpackhi_epi8(rest, zero)), half);
  low = _mm_mulhi_epu16(low, round);
  high = _mm_mulhi_epu16(high, round);
  _mm_storeu_si128((__m128i *)d, _mm_adds_epu8(coverage, _mm_packus_epi16(low, high)));
}
#endif

/// OVER of an opaque source through `mask` (width × height, `mask_stride` apart) onto `dest`:
/// `d = m + MUL(d, 255 − m)`.
static inline void asynclayer_a8_over(uint8_t *dest, ptrdiff_t dest_stride, const uint8_t *mask, ptrdiff_t mask_stride,
                                      int32_t width, int32_t height) {
#if defined(__x86_64__)
  // A glyph image padded to 16 bytes (most glyphs up to ~40 px text): one block a row, no loops
  // inside the row.
  if (width == 16) {
    for (int32_t y = 0; y < height; y++) asynclayer_a8_over16(dest + y * dest_stride, mask + y * mask_stride);
    return;
  }
#endif
  for (int32_t y = 0; y < height; y++) {
    uint8_t *d = dest + y * dest_stride;
    const uint8_t *m = mask + y * mask_stride;
    int32_t x = 0;
#if defined(__x86_64__)
    for (; x + 16 <= width; x += 16) asynclayer_a8_over16(d + x, m + x);
    // Glyphs are often 8 to 16 pixels wide: eight more in the low lanes.
    if (x + 8 <= width) {
      const __m128i zero = _mm_setzero_si128(), all = _mm_set1_epi8((char)0xff), half = _mm_set1_epi16(0x80);
      __m128i coverage = _mm_loadl_epi64((const __m128i *)(m + x));
      __m128i pixels = _mm_loadl_epi64((const __m128i *)(d + x));
      __m128i rest = _mm_xor_si128(coverage, all);
      __m128i low = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(pixels, zero), _mm_unpacklo_epi8(rest, zero)), half);
      low = _mm_mulhi_epu16(low, _mm_set1_epi16(257));
      _mm_storel_epi64((__m128i *)(d + x), _mm_adds_epu8(coverage, _mm_packus_epi16(low, zero)));
      x += 8;
    }
#endif
    // m = 0 leaves d, m = 255 gives 255: no special cases needed.
    for (; x < width; x++) d[x] = (uint8_t)(m[x] + asynclayer_mul_un8(d[x], 255u - m[x]));
  }
}

/// ADD, saturating: `d = min(255, d + m)` (glyphs into a run's mask).
static inline void asynclayer_a8_add(uint8_t *dest, ptrdiff_t dest_stride, const uint8_t *mask, ptrdiff_t mask_stride,
                                     int32_t width, int32_t height) {
  for (int32_t y = 0; y < height; y++) {
    uint8_t *d = dest + y * dest_stride;
    const uint8_t *m = mask + y * mask_stride;
    int32_t x = 0;
#if defined(__x86_64__)
    for (; x + 16 <= width; x += 16) {
      __m128i sum = _mm_adds_epu8(_mm_loadu_si128((const __m128i *)(d + x)), _mm_loadu_si128((const __m128i *)(m + x)));
      _mm_storeu_si128((__m128i *)(d + x), sum);
    }
#endif
    for (; x < width; x++) {
      uint32_t sum = (uint32_t)d[x] + m[x];
      d[x] = sum > 255 ? 255 : (uint8_t)sum;
    }
  }
}

/// One glyph image placed at (x, y) (its top-left pixel), composited with `op` (0 OVER, 1 ADD)
/// into `dest` (`dest_stride` apart, `dest_end` just past its last byte) inside the box
/// [x1, x2) × [y1, y2).
///
/// A glyph image whose stride is a multiple of 16 has zeros past its width (GlyphCacheGeneration
/// pads it so), and coverage 0 leaves a byte as it is under both operators: an image that is not
/// cut on either side is composited stride-wide, 16 bytes at a time with no scalar tail, when those
/// bytes lie inside the destination (past the row's end they are the next row's, rewritten as they
/// are).
static inline void asynclayer_a8_glyph(uint8_t *dest, ptrdiff_t dest_stride, const uint8_t *dest_end, int32_t x1,
                                       int32_t y1, int32_t x2, int32_t y2, const uint8_t *glyph,
                                       ptrdiff_t glyph_stride, int32_t width, int32_t height, int32_t x, int32_t y,
                                       int op) {
  int32_t left = x > x1 ? x : x1, top = y > y1 ? y : y1;
  int32_t right = x + width < x2 ? x + width : x2, bottom = y + height < y2 ? y + height : y2;
  if (left >= right || top >= bottom) return;
  uint8_t *d = dest + (ptrdiff_t)top * dest_stride + left;
  const uint8_t *m = glyph + (ptrdiff_t)(top - y) * glyph_stride + (left - x);
  if (left == x && right == x + width && glyph_stride % 16 == 0 &&
      d + (ptrdiff_t)(bottom - top - 1) * dest_stride + glyph_stride <= dest_end) {
    right = left + (int32_t)glyph_stride;
  }
  if (op == 0)
    asynclayer_a8_over(d, dest_stride, m, glyph_stride, right - left, bottom - top);
  else
    asynclayer_a8_add(d, dest_stride, m, glyph_stride, right - left, bottom - top);
}

#endif
