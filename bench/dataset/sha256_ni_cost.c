// What the SHA-256 of a `--boxes` sidecar costs natively (bench/dataset/labels_cost.py's callgrind runs
// count valgrind's portable Swift rounds: valgrind cannot run the SHA instructions, so
// `asynclayer_sha256_hardware()` says no under it). Times the CPU's rounds of
// Sources/CCairo/sha256_x86.h, the ones batch uses natively, over BYTES bytes: best of 5 rounds of
// 100,000 hashes, thread CPU time.
// With a second size (the tile's PNG), also both messages one after the other against side by side
// (`asynclayer_sha256_blocks2` over the blocks they have in common, then the longer one's rest), as
// `layerbench batch --boxes` hashes a tile's PNG and sidecar.
// clang, as SwiftPM builds the header (gcc ignores its `#pragma clang loop unroll`):
//   clang -O2 -I Sources/CCairo -o /tmp/sha256_ni_cost bench/dataset/sha256_ni_cost.c && /tmp/sha256_ni_cost 6621 2389
#include "sha256_x86.h"

#include <stdio.h>
#include <time.h>

int main(int argc, char **argv) {
  size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 10) : 6621;
  enum { reps = 100000 };
  uint8_t *buffer = malloc(bytes + 64);
  if (buffer == NULL) return 1;
  for (size_t i = 0; i < bytes; i++) buffer[i] = (uint8_t)(i * 31 + 7);
  uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  if (!asynclayer_sha256_hardware()) {
    printf("this CPU has no SHA instructions (or this is valgrind)\n");
    return 1;
  }
  double best = 1e9;
  for (int round = 0; round < 5; round++) {
    struct timespec start, end;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    for (int r = 0; r < reps; r++) asynclayer_sha256_blocks(state, buffer, (bytes + 8) / 64 + 1);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
    double us = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / 1e3 / reps;
    if (us < best) best = us;
  }
  printf("SHA-256 rounds (SHA instructions) over %zu bytes, %zu blocks with the padding: %.2f us per hash "
         "(best of 5 x %d; state %08x)\n", bytes, (bytes + 8) / 64 + 1, best, (int)reps, state[0]);
  if (argc > 2) {
    size_t other = strtoul(argv[2], NULL, 10), blocksA = (bytes + 8) / 64 + 1, blocksB = (other + 8) / 64 + 1;
    uint8_t *second = malloc(other + 64);
    if (second == NULL) return 1;
    for (size_t i = 0; i < other; i++) second[i] = (uint8_t)(i * 17 + 3);
    size_t shared = blocksA < blocksB ? blocksA : blocksB;
    uint32_t stateB[8];
    memcpy(stateB, state, sizeof stateB);
    double apart = 1e9, together = 1e9;
    for (int round = 0; round < 5; round++) {
      struct timespec start, end;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
      for (int r = 0; r < reps; r++) {
        asynclayer_sha256_blocks(state, buffer, blocksA);
        asynclayer_sha256_blocks(stateB, second, blocksB);
      }
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
      double us = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / 1e3 / reps;
      if (us < apart) apart = us;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
      for (int r = 0; r < reps; r++) {
        asynclayer_sha256_blocks2(state, buffer, stateB, second, shared);
        asynclayer_sha256_blocks(state, buffer + 64 * shared, blocksA - shared);
        asynclayer_sha256_blocks(stateB, second + 64 * shared, blocksB - shared);
      }
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
      us = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / 1e3 / reps;
      if (us < together) together = us;
    }
    printf("%zu and %zu bytes (%zu + %zu blocks): one after the other %.2f us, side by side %.2f us (best of 5 x %d; "
           "states %08x %08x)\n", bytes, other, blocksA, blocksB, apart, together, (int)reps, state[0], stateB[0]);
    free(second);
  }
  free(buffer);
  return 0;
}
