#include "CMallocTuning.h"

// <stdlib.h> first: it defines __GLIBC__ (through <features.h>) on glibc; tested before any include,
// the macro is undefined and every call would do nothing.
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>

int asynclayer_server_set_mmap_threshold(long bytes) {
  // glibc caps the value at HEAP_MAX_SIZE / 2 (32 MiB on 64-bit) and refuses more (returns 0);
  // `int` is its parameter type, so larger values are refused here too.
  if (bytes < 0 || bytes > 0x7fffffffL) return 0;
  return mallopt(M_MMAP_THRESHOLD, (int)bytes);
}

int asynclayer_server_set_trim_threshold(long bytes) {
  if (bytes < 0 || bytes > 0x7fffffffL) return 0;
  return mallopt(M_TRIM_THRESHOLD, (int)bytes);
}
#else
// Another C library: its allocator has no such settings; nothing to set.
int asynclayer_server_set_mmap_threshold(long bytes) { (void)bytes; return 1; }
int asynclayer_server_set_trim_threshold(long bytes) { (void)bytes; return 1; }
#endif
