#ifndef ASYNCLAYER_PNG_DEFLATE_H
#define ASYNCLAYER_PNG_DEFLATE_H

// A zlib stream writer made for the filtered rows of text tiles (Codecs/TileDeflater.swift).
//
// After PNG's `up` filter a text tile is some 95% zero bytes: every blank row, and the blank columns
// between glyphs. libdeflate's level 1 hashes and inserts every one of them (some 14 instructions
// per byte). This writer finds runs of the previous byte 16 bytes at a time (8 without SSE2) and emits them as
// distance-1 matches without touching its hash table, and looks for LZ77 matches (one candidate per
// 4-byte hash, greedy) only where the bytes change. All tokens go into one dynamic-Huffman block
// (code lengths limited to 15 bits by halving counts until they fit), checked by libdeflate's
// Adler-32. The output is an ordinary zlib stream: any inflater reads it.
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

#define ASYNCLAYER_DEFLATE_HASH_BITS 13
#define ASYNCLAYER_DEFLATE_WINDOW 32768

/// Scratch bytes for `count` input bytes: the hash table plus one 4-byte token per input byte.
static inline size_t asynclayer_deflate_scratch_bytes(size_t count) {
  return ((size_t)1 << ASYNCLAYER_DEFLATE_HASH_BITS) * 4 + (count + 1) * 4;
}

/// The most bytes the stream for `count` input bytes takes: a literal costs at most 15 bits (under
/// 2 bytes), plus header, tree and trailer.
static inline size_t asynclayer_deflate_bound(size_t count) { return count * 2 + 1024; }

typedef struct {
  uint64_t bits;
  unsigned count;
  int overflow;
  uint8_t *out;
  size_t position;
  size_t capacity;
} asynclayer_bit_writer;

