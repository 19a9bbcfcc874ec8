// libvips for the Imaging module. libvips takes its options as NULL-terminated variadic
// arguments, which Swift cannot call, so each call Imaging makes has a fixed-argument wrapper
// here. These live beside the system library, not in CShims: libvips's headers need GLib's
// include paths, which only pkg-config knows (CShims has no pkg-config and no dependency).
#ifndef PACENOTE_CVIPS_SHIM_H
#define PACENOTE_CVIPS_SHIM_H

#include <vips/vips.h>
#include <malloc.h>
#include <string.h>

/// Hands the free memory of glibc's arenas back to the system (Imaging's DecodeBudget calls it
/// after a large decode: freed pixel buffers would otherwise stay resident for reuse).
static inline void pn_heap_trim(void) {
    malloc_trim(0);
}

/// Reads only the header of an encoded image (no pixel is decoded until something asks for
/// one), with the loader's strictest failure level: a truncated or corrupt file fails later
/// instead of decoding to grey.
static inline VipsImage *pn_vips_open_header(const void *bytes, size_t length) {
    return vips_image_new_from_buffer(bytes, length, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                      "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

/// Decodes, turns upright by EXIF orientation and shrinks to cover size x size, cropping the
/// centre to a square; JPEG and WebP shrink while decoding, so a 12-megapixel photo never
/// exists in memory at full size.
static inline int pn_vips_square_thumbnail(const void *bytes, size_t length, int size, VipsImage **out) {
    return vips_thumbnail_buffer((void *)bytes, length, out, size, "height", size,
                                 "crop", VIPS_INTERESTING_CENTRE, "size", VIPS_SIZE_BOTH,
                                 "option_string", "fail_on=error", NULL);
}

/// The same from an already decoded image (the 100 px rendition from the 400 px one).
static inline int pn_vips_square_thumbnail_image(VipsImage *in, int size, VipsImage **out) {
    return vips_thumbnail_image(in, out, size, "height", size, "crop", VIPS_INTERESTING_CENTRE,
                                "size", VIPS_SIZE_BOTH, NULL);
}

static inline int pn_vips_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

/// Removes an alpha channel by painting the image over white (JPEG has no transparency, and a
/// black background is what vips would otherwise choose).
static inline int pn_vips_flatten_white(VipsImage *in, VipsImage **out) {
    double white[3] = {255.0, 255.0, 255.0};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

static inline int pn_vips_cast_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast(in, out, VIPS_FORMAT_UCHAR, NULL);
}

/// A baseline JPEG with every metadata block stripped (EXIF, XMP, IPTC, ICC, comments).
static inline int pn_vips_jpeg(VipsImage *in, int quality, void **bytes, size_t *length) {
    return vips_jpegsave_buffer(in, bytes, length, "Q", quality, "strip", TRUE,
                                "optimize_coding", TRUE, NULL);
}

/// One tile of an HEIC grid (a single-image HEIF that Imaging wrapped around the tile's coded
/// data), decoded and shrunk by `shrink` (a power of two that divides the tile) into memory:
/// the whole grid is never decoded at full size.
static inline VipsImage *pn_vips_heif_tile(const void *bytes, size_t length, int shrink) {
    VipsImage *lazy = vips_image_new_from_buffer(bytes, length, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!lazy) return NULL;
    VipsImage *small = NULL;
    int result = 0;
    if (shrink > 1) {
        result = vips_shrink(lazy, &small, (double)shrink, (double)shrink, NULL);
    } else {
        small = lazy;
        g_object_ref(small);
    }
    VipsImage *out = result == 0 ? vips_image_copy_memory(small) : NULL;
    if (small) g_object_unref(small);
    g_object_unref(lazy);
    return out;
}

/// A grid's shrunk tiles side by side, `columns` across, cropped to width x height, turned
/// `quarter_turns` times anticlockwise and mirrored (`mirror`: 0 none, 1 left-right, 2
/// top-bottom) as its `irot` and `imir` say, into memory.
static inline VipsImage *pn_vips_join_tiles(VipsImage **tiles, int count, int columns, int width, int height,
                                            int quarter_turns, int mirror) {
    VipsImage *joined = NULL, *cropped = NULL, *turned = NULL, *flipped = NULL, *out = NULL;
    int result = vips_arrayjoin(tiles, &joined, count, "across", columns, NULL);
    if (result == 0) result = vips_extract_area(joined, &cropped, 0, 0, width, height, NULL);
    if (result == 0) {
        static const VipsAngle angles[4] = {VIPS_ANGLE_D0, VIPS_ANGLE_D270, VIPS_ANGLE_D180, VIPS_ANGLE_D90};
        result = vips_rot(cropped, &turned, angles[quarter_turns & 3], NULL);
    }
    if (result == 0) {
        if (mirror == 0) {
            flipped = turned;
            g_object_ref(flipped);
        } else {
            result = vips_flip(turned, &flipped, mirror == 1 ? VIPS_DIRECTION_HORIZONTAL : VIPS_DIRECTION_VERTICAL, NULL);
        }
    }
    if (result == 0) out = vips_image_copy_memory(flipped);
    if (flipped) g_object_unref(flipped);
    if (turned) g_object_unref(turned);
    if (cropped) g_object_unref(cropped);
    if (joined) g_object_unref(joined);
    return out;
}

/// Decodes a whole image into memory (the bytes may go away after the call): tests read their
/// renditions back with it.
static inline VipsImage *pn_vips_decode(const void *bytes, size_t length) {
    VipsImage *lazy = vips_image_new_from_buffer(bytes, length, "", NULL);
    if (!lazy) return NULL;
    VipsImage *decoded = vips_image_copy_memory(lazy);
    g_object_unref(lazy);
    return decoded;
}

/// The average of one band over an area, for tests that check which way up a rendition is.
static inline int pn_vips_area_average(VipsImage *in, int band, int left, int top, int width, int height, double *average) {
    VipsImage *area = NULL, *one = NULL;
    int result = vips_extract_area(in, &area, left, top, width, height, NULL);
    if (result == 0) result = vips_extract_band(area, &one, band, NULL);
    if (result == 0) result = vips_avg(one, average, NULL);
    if (one) g_object_unref(one);
    if (area) g_object_unref(area);
    return result;
}

/// Tests and bench/picture-memory.sh make their pictures with this: width x height of `bands`
/// bands, black or (`detailed`) a zone plate so encoders have something to code, written as
/// `suffix` says (".jpg[Q=85]", ".png[interlace,bitdepth=16]", ".heic[compression=av1]").
static inline int pn_vips_test_picture(int width, int height, int bands, int detailed, const char *suffix,
                                       void **bytes, size_t *length) {
    VipsImage *image = NULL;
    int result;
    if (detailed) {
        VipsImage *zone = NULL, *grey = NULL;
        result = vips_zone(&zone, width, height, NULL);
        if (result == 0) result = vips_linear1(zone, &grey, 100.0, 128.0, "uchar", TRUE, NULL);
        if (result == 0) {
            VipsImage *copies[4] = {grey, grey, grey, grey};
            result = vips_bandjoin(copies, &image, bands, NULL);
        }
        if (grey) g_object_unref(grey);
        if (zone) g_object_unref(zone);
    } else {
        result = vips_black(&image, width, height, "bands", bands, NULL);
    }
    // libvips 8.14 crashes saving an interlaced 16-bit PNG from 8-bit pixels: give it 16-bit ones.
    if (result == 0 && strstr(suffix, "bitdepth=16")) {
        VipsImage *wide = NULL;
        result = vips_cast(image, &wide, VIPS_FORMAT_USHORT, NULL);
        g_object_unref(image);
        image = wide;
    }
    if (result == 0) result = vips_image_write_to_buffer(image, suffix, bytes, length, NULL);
    if (image) g_object_unref(image);
    return result;
}

/// GLib prints libvips's warnings ("error in tile ...", "ignoring nclx profile") on stderr,
/// past the server's structured log; every failure that matters is also an error return, which
/// Imaging reports, so the warnings are dropped.
static void pn_vips_drop_message(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/// Starts libvips for untrusted input, once: no operation cache (it would keep uploads' pixels
/// after the request), one worker thread a pipeline (the caller's pool sets the parallelism),
/// and no loader but the four profile pictures may come in: GIF, SVG (a script carrier), PDF,
/// TIFF and the rest are blocked, so a crafted file cannot reach their decoders at all.
static inline int pn_vips_start(void) {
    if (vips_init("pacenote") != 0) return -1;
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, pn_vips_drop_message, NULL);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_operation_block_set("VipsForeignLoadJpegBuffer", FALSE);
    vips_operation_block_set("VipsForeignLoadPngBuffer", FALSE);
    vips_operation_block_set("VipsForeignLoadWebpBuffer", FALSE);
    vips_operation_block_set("VipsForeignLoadHeifBuffer", FALSE);
    return 0;
}

/// The loader libvips would pick for these bytes ("VipsForeignLoadJpegBuffer"), from their
/// first bytes alone; NULL when none reads them.
static inline const char *pn_vips_loader(const void *bytes, size_t length) {
    const char *loader = vips_foreign_find_load_buffer(bytes, length);
    if (!loader) vips_error_clear();
    return loader;
}

static inline void pn_vips_unref(VipsImage *image) {
    if (image) g_object_unref(image);
}

#endif
