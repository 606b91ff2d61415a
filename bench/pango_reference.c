/*
 * pango_reference.c: the C baseline for AsyncLayer's text tile render.
 *
 * Renders the same tile as `TextTile.render()` (Sources/AsyncLayer/Text/TextTile.swift) in a plain
 * C loop: 375x120 points at scale 2 (750x240 px), "Sans 14", 8 points of padding, black text on
 * white, word wrap at 359 points. Each thread owns one PangoCairo font map (created once, like
 * PangoThreadState) and one PangoContext set up exactly as PangoThreadState.context(scale:).
 *
 *   pango_reference --tiles N [--threads K] [--png cairo] [--out tile.png] [--text "..."]
 *                   [--stage full|layout|surface] [--format argb32|a8]
 *
 * Each of the K threads renders N tiles (after one untimed warm-up tile); prints tiles/s over all
 * threads. `--png cairo` also encodes every tile with cairo_surface_write_to_png_stream into memory.
 * `--out` writes the last tile of thread 0 as PNG, to compare pixels with the Swift side.
 * `--stage` isolates part of the work to find what does not scale across threads: `layout` only
 * lays the text out (no surface, no drawing), `surface` only creates and clears the surface.
 * `--format a8` draws into a one-byte-per-pixel A8 surface (coverage: 0 for the white background,
 * the text with an opaque source), as TextTile does for black or white text on gray
 * (TextTile+Gray.swift): the C loop with the same memory saving, for a like-for-like comparison.
 * Render only: `--png cairo` of an A8 surface writes an alpha PNG, not the tile.
 */
#include <pango/pangocairo.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TILE_WIDTH_PT 375.0
#define TILE_HEIGHT_PT 120.0
#define SCALE 2.0
#define PADDING_PT 8.0
#define FONT "Sans 14"

static const char *default_text =
    "The quick brown fox jumps over the lazy dog while the async layer renders text tiles off the main thread, fast.";

typedef enum { STAGE_FULL, STAGE_LAYOUT, STAGE_SURFACE } stage_t;

/* CAIRO_FORMAT_ARGB32 or CAIRO_FORMAT_A8 (--format), set before the threads start. */
static cairo_format_t surface_format = CAIRO_FORMAT_ARGB32;

typedef struct {
  const char *text;
  long tiles;
  int encode_png;
  const char *out_path;
  stage_t stage;
  pthread_barrier_t *start;
  size_t png_bytes;
} worker_args;

static cairo_status_t discard_png(void *closure, const unsigned char *data, unsigned int length) {
  (void)data;
  *(size_t *)closure += length;
  return CAIRO_STATUS_SUCCESS;
}

/* Mirrors PangoThreadState.context(scale:). */
static PangoContext *make_context(PangoFontMap *font_map) {
  PangoContext *context = pango_font_map_create_context(font_map);
  cairo_font_options_t *options = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT);
  cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
  pango_cairo_context_set_font_options(context, options);
  cairo_font_options_destroy(options);
  pango_cairo_context_set_resolution(context, 72);
  pango_context_set_round_glyph_positions(context, FALSE);
  PangoMatrix matrix = {SCALE, 0, 0, SCALE, 0, 0};
  pango_context_set_matrix(context, &matrix);
  return context;
}

static PangoLayout *make_layout(PangoContext *context, const PangoFontDescription *font, const char *text) {
  PangoLayout *layout = pango_layout_new(context);
  pango_layout_set_text(layout, text, -1);
  pango_layout_set_font_description(layout, font);
  pango_layout_set_width(layout, (int)((TILE_WIDTH_PT - 2 * PADDING_PT) * PANGO_SCALE));
  pango_layout_set_wrap(layout, PANGO_WRAP_WORD);
  return layout;
}

