/* A stress harness for the profile-picture pipeline (Sources/Imaging/Renditions.swift), in C so
 * that it runs under AddressSanitizer, ThreadSanitizer and valgrind without a Swift build.
 *
 * It includes Sources/CVips/shim.h and makes, from N threads at once, exactly the calls
 * Imaging.probe and Imaging.renditions make, in the same order, with the same unrefs and
 * g_free, error paths included. Each upload's bytes are copied into a fresh malloc'd buffer
 * that is freed after the call, as Swift's [UInt8] is. Every result is compared with the one a
 * single-threaded warm-up run gave for the same input (same outcome; same JPEG bytes).
 *
 * Inputs: every file given on the command line, plus generated bad inputs: plain text, a JPEG
 * header that declares 60000 x 60000, and (with -r) the JPEGs cut at a random length in every
 * iteration. See README.md beside this file for the builds and the runs.
 */
#include "../../Sources/CVips/shim.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum outcome { OK, UNSUPPORTED, TOO_MANY_PIXELS, UNDECODABLE, N_OUTCOMES };
static const char *outcome_names[] = {"ok", "unsupported", "too-many-pixels", "undecodable"};

#define MAX_PIXELS 40000000L

typedef struct {
    const char *name;
    unsigned char *bytes;
    size_t length;
    int cut;                       /* cut at a random length each time (-r) */
    enum outcome expected;         /* from the warm-up run (not for cut inputs) */
    unsigned char *large, *small;  /* the warm-up's JPEGs */
    size_t large_length, small_length;
} input;

static input inputs[64];
static int n_inputs;

static int threads = 4, iterations = 200, random_cuts = 0, quiet = 0;
static long pause_us = 0, burst = 0, idle_ms = 0;
static unsigned long counts[64][N_OUTCOMES];
static unsigned long mismatches;
static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;

/* Imaging.probe: pn_vips_loader, the format check, pn_vips_open_header, width and height,
 * pn_vips_unref; vips_error_clear on failure. */
static int probe(const unsigned char *bytes, size_t length, int *width, int *height) {
    if (length == 0) return -1;
    const char *loader = pn_vips_loader(bytes, length);
    int known = loader && (!strcmp(loader, "VipsForeignLoadJpegBuffer") || !strcmp(loader, "VipsForeignLoadPngBuffer") ||
                           !strcmp(loader, "VipsForeignLoadWebpBuffer") || !strcmp(loader, "VipsForeignLoadHeifBuffer"));
    VipsImage *header = known ? pn_vips_open_header(bytes, length) : NULL;
    if (!header) {
        vips_error_clear();
        return -1;
    }
    *width = vips_image_get_width(header);
    *height = vips_image_get_height(header);
    pn_vips_unref(header);
    return 0;
}

/* Imaging.displayable: a new reference; the caller keeps its own on image. */
static VipsImage *displayable(VipsImage *image) {
    VipsImage *current = NULL;
    if (pn_vips_to_srgb(image, &current) != 0 || !current) return NULL;
    if (vips_image_hasalpha(current)) {
        VipsImage *flat = NULL;
        int ok = pn_vips_flatten_white(current, &flat) == 0;
        pn_vips_unref(current);
        if (!ok || !flat) return NULL;
        current = flat;
    }
    if (vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
        VipsImage *cast = NULL;
        int ok = pn_vips_cast_uchar(current, &cast) == 0;
        pn_vips_unref(current);
        if (!ok || !cast) return NULL;
        current = cast;
    }
    return current;
}

/* Imaging.copyToMemory: consumes image. */
static VipsImage *copy_to_memory(VipsImage *image) {
    VipsImage *memory = vips_image_copy_memory(image);
    pn_vips_unref(image);
    return memory;
}

/* Imaging.jpeg: the bytes copied out (as into a Swift array), the libvips buffer g_free'd. */
static unsigned char *jpeg(VipsImage *image, size_t *length) {
    void *output = NULL;
    size_t n = 0;
    if (pn_vips_jpeg(image, 85, &output, &n) != 0 || !output) return NULL;
    unsigned char *copy = malloc(n ? n : 1);
    memcpy(copy, output, n);
    g_free(output);
    *length = n;
    return copy;
}

