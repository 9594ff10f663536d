#ifndef YRDEN_CPROCESS_H
#define YRDEN_CPROCESS_H

#include <stdint.h>
#include <sys/epoll.h>
#include <sys/types.h>

/// pipe2(fds, O_CLOEXEC): GNU, so not visible to Swift through Glibc.
int yrden_pipe_cloexec(int fds[2]);

/// Starts `file` (searched in PATH) in a new session with `in_fd`, `out_fd`, `err_fd` as its standard
/// streams, an empty signal mask, default signal dispositions, `cwd` (when not NULL) and `death_signal`
/// as its parent-death signal. posix_spawn cannot set the last one, hence clone (sharing memory until the
/// exec, as posix_spawn does: no copy of the caller's page tables) and exec.
/// Returns 0 and the pid, or the errno of what failed (exec included: the child reports it over a pipe).
int yrden_spawn(const char *file, char *const argv[], char *const envp[], const char *cwd, int in_fd, int out_fd,
                int err_fd, int death_signal, pid_t *pid);

/// The soft open-file limit children start with (0: the gateway's own). The gateway raises its own limit for
/// connections; children keep the limit they would have had, since some still use select().
void yrden_set_child_open_file_limit(unsigned long long soft);

/// pidfd_open(pid, 0), or -1 with errno.
int yrden_pidfd_open(pid_t pid);

/// pidfd_send_signal(pidfd, sig, NULL, 0): signals exactly the process the pidfd was opened for, never one
/// that reused its pid. 0, or -1 with errno.
int yrden_pidfd_send_signal(int pidfd, int sig);

/// Whether the process behind `pidfd` has exited, without blocking: 1 (and its raw wait status as waitpid
/// gives it, when `wait_status` is not NULL), 0 while it runs, -1 with errno. `reap` 0 leaves it a zombie.
int yrden_pidfd_wait(int pidfd, int reap, int *wait_status);

/// The pid of some exited child of this process, without reaping it; 0 when none, -1 when there are no children.
pid_t yrden_peek_exited_child(void);

/// Reaps `pid` if it has exited, without blocking; returns its pid, 0 or -1 as waitpid does.
pid_t yrden_reap_exited(pid_t pid);

/// prctl(PR_SET_CHILD_SUBREAPER, 1): orphaned descendants are reparented to this process, not to init.
int yrden_become_child_subreaper(void);

/// An eventfd (non-blocking, close-on-exec) to wake an epoll loop, or -1.
int yrden_eventfd(void);

/// epoll_create1(EPOLL_CLOEXEC).
int yrden_epoll_create(void);

/// epoll_ctl with a 64-bit token as the event's data (epoll_event is packed; Swift never sees it).
int yrden_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);

/// epoll_wait into two parallel arrays of up to `capacity` entries; returns the count, or -1 with errno.
int yrden_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms);

/// The CPUs this process may run on at once: its affinity mask, lowered by a cgroup v2 CPU quota; at least 1.
int yrden_usable_cpus(void);

/// Names the calling thread (what `top -H` and debuggers show); Linux keeps the first 15 bytes.
void yrden_name_this_thread(const char *name);

#endif
