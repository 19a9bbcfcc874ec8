// Keeps libvips's idle worker threads from retiring where that races (threadset_idle.c says why).
#ifndef PACENOTE_CVIPSTHREADSET_H
#define PACENOTE_CVIPSTHREADSET_H

/// 1 when the linked libvips is one whose threadset retires idle threads racily (8.14.1 to
/// 8.15.3) and this program's vips_semaphore_down_timeout therefore waits without a timeout; 0
/// when the real function is used.
int pn_vips_threadset_keeps_idle_threads(void);

#endif
