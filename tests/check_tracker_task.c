/* SPDX-License-Identifier: MIT */
/* The tracker's tasks as they run: whole jobs of maps and reduces checked
 * against answers computed here, streaming commands and their failures,
 * progress, a task process's numbers from /proc, and task processes under a
 * memory limit and killed on command. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/macro.h"
#include "tests.h"
#include "tracker-test.h"
#include "tracker/cgroup.h"
#include "tracker/child.h"
#include "tracker/mapout.h"
#include "tracker/procstat.h"
#include "tracker/task.h"

#define REDUCES 3

static uint64_t lcg(uint64_t *s) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        return *s >> 33;
}

/* Files of lines of words w0, w1, ... with Zipf-like frequencies (word k
 * about 1/k as often as w1). */
static void make_dataset(const char *dir, const size_t *sizes, size_t n_files) {
        uint64_t seed = 7;

        for (size_t f = 0; f < n_files; f++) {
                char path[512];
                FILE *out;
                size_t len = 0;

                snprintf(path, sizeof(path), "%s/part%zu.txt", dir, f);
                out = fopen(path, "we");
                ck_assert_ptr_nonnull(out);
                while (len < sizes[f]) {
                        int words = 1 + (int)(lcg(&seed) % 12);
                        for (int w = 0; w < words; w++) {
                                double u = (double)lcg(&seed) / (double)(1ULL << 31);
                                unsigned k = (unsigned)exp(u * log(20000.0));
                                len += (size_t)fprintf(out, "%sw%u", w ? " " : "", k);
                        }
                        len += (size_t)fprintf(out, "\n");
                }
                fclose(out);
        }
}

static int compare_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lines of files, sorted: the answer or the job's output, to compare. */
typedef struct Lines {
        char **v;
        size_t n, cap;
} Lines;

static void lines_add(Lines *l, char *s) {
        if (l->n == l->cap) {
                l->cap = l->cap ? 2 * l->cap : 1024;
                l->v = realloc(l->v, l->cap * sizeof(char *));
                ck_assert_ptr_nonnull(l->v);
        }
        l->v[l->n++] = s;
}

static void lines_read(Lines *l, const char *path) {
        FILE *f = fopen(path, "re");
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;

        ck_assert_ptr_nonnull(f);
        while ((n = getline(&line, &cap, f)) > 0) {
                line[strcspn(line, "\n")] = '\0';
                lines_add(l, strdup(line));
        }
        free(line);
        fclose(f);
}

static void lines_done(Lines *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i]);
        free(l->v);
        *l = (Lines){ 0 };
}

/* wordcount's answer, counted here: every word of every file, sorted and
 * counted in runs. */
static void wordcount_answer(const char *dir, size_t n_files, Lines *ret) {
        Lines words = { 0 };

        for (size_t f = 0; f < n_files; f++) {
                Lines lines = { 0 };
                char path[512];

                snprintf(path, sizeof(path), "%s/part%zu.txt", dir, f);
                lines_read(&lines, path);
                for (size_t i = 0; i < lines.n; i++) {
                        char *save = NULL;
                        for (char *w = strtok_r(lines.v[i], " ", &save); w;
                             w = strtok_r(NULL, " ", &save))
                                lines_add(&words, strdup(w));
                }
                lines_done(&lines);
        }
        qsort(words.v, words.n, sizeof(char *), compare_str);
        for (size_t i = 0, j; i < words.n; i = j) {
                char *s;

                for (j = i; j < words.n && strcmp(words.v[j], words.v[i]) == 0; j++)
                        ;
                ck_assert_int_ge(asprintf(&s, "%s\t%zu", words.v[i], j - i), 0);
                lines_add(ret, s);
        }
        qsort(ret->v, ret->n, sizeof(char *), compare_str);
        lines_done(&words);
}

typedef struct Job {
        char *dir; /* the data directory's parent: data/, maps/, out/ */
        char data[512], maps[512], out[512];
        size_t n_maps;
        uint64_t spills; /* over all maps */
} Job;

static void job_init(Job *j) {
        *j = (Job){ .dir = test_make_tmpdir() };
        ck_assert_ptr_nonnull(j->dir);
        snprintf(j->data, sizeof(j->data), "%s/data", j->dir);
        snprintf(j->maps, sizeof(j->maps), "%s/maps", j->dir);
        snprintf(j->out, sizeof(j->out), "%s/out", j->dir);
        ck_assert_int_eq(mkdir(j->data, 0755), 0);
        ck_assert_int_eq(mkdir(j->maps, 0755), 0);
        ck_assert_int_eq(mkdir(j->out, 0755), 0);
}

static void job_done(Job *j) {
        test_remove_tree(j->dir);
        free(j->dir);
}

