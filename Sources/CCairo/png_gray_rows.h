#ifndef ASYNCLAYER_PNG_GRAY_ROWS_H
#define ASYNCLAYER_PNG_GRAY_ROWS_H

// The row pass of PNGEncoder's gray tile path (Codecs/PNGEncoder+GrayTile.swift): premultiplied
// ARGB32 rows in, PNG rows with the `up` filter and one gray byte per pixel out, and a check that
// every pixel is opaque gray (alpha 0xff, red = green = blue), since only then is the gray byte the
// pixel.
//
// Three versions of the same pass: scalar (any CPU), SSE2 (every x86-64 CPU) and AVX2 (chosen at
// run time: CI machines may lack it). They write the same bytes; the tests run all three
// (asynclayer_gray_rows_level) on the same images. A row equal to the row above (the blank rows of
// a tile) is found with memcmp and written as zeros without being converted.

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

/// The widest version this CPU runs: 0 scalar, 1 SSE2, 2 AVX2.
static inline int asynclayer_gray_rows_best_level(void) {
#if defined(__x86_64__)
  unsigned int a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 1;
  // AVX needs the OS to save the YMM registers (OSXSAVE, then XCR0 bits 1 and 2).
  int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
  if (!osxsave || !avx) return 1;
  unsigned int xcr0_low, xcr0_high;
  __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  if ((xcr0_low & 6) != 6) return 1;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 1;
  return ((b >> 5) & 1) ? 2 : 1;
#else
  return 0;
#endif
}

/// Gray bytes of `count` pixels from `i` on; false when one of them is not opaque gray.
static inline int asynclayer_gray_row_tail(const uint32_t *pixels, size_t i, size_t count, uint8_t *gray) {
  uint32_t all = 0xffffffffu, differences = 0;
  for (; i < count; i++) {
    uint32_t pixel = pixels[i];
    all &= pixel;
    differences |= pixel ^ (pixel >> 8);
    gray[i] = (uint8_t)pixel;
  }
  return all >= 0xff000000u && (differences & 0xffff) == 0;
}

#if defined(__x86_64__)
/// Sixteen pixels at a time: the low byte of each 32-bit lane packed down (packs, then packus:
/// the lanes were masked to 0…255, so neither saturates).
static inline int asynclayer_gray_row_sse2(const uint32_t *pixels, size_t count, uint8_t *gray) {
  const __m128i low = _mm_set1_epi32(0xff);
  __m128i all = _mm_set1_epi32(-1), differences = _mm_setzero_si128();
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    __m128i a = _mm_loadu_si128((const __m128i *)(pixels + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(pixels + i + 4));
    __m128i c = _mm_loadu_si128((const __m128i *)(pixels + i + 8));
    __m128i d = _mm_loadu_si128((const __m128i *)(pixels + i + 12));
    all = _mm_and_si128(all, _mm_and_si128(_mm_and_si128(a, b), _mm_and_si128(c, d)));
    differences = _mm_or_si128(differences, _mm_or_si128(_mm_xor_si128(a, _mm_srli_epi32(a, 8)),
                                                         _mm_xor_si128(b, _mm_srli_epi32(b, 8))));
    differences = _mm_or_si128(differences, _mm_or_si128(_mm_xor_si128(c, _mm_srli_epi32(c, 8)),
                                                         _mm_xor_si128(d, _mm_srli_epi32(d, 8))));
    __m128i ab = _mm_packs_epi32(_mm_and_si128(a, low), _mm_and_si128(b, low));
    __m128i cd = _mm_packs_epi32(_mm_and_si128(c, low), _mm_and_si128(d, low));
    _mm_storeu_si128((__m128i *)(gray + i), _mm_packus_epi16(ab, cd));
  }
  // Opaque: the top byte of every lane 0xff; gray: the low 16 bits of every lane's differences 0.
  uint32_t lanes_all[4], lanes_differences[4];
  _mm_storeu_si128((__m128i *)lanes_all, all);
  _mm_storeu_si128((__m128i *)lanes_differences, differences);
  uint32_t all_bits = lanes_all[0] & lanes_all[1] & lanes_all[2] & lanes_all[3];
  uint32_t difference_bits = lanes_differences[0] | lanes_differences[1] | lanes_differences[2] | lanes_differences[3];
  if (all_bits < 0xff000000u || (difference_bits & 0xffff) != 0) return 0;
  return asynclayer_gray_row_tail(pixels, i, count, gray);
}

