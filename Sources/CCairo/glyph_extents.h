#ifndef ASYNCLAYER_GLYPH_EXTENTS_H
#define ASYNCLAYER_GLYPH_EXTENTS_H

// Pango's `get_glyph_extents` for its cairo fonts, answered from a cache per font
// (Text/PangoFontHooks.swift installs it). Pango asks once per glyph of every layout it measures
// (~110 calls for the benchmark tile); its own answer is a lookup in a 256-entry cache per font
// that falls through to cairo's process-wide glyph cache on a miss, which is not safe on several
// threads, so every miss must run under FontCacheLock. A Swift hook with a dictionary found
// through the font's GObject qdata cost ~570 instructions a hit (qdata's bit lock, SipHash,
// exclusivity checks, retain/release) against Pango's ~60: 63 k instructions per tile. Here a hit
// is a thread-local check (was the last font asked about on this thread this one?) and a probe
// of an open-addressing table: ~30 instructions.
//
// Ownership: a cache belongs to its font (qdata with a destroy notify) and to the thread memo
// that last used it; `references` counts both, so a memo never points at freed memory. A font
// finalized while a memo points at its cache clears `font`, so a new font allocated at the same
// address is never taken for the old one.

#include <pango/pango.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
  PangoGlyph glyph;
  uint32_t used;
  PangoRectangle ink;
  PangoRectangle logical;
} asynclayer_extents_entry;

typedef struct {
  /// The font these are the extents of; NULL once it is finalized.
  _Atomic(PangoFont *) font;
  /// The font's reference (until it is finalized) and each thread memo's.
  atomic_int references;
  uint32_t count;
  /// Capacity − 1 (a power of two minus one).
  uint32_t mask;
  asynclayer_extents_entry *entries;
} asynclayer_extents_cache;

typedef void (*asynclayer_extents_fn)(PangoFont *font, PangoGlyph glyph, PangoRectangle *ink,
                                     PangoRectangle *logical);

typedef struct {
  /// Pango's own function, and the Swift function that calls it under FontCacheLock (a miss).
  asynclayer_extents_fn original;
  asynclayer_extents_fn compute;
  GQuark quark;
} asynclayer_extents_setup_t;

typedef struct {
  PangoFont *font;
  asynclayer_extents_cache *cache;
} asynclayer_extents_memo_t;

// The state lives in function-local statics of `static inline` functions. This module is a header
// that every Swift file using it compiles in (a system library target has no .c file to define
// globals in), so each Swift object file that calls these functions gets its own copy of the state:
// only Text/PangoFontHooks.swift calls them, through `@inline(never)` wrappers, so there is one.
static inline asynclayer_extents_setup_t *asynclayer_extents_setup(void) {
  static asynclayer_extents_setup_t setup;
  return &setup;
}

/// This thread's memo: the last font measured and its cache (holding a reference to the cache).
static inline asynclayer_extents_memo_t *asynclayer_extents_memo(void) {
  static _Thread_local asynclayer_extents_memo_t memo;
  return &memo;
}

static inline void asynclayer_extents_release(asynclayer_extents_cache *cache) {
  if (atomic_fetch_sub_explicit(&cache->references, 1, memory_order_acq_rel) == 1) {
    free(cache->entries);
    free(cache);
  }
}

/// The font's destroy notify: the font is being finalized.
static inline void asynclayer_extents_font_gone(gpointer data) {
  asynclayer_extents_cache *cache = data;
  atomic_store_explicit(&cache->font, NULL, memory_order_release);
  asynclayer_extents_release(cache);
}

/// Drops this thread's memo (at thread exit, from PangoThreadState's deinit).
static inline void asynclayer_extents_forget_thread(void) {
  asynclayer_extents_memo_t *memo = asynclayer_extents_memo();
  asynclayer_extents_cache *cache = memo->cache;
  memo->font = NULL;
  memo->cache = NULL;
  if (cache) asynclayer_extents_release(cache);
}