/* Imaging.renditions, with the defers in the order Swift runs them (reverse of declaration). */
static enum outcome renditions(const unsigned char *bytes, size_t length, unsigned char **large, size_t *large_length,
                               unsigned char **small_out, size_t *small_length) {
    int width = 0, height = 0;
    if (probe(bytes, length, &width, &height) != 0) return UNSUPPORTED;
    if (width <= 0 || height <= 0 || (long)width * height > MAX_PIXELS) return TOO_MANY_PIXELS;
    enum outcome result = UNDECODABLE;
    VipsImage *decoded = NULL;
    if (pn_vips_square_thumbnail(bytes, length, 400, &decoded) == 0 && decoded) {
        VipsImage *large_image = displayable(decoded);
        VipsImage *pixels = large_image ? copy_to_memory(large_image) : NULL;
        if (pixels) {
            VipsImage *small = NULL;
            if (pn_vips_square_thumbnail_image(pixels, 100, &small) == 0 && small) {
                *large = jpeg(pixels, large_length);
                *small_out = *large ? jpeg(small, small_length) : NULL;
                if (*large && *small_out) result = OK;
                else {
                    free(*large);
                    *large = NULL;
                }
                pn_vips_unref(small);
            }
            pn_vips_unref(pixels);
        }
        pn_vips_unref(decoded);
    }
    if (result != OK) vips_error_clear();
    return result;
}

/* Defined when the harness is built with the fix (stress-fixed, stress-fixed-asan). */
__attribute__((weak)) int pn_vips_threadset_keeps_idle_threads(void);

static long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static pthread_barrier_t burst_barrier;

static void *worker(void *argument) {
    long id = (long)argument;
    unsigned int seed = (unsigned int)(id * 7919 + 17);
    for (int i = 0; i < iterations; i++) {
        /* -b N -i MS: every N iterations all threads meet, sleep MS, and start together, so
         * libvips's idle worker threads (15 s in 8.14.1) time out while new work arrives. */
        if (burst > 0 && i > 0 && i % burst == 0) {
            pthread_barrier_wait(&burst_barrier);
            if (idle_ms > 0) usleep((useconds_t)(idle_ms * 1000));
            pthread_barrier_wait(&burst_barrier);
        }
        int which = (int)((id + i + (random_cuts ? rand_r(&seed) : 0)) % n_inputs);
        input *in = &inputs[which];
        size_t length = in->length;
        if (in->cut) length = 1 + (size_t)rand_r(&seed) % in->length;
        unsigned char *bytes = malloc(length);
        memcpy(bytes, in->bytes, length);
        unsigned char *large = NULL, *small = NULL;
        size_t large_length = 0, small_length = 0;
        enum outcome got = renditions(bytes, length, &large, &large_length, &small, &small_length);
        free(bytes);
        int wrong = 0;
        if (!in->cut) {
            if (got != in->expected) wrong = 1;
            else if (got == OK && (large_length != in->large_length || small_length != in->small_length ||
                                   memcmp(large, in->large, large_length) || memcmp(small, in->small, small_length)))
                wrong = 1;
        }
        free(large);
        free(small);
        pthread_mutex_lock(&counts_lock);
        counts[which][got]++;
        if (wrong) {
            mismatches++;
            fprintf(stderr, "MISMATCH: %s gave %s (expected %s) in thread %ld iteration %d\n", in->name,
                    outcome_names[got], outcome_names[in->expected], id, i);
        }
        pthread_mutex_unlock(&counts_lock);
        if (pause_us > 0) usleep((useconds_t)(rand_r(&seed) % pause_us));
    }
    return NULL;
}

static int add_input(const char *name, unsigned char *bytes, size_t length, int cut) {
    if (n_inputs == 64) return -1;
    inputs[n_inputs++] = (input){.name = name, .bytes = bytes, .length = length, .cut = cut};
    return 0;
}

