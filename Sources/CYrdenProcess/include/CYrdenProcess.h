#ifndef YRDEN_CPROCESS_H
#define YRDEN_CPROCESS_H

#include <spawn.h>

/// pipe2(fds, O_CLOEXEC): GNU, so not visible to Swift through Glibc.
int yrden_pipe_cloexec(int fds[2]);

/// posix_spawn_file_actions_addchdir_np: GNU (glibc >= 2.29).
int yrden_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// POSIX_SPAWN_SETSID: GNU (glibc >= 2.26).
short yrden_spawn_setsid_flag(void);

#endif
