#ifndef ASYNCLAYER_PNG_HUFFMAN_H
#define ASYNCLAYER_PNG_HUFFMAN_H

// Huffman codes and deflate's symbol tables for the tile deflater (png_deflate.h).

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/// Length − 3 (0…255) → length symbol − 257 (0…28).
static const uint8_t asynclayer_length_symbols[256] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15,
    16, 16, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 17, 17, 17, 17, 18, 18, 18, 18, 18, 18, 18, 18, 19, 19, 19, 19, 19, 19, 19, 19,
    20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 21, 21, 21, 21, 21, 21, 21, 21, 21, 21, 21, 21, 21, 21, 21, 21,
    22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 22, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23,
    24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24,
    25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25,
    26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26,
    27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 28,
};
/// Distance − 1 → distance symbol: entries 0…255 for distances up to 256, then 256 + (distance − 1) / 128.
static const uint8_t asynclayer_distance_symbols[512] = {
    0, 1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9,
    10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13,
    14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,
    14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    0, 14, 16, 17, 18, 18, 19, 19, 20, 20, 20, 20, 21, 21, 21, 21, 22, 22, 22, 22, 22, 22, 22, 22, 23, 23, 23, 23, 23, 23, 23, 23,
    24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25,
    26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26, 26,
    27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27,
    28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
    28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
    29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29,
    29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29, 29,
};

/// Length symbol − 257 → its extra bits and the length − 3 it starts at.
static const uint8_t asynclayer_length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                    2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint8_t asynclayer_length_base[29] = {0,  1,  2,  3,  4,  5,  6,   7,   8,   10,  12,  14,  16,  20, 24,
                                                   28, 32, 40, 48, 56, 64, 80,  96,  112, 128, 160, 192, 224, 255};
/// Distance symbol → its extra bits and the distance − 1 it starts at.
static const uint8_t asynclayer_distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                                      6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const uint16_t asynclayer_distance_base[30] = {0,    1,    2,    3,    4,    6,     8,     12,    16,    24,
                                                      32,   48,   64,   96,   128,  192,   256,   384,   512,   768,
                                                      1024, 1536, 2048, 3072, 4096, 6144,  8192,  12288, 16384, 24576};

/// The distance symbol of distance − 1 (0…32767): zlib's two-level table.
static inline unsigned asynclayer_distance_symbol_of(unsigned distance_minus_1) {
  return distance_minus_1 < 256 ? asynclayer_distance_symbols[distance_minus_1]
                                : asynclayer_distance_symbols[256 + (distance_minus_1 >> 7)];
}

typedef struct {
  uint64_t bits;
  unsigned count;
  int overflow;
  uint8_t *out;
  size_t position;
  size_t capacity;
} asynclayer_bit_writer;

/// Appends the low `n` (at most 56) bits of `value`, least significant first. The whole 64-bit
/// buffer is stored after every call and the position moves by the complete bytes: no branch on
/// whether a flush is due, which a tile's mix of short and long codes made unpredictable (about
/// one mispredicted branch in two codes). Writing stops (overflow) where fewer than 8 bytes remain.
static inline void asynclayer_put_bits(asynclayer_bit_writer *w, uint64_t value, unsigned n) {
  w->bits |= value << w->count;  // count < 8 here, so at most 63 bits are in use
  w->count += n;
  if (__builtin_expect(w->position + 8 <= w->capacity, 1)) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(w->out + w->position, &w->bits, 8);
#else
    for (int k = 0; k < 8; k++) w->out[w->position + k] = (uint8_t)(w->bits >> (8 * k));
#endif
  } else {
    w->overflow = 1;
  }
  unsigned bytes = w->count >> 3;
  w->position += bytes;
  w->bits >>= 8 * bytes;
  w->count &= 7;
}

/// Writes the last partial byte; the stream then ends at `position`.
static inline void asynclayer_flush_bits(asynclayer_bit_writer *w) {
  if (w->count > 0) {
    if (w->position < w->capacity)
      w->out[w->position] = (uint8_t)w->bits;
    else
      w->overflow = 1;
    w->position++;
    w->bits = 0;
    w->count = 0;
  }
}