/// Appends the low `n` (at most 32) bits of `value`, least significant first. The whole 64-bit
/// buffer is stored after every call and the position moves by the complete bytes: no branch on
/// whether a flush is due, which a tile's mix of short and long codes made unpredictable (about
/// one mispredicted branch in two codes). Writing stops (overflow) where fewer than 8 bytes remain.
static inline void asynclayer_put_bits(asynclayer_bit_writer *w, uint32_t value, unsigned n) {
  w->bits |= (uint64_t)value << w->count;  // count < 8 here, so at most 39 bits are in use
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

/// Huffman code lengths for `n` symbols (at most 286) with counts `freq`, none longer than `limit`.
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
  for (;;) {
    // Leaves sorted by count, then symbol (Shell sort of packed keys: at most 286, no indirection).
    uint64_t keys[288];
    for (unsigned i = 0; i < used; i++) keys[i] = (uint64_t)freq[symbols[i]] << 16 | symbols[i];
    static const unsigned gaps[] = {132, 57, 23, 10, 4, 1};
    for (unsigned g = 0; g < 6; g++) {
      unsigned gap = gaps[g];
      for (unsigned i = gap; i < used; i++) {
        uint64_t key = keys[i];
        unsigned j = i;
        while (j >= gap && keys[j - gap] > key) {
          keys[j] = keys[j - gap];
          j -= gap;
        }
        keys[j] = key;
      }
    }
    for (unsigned i = 0; i < used; i++) symbols[i] = (unsigned)(keys[i] & 0xffff);
    // The two-queue construction: leaves in order, internal nodes in the order they are made.
    uint64_t weight[576];
    int parent[576];
    unsigned leaf = 0, node = used, next_internal = used, total = 2 * used - 1;
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
    (void)node;
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

/// Length 3…258 → symbol 257…285 and its extra bits.
static inline unsigned asynclayer_length_symbol(unsigned length, unsigned *extra_bits, unsigned *extra) {
  if (length == 258) {
    *extra_bits = 0;
    *extra = 0;
    return 285;
  }
  unsigned l = length - 3;
  if (l < 8) {
    *extra_bits = 0;
    *extra = 0;
    return 257 + l;
  }
  unsigned e = (31 - (unsigned)__builtin_clz(l)) - 2;
  *extra_bits = e;
  *extra = l & ((1u << e) - 1);
  return 257 + 4 * (e + 1) + ((l >> e) - 4);
}

/// Distance 1…32768 → symbol 0…29 and its extra bits.
static inline unsigned asynclayer_distance_symbol(unsigned distance, unsigned *extra_bits, unsigned *extra) {
  unsigned d = distance - 1;
  if (d < 4) {
    *extra_bits = 0;
    *extra = 0;
    return d;
  }
  unsigned e = (31 - (unsigned)__builtin_clz(d)) - 1;
  *extra_bits = e;
  *extra = d & ((1u << e) - 1);
  return 2 * (e + 1) + ((d >> e) & 1);
}

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
  while (length + 8 <= limit) {
    uint64_t x = asynclayer_load64(a + length) ^ asynclayer_load64(b + length);
    if (x) return length + ((unsigned)__builtin_ctzll(x) >> 3);
    length += 8;
  }
  while (length < limit && a[length] == b[length]) length++;
  return length;
}

/// Writes `input` as a zlib stream into `output`; returns the byte count, or 0 when `capacity` is too
/// small. `scratch` holds asynclayer_deflate_scratch_bytes(count) bytes, 4-byte aligned.
///
/// `row_bytes` and `blank` (may be NULL) describe PNG rows: when `blank[r]` is nonzero, row `r`
/// (the `row_bytes` bytes from r × row_bytes) is its filter byte followed by zeros, and it is
/// written as the filter byte, a zero and a distance-1 run without reading it: the row pass
/// already knows the blank rows of a tile (two thirds of its bytes), so they cost a few tokens
/// instead of a scan. The caller vouches for the flags; the tests check the stream decodes to
/// `input`.
static inline size_t asynclayer_deflate_rows(const uint8_t *input, size_t count, size_t row_bytes,
                                             const uint8_t *blank, uint8_t *output, size_t capacity,
                                             void *scratch) {
  if (capacity < 8) return 0;
  int32_t *head = (int32_t *)scratch;
  uint32_t *tokens = (uint32_t *)scratch + ((size_t)1 << ASYNCLAYER_DEFLATE_HASH_BITS);
  memset(head, 0xff, ((size_t)1 << ASYNCLAYER_DEFLATE_HASH_BITS) * 4);
  uint32_t litlen_freq[288] = {0}, dist_freq[30] = {0};
  size_t token_count = 0, i = 0;
  unsigned eb, ev;
// A match token: bit 31 set, length − 3 in bits 16–23, distance − 1 in bits 0–14.
#define ASYNCLAYER_EMIT_MATCH(length, distance)                                          \
  do {                                                                                   \
    tokens[token_count++] = 0x80000000u | (uint32_t)((length)-3) << 16 | (uint32_t)((distance)-1); \
    litlen_freq[asynclayer_length_symbol((unsigned)(length), &eb, &ev)]++;               \
    dist_freq[asynclayer_distance_symbol((unsigned)(distance), &eb, &ev)]++;             \
  } while (0)
  // The next row start to look at for a blank row (past the end when there are no flags).
  size_t next_row = blank != NULL && row_bytes >= 3 ? 0 : count;
  while (i < count) {
    if (i >= next_row) {
      // At (or, after a match that ran into it, past) the start of row i / row_bytes.
      size_t row = i / row_bytes;
      next_row = (row + 1) * row_bytes;
      if (i == row * row_bytes && next_row <= count && blank[row]) {
        tokens[token_count++] = input[i];
        litlen_freq[input[i]]++;
        tokens[token_count++] = 0;
        litlen_freq[0]++;
        size_t run = row_bytes - 2;
        while (run >= 3) {
          size_t length = run > 258 ? 258 : run;
          if (run - length > 0 && run - length < 3) length = run - 3;
          ASYNCLAYER_EMIT_MATCH(length, 1);
          run -= length;
        }
        for (; run > 0; run--) {
          tokens[token_count++] = 0;
          litlen_freq[0]++;
        }
        i = next_row;
        continue;
      }
    }
    // A run of the previous byte: distance-1 matches, found 64 (SSE2) or 8 bytes at a time.
    if (i > 0 && i + 3 <= count && input[i] == input[i - 1] && input[i + 1] == input[i - 1] &&
        input[i + 2] == input[i - 1]) {
      size_t run = 3;
#ifdef __SSE2__
      __m128i wide = _mm_set1_epi8((char)input[i - 1]);
      // Four 16-byte compares per branch: most runs of a tile are hundreds of bytes long.
      while (i + run + 64 <= count) {
        const __m128i *at = (const __m128i *)(input + i + run);
        __m128i all = _mm_and_si128(
            _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128(at), wide), _mm_cmpeq_epi8(_mm_loadu_si128(at + 1), wide)),
            _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128(at + 2), wide), _mm_cmpeq_epi8(_mm_loadu_si128(at + 3), wide)));
        if (_mm_movemask_epi8(all) != 0xffff) break;
        run += 64;
      }
      while (i + run + 16 <= count) {
        unsigned differ =
            0xffffu ^ (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(input + i + run)), wide));
        if (differ) {
          run += (unsigned)__builtin_ctz(differ);
          goto run_found;
        }
        run += 16;
      }