/* Runs every map of the data directory in this process. */
static void job_run_maps(Job *j, const AppOps *app, const AppConfig *cfg, uint64_t block,
                         uint64_t sort_buffer) {
        char *paths[1] = { j->data };
        InputSplitList l;

        ck_assert_int_eq(input_splits_compute(AT_FDCWD, paths, 1, block, &l), 0);
        for (size_t i = 0; i < l.n; i++) {
                char out[600], attempt[32];
                MapTaskSpec spec = {
                        .app = app,
                        .app_cfg = *cfg,
                        .split = l.splits[i],
                        .reduces = REDUCES,
                        .sort_buffer = sort_buffer,
                        .output = out,
                        .attempt = attempt,
                        .work_dir = j->dir,
                };
                MapTaskReport rep;

                snprintf(out, sizeof(out), "%s/map-%04zu", j->maps, i);
                snprintf(attempt, sizeof(attempt), "m%zu_0", i);
                ck_assert_int_eq(map_task_run(&spec, &rep), 0);
                ck_assert_uint_eq(rep.input_bytes, l.splits[i].length);
                j->spills += rep.sort.spills;
        }
        j->n_maps = l.n;
        input_split_list_done(&l);
}

static int job_run_reduce(Job *j, const AppOps *app, const AppConfig *cfg, unsigned p,
                          ReduceTaskReport *rep) {
        char out[600];
        char *inputs[1] = { j->maps };
        ReduceTaskSpec spec = {
                .app = app,
                .app_cfg = *cfg,
                .partition = p,
                .inputs = inputs,
                .n_inputs = 1,
                .output = out,
                .attempt = "r_0",
                .work_dir = j->dir,
        };

        snprintf(out, sizeof(out), "%s/part-%05u", j->out, p);
        return reduce_task_run(&spec, rep);
}

static void job_output(Job *j, Lines *ret) {
        for (unsigned p = 0; p < REDUCES; p++) {
                char path[600];
                snprintf(path, sizeof(path), "%s/part-%05u", j->out, p);
                lines_read(ret, path);
        }
        qsort(ret->v, ret->n, sizeof(char *), compare_str);
}

static void assert_same(const Lines *got, const Lines *want) {
        ck_assert_uint_eq(got->n, want->n);
        for (size_t i = 0; i < want->n; i++)
                ck_assert_str_eq(got->v[i], want->v[i]);
}

/* Wordcount through small blocks and a small sort buffer (many maps, many
 * spills), three reduces: the answer counted here. */
START_TEST(test_job_wordcount) {
        static const size_t sizes[] = { 300000, 120000, 7000 };
        const AppOps *wc = app_find("wordcount");
        AppConfig cfg = { 0 };
        Lines want = { 0 }, got = { 0 };
        ReduceTaskReport rep;
        uint64_t records = 0;
        char path[600], *first;
        Job j;

        job_init(&j);
        make_dataset(j.data, sizes, ELEMENTSOF(sizes));
        job_run_maps(&j, wc, &cfg, 64 << 10, 64 << 10);
        /* A little over 4.58, 1.83 and 0.11 blocks: 5, 2 and 1 splits. */
        ck_assert_uint_eq(j.n_maps, 8);
        ck_assert_uint_gt(j.spills, 3 * j.n_maps);
        for (unsigned p = 0; p < REDUCES; p++) {
                ck_assert_int_eq(job_run_reduce(&j, wc, &cfg, p, &rep), 0);
                ck_assert_uint_eq(rep.map_outputs, j.n_maps);
                records += rep.output_records;
        }
        wordcount_answer(j.data, ELEMENTSOF(sizes), &want);
        job_output(&j, &got);
        assert_same(&got, &want);
        ck_assert_uint_eq(records, want.n);

        /* A reduce run again rewrites the same output. */
        snprintf(path, sizeof(path), "%s/part-00001", j.out);
        first = strdup(test_read_file(path));
        ck_assert_uint_gt(strlen(first), 1000);
        ck_assert_int_eq(job_run_reduce(&j, wc, &cfg, 1, &rep), 0);
        ck_assert(strcmp(test_read_file(path), first) == 0);
        free(first);
        lines_done(&want);
        lines_done(&got);
        job_done(&j);
}
END_TEST

/* The same job with streaming commands gives the built-in's answer. */
START_TEST(test_job_streaming) {
        static const size_t sizes[] = { 100000, 30000 };
        AppConfig cfg = {
                .mapper = "awk '{ for (i = 1; i <= NF; i++) print $i \"\\t\" 1 }'",
                .reducer =
                        "awk -F '\\t' '{ c[$1] += $2 } END { for (k in c) print k \"\\t\" c[k] }'",
        };
        Lines want = { 0 }, got = { 0 };
        ReduceTaskReport rep;
        Job j;

        job_init(&j);
        make_dataset(j.data, sizes, ELEMENTSOF(sizes));
        job_run_maps(&j, &app_streaming, &cfg, 64 << 10, 256 << 10);
        for (unsigned p = 0; p < REDUCES; p++)
                ck_assert_int_eq(job_run_reduce(&j, &app_streaming, &cfg, p, &rep), 0);
        wordcount_answer(j.data, ELEMENTSOF(sizes), &want);
        job_output(&j, &got);
        assert_same(&got, &want);
        lines_done(&want);
        lines_done(&got);
        job_done(&j);
}
END_TEST

