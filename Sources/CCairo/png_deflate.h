#ifndef ASYNCLAYER_PNG_DEFLATE_H
#define ASYNCLAYER_PNG_DEFLATE_H

// A zlib stream writer made for the filtered rows of text tiles (Codecs/PNGEncoder+GrayTile.swift).
//
// After PNG's `up` filter a text tile is some 95% zero bytes: every blank row, and the blank columns
// between glyphs. libdeflate's level 1 hashes and inserts every one of them (some 14 instructions
// per byte). This writer finds runs of the previous byte 16 bytes at a time (8 without SSE2) and emits them as
// distance-1 matches without touching its hash table, and looks for LZ77 matches (one candidate per
// 4-byte hash, greedy) only where the bytes change. All tokens go into one dynamic-Huffman block
// (code lengths limited to 15 bits by halving counts until they fit). The output is an ordinary
// zlib stream: any inflater reads it.
//
// The caller gives it scratch memory (asynclayer_deflate_scratch_bytes) and an output buffer of at
// least asynclayer_deflate_bound bytes; no allocation happens here.

#include <libdeflate.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "png_huffman.h"

#define ASYNCLAYER_DEFLATE_HASH_BITS 13
#define ASYNCLAYER_DEFLATE_WINDOW 32768
/// The token of a blank row (its filter byte in the low 8 bits), above every match token.
#define ASYNCLAYER_BLANK_ROW 0xff000000u

/// Scratch bytes for `count` input bytes: the hash table plus one 4-byte token per input byte.
static inline size_t asynclayer_deflate_scratch_bytes(size_t count) {
  return ((size_t)1 << ASYNCLAYER_DEFLATE_HASH_BITS) * 4 + (count + 1) * 4;
}

/// The most bytes the stream for `count` input bytes takes: a literal costs at most 15 bits and a
/// match of 3 or more bytes at most 48 (under 2 bytes per input byte), plus header and code
/// lengths (under 600 bytes), trailer, and the 8 bytes the bit writer stores past its position.
static inline size_t asynclayer_deflate_bound(size_t count) { return count * 2 + 1024; }

static inline uint32_t asynclayer_load32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static inline uint64_t asynclayer_load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/// Matching bytes of `a` and `b`, at most `limit`.
static inline size_t asynclayer_match_length(const uint8_t *a, const uint8_t *b, size_t limit) {
  size_t length = 0;
#ifdef __SSE2__
  // 16 bytes per step: a tile's matches run on through blank columns, often to the 258 limit.
  while (length + 16 <= limit) {
    unsigned differ = 0xffffu ^ (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
                                    _mm_loadu_si128((const __m128i *)(a + length)), _mm_loadu_si128((const __m128i *)(b + length))));
    if (differ) return length + (unsigned)__builtin_ctz(differ);
    length += 16;
  }
#endif
  while (length + 8 <= limit) {
    uint64_t x = asynclayer_load64(a + length) ^ asynclayer_load64(b + length);
    if (x) return length + ((unsigned)__builtin_ctzll(x) >> 3);
    length += 8;
  }
  while (length < limit && a[length] == b[length]) length++;
  return length;
}

/// The tokens of the scan and their symbol counts. A literal token is its byte (0…255); a match is
/// 256 + length − 3 in bits 0–8, distance − 1 in bits 9–23 and the distance's symbol in bits 24–28,
/// so that a literal and a distance-1 match (a run, the commonest match) are one table entry each.
typedef struct {
  uint32_t *tokens;
  size_t count;
  uint32_t litlen_freq[288];
  uint32_t dist_freq[30];
} asynclayer_token_list;

static inline void asynclayer_token_literal(asynclayer_token_list *t, uint8_t byte) {
  t->tokens[t->count++] = byte;
  t->litlen_freq[byte]++;
}

