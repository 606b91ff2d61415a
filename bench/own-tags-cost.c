/* A cost estimate for the cheapest part of "write the tags ourselves" (issue 29, goal 6), not a
 * feature: read an untagged PDF as cairo 1.16 writes it, inflate each page's content stream, wrap
 * every table cell's text in `/TD <</MCID n>> BDC … EMC` (inside the text object, which cairo's own
 * tags end and restart), deflate the result again (libdeflate level 1, as our rewrite does), and
 * print one structure element per marked content plus one TR per row into compressed object
 * streams of 200 objects. Nothing is written back: the point is the instruction count (run it under
 * valgrind --tool=callgrind). Cells are found the way a real version could not rely on: a cell starts
 * at each string of a TJ array after a gap of more than 1000 thousandths of an em (cairo joins a
 * row's cells into one TJ when they share a font), and at each Tj; a row starts at each BT.
 *   cc -O2 -o /tmp/own-tags-cost bench/own-tags-cost.c -ldeflate
 *   valgrind --tool=callgrind /tmp/own-tags-cost UNTAGGED.pdf
 */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { unsigned char *bytes; size_t count, capacity; } Buffer;

static void reserve(Buffer *b, size_t extra) {
    if (b->count + extra <= b->capacity) return;
    size_t capacity = b->capacity ? b->capacity : 4096;
    while (capacity < b->count + extra) capacity *= 2;
    b->bytes = realloc(b->bytes, capacity);
    if (!b->bytes) { perror("realloc"); exit(1); }
    b->capacity = capacity;
}
static void put(Buffer *b, const void *bytes, size_t count) {
    reserve(b, count);
    memcpy(b->bytes + b->count, bytes, count);
    b->count += count;
}
static void puts_(Buffer *b, const char *text) { put(b, text, strlen(text)); }
/* Decimal digits without printf: cairo's snprintf per number is what this replaces. */
static void putint(Buffer *b, long value) {
    char digits[24];
    int n = 0;
    if (value < 0) { puts_(b, "-"); value = -value; }
    do { digits[n++] = (char)('0' + value % 10); value /= 10; } while (value);
    reserve(b, (size_t)n);
    while (n) b->bytes[b->count++] = (unsigned char)digits[--n];
}

static long object_offset(const unsigned char *pdf, size_t size, const long *xref, long objects, long number) {
    (void)pdf; (void)size;
    return number > 0 && number < objects ? xref[number] : -1;
}