static bool exists(const char *path) {
        return access(path, F_OK) == 0;
}

/* A failing command fails its task with nothing published, nor left. */
START_TEST(test_streaming_failures) {
        static const struct {
                const char *mapper;
                int error;
        } cases[] = {
                { "cat; exit 3", -ECHILD },
                { "kill -9 $$", -ECHILD },
                { "head -c 1 >/dev/null", -EPIPE },
                { "no-such-command-here", -ECHILD },
        };
        _cleanup_free_ char *dir = test_make_tmpdir();
        char data[512], out[512], tmp[600];
        _cleanup_free_ char *text = malloc(400000);
        MapTaskReport rep;

        ck_assert_ptr_nonnull(text);
        for (size_t i = 0; i < 400000; i++)
                text[i] = i % 50 == 49 ? '\n' : 'a';
        snprintf(data, sizeof(data), "%s/in", dir);
        snprintf(out, sizeof(out), "%s/m.out", dir);
        snprintf(tmp, sizeof(tmp), "%s/.m.out.tmp-a", dir);
        test_write_file(data, text, 400000);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                MapTaskSpec spec = {
                        .app = &app_streaming,
                        .app_cfg.mapper = cases[i].mapper,
                        .split = { .path = data, .length = 400000 },
                        .reduces = 2,
                        .sort_buffer = 1 << 20,
                        .output = out,
                        .attempt = "a",
                        .work_dir = dir,
                };

                ck_assert_msg(map_task_run(&spec, &rep) == cases[i].error, "mapper '%s'",
                              cases[i].mapper);
                ck_assert(!exists(out));
                ck_assert(!exists(tmp));
        }
        test_remove_tree(dir);
}
END_TEST

/* Map outputs that do not belong together, or do not hold the partition,
 * or are damaged: the reduce fails and publishes nothing. */
START_TEST(test_reduce_refuses_bad_inputs) {
        Job j;
        char path[600], out[600];
        const AppOps *wc = app_find("wordcount");
        AppConfig cfg = { 0 };
        ReduceTaskReport rep;
        static const size_t sizes[] = { 20000 };
        struct stat st;
        int fd;

        job_init(&j);
        make_dataset(j.data, sizes, 1);
        job_run_maps(&j, wc, &cfg, 1 << 20, 1 << 20);
        snprintf(out, sizeof(out), "%s/part-%05u", j.out, 3U);
        ck_assert_int_eq(job_run_reduce(&j, wc, &cfg, 3, &rep), -EINVAL);
        ck_assert(!exists(out));

        snprintf(path, sizeof(path), "%s/map-0000", j.maps);
        ck_assert_int_eq(stat(path, &st), 0);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        ck_assert_int_eq(pwrite(fd, "\xff\xff\xff\xff\x0f", 5, 0), 5);
        close(fd);
        snprintf(out, sizeof(out), "%s/part-%05u", j.out, 0U);
        ck_assert_int_eq(job_run_reduce(&j, wc, &cfg, 0, &rep), -EBADMSG);
        ck_assert(!exists(out));

        /* A map output of another job, with 2 partitions. */
        {
                MapOutputWriter w;
                snprintf(path, sizeof(path), "%s/map-other", j.maps);
                fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                ck_assert_int_eq(map_output_writer_init(&w, fd, 2), 0);
                map_output_writer_begin(&w);
                map_output_writer_end(&w);
                map_output_writer_begin(&w);
                map_output_writer_end(&w);
                ck_assert_int_eq(map_output_writer_finish(&w), 0);
                map_output_writer_done(&w);
                close(fd);
        }
        ck_assert_int_eq(job_run_reduce(&j, wc, &cfg, 1, &rep), -EINVAL);
        job_done(&j);
}
END_TEST

