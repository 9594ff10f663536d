/*
 * wait_connected.c - how long a gateway takes from its start until N of its upstreams are connected.
 *
 * Build: gcc -O2 -Wall -o wait_connected wait_connected.c   (with http_client.h beside it)
 * Usage: wait_connected -N COUNT -S START_EPOCH_SECONDS [-P GATEWAY_PID] [-i POLL_MS] [-T TIMEOUT_S]
 *                       http://127.0.0.1:PORT/healthz
 *   Polls the URL (GET, one keep-alive connection; /healthz or /api/v1/servers) every POLL_MS (default 5)
 *   and counts the servers it shows as "state":"connected". Connection refusals while the gateway has not yet
 *   bound its port are retried. START is the gateway's start on the wall clock (bash: $EPOCHREALTIME just
 *   before starting it), so the figure includes the process start.
 *   Prints "RESULT ready_ms=.. polls=.. connected=.." once COUNT are connected (exit 0), or the last count
 *   seen when TIMEOUT_S (default 30) passes first (exit 3), or as soon as GATEWAY_PID has exited (exit 4).
 */
#include "http_client.h"

static double wall_s(void) {
    struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 1 while pid runs: its /proc entry exists and it is not a zombie */
static int running(long pid) {
    char file[64], stat[512]; snprintf(file, sizeof file, "/proc/%ld/stat", pid);
    FILE *f = fopen(file, "r");
    if (!f) return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f); fclose(f); stat[n] = 0;
    const char *end = strrchr(stat, ')');
    return end && end[1] == ' ' && end[2] != 'Z';
}

/* the number of non-overlapping occurrences of needle in body */
static long occurrences(const char *needle) {
    long count = 0; size_t len = strlen(needle);
    for (const char *p = body; p && (p = strstr(p, needle)); p += len) count++;
    return count;
}

static void on_alarm(int s) { (void)s; static const char m[] = "wait_connected: no answer, TIMEOUT\n"; if (write(2, m, sizeof m - 1)) {} _exit(3); }

int main(int argc, char **argv) {
    long want = -1, poll_ms = 5, pid = 0; double start = 0, timeout_s = 30; const char *url = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-N") && i + 1 < argc) want = atol(argv[++i]);
        else if (!strcmp(argv[i], "-S") && i + 1 < argc) start = atof(argv[++i]);
        else if (!strcmp(argv[i], "-P") && i + 1 < argc) pid = atol(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) poll_ms = atol(argv[++i]);
        else if (!strcmp(argv[i], "-T") && i + 1 < argc) timeout_s = atof(argv[++i]);
        else if (argv[i][0] != '-') url = argv[i];
        else { fprintf(stderr, "unknown arg %s\n", argv[i]); return 2; }
    }
    if (!url || want < 0 || start <= 0) {
        fprintf(stderr, "usage: wait_connected -N count -S start_epoch_s [-P pid] [-i poll_ms] [-T timeout_s] URL\n");
        return 2;
    }
    if (parse_url(url) < 0) return 2;
    signal(SIGPIPE, SIG_IGN); signal(SIGALRM, on_alarm); alarm((unsigned)timeout_s + 5);  /* a poll that never gets an answer */
    char req[1024];
    int rl = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: application/json\r\n\r\n", path, port);
    long polls = 0, connected = -1;
    const struct timespec pause = { .tv_sec = poll_ms / 1000, .tv_nsec = (poll_ms % 1000) * 1000000L };
    for (;;) {
        if (fd < 0) do_connect();
        if (fd >= 0) {
            int closed = 0;
            int status = roundtrip(req, (size_t)rl, &closed);
            polls++;
            if (status == 200) connected = occurrences("\"state\":\"connected\"");
            double ready_ms = (wall_s() - start) * 1e3;
            if (connected >= want) {
                printf("RESULT ready_ms=%.0f polls=%ld connected=%ld\n", ready_ms, polls, connected);
                return 0;
            }
            if (status < 0 || closed) { close(fd); fd = -1; }
        }
        if (pid > 0 && !running(pid)) {
            printf("RESULT ready_ms=exited polls=%ld connected=%ld\n", polls, connected);
            fprintf(stderr, "wait_connected: the gateway (PID %ld) exited with %ld of %ld connected\n", pid, connected < 0 ? 0 : connected, want);
            return 4;
        }
        if (wall_s() - start > timeout_s) {
            printf("RESULT ready_ms=timeout polls=%ld connected=%ld\n", polls, connected);
            fprintf(stderr, "wait_connected: %ld of %ld connected after %.0f s\n", connected < 0 ? 0 : connected, want, timeout_s);
            return 3;
        }
        nanosleep(&pause, NULL);
    }
}
