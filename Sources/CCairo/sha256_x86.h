#ifndef ASYNCLAYER_SHA256_X86_H
#define ASYNCLAYER_SHA256_X86_H

// SHA-256 block compression with the x86 SHA extensions (SHA-NI: Intel since Goldmont and Ice Lake,
// AMD since Zen), about five times the speed of the portable Swift rounds in Images/SHA256.swift,
// which use it when `asynclayer_sha256_hardware()` says the CPU has it. The rounds follow Intel's
// published sequence (sha256rnds2 on the ABEF/CDGH halves, sha256msg1/msg2 for the message schedule).

#include <stddef.h>
#include <stdint.h>

/// SHA-256's round constants (FIPS 180-4, 4.2.2), for these rounds and the portable Swift ones.
static const uint32_t asynclayer_sha256_k[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

/// Whether this CPU has the SHA extensions and the SSSE3 and SSE4.1 instructions the rounds use.
/// Not under valgrind: it reports the CPU's SHA flag but cannot run the instructions (SIGILL).
static inline int asynclayer_sha256_hardware(void) {
#ifdef RUNNING_ON_VALGRIND
  if (RUNNING_ON_VALGRIND) return 0;
#endif
  const char *preload = getenv("LD_PRELOAD");  // valgrind preloads its vgpreload_*.so
  if (preload != NULL && strstr(preload, "vgpreload") != NULL) return 0;
  unsigned int a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return ssse3 && sse41 && ((b >> 29) & 1);
}


/// Compresses `blocks` 64-byte blocks of `data` into `state` (a, b, …, h). Only call it when
/// `asynclayer_sha256_hardware()` returned 1.
__attribute__((target("sha,ssse3,sse4.1"))) static inline void asynclayer_sha256_blocks(
    uint32_t state[8], const uint8_t *data, size_t blocks) {
  const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
  __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
  __m128i badc = _mm_shuffle_epi32(dcba, 0xB1);
  hgfe = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(badc, hgfe, 8);
  __m128i cdgh = _mm_blend_epi16(hgfe, badc, 0xF0);
  for (; blocks > 0; blocks--, data += 64) {
    const __m128i abefSaved = abef, cdghSaved = cdgh;
    __m128i w[4];
    // Unrolled: each group's branches are then decided at compile time, and the rounds run without
    // the loop's bookkeeping between them (a `--boxes` sidecar is ~100 blocks per tile).
#pragma clang loop unroll(full)
    for (int group = 0; group < 16; group++) {  // four rounds each
      __m128i *current = &w[group & 3], *next = &w[(group + 1) & 3], *previous = &w[(group + 3) & 3];
      if (group < 4) *current = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * group)), byteSwap);
      __m128i message = _mm_add_epi32(*current, _mm_loadu_si128((const __m128i *)&asynclayer_sha256_k[4 * group]));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
      if (group >= 3 && group <= 14) {  // the next four schedule words
        *next = _mm_add_epi32(*next, _mm_alignr_epi8(*current, *previous, 4));
        *next = _mm_sha256msg2_epu32(*next, *current);
      }
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(message, 0x0E));
      if (group >= 1 && group <= 12) *previous = _mm_sha256msg1_epu32(*previous, *current);
    }
    abef = _mm_add_epi32(abef, abefSaved);
    cdgh = _mm_add_epi32(cdgh, cdghSaved);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i ghcd = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, ghcd, 0xF0));
  _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(ghcd, feba, 8));
}

/// `asynclayer_sha256_blocks` on two messages at once, `blocks` blocks of each: a block's rounds are a
/// chain (each sha256rnds2 waits for the one before, ~4 cycles on Zen), so one message leaves the SHA
/// unit mostly idle; the second message's rounds run between the first's. `layerbench batch` hashes
/// a tile's PNG alongside its boxes sidecar this way.
__attribute__((target("sha,ssse3,sse4.1"))) static inline void asynclayer_sha256_blocks2(
    uint32_t stateA[8], const uint8_t *dataA, uint32_t stateB[8], const uint8_t *dataB, size_t blocks) {
  const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i abef[2], cdgh[2];
  uint32_t *states[2] = {stateA, stateB};
  for (int m = 0; m < 2; m++) {
    __m128i dcba = _mm_loadu_si128((const __m128i *)&states[m][0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&states[m][4]);
    __m128i badc = _mm_shuffle_epi32(dcba, 0xB1);
    hgfe = _mm_shuffle_epi32(hgfe, 0x1B);
    abef[m] = _mm_alignr_epi8(badc, hgfe, 8);
    cdgh[m] = _mm_blend_epi16(hgfe, badc, 0xF0);
  }
  for (; blocks > 0; blocks--, dataA += 64, dataB += 64) {
    const uint8_t *data[2] = {dataA, dataB};
    const __m128i abefSaved[2] = {abef[0], abef[1]}, cdghSaved[2] = {cdgh[0], cdgh[1]};
    __m128i w[2][4];
#pragma clang loop unroll(full)
    for (int group = 0; group < 16; group++) {  // four rounds each, the two messages' in turn
#pragma clang loop unroll(full)
      for (int m = 0; m < 2; m++) {
        __m128i *current = &w[m][group & 3], *next = &w[m][(group + 1) & 3], *previous = &w[m][(group + 3) & 3];
        if (group < 4) *current = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data[m] + 16 * group)), byteSwap);
        __m128i message = _mm_add_epi32(*current, _mm_loadu_si128((const __m128i *)&asynclayer_sha256_k[4 * group]));
        cdgh[m] = _mm_sha256rnds2_epu32(cdgh[m], abef[m], message);
        if (group >= 3 && group <= 14) {
          *next = _mm_add_epi32(*next, _mm_alignr_epi8(*current, *previous, 4));
          *next = _mm_sha256msg2_epu32(*next, *current);
        }
        abef[m] = _mm_sha256rnds2_epu32(abef[m], cdgh[m], _mm_shuffle_epi32(message, 0x0E));
        if (group >= 1 && group <= 12) *previous = _mm_sha256msg1_epu32(*previous, *current);
      }
    }
    for (int m = 0; m < 2; m++) {
      abef[m] = _mm_add_epi32(abef[m], abefSaved[m]);
      cdgh[m] = _mm_add_epi32(cdgh[m], cdghSaved[m]);
    }
  }
  for (int m = 0; m < 2; m++) {
    __m128i feba = _mm_shuffle_epi32(abef[m], 0x1B);
    __m128i ghcd = _mm_shuffle_epi32(cdgh[m], 0xB1);
    _mm_storeu_si128((__m128i *)&states[m][0], _mm_blend_epi16(feba, ghcd, 0xF0));
    _mm_storeu_si128((__m128i *)&states[m][4], _mm_alignr_epi8(ghcd, feba, 8));
  }
}

#else

static inline int asynclayer_sha256_hardware(void) { return 0; }
static inline void asynclayer_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
  (void)state, (void)data, (void)blocks;
}
static inline void asynclayer_sha256_blocks2(
    uint32_t stateA[8], const uint8_t *dataA, uint32_t stateB[8], const uint8_t *dataB, size_t blocks) {
  (void)stateA, (void)dataA, (void)stateB, (void)dataB, (void)blocks;
}

#endif

#endif