START_TEST(test_progress_score) {
        TaskStatus s = { .magic = TASK_STATUS_MAGIC, .kind = TASK_KIND_MAP };

        ck_assert_double_eq(task_status_progress(&(TaskStatus){ 0 }), 0.0);
        s.phase = TASK_PHASE_MAP;
        s.input_total = 1000;
        s.input_done = 250;
        ck_assert_double_eq(task_status_progress(&s), 0.25);
        s.phase = TASK_PHASE_MERGE;
        s.input_done = 1000;
        ck_assert_double_eq(task_status_progress(&s), 1.0);
        /* An empty split is done when its map phase is. */
        s = (TaskStatus){ .magic = TASK_STATUS_MAGIC,
                          .kind = TASK_KIND_MAP,
                          .phase = TASK_PHASE_MAP };
        ck_assert_double_eq(task_status_progress(&s), 0.0);
        s.phase = TASK_PHASE_MERGE;
        ck_assert_double_eq(task_status_progress(&s), 1.0);

        /* Reduce: copy, sort and reduce a third each. */
        s = (TaskStatus){ .magic = TASK_STATUS_MAGIC,
                          .kind = TASK_KIND_REDUCE,
                          .phase = TASK_PHASE_COPY,
                          .copy_total = 4,
                          .copy_done = 2 };
        ck_assert_double_eq_tol(task_status_progress(&s), 1.0 / 6, 1e-12);
        s.phase = TASK_PHASE_SORT;
        s.copy_done = 4;
        s.sort_total = 100;
        s.sort_done = 50;
        ck_assert_double_eq_tol(task_status_progress(&s), 0.5, 1e-12);
        /* No intermediate merge: sort is done once reducing begins. */
        s.sort_total = s.sort_done = 0;
        s.phase = TASK_PHASE_REDUCE;
        s.reduce_total = 10;
        s.reduce_done = 5;
        ck_assert_double_eq_tol(task_status_progress(&s), 5.0 / 6, 1e-12);
        s.phase = TASK_PHASE_COMMIT;
        ck_assert_double_eq(task_status_progress(&s), 1.0);
        ck_assert_str_eq(task_phase_to_string(TASK_PHASE_SORT), "sort");
}
END_TEST

typedef struct MapChild {
        MapTaskSpec spec;
        TaskStatus *status;
} MapChild;

static int map_child(void *userdata) {
        MapChild *m = userdata;
        MapTaskReport rep;

        m->spec.status = m->status;
        return map_task_run(&m->spec, &rep) < 0 ? TASK_EXIT_FAILED : 0;
}

/* A map killed in the middle: its progress was between 0 and 1, nothing
 * is published, and a rerun of the attempt succeeds. */
START_TEST(test_kill_map_midway) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        _cleanup_free_ char *text = malloc(2 << 20);
        char data[512], out[512];
        TaskChildSpec cs = { .fn = map_child, .name = "kill-test", .inherit_fd = -1 };
        TaskChild *c = NULL;
        TaskStatus *status, snap;
        TaskOutcome o;
        MapOutput *m = NULL;
        MapChild mc;
        int fd;

        for (size_t i = 0; i < (2 << 20); i++)
                text[i] = i % 40 == 39 ? '\n' : 'k';
        snprintf(data, sizeof(data), "%s/in", dir);
        snprintf(out, sizeof(out), "%s/m.out", dir);
        test_write_file(data, text, 2 << 20);
        ck_assert_int_eq(task_status_create(&fd, &status), 0);
        /* It reads a little, then stops reading: the task blocks, mid-split. */
        mc = (MapChild){
                .spec = {
                        .app = &app_streaming,
                        .app_cfg.mapper = "head -c 1000 >/dev/null; exec sleep 600",
                        .split = { .path = data, .length = 2 << 20 },
                        .reduces = 2,
                        .sort_buffer = 1 << 20,
                        .output = out,
                        .attempt = "m_0",
                        .work_dir = dir,
                },
                .status = status,
        };
        cs.userdata = &mc;
        ck_assert_int_eq(task_child_spawn(&cs, &c), 0);
        for (int i = 0; i < 10000; i++) {
                task_status_read(status, &snap);
                if (snap.input_done >= 32768)
                        break;
                nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
        }
        ck_assert_uint_eq(snap.phase, TASK_PHASE_MAP);
        ck_assert_double_gt(task_status_progress(&snap), 0.0);
        ck_assert_double_lt(task_status_progress(&snap), 1.0);
        ck_assert_int_eq(task_child_kill(c, 5 * USEC_PER_SEC, &o), 0);
        ck_assert_int_eq(o.end, TASK_END_KILLED);
        ck_assert_int_eq(o.signal, SIGTERM);
        c = task_child_free(c);
        ck_assert(!exists(out));

        mc.spec.app_cfg.mapper = "cat";
        ck_assert_int_eq(task_child_spawn(&cs, &c), 0);
        ck_assert_int_eq(task_child_wait(c, USEC_INFINITY, &o), 0);
        ck_assert_int_eq(o.end, TASK_END_SUCCEEDED);
        c = task_child_free(c);
        task_status_read(status, &snap);
        ck_assert_uint_eq(snap.phase, TASK_PHASE_DONE);
        ck_assert_uint_eq(snap.input_done, 2 << 20);
        ck_assert_uint_eq(snap.records_in, ((2 << 20) + 39) / 40); /* the last line unended */
        ck_assert_double_eq(task_status_progress(&snap), 1.0);
        ck_assert_int_eq(map_output_open(AT_FDCWD, out, &m), 0);
        map_output_free(m);
        {
                char tmp[600];
                snprintf(tmp, sizeof(tmp), "%s/.m.out.tmp-m_0", dir);
                ck_assert(!exists(tmp)); /* the rerun replaced the killed one's */
        }
        task_status_unmap(status);
        close(fd);
        test_remove_tree(dir);
}
END_TEST

