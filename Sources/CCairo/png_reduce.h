#ifndef ASYNCLAYER_PNG_REDUCE_H
#define ASYNCLAYER_PNG_REDUCE_H

// Decoding a PNG straight to a smaller size, row by row (Codecs/ImageDecoder.swift): only one
// source row and one row of sums are held, never the full image, so an 8000×8000 PNG drawn at
// 2000×2000 pixels needs 16 MB instead of 256 MB. libpng reports errors by longjmp; it jumps only
// within asynclayer_png_decode_reduced (no Swift frame is ever between the setjmp and a longjmp).

#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint8_t *data;
  size_t size;
  size_t offset;
  char message[256];
  jmp_buf jump;
} asynclayer_png_reader;

static void asynclayer_png_on_error(png_structp png, png_const_charp text) {
  asynclayer_png_reader *reader = (asynclayer_png_reader *)png_get_error_ptr(png);
  strncpy(reader->message, text ? text : "libpng error", sizeof reader->message - 1);
  reader->message[sizeof reader->message - 1] = 0;
  longjmp(reader->jump, 1);
}

static void asynclayer_png_on_warning(png_structp png, png_const_charp text) {
  (void)png;
  (void)text;
}

static void asynclayer_png_read(png_structp png, png_bytep out, size_t length) {
  asynclayer_png_reader *reader = (asynclayer_png_reader *)png_get_io_ptr(png);
  if (length > reader->size - reader->offset) png_error(png, "the data ends early (truncated)");
  memcpy(out, reader->data + reader->offset, length);
  reader->offset += length;
}

/// cairo's premultiplication: alpha × colour / 255, rounded.
static inline uint32_t asynclayer_premultiply(uint32_t alpha, uint32_t color) {
  uint32_t temp = alpha * color + 0x80;
  return (temp + (temp >> 8)) >> 8;
}

/// Decodes the PNG in `data` into `out` at `out_width`×`out_height` (at most the image's size), as
/// cairo's premultiplied ARGB32 (native-endian words), averaging the source pixels that fall in each
/// output pixel (source pixel (x, y) goes to (x × out_width / width, y × out_height / height)).
///
/// Returns 0 on success; 2 for an interlaced PNG, whose rows come in seven passes (the caller
/// decodes it whole); 1 on an error, with libpng's message in `message`.
static inline int asynclayer_png_decode_reduced(const uint8_t *data, size_t size, uint32_t out_width,
                                                uint32_t out_height, uint32_t *out, char *message,
                                                size_t message_size) {
  asynclayer_png_reader reader;
  memset(&reader, 0, sizeof reader);
  reader.data = data;
  reader.size = size;
  // Everything freed after a longjmp is allocated before setjmp and never reassigned after it.
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, asynclayer_png_on_error,
                                           asynclayer_png_on_warning);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  uint64_t *sums = (uint64_t *)calloc((size_t)out_width * 4, sizeof(uint64_t));
  uint32_t *columns = (uint32_t *)calloc((size_t)out_width, sizeof(uint32_t));
  // The source row, allocated once the width is known (held in a slot that setjmp does not affect).
  png_bytep volatile row = NULL;
  volatile int result = 1;
  if (!png || !info || !sums || !columns) {
    strncpy(reader.message, "out of memory", sizeof reader.message - 1);
    goto done;
  }
  if (setjmp(reader.jump)) goto done;
  png_set_read_fn(png, &reader, asynclayer_png_read);
  png_read_info(png, info);
  uint32_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) {
    result = 2;
    goto done;
  }
  if (out_width == 0 || out_height == 0 || out_width > width || out_height > height) {
    strncpy(reader.message, "the output size must be within the image's", sizeof reader.message - 1);
    goto done;
  }
  int color = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (depth == 16) png_set_scale_16(png);
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  png_set_filler(png, 0xff, PNG_FILLER_AFTER);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != (size_t)width * 4) png_error(png, "unexpected row layout after expansion");
  row = (png_bytep)malloc((size_t)width * 4);
  if (!row) png_error(png, "out of memory");
  for (uint32_t x = 0; x < width; x++) columns[(uint64_t)x * out_width / width]++;
  uint32_t band = 0, band_rows = 0;
  for (uint32_t y = 0; y < height; y++) {
    png_read_row(png, row, NULL);
    const uint8_t *pixel = row;
    for (uint32_t x = 0; x < width; x++, pixel += 4) {
      uint32_t alpha = pixel[3];
      uint64_t *sum = sums + 4 * ((uint64_t)x * out_width / width);
      sum[0] += asynclayer_premultiply(alpha, pixel[0]);
      sum[1] += asynclayer_premultiply(alpha, pixel[1]);
      sum[2] += asynclayer_premultiply(alpha, pixel[2]);
      sum[3] += alpha;
    }
    band_rows++;
    uint32_t next = y + 1 < height ? (uint32_t)((uint64_t)(y + 1) * out_height / height) : out_height;
    if (next != band) {
      uint32_t *target = out + (size_t)band * out_width;
      for (uint32_t x = 0; x < out_width; x++) {
        uint64_t count = (uint64_t)columns[x] * band_rows, half = count / 2;
        uint64_t *sum = sums + 4 * (size_t)x;
        uint32_t r = (uint32_t)((sum[0] + half) / count), g = (uint32_t)((sum[1] + half) / count);
        uint32_t b = (uint32_t)((sum[2] + half) / count), a = (uint32_t)((sum[3] + half) / count);
        target[x] = a << 24 | r << 16 | g << 8 | b;
      }
      memset(sums, 0, (size_t)out_width * 4 * sizeof(uint64_t));
      band = next;
      band_rows = 0;
    }
  }
  png_read_end(png, NULL);
  result = 0;
done:
  if (result == 1 && message && message_size > 0) {
    strncpy(message, reader.message, message_size - 1);
    message[message_size - 1] = 0;
  }
  if (png) png_destroy_read_struct(&png, info ? &info : NULL, NULL);
  free(row);
  free(sums);
  free(columns);
  return result;
}

#endif