/* One tile: what TextTile.render() does for a plain text with a background. */
static cairo_surface_t *render_tile(PangoContext *context, const PangoFontDescription *font, const char *text,
                                    stage_t stage) {
  if (stage == STAGE_LAYOUT) {
    PangoLayout *layout = make_layout(context, font, text);
    PangoRectangle logical;
    pango_layout_get_extents(layout, NULL, &logical);
    g_object_unref(layout);
    return NULL;
  }
  int width_px = (int)(TILE_WIDTH_PT * SCALE), height_px = (int)(TILE_HEIGHT_PT * SCALE);
  cairo_surface_t *surface = cairo_image_surface_create(surface_format, width_px, height_px);
  cairo_t *cr = cairo_create(surface);
  cairo_scale(cr, SCALE, SCALE);
  cairo_save(cr);
  cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
  /* White; on A8, coverage 0 (no ink). */
  if (surface_format == CAIRO_FORMAT_A8) cairo_set_source_rgba(cr, 0, 0, 0, 0);
  else cairo_set_source_rgba(cr, 1, 1, 1, 1);
  cairo_paint(cr);
  cairo_restore(cr);
  if (stage == STAGE_SURFACE) {
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    return surface;
  }

  PangoLayout *layout = make_layout(context, font, text);
  cairo_set_source_rgba(cr, 0, 0, 0, 1);
  cairo_move_to(cr, PADDING_PT, PADDING_PT);
  pango_cairo_show_layout(cr, layout);
  g_object_unref(layout);
  cairo_destroy(cr);
  cairo_surface_flush(surface);
  return surface;
}

static void *worker(void *opaque) {
  worker_args *args = opaque;
  PangoFontMap *font_map = pango_cairo_font_map_new();
  PangoContext *context = make_context(font_map);
  PangoFontDescription *font = pango_font_description_from_string(FONT);

  cairo_surface_t *warm_up = render_tile(context, font, args->text, STAGE_FULL); /* font loading, glyph cache */
  cairo_surface_destroy(warm_up);
  if (args->start) pthread_barrier_wait(args->start);

  for (long i = 0; i < args->tiles; i++) {
    cairo_surface_t *surface = render_tile(context, font, args->text, args->stage);
    if (!surface) continue;
    if (args->encode_png) cairo_surface_write_to_png_stream(surface, discard_png, &args->png_bytes);
    if (args->out_path && i == args->tiles - 1) cairo_surface_write_to_png(surface, args->out_path);
    cairo_surface_destroy(surface);
  }

  pango_font_description_free(font);
  g_object_unref(context);
  g_object_unref(font_map);
  return NULL;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(const char *program) {
  fprintf(stderr, "usage: %s --tiles N [--threads K] [--png cairo] [--out FILE.png] [--text TEXT]\n"
                  "       [--stage full|layout|surface] [--format argb32|a8]\n", program);
  exit(2);
}

int main(int argc, char **argv) {
  long tiles = 100;
  int threads = 1, encode_png = 0;
  const char *out_path = NULL, *text = default_text;
  stage_t stage = STAGE_FULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tiles") && i + 1 < argc) tiles = strtol(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = (int)strtol(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--png") && i + 1 < argc) {
      const char *kind = argv[++i];
      if (!strcmp(kind, "cairo")) encode_png = 1;
      else if (strcmp(kind, "none")) usage(argv[0]);
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) out_path = argv[++i];
    else if (!strcmp(argv[i], "--text") && i + 1 < argc) text = argv[++i];
    else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
      const char *name = argv[++i];
      if (!strcmp(name, "argb32")) surface_format = CAIRO_FORMAT_ARGB32;
      else if (!strcmp(name, "a8")) surface_format = CAIRO_FORMAT_A8;
      else usage(argv[0]);
    } else if (!strcmp(argv[i], "--stage") && i + 1 < argc) {
      const char *name = argv[++i];
      if (!strcmp(name, "full")) stage = STAGE_FULL;
      else if (!strcmp(name, "layout")) stage = STAGE_LAYOUT;
      else if (!strcmp(name, "surface")) stage = STAGE_SURFACE;
      else usage(argv[0]);
    }
    else usage(argv[0]);
  }
  if (tiles < 1 || threads < 1 || threads > 256) usage(argv[0]);

  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
  pthread_t ids[256];
  worker_args args[256];
  for (int t = 0; t < threads; t++) {
    args[t] = (worker_args){text, tiles, encode_png, t == 0 ? out_path : NULL, stage, &start, 0};
    pthread_create(&ids[t], NULL, worker, &args[t]);
  }
  pthread_barrier_wait(&start); /* every thread has its font map and has warmed up */
  double begin = now();
  for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
  double elapsed = now() - begin;
  pthread_barrier_destroy(&start);

  long total = tiles * threads;
  static const char *stage_names[] = {"full", "layout", "surface"};
  printf("%ld tiles, %d thread%s, stage %s, format %s, png %s: %.3f s, %.0f tiles/s, %.1f us/tile\n", total, threads,
         threads == 1 ? "" : "s", stage_names[stage],
         surface_format == CAIRO_FORMAT_A8 ? "a8" : "argb32", encode_png ? "cairo" : "none", elapsed, total / elapsed, elapsed / total * 1e6);
  return 0;
}
