/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
#define _POSIX_C_SOURCE 200809L
#include "child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

extern char **environ;

static bool named(const char *entry, const struct child_var *vars, size_t nvars)
{
    for (size_t v = 0; v < nvars; v++) {
        const size_t len = strlen(vars[v].name);
        if (strncmp(entry, vars[v].name, len) == 0 && entry[len] == '=')
            return true;
    }
    return false;
}

/* Under AESGEN_TEST_EMULATOR (e.g. "/usr/bin/qemu-x86_64 -cpu Penryn": tests/emulated),
 * this binary runs on an emulated CPU, and a child it execs directly would run on the
 * real one: the child goes through the same emulator.  Its words (at most
 * EMULATOR_WORDS, split at spaces in copy, the first an absolute path) go to argv's
 * front; returns how many.  Called before fork: the child of a process with threads may
 * call only async-signal-safe functions until it execs. */
enum { EMULATOR_WORDS = 8 };

static size_t emulator_words(char **argv, char *copy, size_t cap)
{
    const char *emulator = getenv(TEST_EMULATOR_ENV);
    char *rest = NULL;
    size_t words = 0;
    if (!emulator || !*emulator)
        return 0;
    snprintf(copy, cap, "%s", emulator);
    for (char *word = strtok_r(copy, " ", &rest); word && words < EMULATOR_WORDS;
         word = strtok_r(NULL, " ", &rest))
        argv[words++] = word;
    return words;
}

bool run_child_with(const char *self, const char *flag, const struct child_var *vars,
                    size_t nvars, char *report, size_t cap)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = xmalloc((n + nvars + 1) * sizeof *env);
    char *texts = xmalloc(nvars * 128 + 1);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!named(environ[i], vars, nvars))
            env[m++] = environ[i];
    for (size_t v = 0; v < nvars; v++)
        if (vars[v].value) {
            char *text = texts + 128 * v;
            snprintf(text, 128, "%s=%s", vars[v].name, vars[v].value);
            env[m++] = text;
        }
    env[m] = NULL;
    char *argv[EMULATOR_WORDS + 3], emulator[512];
    const size_t words = emulator_words(argv, emulator, sizeof emulator);
    argv[words] = (char *)self;
    argv[words + 1] = (char *)flag;
    argv[words + 2] = NULL;
    int fds[2];
    bool ok = false;
    report[0] = '\0';
    if (pipe(fds) == 0) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            dup2(fds[1], STDOUT_FILENO);
            close(fds[0]);
            close(fds[1]);
            execve(argv[0], argv, env);
            _exit(127);
        }
        close(fds[1]);
        size_t got = 0;
        ssize_t r;
        while (got + 1 < cap && (r = read(fds[0], report + got, cap - 1 - got)) > 0)
            got += (size_t)r;
        report[got] = '\0';
        report[strcspn(report, "\n")] = '\0';
        close(fds[0]);
        int status = 0;
        ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
             WEXITSTATUS(status) == 0;
    }
    free(texts);
    free(env);
    return ok;
}