#endif
      uint64_t pattern = 0x0101010101010101ull * input[i - 1];
      while (i + run + 8 <= count) {
        uint64_t x = asynclayer_load64(input + i + run) ^ pattern;
        if (x) {
          run += (unsigned)__builtin_ctzll(x) >> 3;
          goto run_found;
        }
        run += 8;
      }
      while (i + run < count && input[i + run] == input[i - 1]) run++;
    run_found:
      i += run;
      while (run >= 3) {
        size_t length = run > 258 ? 258 : run;
        if (run - length > 0 && run - length < 3) length = run - 3;
        ASYNCLAYER_EMIT_MATCH(length, 1);
        run -= length;
      }
      while (run > 0) {
        tokens[token_count++] = input[i - run];
        litlen_freq[input[i - run]]++;
        run--;
      }
      continue;
    }
    if (i + 4 <= count) {
      uint32_t hash = (asynclayer_load32(input + i) * 0x1E35A7BDu) >> (32 - ASYNCLAYER_DEFLATE_HASH_BITS);
      int32_t candidate = head[hash];
      head[hash] = (int32_t)i;
      if (candidate >= 0 && i - (size_t)candidate <= ASYNCLAYER_DEFLATE_WINDOW &&
          asynclayer_load32(input + candidate) == asynclayer_load32(input + i)) {
        size_t limit = count - i < 258 ? count - i : 258;
        size_t length = 4 + asynclayer_match_length(input + candidate + 4, input + i + 4, limit - 4);
        ASYNCLAYER_EMIT_MATCH(length, i - (size_t)candidate);
        i += length;
        continue;
      }
    }
    tokens[token_count++] = input[i];
    litlen_freq[input[i]]++;
    i++;
  }
#undef ASYNCLAYER_EMIT_MATCH
  litlen_freq[256]++;

  uint8_t lengths[286 + 30];
  asynclayer_huffman_lengths(litlen_freq, 286, 15, lengths);
  asynclayer_huffman_lengths(dist_freq, 30, 15, lengths + 286);
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
  for (size_t k = 0; k < token_count; k++) {
    uint32_t token = tokens[k];
    if (!(token & 0x80000000u)) {
      asynclayer_put_bits(&w, litlen_codes[token], lengths[token]);
      continue;
    }
    unsigned length = ((token >> 16) & 0xff) + 3, distance = (token & 0x7fff) + 1;
    unsigned symbol = asynclayer_length_symbol(length, &eb, &ev);
    asynclayer_put_bits(&w, litlen_codes[symbol], lengths[symbol]);
    if (eb) asynclayer_put_bits(&w, ev, eb);
    symbol = asynclayer_distance_symbol(distance, &eb, &ev);
    asynclayer_put_bits(&w, dist_codes[symbol], lengths[286 + symbol]);
    if (eb) asynclayer_put_bits(&w, ev, eb);
  }
  asynclayer_put_bits(&w, litlen_codes[256], lengths[256]);
  asynclayer_flush_bits(&w);
  uint32_t adler = libdeflate_adler32(1, input, count);
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
