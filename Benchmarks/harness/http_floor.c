/*
 * http_floor.c - the floor of one HTTP round trip on this machine: a single-threaded, blocking HTTP/1.1 server on
 * loopback that answers every request with the same small JSON-RPC result, doing nothing else.
 *
 * Build:  gcc -O2 -Wall -o http_floor http_floor.c
 * Usage:  ./http_floor PORT          (127.0.0.1 only; serves one keep-alive connection at a time, until killed)
 *
 * Driven by the same sequential client as the gateway (mcp_seq), it tells what part of a gateway's latency is
 * TCP on loopback and the two processes waking each other, which no HTTP server can avoid.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

static const char reply[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n"
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"content\":[],\"isError\":false}}";

/* Serves one connection: each request is its head up to the blank line, then Content-Length bytes of body. */
static void serve(int fd) {
    static char buf[1 << 20];
    size_t have = 0;
    for (;;) {
        char *end = NULL;
        while (!(end = memmem(buf, have, "\r\n\r\n", 4))) {
            if (have == sizeof buf) return;
            ssize_t n = read(fd, buf + have, sizeof buf - have);
            if (n <= 0) return;
            have += (size_t)n;
        }
        size_t head = (size_t)(end - buf) + 4, body = 0;
        for (char *line = buf; line < end; line = strstr(line, "\r\n") + 2) {
            if (strncasecmp(line, "Content-Length:", 15) == 0) body = strtoul(line + 15, NULL, 10);
        }
        if (head + body > sizeof buf) return;
        while (have < head + body) {
            ssize_t n = read(fd, buf + have, sizeof buf - have);
            if (n <= 0) return;
            have += (size_t)n;
        }
        if (write(fd, reply, sizeof reply - 1) != (ssize_t)(sizeof reply - 1)) return;
        memmove(buf, buf + head + body, have - head - body);
        have -= head + body;
    }
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: http_floor PORT\n"); return 2; }
    int listener = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1]))};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 16) != 0) {
        perror("http_floor");
        return 1;
    }
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) continue;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        serve(fd);
        close(fd);
    }
}
