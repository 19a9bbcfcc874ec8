/* LD_PRELOAD library that makes libvips 8.14.1's threadset race happen on purpose.
 *
 * In 8.14.1 (libvips/iofuncs/threadset.c) an idle worker thread waits for work with
 * vips_semaphore_down_timeout(&member->idle, 15 s). When that times out the thread takes the
 * set's lock, unlinks itself and g_free()s its member. vips_threadset_run(), meanwhile, pops a
 * member off the free list under the same lock, drops the lock, and only then writes the task
 * into the member and ups member->idle. A run() that pops a member whose timeout has just fired
 * (before that thread got the lock) hands its task to a thread that is leaving: the task never
 * runs (the pipeline waiting for it hangs), and if the leaving thread frees the member before
 * run() is done with it, run() writes into and signals freed memory. Upstream replaced the
 * threadset in 8.15.4 ("threadset: fix a race condition during thread exit", #4137).
 *
 * Both calls go through libvips's PLT (Debian's build), so they can be interposed:
 *   IDLE_RACE_TIMEOUT_US  the idle timeout instead of 15 s (default 20000)
 *   IDLE_RACE_WIDEN_US    sleep after a timeout, before the thread takes the lock (default 2000):
 *                         the window run() must hit
 *   IDLE_RACE_LATE_US     sleep in vips_semaphore_up() on a member's "idle" semaphore, before the
 *                         real call (default 0): lets the leaving thread free the member first,
 *                         so the use after free shows (the read of s->v after the sleep is
 *                         instrumented under ASan)
 * Each timeout and each late signal on a freed-looking member is counted on stderr at exit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vips/vips.h>

static long env(const char *name, long fallback) {
    const char *value = getenv(name);
    return value ? atol(value) : fallback;
}

static int timeouts;

int vips_semaphore_down_timeout(VipsSemaphore *s, gint64 timeout) {
    static int (*real)(VipsSemaphore *, gint64);
    if (!real) real = (int (*)(VipsSemaphore *, gint64))dlsym(RTLD_NEXT, "vips_semaphore_down_timeout");
    int result = real(s, env("IDLE_RACE_TIMEOUT_US", 20000));
    if (result == -1) {
        __atomic_add_fetch(&timeouts, 1, __ATOMIC_RELAXED);
        long widen = env("IDLE_RACE_WIDEN_US", 2000);
        if (widen > 0) usleep((useconds_t)widen);
    }
    (void)timeout;
    return result;
}

int vips_semaphore_up(VipsSemaphore *s) {
    static int (*real)(VipsSemaphore *);
    if (!real) real = (int (*)(VipsSemaphore *))dlsym(RTLD_NEXT, "vips_semaphore_up");
    long late = env("IDLE_RACE_LATE_US", 0);
    if (late > 0 && s->name && strcmp(s->name, "idle") == 0) {
        usleep((useconds_t)late);
        volatile int v = s->v; /* freed by now if the member's thread left: ASan reports it */
        (void)v;
    }
    return real(s);
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "idle-race: %d idle timeouts\n", timeouts);
}