/* The stream of object `number`: its bytes and length, /Length direct or an indirect reference. */
static const unsigned char *stream_of(const unsigned char *pdf, size_t size, const long *xref, long objects,
                                      long number, size_t *length) {
    long offset = object_offset(pdf, size, xref, objects, number);
    if (offset < 0) return NULL;
    const char *dict = (const char *)pdf + offset;
    const char *key = strstr(dict, "/Length ");
    const char *start = strstr(dict, "stream\n");
    if (!key || !start) return NULL;
    long value = strtol(key + 8, (char **)&key, 10);
    if (strncmp(key, " 0 R", 4) == 0) {
        long at = object_offset(pdf, size, xref, objects, value);
        const char *body = strstr((const char *)pdf + at, "obj");
        value = strtol(body + 3, NULL, 10);
    }
    *length = (size_t)value;
    return (const unsigned char *)start + 7;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: own-tags-cost UNTAGGED.pdf\n"); return 2; }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 1; }
    Buffer pdf = {0};
    for (size_t got; reserve(&pdf, 1 << 16), (got = fread(pdf.bytes + pdf.count, 1, 1 << 16, file)) > 0;)
        pdf.count += got;
    fclose(file);
    reserve(&pdf, 1);
    pdf.bytes[pdf.count] = 0; /* strstr stops here; content streams may hold zeros, never searched */

    /* cairo 1.16's classic cross-reference table: "xref\n0 N\n" and N 20-byte entries. */
    const char *text = (const char *)pdf.bytes;
    /* The file's last "startxref" (streams hold zero bytes: search the bytes, not C strings). */
    const char *startxref = NULL;
    for (size_t at = pdf.count >= 9 ? pdf.count - 9 : 0;; at--) {
        if (memcmp(text + at, "startxref", 9) == 0) { startxref = text + at; break; }
        if (at == 0 || pdf.count - at > 4096) break;
    }
    if (!startxref) { fprintf(stderr, "no startxref\n"); return 1; }
    const char *table = text + strtol(startxref + 9, NULL, 10);
    long objects = strtol(table + 7, (char **)&table, 10);
    table = strchr(table, '\n') + 1;
    long *xref = calloc((size_t)objects, sizeof *xref);
    for (long i = 0; i < objects; i++) xref[i] = strtol(table + 20 * i, NULL, 10);

    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    struct libdeflate_compressor *deflater = libdeflate_alloc_compressor(1);
    Buffer plain = {0}, marked = {0}, packed = {0}, tree = {0}, tree_packed = {0};
    long pages = 0, mcid_total = 0, rows = 0, in_bytes = 0, out_bytes = 0, plain_bytes = 0, marked_bytes = 0;
    for (long number = 1; number < objects; number++) {
        const char *object = text + xref[number];
        const char *dict = strstr(object, "<<");
        if (!dict || dict - object > 16 || strncmp(dict, "<< /Type /Page ", 15) != 0) continue;
        const char *contents = strstr(dict, "/Contents ");
        size_t length = 0;
        const unsigned char *stream = stream_of(pdf.bytes, pdf.count, xref, objects,
                                                strtol(contents + 10, NULL, 10), &length);
        if (!stream) { fprintf(stderr, "object %ld: no content stream\n", number); return 1; }
        pages++;
        in_bytes += (long)length;
        size_t inflated = 0;
        for (size_t capacity = length * 8;; capacity *= 2) {
            plain.count = 0;
            reserve(&plain, capacity);
            enum libdeflate_result r = libdeflate_zlib_decompress(inflater, stream, length, plain.bytes, capacity,
                                                                  &inflated);
            if (r == LIBDEFLATE_SUCCESS) break;
            if (r != LIBDEFLATE_INSUFFICIENT_SPACE) { fprintf(stderr, "inflate failed\n"); return 1; }
        }
        plain_bytes += (long)inflated;

        /* Mark the cells. */
        marked.count = 0;
        long mcid = 0;
        const unsigned char *p = plain.bytes, *end = plain.bytes + inflated;
        while (p < end) {
            if (p + 2 <= end && p[0] == 'B' && p[1] == 'T' && (p == plain.bytes || p[-1] == ' ' || p[-1] == '\n') &&
                (p + 2 == end || p[2] == '\n' || p[2] == ' '))
                rows++;
            if (*p == '[') { /* a TJ array: split at the cell gaps */
                const unsigned char *close = p + 1;
                int open = 0;
                for (; close < end; close++) { /* find the array's end, skipping strings */
                    if (*close == '(') {
                        for (close++; close < end && *close != ')'; close++) if (*close == '\\') close++;
                    } else if (*close == ']') break;
                }
                const unsigned char *q = p + 1;
                long pending_gap = 0;
                while (q < close) {
                    if (*q == '(') {
                        const unsigned char *s = q;
                        for (q++; q < close && *q != ')'; q++) if (*q == '\\') q++;
                        q++;
                        if (!open || pending_gap < -1000) {
                            if (open) puts_(&marked, "]TJ EMC ");
                            puts_(&marked, "/TD <</MCID ");
                            putint(&marked, mcid++);
                            puts_(&marked, ">>BDC [");
                            if (open) { putint(&marked, pending_gap); }
                            open = 1;
                        } else if (pending_gap) {
                            putint(&marked, pending_gap);
                        }
                        pending_gap = 0;
                        put(&marked, s, (size_t)(q - s));
                    } else if (*q == '-' || (*q >= '0' && *q <= '9')) {
                        pending_gap = strtol((const char *)q, (char **)&q, 10);
                    } else q++;
                }
                puts_(&marked, "]TJ EMC");
                p = close + 3; /* "]TJ" */
                continue;
            }
            if (*p == '(') { /* a Tj string */
                const unsigned char *s = p;
                for (p++; p < end && *p != ')'; p++) if (*p == '\\') p++;
                p++;
                puts_(&marked, "/TD <</MCID ");
                putint(&marked, mcid++);
                puts_(&marked, ">>BDC ");
                put(&marked, s, (size_t)(p - s));
                puts_(&marked, "Tj EMC");
                p += 2; /* "Tj" */
                continue;
            }
            put(&marked, p, 1);
            p++;
        }
        if (pages == 2 && getenv("OWN_TAGS_DUMP")) fwrite(marked.bytes, 1, marked.count, stderr); /* to look at */
        marked_bytes += (long)marked.count;
        mcid_total += mcid;
        packed.count = 0;
        size_t bound = libdeflate_zlib_compress_bound(deflater, marked.count);
        reserve(&packed, bound);
        size_t written = libdeflate_zlib_compress(deflater, marked.bytes, marked.count, packed.bytes, bound);
        if (!written) { fprintf(stderr, "deflate failed\n"); return 1; }
        out_bytes += (long)written;
    }

    /* The structure tree: a TD per marked content, a TR per row, 200 objects per object stream. */
    long elements = mcid_total + rows, next_object = objects, tree_out = 0;
    for (long first = 0; first < elements; first += 200) {
        tree.count = 0;
        long last = first + 200 < elements ? first + 200 : elements;
        for (long e = first; e < last; e++) {
            puts_(&tree, "<< /Type /StructElem /S /");
            puts_(&tree, e < mcid_total ? "TD" : "TR");
            puts_(&tree, " /P ");
            putint(&tree, next_object + e / 5);
            puts_(&tree, " 0 R /Pg ");
            putint(&tree, 3 + e % 56);
            puts_(&tree, " 0 R /K ");
            putint(&tree, e % 200);
            puts_(&tree, " >>\n");
        }
        tree_packed.count = 0;
        size_t bound = libdeflate_zlib_compress_bound(deflater, tree.count);
        reserve(&tree_packed, bound);
        tree_out += (long)libdeflate_zlib_compress(deflater, tree.bytes, tree.count, tree_packed.bytes, bound);
    }
    printf("%ld pages: content %ld bytes deflated, %ld inflated, %ld marked, %ld deflated again\n", pages, in_bytes,
           plain_bytes, marked_bytes, out_bytes);
    printf("%ld marked contents (cells), %ld rows (BT); %ld structure elements in %ld bytes of object streams\n",
           mcid_total, rows, elements, tree_out);
    libdeflate_free_compressor(deflater);
    libdeflate_free_decompressor(inflater);
    free(xref);
    free(pdf.bytes); free(plain.bytes); free(marked.bytes); free(packed.bytes); free(tree.bytes);
    free(tree_packed.bytes);
    return 0;
}
