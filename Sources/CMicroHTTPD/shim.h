#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* Swift cannot call C variadic functions; these non-variadic wrappers are the only C the viewer needs. */

/* The callback libmicrohttpd calls with each request's raw (still percent-encoded) URI; its result becomes the
   request's `*con_cls`. */
typedef void *(*meridian_mhd_uri_callback)(void *closure, const char *uri, struct MHD_Connection *connection);

/* Starts a daemon bound to `address` (port 0 picks a free port) with the given access handler, a raw-URI callback,
   a request-completed callback and a connection started/closed callback (all sharing the handler's closure), a
   connection limit and an idle timeout in seconds. */
static inline struct MHD_Daemon *meridian_mhd_start(unsigned int flags, const struct sockaddr *address,
                                                    MHD_AccessHandlerCallback handler, void *closure,
                                                    meridian_mhd_uri_callback uri,
                                                    MHD_RequestCompletedCallback completed,
                                                    MHD_NotifyConnectionCallback connections,
                                                    unsigned int connection_limit, unsigned int timeout_seconds) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, closure,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_URI_LOG_CALLBACK, uri, closure,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, closure,
                            MHD_OPTION_NOTIFY_CONNECTION, connections, closure,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_END);
}

/* The port a running daemon listens on (0 when unknown). */
static inline uint16_t meridian_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/* The socket of a connection (-1 when unknown). */
static inline int meridian_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
