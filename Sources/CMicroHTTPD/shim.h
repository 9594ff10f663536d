#ifndef YRDEN_CMICROHTTPD_SHIM_H
#define YRDEN_CMICROHTTPD_SHIM_H

#include <microhttpd.h>

/*
 * Swift cannot call C variadic functions, so each variadic libmicrohttpd entry point the server needs gets a
 * fixed-arity wrapper here. The wrappers hold no logic: they only forward their arguments.
 */

/// `MHD_start_daemon` with every option passed through one `MHD_OPTION_ARRAY` (terminated by `MHD_OPTION_END`).
static inline struct MHD_Daemon *_Nullable yrden_mhd_start_daemon(
    unsigned int flags,
    uint16_t port,
    MHD_AccessHandlerCallback _Nonnull handler,
    void *_Nullable handler_cls,
    struct MHD_OptionItem *_Nonnull options)
{
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// An option-array entry for `MHD_OPTION_NOTIFY_COMPLETED`, whose function pointer must travel as `intptr_t`.
static inline struct MHD_OptionItem yrden_mhd_option_notify_completed(
    MHD_RequestCompletedCallback _Nonnull callback,
    void *_Nullable cls)
{
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) callback, cls };
    return item;
}

/// An option-array entry for `MHD_OPTION_NOTIFY_CONNECTION` (a connection opened or closed), whose function
/// pointer must travel as `intptr_t`.
static inline struct MHD_OptionItem yrden_mhd_option_notify_connection(
    MHD_NotifyConnectionCallback _Nonnull callback,
    void *_Nullable cls)
{
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t) callback, cls };
    return item;
}

/// The socket of a connection (`MHD_get_connection_info` is variadic), or -1 when libmicrohttpd gives none.
static inline int yrden_mhd_connection_fd(struct MHD_Connection *_Nonnull connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The address of a connection's client (`MHD_get_connection_info` is variadic), or NULL.
static inline const struct sockaddr *_Nullable yrden_mhd_client_address(struct MHD_Connection *_Nonnull connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// The epoll descriptor of a daemon started without its own threads (`MHD_get_daemon_info` is variadic), or -1.
static inline int yrden_mhd_epoll_fd(struct MHD_Daemon *_Nonnull daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

/// Milliseconds until libmicrohttpd must run again (0: it has work now), or -1 when only activity on its
/// descriptor needs it.
static inline long long yrden_mhd_next_run_ms(struct MHD_Daemon *_Nonnull daemon)
{
    MHD_UNSIGNED_LONG_LONG timeout = 0;
    return MHD_get_timeout(daemon, &timeout) == MHD_YES ? (long long) timeout : -1;
}

/// `MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE)` (variadic): the application is done with an upgraded
/// socket; libmicrohttpd closes it and finishes the connection on its next run.
static inline enum MHD_Result yrden_mhd_upgrade_close(struct MHD_UpgradeResponseHandle *_Nonnull urh)
{
    return MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

#endif