/// Thirty-two pixels at a time. The packs work within 128-bit halves, so the eight 4-byte groups
/// come out as a0 b0 c0 d0 | a1 b1 c1 d1 and one permute puts them in order.
__attribute__((target("avx2"))) static inline int asynclayer_gray_row_avx2(const uint32_t *pixels, size_t count,
                                                                          uint8_t *gray) {
  const __m256i low = _mm256_set1_epi32(0xff);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  __m256i all = _mm256_set1_epi32(-1), differences = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= count; i += 32) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(pixels + i));
    __m256i b = _mm256_loadu_si256((const __m256i *)(pixels + i + 8));
    __m256i c = _mm256_loadu_si256((const __m256i *)(pixels + i + 16));
    __m256i d = _mm256_loadu_si256((const __m256i *)(pixels + i + 24));
    all = _mm256_and_si256(all, _mm256_and_si256(_mm256_and_si256(a, b), _mm256_and_si256(c, d)));
    differences = _mm256_or_si256(differences, _mm256_or_si256(_mm256_xor_si256(a, _mm256_srli_epi32(a, 8)),
                                                                _mm256_xor_si256(b, _mm256_srli_epi32(b, 8))));
    differences = _mm256_or_si256(differences, _mm256_or_si256(_mm256_xor_si256(c, _mm256_srli_epi32(c, 8)),
                                                                _mm256_xor_si256(d, _mm256_srli_epi32(d, 8))));
    __m256i ab = _mm256_packs_epi32(_mm256_and_si256(a, low), _mm256_and_si256(b, low));
    __m256i cd = _mm256_packs_epi32(_mm256_and_si256(c, low), _mm256_and_si256(d, low));
    __m256i packed = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), order);
    _mm256_storeu_si256((__m256i *)(gray + i), packed);
  }
  uint32_t lanes_all[8], lanes_differences[8];
  _mm256_storeu_si256((__m256i *)lanes_all, all);
  _mm256_storeu_si256((__m256i *)lanes_differences, differences);
  uint32_t all_bits = 0xffffffffu, difference_bits = 0;
  for (int k = 0; k < 8; k++) {
    all_bits &= lanes_all[k];
    difference_bits |= lanes_differences[k];
  }
  if (all_bits < 0xff000000u || (difference_bits & 0xffff) != 0) return 0;
  return asynclayer_gray_row_sse2(pixels + i, count - i, gray + i);
}

__attribute__((target("avx2"))) static inline void asynclayer_up_avx2(const uint8_t *row, const uint8_t *above,
                                                                     size_t count, uint8_t *out) {
  size_t i = 0;
  for (; i + 32 <= count; i += 32) {
    __m256i r = _mm256_loadu_si256((const __m256i *)(row + i));
    __m256i a = _mm256_loadu_si256((const __m256i *)(above + i));
    _mm256_storeu_si256((__m256i *)(out + i), _mm256_sub_epi8(r, a));
  }
  if (i < count && count >= 32) {
    // The last 32 bytes again, overlapping the step before (`out` is not `row` or `above`), instead
    // of up to 31 bytes one at a time.
    i = count - 32;
    __m256i r = _mm256_loadu_si256((const __m256i *)(row + i));
    __m256i a = _mm256_loadu_si256((const __m256i *)(above + i));
    _mm256_storeu_si256((__m256i *)(out + i), _mm256_sub_epi8(r, a));
    return;
  }
  for (; i < count; i++) out[i] = (uint8_t)(row[i] - above[i]);
}
#endif

/// `out[i] = row[i] − above[i]` (the `up` filter), SSE2 on x86-64.
static inline void asynclayer_up_sse2(const uint8_t *row, const uint8_t *above, size_t count, uint8_t *out) {
  size_t i = 0;
#if defined(__x86_64__)
  for (; i + 16 <= count; i += 16) {
    __m128i r = _mm_loadu_si128((const __m128i *)(row + i));
    __m128i a = _mm_loadu_si128((const __m128i *)(above + i));
    _mm_storeu_si128((__m128i *)(out + i), _mm_sub_epi8(r, a));
  }
  if (i < count && count >= 16) {
    // The last 16 bytes again, overlapping (`out` is not `row` or `above`).
    i = count - 16;
    __m128i r = _mm_loadu_si128((const __m128i *)(row + i));
    __m128i a = _mm_loadu_si128((const __m128i *)(above + i));
    _mm_storeu_si128((__m128i *)(out + i), _mm_sub_epi8(r, a));
    return;
  }
#endif
  for (; i < count; i++) out[i] = (uint8_t)(row[i] - above[i]);
}