static int add_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)length);
    if (fread(bytes, 1, (size_t)length, f) != (size_t)length) {
        fclose(f);
        return -1;
    }
    fclose(f);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    add_input(name, bytes, (size_t)length, 0);
    size_t n = strlen(name);
    int is_jpeg = n > 4 && (!strcmp(name + n - 4, ".jpg") || !strcmp(name + n - 5, ".jpeg"));
    if (is_jpeg && strstr(name, "truncated") == NULL) {
        /* A header that declares 60000 x 60000 (the SOF's height and width patched). */
        unsigned char *huge = malloc((size_t)length);
        memcpy(huge, bytes, (size_t)length);
        for (long i = 2; i + 9 < length; i++)
            if (huge[i] == 0xFF && (huge[i + 1] == 0xC0 || huge[i + 1] == 0xC2)) {
                huge[i + 5] = 0xEA, huge[i + 6] = 0x60, huge[i + 7] = 0xEA, huge[i + 8] = 0x60;
                break;
            }
        char *huge_name = g_strdup_printf("%s(60000x60000)", name);
        add_input(huge_name, huge, (size_t)length, 0);
        if (random_cuts) add_input(g_strdup_printf("%s(cut)", name), bytes, (size_t)length, 1);
    }
    return 0;
}

int main(int argc, char **argv) {
    int option, leak = 0;
    while ((option = getopt(argc, argv, "t:n:p:b:i:rlq")) != -1) switch (option) {
        case 't': threads = atoi(optarg); break;
        case 'n': iterations = atoi(optarg); break;
        case 'p': pause_us = atol(optarg); break;
        case 'b': burst = atol(optarg); break;
        case 'i': idle_ms = atol(optarg); break;
        case 'r': random_cuts = 1; break;
        case 'l': leak = 1; break;
        case 'q': quiet = 1; break;
        default:
            fprintf(stderr, "usage: %s [-t threads] [-n iterations a thread] [-p max pause us] [-b burst -i idle ms] [-r] [-l] FILE...\n", argv[0]);
            return 2;
    }
    if (pn_vips_start() != 0) {
        fprintf(stderr, "pn_vips_start failed: %s\n", vips_error_buffer());
        return 1;
    }
    if (leak) vips_leak_set(TRUE);
    printf("libvips %s; idle worker threads %s\n", vips_version_string(),
           pn_vips_threadset_keeps_idle_threads && pn_vips_threadset_keeps_idle_threads()
               ? "kept (the fix in Sources/CVipsThreadset)" : "retired after an idle timeout (libvips's own)");
    for (int i = optind; i < argc; i++)
        if (add_file(argv[i]) != 0) return 1;
    static const char text[] = "not an image at all";
    add_input("text", (unsigned char *)g_strdup(text), sizeof text - 1, 0);
    if (n_inputs == 0) return 2;

    /* Warm-up, one thread: each input's expected outcome and bytes. */
    for (int i = 0; i < n_inputs; i++) {
        if (inputs[i].cut) continue;
        inputs[i].expected = renditions(inputs[i].bytes, inputs[i].length, &inputs[i].large, &inputs[i].large_length,
                                        &inputs[i].small, &inputs[i].small_length);
        if (!quiet) printf("%-34s %8zu bytes  %s\n", inputs[i].name, inputs[i].length, outcome_names[inputs[i].expected]);
    }

    long start = now_ms();
    pthread_t ids[64];
    if (threads < 1 || threads > 64) return 2;
    if (burst > 0) pthread_barrier_init(&burst_barrier, NULL, (unsigned)threads);
    for (long t = 0; t < threads; t++) pthread_create(&ids[t], NULL, worker, (void *)t);
    for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    long elapsed = now_ms() - start;

    unsigned long total = 0;
    for (int i = 0; i < n_inputs; i++) {
        unsigned long *c = counts[i];
        total += c[OK] + c[UNSUPPORTED] + c[TOO_MANY_PIXELS] + c[UNDECODABLE];
        if (!quiet)
            printf("%-34s ok %lu, unsupported %lu, too-many-pixels %lu, undecodable %lu\n", inputs[i].name, c[OK],
                   c[UNSUPPORTED], c[TOO_MANY_PIXELS], c[UNDECODABLE]);
    }
    printf("%lu calls by %d threads in %.1f s, %lu mismatches\n", total, threads, elapsed / 1000.0, mismatches);
    for (int i = 0; i < n_inputs; i++) {
        free(inputs[i].large);
        free(inputs[i].small);
    }
    if (leak) vips_shutdown();
    return mismatches ? 1 : 0;
}
