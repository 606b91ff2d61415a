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
    // Moffat and Katajainen's in-place construction over the sorted counts: the same tree as
    // pairing the two lightest of the leaves (in order) and the internal nodes (in the order they
    // are made), leaves first on ties, in three passes over one array.
    uint32_t a[288];
    for (unsigned i = 0; i < used; i++) a[i] = freq[symbols[i]];
    unsigned root = 0, leaf = 2, next;
    a[0] += a[1];
    for (next = 1; next < used - 1; next++) {
      if (leaf >= used || a[root] < a[leaf]) {
        a[next] = a[root];
        a[root++] = next;
      } else {
        a[next] = a[leaf++];
      }
      if (leaf >= used || (root < next && a[root] < a[leaf])) {
        a[next] += a[root];
        a[root++] = next;
      } else {
        a[next] += a[leaf++];
      }
    }
    // Depths of the internal nodes (each holds its parent's index), from the root down.
    a[used - 2] = 0;
    for (int k = (int)used - 3; k >= 0; k--) a[k] = a[a[k]] + 1;
    // Leaf depths, heaviest leaves shallowest.
    int available = 1, internal = (int)used - 2, target = (int)used - 1;
    unsigned depth = 0;
    while (available > 0) {
      int taken = 0;
      while (internal >= 0 && a[internal] == depth) {
        taken++;
        internal--;
      }
      while (available > taken) {
        a[target--] = depth;
        available--;
      }
      available = 2 * taken;
      depth++;
    }
    if (a[0] <= limit) {
      for (unsigned i = 0; i < used; i++) lengths[symbols[i]] = (uint8_t)a[i];
      return;
    }
    for (unsigned i = 0; i < used; i++) freq[symbols[i]] = (freq[symbols[i]] >> 1) | 1;
  }
}

/// Each byte with its bits in reverse order.
static const uint8_t asynclayer_reversed_bytes[256] = {
    0, 128, 64, 192, 32, 160, 96, 224, 16, 144, 80, 208, 48, 176, 112, 240,
    8, 136, 72, 200, 40, 168, 104, 232, 24, 152, 88, 216, 56, 184, 120, 248,
    4, 132, 68, 196, 36, 164, 100, 228, 20, 148, 84, 212, 52, 180, 116, 244,
    12, 140, 76, 204, 44, 172, 108, 236, 28, 156, 92, 220, 60, 188, 124, 252,
    2, 130, 66, 194, 34, 162, 98, 226, 18, 146, 82, 210, 50, 178, 114, 242,
    10, 138, 74, 202, 42, 170, 106, 234, 26, 154, 90, 218, 58, 186, 122, 250,
    6, 134, 70, 198, 38, 166, 102, 230, 22, 150, 86, 214, 54, 182, 118, 246,
    14, 142, 78, 206, 46, 174, 110, 238, 30, 158, 94, 222, 62, 190, 126, 254,
    1, 129, 65, 193, 33, 161, 97, 225, 17, 145, 81, 209, 49, 177, 113, 241,
    9, 137, 73, 201, 41, 169, 105, 233, 25, 153, 89, 217, 57, 185, 121, 249,
    5, 133, 69, 197, 37, 165, 101, 229, 21, 149, 85, 213, 53, 181, 117, 245,
    13, 141, 77, 205, 45, 173, 109, 237, 29, 157, 93, 221, 61, 189, 125, 253,
    3, 131, 67, 195, 35, 163, 99, 227, 19, 147, 83, 211, 51, 179, 115, 243,
    11, 139, 75, 203, 43, 171, 107, 235, 27, 155, 91, 219, 59, 187, 123, 251,
    7, 135, 71, 199, 39, 167, 103, 231, 23, 151, 87, 215, 55, 183, 119, 247,
    15, 143, 79, 207, 47, 175, 111, 239, 31, 159, 95, 223, 63, 191, 127, 255,
};

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
    // Reverse the 16-bit code a byte at a time, then drop the bits below the code's length.
    unsigned v = next[len]++;
    v = (unsigned)asynclayer_reversed_bytes[v & 0xff] << 8 | asynclayer_reversed_bytes[v >> 8];
    codes[s] = (uint16_t)(v >> (16 - len));
  }
}

#endif
