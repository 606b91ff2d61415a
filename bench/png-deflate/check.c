// Round-trip check of the tile deflater (Sources/CCairo/png_deflate.h) on random and adversarial
// PNG rows, each stream inflated by zlib (an independent inflater) and compared with its input:
// all-zero rows, all-different bytes, runs across the 258-byte match limit, repeats at the edge of
// the 32 KiB window, 1-pixel-wide rows, rows of 3 bytes, blank rows next to ink rows, a huge image.
//
//   cc -O2 -I Sources/CCairo bench/png-deflate/check.c -ldeflate -lz -o /tmp/deflate-check && /tmp/deflate-check
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>
#include "png_deflate.h"

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint32_t next_random(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (uint32_t)state;
}

static int failures = 0, cases = 0;

// Deflates rows of `row_bytes` (filter byte 2 first, as the row pass writes them) with the blank
// flags the row pass would give, and with no flags; both must inflate to the input.
static void check(const char *name, uint8_t *input, size_t count, size_t row_bytes) {
  size_t rows = row_bytes ? count / row_bytes : 0;
  uint8_t *blank = calloc(rows + 1, 1);
  for (size_t r = 1; r < rows; r++) {
    const uint8_t *p = input + r * row_bytes;
    size_t k = 1;
    while (k < row_bytes && p[k] == 0) k++;
    blank[r] = k == row_bytes;
  }
  size_t bound = asynclayer_deflate_bound(count);
  uint8_t *out = malloc(bound), *back = malloc(count + 1);
  void *scratch = malloc(asynclayer_deflate_scratch_bytes(count));
  for (int flags = 0; flags < 2; flags++) {
    size_t size = asynclayer_deflate_rows(input, count, row_bytes, flags ? blank : NULL, out, bound, scratch);
    uLongf back_size = count + 1;
    int z = size ? uncompress(back, &back_size, out, size) : -100;
    int ok = z == Z_OK && back_size == count && memcmp(back, input, count) == 0;
    // Too small an output buffer is refused, not overrun.
    int refused = asynclayer_deflate_rows(input, count, row_bytes, flags ? blank : NULL, out, bound - 1, scratch) == 0;
    cases++;
    if (!ok || !refused) {
      failures++;
      printf("FAIL %s (%zu bytes, rows of %zu, %s): zlib %d, %zu bytes back%s\n", name, count, row_bytes,
             flags ? "blank flags" : "no flags", z, (size_t)back_size, refused ? "" : ", small buffer not refused");
    }
  }
  free(blank);
  free(out);
  free(back);
  free(scratch);
}

// `rows` rows of `row_bytes`, filter byte 2, filled by `fill` (0 zero, 1 random, 2 random with
// blank rows, 3 sparse ink, 4 runs of 255-300 bytes of one value).
static uint8_t *make(size_t rows, size_t row_bytes, int fill) {
  uint8_t *p = calloc(rows * row_bytes + 1, 1);
  for (size_t r = 0; r < rows; r++) {
    uint8_t *row = p + r * row_bytes;
    row[0] = 2;
    int blank_row = fill == 2 && r > 0 && next_random() % 3 == 0;
    for (size_t k = 1; k < row_bytes; k++) {
      if (fill == 1 || (fill == 2 && !blank_row)) row[k] = (uint8_t)next_random();
      if (fill == 3 && next_random() % 20 == 0) row[k] = (uint8_t)(next_random() % 4 * 60);
    }
    if (fill == 4)
      for (size_t k = 1; k < row_bytes;) {
        size_t run = 255 + next_random() % 46;
        uint8_t value = (uint8_t)next_random();
        for (size_t j = 0; j < run && k < row_bytes; j++) row[k++] = value;
      }
  }
  return p;
}

int main(void) {
  static const size_t widths[] = {1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 255, 256, 257, 258, 259, 260, 750, 2064, 2065, 2066, 2067, 5000, 40000};
  for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
    for (int fill = 0; fill < 5; fill++) {
      size_t row_bytes = widths[w] + 1, rows = widths[w] > 5000 ? 3 : 1 + next_random() % 40;
      uint8_t *p = make(rows, row_bytes, fill);
      char name[64];
      snprintf(name, sizeof name, "width %zu fill %d", widths[w], fill);
      check(name, p, rows * row_bytes, row_bytes);
      free(p);
    }
  }
  // Repeats at the edge of the window: a random block, then the same block 32768 and 32769 bytes on.
  for (size_t gap = 32760; gap <= 32772; gap++) {
    size_t count = gap + 600;
    uint8_t *p = malloc(count);
    for (size_t k = 0; k < count; k++) p[k] = (uint8_t)next_random();
    memcpy(p + gap, p, 600);
    check("window edge", p, count, 0);
    check("window edge, rows of 301", p, count - count % 301, 301);
    free(p);
  }
  // Tiny inputs, and a huge gray image (4000 x 3000, sparse ink).
  for (size_t count = 0; count < 12; count++) {
    uint8_t p[12] = {2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0};
    check("tiny", p, count, 0);
    check("tiny rows of 3", p, count - count % 3, 3);
  }
  uint8_t *huge = make(3000, 4001, 3);
  check("huge", huge, 3000 * 4001, 4001);
  free(huge);
  printf("%d cases, %d failures\n", cases, failures);
  return failures != 0;
}
