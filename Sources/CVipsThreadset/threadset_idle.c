// A crash fix for libvips 8.14.1 (Debian 12's) to 8.15.3: its worker threads never retire.
//
// libvips runs a pipeline's workers and write-behind buffers as tasks on a set of reusable
// threads (libvips/iofuncs/threadset.c). Since 8.14.1 an idle thread waits for its next task
// with vips_semaphore_down_timeout(&member->idle, 15 s); on a timeout it takes the set's lock,
// unlinks itself and g_free()s its member. vips_threadset_run() pops a member off the free list
// under that lock, but writes the task into the member and ups member->idle only after
// unlocking. A run() that pops a member whose wait has just timed out (the thread not yet at the
// lock) gives its task to a thread that is leaving: the task never runs, so the pipeline waits
// for it forever, and if the leaving thread frees the member first, run() writes the task into
// freed memory and locks and signals a freed mutex and condition. On a loaded machine the
// window is as long as the leaving thread is preempted. bench/vips-stress (README.md) makes it
// happen with a widened window: the upload hangs, and under AddressSanitizer the member is
// read after vips_threadset_work freed it. Upstream rewrote the threadset in 8.15.4
// (libvips#4137, "threadset: fix a race condition during thread exit").
//
// The fix: this program defines vips_semaphore_down_timeout. libvips calls it through its PLT,
// so the executable's definition is the one its threadset gets (any linker exports a symbol a
// linked shared library also defines; Tests/ImagingTests checks the exported one is this), and
// in those versions the threadset's idle wait is its only caller. With a racy libvips it waits
// without a timeout, so no thread ever times out and retires, as in 8.14.0: the race cannot
// start. The cost is that libvips keeps, idle, the threads of its busiest moment (about three
// per upload decoding at once: a worker and two write-behind buffers; their stacks are
// reserved, not resident). Any other libvips gets its own function.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <vips/vips.h>

#include "CVipsThreadset.h"

int pn_vips_threadset_keeps_idle_threads(void) {
    int major = vips_version(0), minor = vips_version(1), micro = vips_version(2);
    return major == 8 && ((minor == 14 && micro >= 1) || (minor == 15 && micro <= 3));
}

typedef int (*down_timeout_fn)(VipsSemaphore *, gint64);

int vips_semaphore_down_timeout(VipsSemaphore *s, gint64 timeout) {
    static gsize resolved = 0;
    static down_timeout_fn real = NULL;
    static int keep = 0;
    if (g_once_init_enter(&resolved)) {
        keep = pn_vips_threadset_keeps_idle_threads();
        real = (down_timeout_fn)dlsym(RTLD_NEXT, "vips_semaphore_down_timeout");
        g_once_init_leave(&resolved, 1);
    }
    if (keep || !real) return vips_semaphore_down(s);
    return real(s, timeout);
}