/* ---- task processes ---- */

static int allocate(void *userdata) {
        size_t mib = *(size_t *)userdata;

        for (size_t i = 0; i < mib; i++) {
                char *p = malloc(1 << 20);
                if (!p)
                        return TASK_EXIT_NOMEM;
                memset(p, 1, 1 << 20);
        }
        return 0;
}

static uint64_t address_space_now(void) {
        char buf[128];
        FILE *f = fopen("/proc/self/statm", "re");
        unsigned long pages = 0;

        ck_assert_ptr_nonnull(f);
        ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
        fclose(f);
        ck_assert_int_eq(sscanf(buf, "%lu", &pages), 1);
        return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* A task that allocates far beyond its limit dies of it and is reported so;
 * one within it succeeds. Both ways of limiting. */
START_TEST(test_child_memory_limit) {
        TaskMemoryMode mode = _i == 0 ? TASK_MEMORY_CGROUP : TASK_MEMORY_RLIMIT;
        size_t small = 16, huge = 1024;
        TaskChildSpec cs = {
                .fn = allocate, .name = "mem-test", .memory_mode = mode, .inherit_fd = -1
        };
        TaskChild *c = NULL;
        TaskOutcome o;
        char what[128];
        int version;
        char *dir = NULL;

        if (mode == TASK_MEMORY_CGROUP && memory_cgroup_find_parent(NULL, &version, &dir) < 0) {
                fprintf(stderr, "SKIP: no writable memory cgroup here\n");
                return;
        }
        free(dir);
        if (mode == TASK_MEMORY_RLIMIT && getenv("FLEXSLOT_SANITIZE") &&
            strcmp(getenv("FLEXSLOT_SANITIZE"), "1") == 0) {
                fprintf(stderr, "SKIP: RLIMIT_AS and AddressSanitizer's shadow memory\n");
                return;
        }
        /* The address space limit counts what is mapped already. */
        cs.memory_limit = (mode == TASK_MEMORY_RLIMIT ? address_space_now() : 0) + (64 << 20);

        cs.userdata = &small;
        ck_assert_int_eq(task_child_spawn(&cs, &c), 0);
        ck_assert_int_eq(task_child_memory_mode(c), mode);
        ck_assert_int_eq(task_child_wait(c, USEC_INFINITY, &o), 0);
        ck_assert_int_eq(o.end, TASK_END_SUCCEEDED);
        c = task_child_free(c);

        cs.userdata = &huge;
        ck_assert_int_eq(task_child_spawn(&cs, &c), 0);
        ck_assert_int_eq(task_child_wait(c, USEC_INFINITY, &o), 0);
        task_outcome_describe(&o, what, sizeof(what));
        ck_assert_msg(o.end == TASK_END_MEMORY, "outcome: %s", what);
        if (mode == TASK_MEMORY_CGROUP) {
                ck_assert_uint_ge(o.oom_kills, 1);
                ck_assert_int_eq(o.signal, SIGKILL);
                ck_assert_str_eq(what, "failed: memory limit exceeded (cgroup: 1 OOM kill)");
        } else {
                ck_assert_int_eq(o.exit_status, TASK_EXIT_NOMEM);
                ck_assert_str_eq(what, "failed: memory limit exceeded (RLIMIT_AS: out of memory)");
        }
        c = task_child_free(c);
}
END_TEST

/* The task user's task: 0 when it is that user alone, with no group but
 * its own, cannot get root back, and cannot read a file of the spawner's
 * (the token's mode); else which of those failed. */
static int check_task_identity(void *userdata) {
        const TaskUser *u = userdata;
        const char *token = getenv("TEST_TOKEN_FILE");

        if (getuid() != u->uid || geteuid() != u->uid || getgid() != u->gid || getegid() != u->gid)
                return 1;
        if (getgroups(0, NULL) != 0)
                return 2;
        if (setuid(0) == 0 || seteuid(0) == 0)
                return 3;
        if (open(token, O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES)
                return 4;
        return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : 5;
}

START_TEST(test_child_task_user) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        TaskUser u;
        TaskChildSpec cs = { .fn = check_task_identity, .userdata = &u, .inherit_fd = -1 };
        TaskChild *c = NULL;
        TaskOutcome o;
        char token[512];
        int fd;

        if (geteuid() != 0) {
                test_skip("tracker_task: task user", "needs root to become another user");
                return;
        }
        snprintf(token, sizeof(token), "%s/token", dir);
        fd = open(token, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(chmod(dir, 0755), 0);
        setenv("TEST_TOKEN_FILE", token, 1);
        /* Who may not run tasks: nobody that is not there, nor the
         * spawner itself. */
        ck_assert_int_eq(task_user_find("flexslot-no-such-user", &u), -ENOENT);
        ck_assert_int_eq(task_user_find("root", &u), -EPERM);
        ck_assert_int_eq(task_user_find("nobody", &u), 0);
        cs.user = &u;
        ck_assert_int_eq(task_child_spawn(&cs, &c), 0);
        ck_assert_int_eq(task_child_wait(c, USEC_INFINITY, &o), 0);
        ck_assert_msg(o.end == TASK_END_SUCCEEDED, "the task's identity check %d", o.exit_status);
        c = task_child_free(c);
        test_remove_tree(dir);
}
END_TEST

static int exit_two(void *userdata) {
        fputs("not captured\n", stderr);
        return 2;
}

/* A task that says why it fails, among much else, on stderr. */
static int fail_with_words(void *userdata) {
        for (int i = 0; i < 5000; i++)
                fprintf(stderr, "noise %d\n", i);
        fprintf(stderr, "grep: bad pattern '(': Unmatched ( or \\(\n\n");
        fprintf(stderr, "a\tterminal \033[31mescape\033[0m and a byte \xff\n");
        return 2;
}

START_TEST(test_child_stderr_tail) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        TaskChildSpec cs = { .fn = fail_with_words, .inherit_fd = -1, .stderr_dir = dir };
        TaskChild *c = NULL;
        TaskOutcome o;
        char what[1024], tail[64];

        ck_assert_int_eq(task_child_spawn(&cs, &c), 0);
        ck_assert_int_eq(task_child_wait(c, USEC_INFINITY, &o), 0);
        c = task_child_free(c);
        ck_assert_int_eq(o.end, TASK_END_FAILED);
        /* The last lines, bounded, one line of printable text. */
        ck_assert_str_eq(o.stderr_tail,
                         "noise 4998 | noise 4999 | grep: bad pattern '(': Unmatched "
                         "( or \\( | a terminal ?[31mescape?[0m and a byte ?");
        task_outcome_describe(&o, what, sizeof(what));
        ck_assert_str_eq(what, "failed: exit status 2: noise 4998 | noise 4999 | grep: "
                               "bad pattern '(': Unmatched ( or \\( | a terminal ?[31mescape?[0m "
                               "and a byte ?");
        /* Not captured: the outcome says what it said before. */
        cs.stderr_dir = NULL;
        cs.fn = exit_two;
        ck_assert_int_eq(task_child_spawn(&cs, &c), 0);
        ck_assert_int_eq(task_child_wait(c, USEC_INFINITY, &o), 0);
        c = task_child_free(c);
        task_outcome_describe(&o, what, sizeof(what));
        ck_assert_str_eq(what, "failed: exit status 2");
        /* Too long a tail keeps its end; a cut first line is dropped. */
        task_stderr_tail("cut line\nfirst\nsecond\n", 22, true, tail, sizeof(tail));
        ck_assert_str_eq(tail, "first | second");
        task_stderr_tail("0123456789abcdefghij", 20, false, tail, 12);
        ck_assert_str_eq(tail, "...cdefghij");
        task_stderr_tail("\n\n", 2, false, tail, sizeof(tail));
        ck_assert_str_eq(tail, "");
        test_remove_tree(dir);
}
END_TEST

static int ignore_term_and_wait(void *userdata) {
        int *pipe_fd = userdata;
        pid_t helper;

        signal(SIGTERM, SIG_IGN);
        /* A process the task started, in its group: the kill reaches it. */
        helper = fork();
        if (helper == 0) {
                for (;;)
                        pause();
        }
        ck_assert_int_eq(write(pipe_fd[1], &helper, sizeof(helper)), (ssize_t)sizeof(helper));
        for (;;)
                pause();
        return 0;
}

START_TEST(test_child_kill) {
        int p[2];
        TaskChildSpec cs = { .fn = ignore_term_and_wait, .userdata = p, .inherit_fd = -1 };
        TaskChild *c = NULL;
        TaskOutcome o;
        pid_t helper;
        usec_t start;
        int status;

        /* The task's own child comes to this process when the task dies, so
         * that its end can be waited for here. */
        ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        ck_assert_int_eq(task_child_spawn(&cs, &c), 0);
        ck_assert_int_eq(read(p[0], &helper, sizeof(helper)), (ssize_t)sizeof(helper));
        ck_assert_int_eq(task_child_wait(c, 0, &o), -ETIMEDOUT);
        start = now_monotonic_usec();
        /* It ignores SIGTERM: SIGKILL follows after the grace period. */
        ck_assert_int_eq(task_child_kill(c, 200 * USEC_PER_MSEC, &o), 0);
        ck_assert_uint_ge(now_monotonic_usec() - start, 200 * USEC_PER_MSEC);
        ck_assert_int_eq(o.end, TASK_END_KILLED);
        ck_assert_int_eq(o.signal, SIGKILL);
        ck_assert_int_eq(waitpid(helper, &status, 0), helper);
        ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        c = task_child_free(c);
        close(p[0]);
        close(p[1]);
}
END_TEST

START_TEST(test_child_exec) {
        static const struct {
                const char *script;
                TaskEnd end;
                int status, signal;
        } cases[] = {
                { "exit 0", TASK_END_SUCCEEDED, 0, 0 },
                { "exit 7", TASK_END_FAILED, 7, 0 },
                { "kill -9 $$", TASK_END_FAILED, -1, SIGKILL },
                { "exec /nonexistent/program", TASK_END_FAILED, 127, 0 },
        };
        char what[128];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *argv[] = { "sh", "-c", (char *)cases[i].script, NULL };
                TaskChildSpec cs = { .argv = argv, .inherit_fd = -1 };
                TaskChild *c = NULL;
                TaskOutcome o;

                ck_assert_int_eq(task_child_spawn(&cs, &c), 0);
                ck_assert_int_eq(task_child_memory_mode(c), TASK_MEMORY_NONE);
                ck_assert_int_eq(task_child_wait(c, USEC_INFINITY, &o), 0);
                ck_assert_int_eq(o.end, cases[i].end);
                ck_assert_int_eq(o.exit_status, cases[i].status);
                ck_assert_int_eq(o.signal, cases[i].signal);
                task_child_free(c);
        }
        task_outcome_describe(&(TaskOutcome){ .end = TASK_END_FAILED, .exit_status = 7 }, what,
                              sizeof(what));
        ck_assert_str_eq(what, "failed: exit status 7");
        ck_assert_int_eq(task_child_spawn(&(TaskChildSpec){ .inherit_fd = -1 }, NULL), -EINVAL);
}
END_TEST

