/*
 * http_client.h - the one keep-alive HTTP/1.1 connection the sequential clients (mcp_seq.c, wait_connected.c)
 * share: connect to a loopback port, write one request, read one response (Content-Length, chunked, or
 * read-until-close bodies). Header-only, for single-file programs; no dynamic allocation except the body.
 */
#ifndef HTTP_CLIENT_H
#define HTTP_CLIENT_H
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

__attribute__((unused)) static double now_us(void) {
    struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int port; static char path[512] = "/mcp";
static int fd = -1;
static char rb[1 << 20]; static size_t rlen, rpos;
static char *body; static size_t bcap, blen;

/* parses http://127.0.0.1:PORT/path (loopback only) into port and path; returns 0 or prints why not */
static int parse_url(const char *url) {
    char host[256];
    if (sscanf(url, "http://%255[^:/]:%d%511s", host, &port, path) < 2) { fprintf(stderr, "bad url\n"); return -1; }
    if (strcmp(host, "127.0.0.1") && strcmp(host, "localhost")) { fprintf(stderr, "loopback only\n"); return -1; }
    return 0;
}

static int do_connect(void) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { close(fd); fd = -1; return -1; }
    int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    rlen = rpos = 0;
    return 0;
}
static int fill(void) {  /* returns bytes read, 0 on EOF, -1 err */
    if (rpos == rlen) rpos = rlen = 0;
    if (rlen == sizeof rb) { memmove(rb, rb + rpos, rlen - rpos); rlen -= rpos; rpos = 0; }
    ssize_t n;
    do n = read(fd, rb + rlen, sizeof rb - rlen); while (n < 0 && errno == EINTR);
    if (n > 0) rlen += (size_t)n;
    return (int)n;
}
/* read a CRLF line into out (without CRLF); returns len or -1 */
static ssize_t get_line(char *out, size_t cap) {
    for (;;) {
        char *nl = memchr(rb + rpos, '\n', rlen - rpos);
        if (nl) {
            size_t n = (size_t)(nl - (rb + rpos));
            size_t c = n < cap - 1 ? n : cap - 1;
            memcpy(out, rb + rpos, c); out[c] = 0;
            if (c && out[c - 1] == '\r') out[--c] = 0;
            rpos += n + 1; return (ssize_t)c;
        }
        if (rpos > 0) { memmove(rb, rb + rpos, rlen - rpos); rlen -= rpos; rpos = 0; }
        if (fill() <= 0) return -1;
    }
}
static void body_add(const char *p, size_t n) {
    if (blen + n + 1 > bcap) {
        bcap = (blen + n + 1) * 2; body = realloc(body, bcap);
        if (!body) { perror("realloc"); exit(1); }
    }
    memcpy(body + blen, p, n); blen += n; body[blen] = 0;
}
static int get_bytes(size_t n) {
    while (n) {
        if (rpos == rlen && fill() <= 0) return -1;
        size_t c = rlen - rpos < n ? rlen - rpos : n;
        body_add(rb + rpos, c); rpos += c; n -= c;
    }
    return 0;
}

/* one request; returns HTTP status (or -1 on connection failure); sets *closed if server closes */
static int roundtrip(const char *req, size_t reqlen, int *closed) {
    *closed = 0; blen = 0; if (body) body[0] = 0;
    size_t off = 0;
    while (off < reqlen) {
        ssize_t w = write(fd, req + off, reqlen - off);
        if (w < 0) { if (errno == EINTR) continue; return -1; }
        off += (size_t)w;
    }
    char line[8192];
    if (get_line(line, sizeof line) < 0) return -1;
    int status = 0; if (sscanf(line, "HTTP/%*s %d", &status) != 1) return -1;
    long clen = -1; int chunked = 0;
    for (;;) {
        ssize_t n = get_line(line, sizeof line);
        if (n < 0) return -1;
        if (n == 0) break;
        if (!strncasecmp(line, "content-length:", 15)) clen = atol(line + 15);
        else if (!strncasecmp(line, "transfer-encoding:", 18) && strcasestr(line, "chunked")) chunked = 1;
        else if (!strncasecmp(line, "connection:", 11) && strcasestr(line, "close")) *closed = 1;
    }
    if (chunked) {
        for (;;) {
            if (get_line(line, sizeof line) < 0) return -1;
            long sz = strtol(line, NULL, 16);
            if (sz == 0) { while (get_line(line, sizeof line) > 0) {} break; }
            if (get_bytes((size_t)sz) < 0) return -1;
            if (get_line(line, sizeof line) < 0) return -1;
        }
    } else if (clen >= 0) {
        if (get_bytes((size_t)clen) < 0) return -1;
    } else if (status != 202 && status != 204 && status != 304) {
        /* read until close */
        for (;;) { if (rpos < rlen) { body_add(rb + rpos, rlen - rpos); rpos = rlen; } if (fill() <= 0) break; }
        *closed = 1;
    }
    return status;
}

#endif