static inline void asynclayer_token_match(asynclayer_token_list *t, size_t length, size_t distance) {
  unsigned symbol = asynclayer_distance_symbol_of((unsigned)(distance - 1));
  t->tokens[t->count++] = (uint32_t)(253 + length) | (uint32_t)(distance - 1) << 9 | (uint32_t)symbol << 24;
  t->litlen_freq[257 + asynclayer_length_symbols[length - 3]]++;
  t->dist_freq[symbol]++;
}

/// `length` bytes ending at `end` that repeat the bytes `distance` before them: matches of up to
/// 258 bytes, and the last 1–2 bytes as literals when no match of 3 is left.
static inline void asynclayer_token_copy(asynclayer_token_list *t, const uint8_t *end, size_t length, size_t distance) {
  while (length >= 3) {
    size_t take = length > 258 ? 258 : length;
    if (length - take > 0 && length - take < 3) take = length - 3;
    if (distance == 1) {
      // A run (the commonest match): its token is below 512 and its distance symbol 0.
      t->tokens[t->count++] = (uint32_t)(253 + take);
      t->litlen_freq[257 + asynclayer_length_symbols[take - 3]]++;
      t->dist_freq[0]++;
    } else {
      asynclayer_token_match(t, take, distance);
    }
    length -= take;
  }
  for (; length > 0; length--) asynclayer_token_literal(t, end[-(ptrdiff_t)length]);
}

/// The length of the run of `value` from `p`, at most `limit` bytes: 64 bytes per branch (SSE2),
/// then 16, then 8, since most runs of a tile are hundreds of bytes long.
static inline size_t asynclayer_run_length(const uint8_t *p, size_t limit, uint8_t value) {
  size_t run = 0;
#ifdef __SSE2__
  __m128i wide = _mm_set1_epi8((char)value);
  while (run + 64 <= limit) {
    const __m128i *at = (const __m128i *)(p + run);
    __m128i all = _mm_and_si128(
        _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128(at), wide), _mm_cmpeq_epi8(_mm_loadu_si128(at + 1), wide)),
        _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128(at + 2), wide), _mm_cmpeq_epi8(_mm_loadu_si128(at + 3), wide)));
    if (_mm_movemask_epi8(all) != 0xffff) break;
    run += 64;
  }
  while (run + 16 <= limit) {
    unsigned differ = 0xffffu ^ (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + run)), wide));
    if (differ) return run + (unsigned)__builtin_ctz(differ);
    run += 16;
  }
#endif
  uint64_t pattern = 0x0101010101010101ull * value;
  while (run + 8 <= limit) {
    uint64_t x = asynclayer_load64(p + run) ^ pattern;
    if (x) return run + ((unsigned)__builtin_ctzll(x) >> 3);
    run += 8;
  }
  while (run < limit && p[run] == value) run++;
  return run;
}

/// Adler-32 of PNG rows: blank rows (a filter byte, then zeros) are added by arithmetic instead of
/// being read, the other rows by libdeflate.
static inline uint32_t asynclayer_adler_rows(const uint8_t *input, size_t count, size_t row_bytes, const uint8_t *blank) {
  if (blank == NULL || row_bytes < 3) return libdeflate_adler32(1, input, count);
  uint32_t adler = 1;
  size_t rows = count / row_bytes, start = 0;
  for (size_t r = 0; r < rows; r++) {
    if (!blank[r]) continue;
    size_t at = r * row_bytes;
    if (at > start) adler = libdeflate_adler32(adler, input + start, at - start);
    // One byte f, then row_bytes − 1 zeros: a += f, b += a once and then once per zero.
    uint64_t a = ((adler & 0xffff) + input[at]) % 65521, b = (adler >> 16);
    b = (b + a * row_bytes) % 65521;
    adler = (uint32_t)(b << 16 | a);
    start = at + row_bytes;
  }
  if (count > start) adler = libdeflate_adler32(adler, input + start, count - start);
  return adler;
}