/// The font's cache, made on first use; NULL when memory runs out (the caller computes directly).
static inline asynclayer_extents_cache *asynclayer_extents_cache_slow(PangoFont *font) {
  GObject *object = (GObject *)font;
  asynclayer_extents_cache *cache = g_object_get_qdata(object, asynclayer_extents_setup()->quark);
  if (!cache) {
    cache = calloc(1, sizeof *cache);
    if (!cache) return NULL;
    cache->entries = calloc(64, sizeof *cache->entries);
    if (!cache->entries) {
      free(cache);
      return NULL;
    }
    cache->mask = 63;
    atomic_init(&cache->font, font);
    atomic_init(&cache->references, 1);
    g_object_set_qdata_full(object, asynclayer_extents_setup()->quark, cache, asynclayer_extents_font_gone);
  }
  asynclayer_extents_memo_t *memo = asynclayer_extents_memo();
  atomic_fetch_add_explicit(&cache->references, 1, memory_order_relaxed);
  asynclayer_extents_cache *old = memo->cache;
  memo->font = font;
  memo->cache = cache;
  if (old) asynclayer_extents_release(old);
  return cache;
}

static inline uint32_t asynclayer_extents_slot(PangoGlyph glyph, uint32_t mask) {
  return (uint32_t)((glyph * 2654435761u) >> 7) & mask;
}

/// Doubles the table; false when memory runs out (the table stays as it was).
static inline int asynclayer_extents_grow(asynclayer_extents_cache *cache) {
  uint32_t capacity = (cache->mask + 1) * 2;
  if (capacity == 0 || capacity > (1u << 24)) return 0;
  asynclayer_extents_entry *entries = calloc(capacity, sizeof *entries);
  if (!entries) return 0;
  for (uint32_t i = 0; i <= cache->mask; i++) {
    asynclayer_extents_entry *entry = &cache->entries[i];
    if (!entry->used) continue;
    uint32_t slot = asynclayer_extents_slot(entry->glyph, capacity - 1);
    while (entries[slot].used) slot = (slot + 1) & (capacity - 1);
    entries[slot] = *entry;
  }
  free(cache->entries);
  cache->entries = entries;
  cache->mask = capacity - 1;
  return 1;
}

/// Pango's own `get_glyph_extents` (for the Swift miss function, under FontCacheLock).
static inline void asynclayer_extents_call_original(PangoFont *font, PangoGlyph glyph, PangoRectangle *ink,
                                                    PangoRectangle *logical) {
  asynclayer_extents_setup()->original(font, glyph, ink, logical);
}

/// The hook: PangoFontClass.get_glyph_extents of Pango's cairo fonts.
static inline void asynclayer_glyph_extents(PangoFont *font, PangoGlyph glyph, PangoRectangle *ink,
                                            PangoRectangle *logical) {
  asynclayer_extents_memo_t *memo = asynclayer_extents_memo();
  asynclayer_extents_cache *cache = memo->cache;
  if (memo->font != font || !cache || atomic_load_explicit(&cache->font, memory_order_relaxed) != font) {
    cache = asynclayer_extents_cache_slow(font);
  }
  asynclayer_extents_entry computed;
  if (cache) {
    uint32_t slot = asynclayer_extents_slot(glyph, cache->mask);
    for (;;) {
      asynclayer_extents_entry *entry = &cache->entries[slot];
      if (!entry->used) break;
      if (entry->glyph == glyph) {
        if (ink) *ink = entry->ink;
        if (logical) *logical = entry->logical;
        return;
      }
      slot = (slot + 1) & cache->mask;
    }
  }
  computed.glyph = glyph;
  computed.used = 1;
  asynclayer_extents_setup()->compute(font, glyph, &computed.ink, &computed.logical);
  // At most half full: probes stay short. A table that cannot grow stays as it is, uncached past it.
  if (cache && ((cache->count + 1) * 2 <= cache->mask + 1 || asynclayer_extents_grow(cache))) {
    uint32_t slot = asynclayer_extents_slot(glyph, cache->mask);
    while (cache->entries[slot].used) slot = (slot + 1) & cache->mask;
    cache->entries[slot] = computed;
    cache->count += 1;
  }
  if (ink) *ink = computed.ink;
  if (logical) *logical = computed.logical;
}

/// Installs the hook in Pango's cairo font class, with `compute` for misses. Once, before any
/// font of the class measures glyphs on another thread (Swift runs it inside a `static let`).
static inline void asynclayer_extents_install(PangoFontClass *font_class, asynclayer_extents_fn compute) {
  asynclayer_extents_setup()->original = font_class->get_glyph_extents;
  asynclayer_extents_setup()->compute = compute;
  asynclayer_extents_setup()->quark = g_quark_from_static_string("asynclayer-glyph-extents");
  atomic_thread_fence(memory_order_release);
  font_class->get_glyph_extents = asynclayer_glyph_extents;
}

#endif
