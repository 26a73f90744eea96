#ifndef CPREFS_SYSTEM_H
#define CPREFS_SYSTEM_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34), which Swift's Glibc module does not
/// show: the child closes every descriptor from `from` on, so it inherits only 0, 1 and 2
/// (as Foundation's Process did) whatever the parent inherited without close-on-exec.
int prefs_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

/// posix_spawn_file_actions_addchdir_np (glibc 2.29), which Swift's Glibc module does not
/// show: the child starts in `path` (a command line run in process gives its children the
/// run's working directory).
int prefs_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path);

#endif