/// Writes `height` rows of `width` pixels as `up`-filtered gray PNG rows (filter byte 2, then
/// `width` bytes) into `out`; returns 0 as soon as a row holds a pixel that is not opaque gray
/// (what `out` holds then is undefined). `gray` is scratch for two rows (2 × `width` bytes).
/// `blank[row]` (`height` bytes) is set to 1 for a row equal to the row above, which is written
/// as its filter byte and zeros, and to 0 for every other row (asynclayer_deflate_rows skips them).
/// `level`: 0 scalar, 1 SSE2, 2 AVX2 (x86-64 only; higher than the CPU runs is not allowed,
/// see asynclayer_gray_rows_best_level).
static inline int asynclayer_gray_up_rows(const uint32_t *pixels, size_t width, size_t height, uint8_t *out,
                                          uint8_t *gray, uint8_t *blank, int level) {
  uint8_t *current = gray, *previous = gray + width;
  for (size_t row = 0; row < height; row++) {
    const uint32_t *source = pixels + row * width;
    uint8_t *target = out + row * (width + 1);
    target[0] = 2;
    if (row > 0 && memcmp(source, source - width, width * 4) == 0) {
      // The same pixels as the row above (already checked): `up` gives zeros; `previous` stays.
      memset(target + 1, 0, width);
      blank[row] = 1;
      continue;
    }
    blank[row] = 0;
    int ok;
#if defined(__x86_64__)
    if (level >= 2)
      ok = asynclayer_gray_row_avx2(source, width, current);
    else if (level == 1)
      ok = asynclayer_gray_row_sse2(source, width, current);
    else
#endif
      ok = asynclayer_gray_row_tail(source, 0, width, current);
    if (!ok) return 0;
    if (row == 0) {
      memcpy(target + 1, current, width);
    } else {
#if defined(__x86_64__)
      if (level >= 2) {
        asynclayer_up_avx2(current, previous, width, target + 1);
      } else
#endif
      if (level == 1) {
        asynclayer_up_sse2(current, previous, width, target + 1);
      } else {
        for (size_t i = 0; i < width; i++) target[1 + i] = (uint8_t)(current[i] - previous[i]);
      }
    }
    uint8_t *swap = current;
    current = previous;
    previous = swap;
  }
  return 1;
}

/// The same rows as asynclayer_gray_up_rows from one byte per pixel (a gray text tile's A8 rows,
/// `stride` bytes apart): the gray is the byte, or 255 − byte when `inverted`. Every pixel is
/// opaque gray by construction, so nothing is checked. `up` of inverted bytes is above − row.
/// `level` as for asynclayer_gray_up_rows (2: the `up` filter 32 bytes at a time; otherwise 16).
static inline void asynclayer_gray8_up_rows(const uint8_t *bytes, size_t stride, size_t width, size_t height,
                                            int inverted, uint8_t *out, uint8_t *blank, int level) {
  for (size_t row = 0; row < height; row++) {
    const uint8_t *source = bytes + row * stride;
    uint8_t *target = out + row * (width + 1);
    target[0] = 2;
    if (row == 0) {
      blank[row] = 0;
      if (inverted) {
        for (size_t i = 0; i < width; i++) target[1 + i] = (uint8_t)(255 - source[i]);
      } else {
        memcpy(target + 1, source, width);
      }
      continue;
    }
    const uint8_t *above = source - stride;
    if (memcmp(source, above, width) == 0) {
      memset(target + 1, 0, width);
      blank[row] = 1;
      continue;
    }
    blank[row] = 0;
    const uint8_t *minuend = inverted ? above : source, *subtrahend = inverted ? source : above;
#if defined(__x86_64__)
    if (level >= 2) {
      asynclayer_up_avx2(minuend, subtrahend, width, target + 1);
      continue;
    }
#endif
    (void)level;
    asynclayer_up_sse2(minuend, subtrahend, width, target + 1);
  }
}

#endif