/// Sorts `used` symbols by their count in `freq`, ties by symbol (the order they come in, ascending):
/// a stable radix sort on the count, one pass per byte of the largest count (a tile: two or three
/// passes over some 250 symbols, where a comparison sort took some 30 k instructions).
static inline void asynclayer_sort_by_count(const uint32_t *freq, unsigned *symbols, unsigned used) {
  if (used <= 32) {
    // Few symbols (distances, code lengths): an insertion sort costs less than the 256 buckets.
    for (unsigned i = 1; i < used; i++) {
      unsigned symbol = symbols[i], j = i;
      while (j > 0 && freq[symbols[j - 1]] > freq[symbol]) {
        symbols[j] = symbols[j - 1];
        j--;
      }
      symbols[j] = symbol;
    }
    return;
  }
  uint32_t largest = 0;
  for (unsigned i = 0; i < used; i++) largest |= freq[symbols[i]];
  unsigned other[288];
  unsigned *from = symbols, *to = other;
  for (unsigned shift = 0; shift < 32 && (largest >> shift) != 0; shift += 8) {
    unsigned start[257];
    memset(start, 0, sizeof start);
    for (unsigned i = 0; i < used; i++) start[((freq[from[i]] >> shift) & 0xff) + 1]++;
    for (unsigned d = 1; d < 257; d++) start[d] += start[d - 1];
    for (unsigned i = 0; i < used; i++) to[start[(freq[from[i]] >> shift) & 0xff]++] = from[i];
    unsigned *swap = from;
    from = to;
    to = swap;
  }
  if (from != symbols) memcpy(symbols, from, used * sizeof symbols[0]);
}

/// Huffman code lengths for `n` symbols (at most 288) with counts `freq`, none longer than `limit`.
/// Fewer than two used symbols get a complete two-symbol code (inflaters accept it everywhere).
static inline void asynclayer_huffman_lengths(const uint32_t *freq_in, unsigned n, unsigned limit, uint8_t *lengths) {
  uint32_t freq[288];
  unsigned symbols[288], used = 0;
  memset(lengths, 0, n);
  for (unsigned s = 0; s < n; s++) {
    freq[s] = freq_in[s];
    if (freq[s]) symbols[used++] = s;
  }
  if (used < 2) {
    unsigned first = used ? symbols[0] : 0;
    lengths[first] = 1;
    lengths[first == 0 ? 1 : 0] = 1;
    return;
  }
  for (unsigned round = 0;; round++) {
    // Leaves sorted by count, then symbol (after a round of halving, from the symbols in order again).
    if (round > 0)
      for (unsigned s = 0, k = 0; s < n; s++)
        if (freq[s]) symbols[k++] = s;
    asynclayer_sort_by_count(freq, symbols, used);
    // The two-queue construction: leaves in order, internal nodes in the order they are made.
    uint64_t weight[576];
    int parent[576];
    unsigned leaf = 0, next_internal = used, total = 2 * used - 1;
    for (unsigned i = 0; i < used; i++) weight[i] = freq[symbols[i]];
    unsigned internal_head = used;
    for (; next_internal < total; next_internal++) {
      unsigned pick[2];
      for (int k = 0; k < 2; k++) {
        if (leaf < used && (internal_head >= next_internal || weight[leaf] <= weight[internal_head]))
          pick[k] = leaf++;
        else
          pick[k] = internal_head++;
      }
      weight[next_internal] = weight[pick[0]] + weight[pick[1]];
      parent[pick[0]] = (int)next_internal;
      parent[pick[1]] = (int)next_internal;
    }
    // Depths from the root (the last node) down.
    unsigned depth[576];
    depth[total - 1] = 0;
    unsigned longest = 0;
    for (int i = (int)total - 2; i >= 0; i--) {
      depth[i] = depth[parent[i]] + 1;
      if ((unsigned)i < used && depth[i] > longest) longest = depth[i];
    }
    if (longest <= limit) {
      for (unsigned i = 0; i < used; i++) lengths[symbols[i]] = (uint8_t)depth[i];
      return;
    }
    for (unsigned i = 0; i < used; i++) freq[symbols[i]] = (freq[symbols[i]] >> 1) | 1;
  }
}

/// Canonical codes for `lengths`, bit-reversed for the LSB-first writer.
static inline void asynclayer_huffman_codes(const uint8_t *lengths, unsigned n, uint16_t *codes) {
  unsigned count[16] = {0}, next[16];
  for (unsigned s = 0; s < n; s++) count[lengths[s]]++;
  count[0] = 0;
  unsigned code = 0;
  for (unsigned bits = 1; bits < 16; bits++) {
    code = (code + count[bits - 1]) << 1;
    next[bits] = code;
  }
  for (unsigned s = 0; s < n; s++) {
    unsigned len = lengths[s];
    if (!len) {
      codes[s] = 0;
      continue;
    }
    // Reverse the 16-bit code, then drop the bits below the code's length.
    unsigned v = next[len]++;
    v = ((v >> 1) & 0x5555) | ((v & 0x5555) << 1);
    v = ((v >> 2) & 0x3333) | ((v & 0x3333) << 2);
    v = ((v >> 4) & 0x0f0f) | ((v & 0x0f0f) << 4);
    v = ((v >> 8) & 0x00ff) | ((v & 0x00ff) << 8);
    codes[s] = (uint16_t)(v >> (16 - len));
  }
}

#endif
