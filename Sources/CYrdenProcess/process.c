#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "CYrdenProcess.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

int yrden_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/// Between clone and exec only async-signal-safe calls that write nothing the parent reads: the child shares
/// its memory and the parent has other threads.
static void become_standard_stream(int fd, int target) {
    if (fd == target) {
        fcntl(fd, F_SETFD, 0);
    } else {
        dup2(fd, target);
    }
}

static void _Noreturn fail_in_child(int report_fd) {
    int error = errno;
    while (write(report_fd, &error, sizeof error) < 0 && errno == EINTR) {
    }
    _exit(127);
}

static unsigned long long child_open_file_limit = 0;

void yrden_set_child_open_file_limit(unsigned long long soft) {
    __atomic_store_n(&child_open_file_limit, soft, __ATOMIC_RELAXED);
}

/// What the child needs between clone and exec, on the parent's memory (the child shares it until exec).
struct spawn_request {
    const char *file;
    char *const *argv;
    char *const *envp;
    const char *cwd;
    int fds[3];
    int death_signal;
    int report_fd;
    pid_t parent;
};

static int spawned_child(void *argument) {
    struct spawn_request *request = argument;
    struct sigaction standard = {.sa_handler = SIG_DFL};
    for (int number = 1; number < NSIG; number++) sigaction(number, &standard, NULL);
    if (setsid() < 0) fail_in_child(request->report_fd);
    if (prctl(PR_SET_PDEATHSIG, request->death_signal) != 0) fail_in_child(request->report_fd);
    if (getppid() != request->parent) _exit(127);  // the gateway died before the line above took effect
    rlim_t nofile = (rlim_t)__atomic_load_n(&child_open_file_limit, __ATOMIC_RELAXED);
    struct rlimit files;
    if (nofile > 0 && getrlimit(RLIMIT_NOFILE, &files) == 0 && nofile < files.rlim_cur) {
        files.rlim_cur = nofile;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    // Ordered so that no source is overwritten before it is copied (a copy of the array: the parent's stays).
    int fds[3] = {request->fds[0], request->fds[1], request->fds[2]};
    for (int target = 0; target < 3; target++) {
        for (int later = target + 1; later < 3; later++) {
            if (fds[later] == target) {
                fds[later] = fcntl(fds[later], F_DUPFD_CLOEXEC, 3);
                if (fds[later] < 0) fail_in_child(request->report_fd);
            }
        }
        become_standard_stream(fds[target], target);
    }
    if (request->cwd != NULL && chdir(request->cwd) != 0) fail_in_child(request->report_fd);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvpe(request->file, request->argv, request->envp);
    fail_in_child(request->report_fd);
}

/// The child shares the parent's memory until it execs (`CLONE_VM | CLONE_VFORK`, as `posix_spawn` does), so
/// starting it costs the same whatever the gateway's size: a `fork` copies the page tables of every mapping,
/// 7 ms at 50 MB of resident memory and 55 ms at 800 MB on a small virtual machine, and the thread that spawns
/// is the event loop. The calling thread is suspended until the child has exec'd or failed.
int yrden_spawn(const char *file, char *const argv[], char *const envp[], const char *cwd, int in_fd, int out_fd,
                int err_fd, int death_signal, pid_t *pid) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
    const size_t stack_size = 256 * 1024;
    void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) {
        int error = errno;
        close(report[0]);
        close(report[1]);
        return error;
    }
    struct spawn_request request = {
        .file = file, .argv = argv, .envp = envp, .cwd = cwd, .fds = {in_fd, out_fd, err_fd},
        .death_signal = death_signal, .report_fd = report[1], .parent = getpid(),
    };
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t child = clone(spawned_child, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &request);
    int clone_error = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    munmap(stack, stack_size);
    close(report[1]);
    if (child < 0) {
        close(report[0]);
        return clone_error;
    }
    int child_error = 0;
    ssize_t got;
    while ((got = read(report[0], &child_error, sizeof child_error)) < 0 && errno == EINTR) {
    }
    close(report[0]);
    if (got == (ssize_t)sizeof child_error) {
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
        }
        return child_error;
    }
    *pid = child;
    return 0;
}

int yrden_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int yrden_pidfd_send_signal(int pidfd, int sig) { return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0); }

int yrden_pidfd_wait(int pidfd, int reap, int *wait_status) {
    siginfo_t info = {0};
    int options = WEXITED | WNOHANG | (reap ? 0 : WNOWAIT);
    if (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &info, options) != 0) return -1;
    if (info.si_pid == 0) return 0;
    if (wait_status == NULL) return 1;
    switch (info.si_code) {
    case CLD_EXITED: *wait_status = (info.si_status & 0xFF) << 8; break;
    case CLD_DUMPED: *wait_status = (info.si_status & 0x7F) | 0x80; break;
    default: *wait_status = info.si_status & 0x7F; break;
    }
    return 1;
}

pid_t yrden_peek_exited_child(void) {
    siginfo_t info = {0};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -1;
    return info.si_pid;
}

pid_t yrden_reap_exited(pid_t pid) { return waitpid(pid, NULL, WNOHANG); }

int yrden_become_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

int yrden_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int yrden_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int yrden_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = {.events = events, .data.u64 = token};
    return epoll_ctl(epfd, op, fd, &event);
}

int yrden_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms) {
    struct epoll_event ready[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, ready, capacity, timeout_ms);
    for (int index = 0; index < count; index++) {
        tokens[index] = ready[index].data.u64;
        events[index] = ready[index].events;
    }
    return count;
}

int yrden_usable_cpus(void) {
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    FILE *limit = fopen("/sys/fs/cgroup/cpu.max", "re");
    if (limit) {
        long long quota = 0, period = 0;
        // "max 100000" when unlimited: the scan stops at "max" and leaves the quota at 0.
        if (fscanf(limit, "%lld %lld", &quota, &period) == 2 && quota > 0 && period > 0) {
            long long allowed = (quota + period - 1) / period;
            if (allowed < cpus) cpus = (int)allowed;
        }
        fclose(limit);
    }
    return cpus > 0 ? cpus : 1;
}

void yrden_name_this_thread(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}