START_TEST(test_proc_stat) {
        /* A command name with spaces and parentheses; 52 fields. */
        static const char line[] =
                "4242 (a) b (c) R 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 30 20 20 0 1 0 "
                "1000 10000000 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 "
                "75 0 0 0 0 0 0 0 0 0 0\n";
        ProcStat st, before, after;
        CpuTimes a, b;
        double steal, iowait;
        volatile uint64_t x = 0;
        usec_t start;

        ck_assert_int_eq(proc_stat_parse(line, 100, 4096, &st), 0);
        ck_assert_int_eq(st.state, 'R');
        ck_assert_uint_eq(st.utime, 2500000);
        ck_assert_uint_eq(st.stime, 500000);
        ck_assert_uint_eq(st.cutime, 300000);
        ck_assert_uint_eq(st.cstime, 200000);
        ck_assert_uint_eq(st.blkio_delay, 750000);
        ck_assert_uint_eq(st.rss_bytes, 300 * 4096);
        ck_assert_uint_eq(proc_stat_cpu(&st), 3500000);
        ck_assert_int_eq(proc_stat_parse("4242 (a) R 1 2 3", 100, 4096, &st), -EBADMSG);
        ck_assert_int_eq(proc_stat_parse("no parenthesis", 100, 4096, &st), -EBADMSG);

        /* This process: its CPU time grows as it computes. */
        ck_assert_int_eq(proc_stat_read(getpid(), &before), 0);
        ck_assert_int_eq(before.state, 'R');
        start = now_monotonic_usec();
        do {
                for (int i = 0; i < 1000000; i++)
                        x += (uint64_t)i;
                ck_assert_int_eq(proc_stat_read(getpid(), &after), 0);
        } while (proc_stat_cpu(&after) < proc_stat_cpu(&before) + 50 * USEC_PER_MSEC &&
                 now_monotonic_usec() - start < 20 * USEC_PER_SEC);
        ck_assert_uint_ge(proc_stat_cpu(&after), proc_stat_cpu(&before) + 50 * USEC_PER_MSEC);
        ck_assert_uint_ge(after.blkio_delay, before.blkio_delay);
        ck_assert_uint_gt(after.rss_bytes, 0);
        ck_assert_int_eq(proc_stat_read(-5, &after), -ENOENT);

        ck_assert_int_eq(
                proc_cpu_times_parse("cpu  100 0 50 800 30 0 0 20 0 0\ncpu0 1 2\n", 100, &a), 0);
        ck_assert_int_eq(proc_cpu_times_parse("cpu  200 0 100 1500 90 0 0 60 0 0\n", 100, &b), 0);
        cpu_times_shares(&a, &b, &steal, &iowait);
        ck_assert_double_eq_tol(steal, 40.0 / 950, 1e-12);
        ck_assert_double_eq_tol(iowait, 60.0 / 950, 1e-12);
        cpu_times_shares(&a, &a, &steal, &iowait);
        ck_assert_double_eq(steal, 0.0);
        ck_assert_int_eq(proc_cpu_times_parse("cpu0 1 2 3 4 5 6 7 8\n", 100, &a), -EBADMSG);
        ck_assert_int_eq(proc_cpu_times_read(&a), 0);
        ck_assert_uint_gt(a.user + a.system + a.idle, 0);
        ck_assert_uint_gt(a.cpus, 0);
        ck_assert_uint_gt(a.uptime, 0);
}
END_TEST

