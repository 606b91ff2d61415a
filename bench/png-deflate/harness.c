// Instruction-count harness for the tile deflater (Sources/CCairo/png_deflate.h) on fixed input:
// the filtered rows of a PNG (its IDAT, inflated by bench/png-deflate/pngtool.py rows). Runs
// asynclayer_deflate_rows CALLS times, checks the stream inflates (zlib) back to the input, and
// prints the stream size. Under `valgrind --tool=callgrind` the difference between two CALLS
// values is the deflater's instructions per call.
//
//   cc -O2 -I Sources/CCairo bench/png-deflate/harness.c -ldeflate -lz -o /tmp/deflate-harness
//   /tmp/deflate-harness ROWS_FILE ROW_BYTES [CALLS [OUT]]
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>
#include "png_deflate.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s ROWS_FILE ROW_BYTES [CALLS [OUT]]\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  size_t count = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *input = malloc(count);
  if (fread(input, 1, count, f) != count) return 2;
  fclose(f);
  size_t row_bytes = (size_t)atol(argv[2]);
  int calls = argc > 3 ? atoi(argv[3]) : 1;
  size_t rows = count / row_bytes;
  // Blank: equal to the row above, i.e. all zero after the `up` filter byte (not the first row).
  uint8_t *blank = calloc(rows + 1, 1);
  for (size_t r = 1; r < rows; r++) {
    const uint8_t *p = input + r * row_bytes;
    if (p[0] != 2) continue;
    size_t k = 1;
    while (k < row_bytes && p[k] == 0) k++;
    blank[r] = k == row_bytes;
  }
  size_t bound = asynclayer_deflate_bound(count);
  uint8_t *out = malloc(bound);
  void *scratch = malloc(asynclayer_deflate_scratch_bytes(count));
  size_t size = 0;
  for (int c = 0; c < calls; c++) size = asynclayer_deflate_rows(input, count, row_bytes, blank, out, bound, scratch);
  uint8_t *back = malloc(count + 1);
  uLongf back_size = count + 1;
  int z = uncompress(back, &back_size, out, size);
  int same = z == Z_OK && back_size == count && memcmp(back, input, count) == 0;
  if (argc > 4) {
    FILE *o = fopen(argv[4], "wb");
    fwrite(out, 1, size, o);
    fclose(o);
  }
  printf("%zu bytes in, %zu bytes out, inflates %s\n", count, size, same ? "to the input" : "WRONG");
  return same ? 0 : 1;
}
