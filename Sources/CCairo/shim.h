#ifndef ASYNCLAYER_CCAIRO_SHIM_H
#define ASYNCLAYER_CCAIRO_SHIM_H

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>

// FreeType and fontconfig, under cairo's FreeType backend: the library opens its own FreeType faces
// and hands them to cairo through fontconfig patterns (see Text/FontFaceStore.swift).
#include <cairo-ft.h>
#include <fontconfig/fontconfig.h>
#include <fontconfig/fcfreetype.h>
#include <freetype/freetype.h>

// pixman, under cairo: a per-thread glyph cache composites text without cairo's global glyph lock.
#include <pixman.h>

// Codecs for the image path: libdeflate for fast PNG encoding, libturbojpeg for JPEG decoding.
#include <libdeflate.h>
#include <turbojpeg.h>

// libpng (under cairo) for PNGs decoded straight to a smaller size (Codecs/ImageDecoder.swift).
#include "png_reduce.h"

// libqrencode (Debian's libqrencode-dev) for the reports' QR code element (Render/QRCode.swift).
#include <qrencode.h>

// librsvg (Debian's librsvg2-dev) draws SVG files into a cairo context (Render/SVGImage.swift). Its
// header lives in /usr/include/librsvg-2.0 and includes gdk-pixbuf's, neither of which is on the
// include path pangocairo's pkg-config gives this module (a system library takes one pkg-config
// name); so the five functions used are declared here, as librsvg 2.52+ declares them (stable API).
typedef struct _RsvgHandle RsvgHandle;
typedef struct { double x; double y; double width; double height; } RsvgRectangle;
typedef enum { RSVG_UNIT_PERCENT, RSVG_UNIT_PX, RSVG_UNIT_EM, RSVG_UNIT_EX, RSVG_UNIT_IN, RSVG_UNIT_CM,
  RSVG_UNIT_MM, RSVG_UNIT_PT, RSVG_UNIT_PC } RsvgUnit;
typedef struct { double length; RsvgUnit unit; } RsvgLength;
RsvgHandle *rsvg_handle_new_from_data(const guint8 *data, gsize data_len, GError **error);
gboolean rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport,
                                     GError **error);
gboolean rsvg_handle_get_intrinsic_size_in_pixels(RsvgHandle *handle, gdouble *out_width, gdouble *out_height);
void rsvg_handle_get_intrinsic_dimensions(RsvgHandle *handle, gboolean *out_has_width, RsvgLength *out_width,
                                          gboolean *out_has_height, RsvgLength *out_height,
                                          gboolean *out_has_viewbox, RsvgRectangle *out_viewbox);
void rsvg_handle_set_dpi(RsvgHandle *handle, double dpi);

// A zlib writer for the filtered rows of text tiles (Codecs/PNGEncoder+GrayTile.swift).
#include "png_deflate.h"
#include "png_gray_rows.h"

// Glyphs into one byte per pixel, pixman's arithmetic (Text/GlyphCompositor.swift, TextTile+Gray.swift).
#include "gray_glyphs.h"

// SHA-256 blocks with the x86 SHA extensions (Images/SHA256.swift).
#include "sha256_x86.h"

// Paragraph directions for layouts laid out in pieces (Text/TextLayout+Pieces.swift).
#include "pango_pieces.h"

// Pango's glyph extents answered from a cache per font, misses under FontCacheLock (Text/PangoFontHooks.swift).
#include "glyph_extents.h"

#endif
