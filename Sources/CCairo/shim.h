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

// A zlib writer for the filtered rows of text tiles (Codecs/PNGEncoder+GrayTile.swift).
#include "png_deflate.h"

// SHA-256 blocks with the x86 SHA extensions (Images/SHA256.swift).
#include "sha256_x86.h"

#endif