/* A TCG guest's /proc/stat, measured: its steal counter stays 0, but of
 * 52.05 s of uptime on its one CPU only 1,577 ticks (15.77 s) were
 * accounted, while the host saw its vCPU wait 79 % of the time. */
START_TEST(test_steal_estimate) {
        CpuTimes a = { 0 }, b = { 0 };
        bool accounted = false;
        double steal = -1;

        ck_assert_int_eq(proc_cpu_times_parse("cpu  100 0 50 800 30 0 0 0 0 0\n", 100, &a), 0);
        ck_assert_int_eq(proc_cpu_times_parse("cpu  900 0 227 1400 30 0 0 0 0 0\n", 100, &b), 0);
        a.cpus = b.cpus = 1;
        a.uptime = 10 * USEC_PER_SEC;
        b.uptime = a.uptime + 52050 * USEC_PER_MSEC;
        ck_assert_int_eq(cpu_times_steal(&a, &b, &accounted, &steal), STEAL_ESTIMATED);
        ck_assert(!accounted);
        ck_assert_double_eq_tol(steal, 1.0 - 15.77 / 52.05, 1e-9);
        ck_assert_str_eq(steal_source_to_string(STEAL_ESTIMATED), "estimate");

        /* No value when a CPU came or went, or no time passed: the last
         * one stands. */
        steal = 0.5;
        b.cpus = 2;
        ck_assert_int_eq(cpu_times_steal(&a, &b, &accounted, &steal), STEAL_ESTIMATED);
        ck_assert_double_eq(steal, 0.5);
        b.cpus = 1;
        ck_assert_int_eq(cpu_times_steal(&a, &a, &accounted, &steal), STEAL_ESTIMATED);
        ck_assert_double_eq(steal, 0.5);
        /* A fully accounted interval (ticks round up a little): none. */
        b.uptime = a.uptime + 15 * USEC_PER_SEC;
        ck_assert_int_eq(cpu_times_steal(&a, &b, &accounted, &steal), STEAL_ESTIMATED);
        ck_assert_double_eq(steal, 0.0);

        /* Once the kernel's counter moves, it is the steal, for good. */
        ck_assert_int_eq(proc_cpu_times_parse("cpu  900 0 227 1400 30 0 0 40 0 0\n", 100, &b), 0);
        b.cpus = 1;
        b.uptime = a.uptime + 20 * USEC_PER_SEC;
        ck_assert_int_eq(cpu_times_steal(&a, &b, &accounted, &steal), STEAL_FROM_PROC);
        ck_assert(accounted);
        ck_assert_double_eq_tol(steal, 40.0 / 1617, 1e-9);
        ck_assert_int_eq(cpu_times_steal(&a, &a, &accounted, &steal), STEAL_FROM_PROC);
        ck_assert_str_eq(steal_source_to_string(STEAL_FROM_PROC), "proc");
}
END_TEST

