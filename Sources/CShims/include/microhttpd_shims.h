// Typed wrappers for libmicrohttpd's variadic functions, which Swift cannot call
// (SWIFT-LINUX-NOTES.md).
#ifndef PACENOTE_MICROHTTPD_SHIMS_H
#define PACENOTE_MICROHTTPD_SHIMS_H

// What microhttpd.h expects included before it (it includes none of these itself).
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// `MHD_get_connection_info(connection, kind, ...)` for the kinds that read no variadic
/// argument: the socket and the socket context, the kinds Pacenote asks for (and the client
/// address).
static inline const union MHD_ConnectionInfo *pn_mhd_get_connection_info(
    struct MHD_Connection *connection, enum MHD_ConnectionInfoType kind) {
    return MHD_get_connection_info(connection, kind);
}

#endif
