#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* Swift cannot call C variadic functions (MHD_start_daemon, fcntl), and the socket constants are spelled differently
   on each platform's Swift overlay: these small wrappers are the only C the viewer needs. */

/* Called on a connection's thread when libmicrohttpd is about to answer a request itself with `status` (it refuses a
   malformed chunked body with 400, an oversized chunk with 413): the viewer answers first, with its own headers. */
typedef void (*meridian_error_callback)(void *closure, unsigned int status);

/* What the logger needs: the callback and its closure. */
struct meridian_error_hook {
    meridian_error_callback callback;
    void *closure;
};

/* libmicrohttpd's logger (MHD_OPTION_EXTERNAL_LOGGER): libmicrohttpd 0.9.75 has no option to add headers to the
   answers it makes itself, but it logs "Error processing request (HTTP response code is N (...))" just before it
   builds one (transmit_error_response_len), on the connection's thread. Other messages are dropped. */
static inline void meridian_mhd_logger(void *hook, const char *format, va_list arguments) {
    char text[160];
    va_list copy;
    va_copy(copy, arguments);
    (void)vsnprintf(text, sizeof text, format, copy);
    va_end(copy);
    static const char prefix[] = "Error processing request (HTTP response code is ";
    const char *found = strstr(text, prefix);
    if (found == NULL || hook == NULL) return;
    unsigned int status = 0;
    for (const char *c = found + sizeof prefix - 1; *c >= '0' && *c <= '9' && status < 1000; c++) status = status * 10 + (unsigned int)(*c - '0');
    if (status >= 400 && status <= 599) ((struct meridian_error_hook *)hook)->callback(((struct meridian_error_hook *)hook)->closure, status);
}

/* Starts a daemon without a listening socket (the viewer accepts connections itself and hands them over with
   MHD_add_connection) with the given access handler, a request-completed callback and a connection started/closed
   callback (all sharing the handler's closure), a connection limit, an idle timeout in seconds, a per-connection
   memory pool in bytes (it holds the request head libmicrohttpd parses), and the hook told of the answers
   libmicrohttpd is about to make itself (`meridian_mhd_logger`; it must outlive the daemon). */
static inline struct MHD_Daemon *meridian_mhd_start(unsigned int flags, MHD_AccessHandlerCallback handler,
                                                    void *closure, MHD_RequestCompletedCallback completed,
                                                    MHD_NotifyConnectionCallback connections,
                                                    unsigned int connection_limit, unsigned int timeout_seconds,
                                                    size_t memory_limit, struct meridian_error_hook *hook) {
    return MHD_start_daemon(flags | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                            handler, closure,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, closure,
                            MHD_OPTION_NOTIFY_CONNECTION, connections, closure,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_EXTERNAL_LOGGER, meridian_mhd_logger, (void *)hook,
                            MHD_OPTION_END);
}

/* A non-blocking, close-on-exec TCP socket listening on `address` (SO_REUSEADDR; an IPv6 one IPv6 only), or -1 with
   errno set. */
static inline int meridian_listen(const struct sockaddr *address, socklen_t length) {
    int fd = socket(address->sa_family, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    int on = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (address->sa_family == AF_INET6) (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    if (bind(fd, address, length) != 0 || listen(fd, SOMAXCONN) != 0
        || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* The port a listening socket is bound to (0 when unknown). */
static inline uint16_t meridian_bound_port(int fd) {
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0) return 0;
    if (address.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&address)->sin_port);
    if (address.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
    return 0;
}

/* Accepts a connection as a non-blocking, close-on-exec socket that raises no SIGPIPE, or -1 with errno set. */
static inline int meridian_accept(int listener, struct sockaddr_storage *address, socklen_t *length) {
    *length = sizeof *address;
    int fd = accept(listener, (struct sockaddr *)address, length);
    if (fd < 0) return -1;
    int on = 1;
#ifdef SO_NOSIGPIPE
    (void)setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
    (void)on;
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

/* Sends without raising SIGPIPE when the peer has gone (send(2)'s result). */
static inline ssize_t meridian_send(int fd, const void *bytes, size_t count) {
#ifdef MSG_NOSIGNAL
    return send(fd, bytes, count, MSG_NOSIGNAL);
#else
    return send(fd, bytes, count, 0);
#endif
}

/* Sets how many bytes must be waiting before poll(2) reports the socket readable (0 or -1 with errno). */
static inline int meridian_set_receive_low_water(int fd, int bytes) {
    return setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &bytes, sizeof bytes);
}

/* The socket of a connection (-1 when unknown). */
static inline int meridian_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