START_TEST(test_meminfo_total) {
        uint64_t total = 0;

        ck_assert_int_eq(proc_meminfo_total_parse("MemTotal:         339108 kB\n"
                                                  "MemFree:          300000 kB\n",
                                                  &total),
                         0);
        ck_assert_uint_eq(total, 339108ull * 1024);
        ck_assert_int_eq(proc_meminfo_total_parse("MemFree: 1 kB\n", &total), -EBADMSG);
        ck_assert_int_eq(proc_meminfo_total_parse("XMemTotal: 1 kB\n", &total), -EBADMSG);
        ck_assert_int_eq(proc_meminfo_total_parse("MemTotal: 1 MB\n", &total), -EBADMSG);
        ck_assert_int_eq(proc_meminfo_total_parse("MemTotal: kB\n", &total), -EBADMSG);
        ck_assert_uint_eq(total, 339108ull * 1024);
        ck_assert_int_eq(proc_meminfo_total_read(&total), 0);
        ck_assert_uint_gt(total, 0);
}
END_TEST

Suite *suite_tracker_task(void) {
        Suite *s = suite_create("tracker_task");
        TCase *tc;

        tc = tcase_create("jobs");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_job_wordcount);
        tcase_add_test(tc, test_job_streaming);
        tcase_add_test(tc, test_streaming_failures);
        tcase_add_test(tc, test_reduce_refuses_bad_inputs);
        tcase_add_test(tc, test_progress_score);
        tcase_add_test(tc, test_kill_map_midway);
        suite_add_tcase(s, tc);

        tc = tcase_create("processes");
        tcase_set_timeout(tc, 60);
        tcase_add_loop_test(tc, test_child_memory_limit, 0, 2);
        tcase_add_test(tc, test_child_kill);
        tcase_add_test(tc, test_child_exec);
        tcase_add_test(tc, test_child_task_user);
        tcase_add_test(tc, test_child_stderr_tail);
        tcase_add_test(tc, test_proc_stat);
        tcase_add_test(tc, test_steal_estimate);
        tcase_add_test(tc, test_meminfo_total);
        suite_add_tcase(s, tc);
        return s;
}