/// The LZ77 step at `i`, whose 4 bytes are `bytes` (at least 4 bytes left): looks up the last
/// position with the same hash and makes `i` that hash's last position; when the bytes there match,
/// sets `length` (at most 258) and `distance` and returns 1, else returns 0. Used by the scan's inner
/// loop and by its steps at the first and last bytes.
static inline __attribute__((always_inline)) int asynclayer_hash_match(const uint8_t *input, size_t count, size_t i,
                                                                      uint32_t bytes, int32_t *head, size_t *length,
                                                                      size_t *distance) {
  uint32_t hash = (bytes * 0x1E35A7BDu) >> (32 - ASYNCLAYER_DEFLATE_HASH_BITS);
  int32_t candidate = head[hash];
  head[hash] = (int32_t)i;
  // An empty slot holds a large negative position, always out of the window.
  if ((size_t)((ptrdiff_t)i - candidate) <= ASYNCLAYER_DEFLATE_WINDOW &&
      asynclayer_load32(input + candidate) == bytes) {
    size_t limit = count - i < 258 ? count - i : 258;
    *length = 4 + asynclayer_match_length(input + candidate + 4, input + i + 4, limit - 4);
    *distance = i - (size_t)candidate;
    return 1;
  }
  return 0;
}

/// Writes `input` as a zlib stream into `output`; returns the byte count, or 0 when `capacity` is
/// less than asynclayer_deflate_bound(count). `scratch` holds asynclayer_deflate_scratch_bytes(count)
/// bytes, 4-byte aligned.
///
/// `row_bytes` and `blank` (may be NULL) describe PNG rows: when `blank[r]` is nonzero, row `r`
/// (the `row_bytes` bytes from r × row_bytes) is its filter byte followed by zeros, and it is
/// written without reading it as the filter byte, a zero and a distance-1 run (a group of blank rows
/// as one copy at the distance of a row gave a 3% larger tile: 8 extra bits per 258 bytes). The row pass already knows
/// the blank rows of a tile (two thirds of its bytes), so they cost a few tokens instead of a scan.
/// The caller vouches for the flags; the tests check the stream decodes to `input`.
static inline size_t asynclayer_deflate_rows(const uint8_t *input, size_t count, size_t row_bytes,
                                             const uint8_t *blank, uint8_t *output, size_t capacity,
                                             void *scratch) {
  if (capacity < asynclayer_deflate_bound(count)) return 0;
  int32_t *head = (int32_t *)scratch;
  memset(head, 0x80, ((size_t)1 << ASYNCLAYER_DEFLATE_HASH_BITS) * 4);  // -2139062144: no position
  asynclayer_token_list t;
  memset(&t, 0, sizeof t);
  t.tokens = (uint32_t *)scratch + ((size_t)1 << ASYNCLAYER_DEFLATE_HASH_BITS);
  size_t i = 0, fast_end = count >= 4 ? count - 4 : 0;
  // The next row start to look at for a blank row (past the end when there are no flags).
  size_t next_row = blank != NULL && row_bytes >= 3 ? 0 : count;
  // After its filter byte every blank row is the same tokens (a zero, then a distance-1 run), so a
  // blank row becomes one token, ASYNCLAYER_BLANK_ROW | filter byte; the rest is counted once per
  // row after the scan and written from bits prepared once (rows of up to 8 × 258 bytes).
  int blank_token = row_bytes - 2 <= 8 * 258;
  size_t blank_rows = 0;
  // Positions below fast_limit are past the first byte, before the next row start and before the
  // last 3 bytes: the inner loop takes the common steps there, one compare per position.
  size_t fast_limit = 0;
  while (i < count) {
    while (i < fast_limit) {
      // A run of the previous byte (the byte before i and the 3 from i all equal): distance-1
      // matches. Then a match of the 4 bytes from i at the last position with their hash.
      uint32_t four = asynclayer_load32(input + i - 1), bytes = asynclayer_load32(input + i);
      if (four == (four & 0xff) * 0x01010101u) {
        size_t run = 3 + asynclayer_run_length(input + i + 3, count - i - 3, (uint8_t)four);
        i += run;
        asynclayer_token_copy(&t, input + i, run, 1);
        continue;
      }
      size_t length, distance;
      if (asynclayer_hash_match(input, count, i, bytes, head, &length, &distance)) {
        asynclayer_token_match(&t, length, distance);
        i += length;
        continue;
      }
      asynclayer_token_literal(&t, input[i]);
      i++;
    }
    if (i >= count) break;
    if (i >= next_row) {
      // At (or, after a match that ran into it, past) the start of row i / row_bytes.
      size_t row = i / row_bytes;
      next_row = (row + 1) * row_bytes;
      if (i == row * row_bytes && next_row <= count && blank[row]) {
        if (blank_token) {
          t.tokens[t.count++] = ASYNCLAYER_BLANK_ROW | input[i];
          t.litlen_freq[input[i]]++;
          blank_rows++;
          i = next_row;
          continue;
        }
        asynclayer_token_literal(&t, input[i]);
        asynclayer_token_literal(&t, 0);
        asynclayer_token_copy(&t, input + next_row, row_bytes - 2, 1);
        i = next_row;
        continue;
      }
    }
    fast_limit = next_row < fast_end + 1 ? next_row : fast_end + 1;
    if (i > 0 && i < fast_limit) continue;
    // The first byte and the last 3: the same steps where they apply.
    if (i > 0 && i + 3 <= count) {
      uint32_t four = asynclayer_load32(input + i - 1);
      if (four == (four & 0xff) * 0x01010101u) {
        size_t run = 3 + asynclayer_run_length(input + i + 3, count - i - 3, (uint8_t)four);
        i += run;
        asynclayer_token_copy(&t, input + i, run, 1);
        continue;
      }
    }
    if (i + 4 <= count) {
      size_t length, distance;
      if (asynclayer_hash_match(input, count, i, asynclayer_load32(input + i), head, &length, &distance)) {
        asynclayer_token_match(&t, length, distance);
        i += length;
        continue;
      }
    }
    asynclayer_token_literal(&t, input[i]);
    i++;
  }
  t.litlen_freq[256]++;
  // The tokens of a blank row after its filter byte (asynclayer_token_copy's split), counted once per row.
  uint32_t row_tail[12];
  unsigned row_tail_count = 0;
  if (blank_rows > 0) {
    row_tail[row_tail_count++] = 0;
    size_t length = row_bytes - 2;
    while (length >= 3) {
      size_t take = length > 258 ? 258 : length;
      if (length - take > 0 && length - take < 3) take = length - 3;
      row_tail[row_tail_count++] = (uint32_t)(253 + take);
      length -= take;
    }
    for (; length > 0; length--) row_tail[row_tail_count++] = 0;
    for (unsigned k = 0; k < row_tail_count; k++) {
      if (row_tail[k] < 256) {
        t.litlen_freq[row_tail[k]] += (uint32_t)blank_rows;
      } else {
        t.litlen_freq[257 + asynclayer_length_symbols[row_tail[k] - 256]] += (uint32_t)blank_rows;
        t.dist_freq[0] += (uint32_t)blank_rows;
      }
    }
  }

  uint8_t lengths[286 + 30];
  asynclayer_huffman_lengths(t.litlen_freq, 286, 15, lengths);
  asynclayer_huffman_lengths(t.dist_freq, 30, 15, lengths + 286);
  unsigned hlit = 286, hdist = 30;
  while (hlit > 257 && lengths[hlit - 1] == 0) hlit--;
  while (hdist > 1 && lengths[286 + hdist - 1] == 0) hdist--;
  // The code lengths, run-length coded (16: repeat previous 3–6, 17: zeros 3–10, 18: zeros 11–138).
  uint8_t all[286 + 30], rle[286 + 30], rle_extra[286 + 30];
  memcpy(all, lengths, hlit);
  memcpy(all + hlit, lengths + 286, hdist);
  unsigned total = hlit + hdist, rle_count = 0;
  uint32_t cl_freq[19] = {0};
  for (unsigned k = 0; k < total;) {
    uint8_t value = all[k];
    unsigned run = 1;
    while (k + run < total && all[k + run] == value) run++;
    if (value == 0 && run >= 3) {
      unsigned take = run > 138 ? 138 : run;
      rle[rle_count] = take >= 11 ? 18 : 17;
      rle_extra[rle_count++] = (uint8_t)(take >= 11 ? take - 11 : take - 3);
      cl_freq[take >= 11 ? 18 : 17]++;
      k += take;
    } else if (value != 0 && run >= 4) {
      rle[rle_count] = value;
      rle_extra[rle_count++] = 0;
      cl_freq[value]++;
      unsigned take = run - 1 > 6 ? 6 : run - 1;
      rle[rle_count] = 16;
      rle_extra[rle_count++] = (uint8_t)(take - 3);
      cl_freq[16]++;
      k += 1 + take;
    } else {
      rle[rle_count] = value;
      rle_extra[rle_count++] = 0;
      cl_freq[value]++;
      k++;
    }
  }
  uint8_t cl_lengths[19];
  uint16_t cl_codes[19];
  asynclayer_huffman_lengths(cl_freq, 19, 7, cl_lengths);
  asynclayer_huffman_codes(cl_lengths, 19, cl_codes);
  static const uint8_t cl_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  unsigned hclen = 19;
  while (hclen > 4 && cl_lengths[cl_order[hclen - 1]] == 0) hclen--;

  uint16_t litlen_codes[286], dist_codes[30];
  asynclayer_huffman_codes(lengths, 286, litlen_codes);
  asynclayer_huffman_codes(lengths + 286, 30, dist_codes);
  // Codes shifted up 8 bits above their bit count (so the writer needs one shift to take the code):
  // a literal's; a length's with its extra bits, and the code of distance 1 after them
  // (`short_entry`, for tokens under 512); a length's alone (`length_entry`); a distance's code
  // with its code length in bits 16–23 and its bit count with the extra bits in 24–31.
  uint64_t short_entry[512], length_entry[256];
  uint32_t dist_entry[30];
  for (unsigned s = 0; s < 256; s++) short_entry[s] = (uint64_t)litlen_codes[s] << 8 | lengths[s];
  for (unsigned l = 0; l < 256; l++) {
    unsigned symbol = asynclayer_length_symbols[l], code_length = lengths[257 + symbol];
    unsigned n = code_length + asynclayer_length_extra[symbol];
    uint64_t value = litlen_codes[257 + symbol] | (uint64_t)(l - asynclayer_length_base[symbol]) << code_length;
    length_entry[l] = value << 8 | n;
    short_entry[256 + l] = (value | (uint64_t)dist_codes[0] << n) << 8 | (n + lengths[286]);
  }
  for (unsigned s = 0; s < 30; s++)
    dist_entry[s] = dist_codes[s] | (uint32_t)lengths[286 + s] << 16 |
                    (uint32_t)(lengths[286 + s] + asynclayer_distance_extra[s]) << 24;

  // A blank row's tail as pieces of at most 56 bits (each token's code is at most 35).
  uint64_t row_tail_pieces[12];
  unsigned row_tail_piece_count = 0;
  if (row_tail_count > 0) {
    uint64_t piece = 0;
    unsigned piece_bits = 0;
    for (unsigned k = 0; k < row_tail_count; k++) {
      uint64_t entry = short_entry[row_tail[k]];
      unsigned n = (unsigned)(entry & 0xff);
      if (piece_bits + n > 56) {
        row_tail_pieces[row_tail_piece_count++] = piece << 8 | piece_bits;
        piece = 0;
        piece_bits = 0;
      }
      piece |= (entry >> 8) << piece_bits;
      piece_bits += n;
    }
    row_tail_pieces[row_tail_piece_count++] = piece << 8 | piece_bits;
  }

  asynclayer_bit_writer w = {0, 0, 0, output, 0, capacity};
  asynclayer_put_bits(&w, 0x0178, 16);  // zlib header: deflate, 32 KiB window, fastest (bytes 78 01)
  asynclayer_put_bits(&w, 1 | 2 << 1, 3);  // the final block, dynamic Huffman
  asynclayer_put_bits(&w, hlit - 257, 5);
  asynclayer_put_bits(&w, hdist - 1, 5);
  asynclayer_put_bits(&w, hclen - 4, 4);
  for (unsigned k = 0; k < hclen; k++) asynclayer_put_bits(&w, cl_lengths[cl_order[k]], 3);
  for (unsigned k = 0; k < rle_count; k++) {
    asynclayer_put_bits(&w, cl_codes[rle[k]], cl_lengths[rle[k]]);
    if (rle[k] == 16) asynclayer_put_bits(&w, rle_extra[k], 2);
    if (rle[k] == 17) asynclayer_put_bits(&w, rle_extra[k], 3);
    if (rle[k] == 18) asynclayer_put_bits(&w, rle_extra[k], 7);
  }
  // The tokens, one store per token and no capacity check: the bound above holds for any input.
  uint64_t bits = w.bits;
  unsigned held = w.count;
  uint8_t *out = output + w.position;
// Appends a table entry (code bits from bit 8, their count below) with one 8-byte store.
#define ASYNCLAYER_WRITE_ENTRY(entry)                                              \
  do {                                                                             \
    bits |= ((entry) >> 8) << held; /* held < 8, at most 56 more */                \
    held += (unsigned)((entry)&0xff);                                              \
    memcpy(out, &bits, 8);                                                         \
    out += held >> 3;                                                              \
    bits >>= held & 56;                                                            \
    held &= 7;                                                                     \
  } while (0)
  for (size_t k = 0; k < t.count; k++) {
    uint32_t token = t.tokens[k];
    uint64_t entry;
    if (token < 512) {
      entry = short_entry[token];
    } else if (token < ASYNCLAYER_BLANK_ROW) {
      unsigned symbol = token >> 24, distance = (token >> 9) & 0x7fff, d = dist_entry[symbol];
      entry = length_entry[token & 255];
      uint64_t code = (d & 0xffff) | (uint64_t)(distance - asynclayer_distance_base[symbol]) << ((d >> 16) & 0xff);
      entry += (code << ((entry & 0xff) + 8)) + (d >> 24);
    } else {
      ASYNCLAYER_WRITE_ENTRY(short_entry[token & 255]);
      for (unsigned p = 0; p + 1 < row_tail_piece_count; p++) ASYNCLAYER_WRITE_ENTRY(row_tail_pieces[p]);
      entry = row_tail_pieces[row_tail_piece_count - 1];
    }
    ASYNCLAYER_WRITE_ENTRY(entry);
  }
#undef ASYNCLAYER_WRITE_ENTRY
  w.bits = bits;
  w.count = held;
  w.position = (size_t)(out - output);
  asynclayer_put_bits(&w, litlen_codes[256], lengths[256]);
  asynclayer_flush_bits(&w);
  uint32_t adler = asynclayer_adler_rows(input, count, row_bytes, blank);
  if (w.overflow || w.position + 4 > capacity) return 0;
  output[w.position] = (uint8_t)(adler >> 24);
  output[w.position + 1] = (uint8_t)(adler >> 16);
  output[w.position + 2] = (uint8_t)(adler >> 8);
  output[w.position + 3] = (uint8_t)adler;
  return w.position + 4;
}

/// asynclayer_deflate_rows without row information.
static inline size_t asynclayer_deflate_tile(const uint8_t *input, size_t count, uint8_t *output, size_t capacity,
                                             void *scratch) {
  return asynclayer_deflate_rows(input, count, 0, NULL, output, capacity, scratch);
}

#endif
