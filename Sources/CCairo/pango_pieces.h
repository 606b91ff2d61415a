#ifndef ASYNCLAYER_PANGO_PIECES_H
#define ASYNCLAYER_PANGO_PIECES_H

#include <pango/pango.h>

// A long text is laid out in pieces (Text/TextLayout+Pieces.swift), each paragraph with the base
// direction Pango resolves for it in one layout: the first strong character, as Pango finds it.
// pango_find_base_dir is deprecated since 1.44 but is what pango_layout_check_lines itself calls.
static inline PangoDirection asynclayer_find_base_dir(const char *text, int length) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  return pango_find_base_dir(text, length);
#pragma GCC diagnostic pop
}

#endif
