/* SPDX-License-Identifier: MIT */
#include "task-user.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/beneath.h"
#include "common/log.h"
#include "common/macro.h"

#define OUTPUT_DIR_MODE 0770

int task_user_find(const char *name, TaskUser *ret) {
        struct passwd pw, *found = NULL;
        char buf[4096];
        int k;

        if (strlen(name) >= sizeof(ret->name))
                return log_error_errno(-EINVAL, "The task user '%s' is too long a name", name);
        k = getpwnam_r(name, &pw, buf, sizeof(buf), &found);
        if (k != 0)
                return log_error_errno(-k, "Cannot look up the task user '%s'", name);
        if (!found)
                return log_error_errno(-ENOENT,
                                       "The task user '%s' does not exist: create it ('make "
                                       "install' does, from sysusers.d) or set [tasks] task-user",
                                       name);
        if (pw.pw_uid == geteuid())
                return log_error_errno(-EPERM,
                                       "The task user '%s' is the tracker's own user: tasks must "
                                       "run as another, or they could read the cluster token",
                                       name);
        if (geteuid() != 0)
                return log_error_errno(-EPERM,
                                       "The tracker runs as uid %u, not root: it cannot start "
                                       "tasks as the task user '%s'",
                                       (unsigned)geteuid(), name);
        *ret = (TaskUser){ .uid = pw.pw_uid, .gid = pw.pw_gid };
        snprintf(ret->name, sizeof(ret->name), "%s", name);
        return 0;
}

/* write(2) of a literal: what a forked child may say. */
#define CHILD_SAY(s) ((void)!write(STDERR_FILENO, s, sizeof(s) - 1))

int task_user_become(const TaskUser *u) {
        uid_t ruid, euid, suid;
        gid_t rgid, egid, sgid;

        if (setgroups(0, NULL) < 0) {
                CHILD_SAY("flexslot: cannot drop the task's supplementary groups\n");
                return -1;
        }
        if (setresgid(u->gid, u->gid, u->gid) < 0) {
                CHILD_SAY("flexslot: cannot set the task user's group\n");
                return -1;
        }
        if (setresuid(u->uid, u->uid, u->uid) < 0) {
                CHILD_SAY("flexslot: cannot become the task user\n");
                return -1;
        }
        /* Trust, but verify: each took, and the way back to root is shut. */
        if (getresuid(&ruid, &euid, &suid) < 0 || getresgid(&rgid, &egid, &sgid) < 0 ||
            ruid != u->uid || euid != u->uid || suid != u->uid || rgid != u->gid ||
            egid != u->gid || sgid != u->gid || getgroups(0, NULL) != 0 ||
            (u->uid != 0 && setresuid(0, 0, 0) == 0)) {
                CHILD_SAY("flexslot: the task's user did not change as asked\n");
                return -1;
        }
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
                CHILD_SAY("flexslot: cannot set no_new_privs for the task\n");
                return -1;
        }
        return 0;
}

/* mkdirat() of name in dir_fd, an existing one being fine: 1 when made. */
static int make_dir(int dir_fd, const char *name, mode_t mode) {
        if (mkdirat(dir_fd, name, mode) == 0)
                return 1;
        return errno == EEXIST ? 0 : negative_errno();
}

/* A job's output directory is shared by every tracker of the cluster (a 9p
 * share for trackers in guests), and another tracker's task may look it up
 * the moment it exists. So it is made with its final group and mode at once:
 * the file system gid (which a root tracker may set) names the task user's
 * group and the umask is out of the way. A guest's 9p client keeps the
 * attributes it first saw while the directory is in use, so one made 0700
 * and given to the group after was seen 0700 by another guest's tasks for
 * as long as they ran. */
static int make_task_dir(const TaskUser *u, int dir_fd, const char *name) {
        gid_t fsgid = (gid_t)setfsgid(u->gid);
        mode_t mask = umask(0);
        int made = make_dir(dir_fd, name, OUTPUT_DIR_MODE);

        umask(mask);
        setfsgid(fsgid);
        return made;
}

int task_user_make_output_dir(const TaskUser *u, const char *data_dir, const char *name) {
        _cleanup_close_ int data = -1, out = -1, dir = -1;
        int made;

        data = open(data_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (data < 0)
                return log_error_errno(-errno, "Cannot open the data directory %s", data_dir);
        made = make_dir(data, "out", 0755);
        if (made < 0)
                return log_error_errno(made, "Cannot make %s/out", data_dir);
        out = open_beneath(data, "out", O_PATH | O_DIRECTORY, 0);
        if (out < 0)
                return log_error_errno(out, "Cannot open %s/out", data_dir);
        made = make_task_dir(u, out, name);
        if (made < 0)
                return log_error_errno(made, "Cannot make %s/out/%s", data_dir, name);
        if (!made)
                return 0;
        /* A tracker not run as root cannot make it in another group: then it
         * is given to the group here. Opened by name with O_NOFOLLOW in out/,
         * which tasks cannot write, it is the directory just made. */
        dir = openat(out, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir < 0)
                return log_error_errno(-errno, "Cannot open %s/out/%s", data_dir, name);
        if (fchown(dir, (uid_t)-1, u->gid) < 0 || fchmod(dir, OUTPUT_DIR_MODE) < 0)
                return log_error_errno(-errno, "Cannot give %s/out/%s to the task user's group",
                                       data_dir, name);
        return 0;
}
