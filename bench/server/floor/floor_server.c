// The least any HTTP server on this machine can cost per tile request: one thread, epoll, keep-alive,
// every request answered with the same PNG (read once at start) and no parsing beyond finding the
// end of the request head. What is left is the kernel's loopback TCP work (read, writev, epoll) —
// the floor under our server's HTTP cost, measured by bench/server/floor.sh beside wrk and layerbench.
// Build: cc -O2 -o floor_server floor_server.c. Usage: floor_server PNG (prints the port it listens on).
#define _GNU_SOURCE  // accept4
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

enum { MAX_CONNECTIONS = 4096, BUFFER = 16384 };

struct connection {
  char buffer[BUFFER];
  size_t used;
};

static struct connection *connections[MAX_CONNECTIONS];

static void fail(const char *what) {
  perror(what);
  exit(1);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PNG\n", argv[0]);
    return 64;
  }
  signal(SIGPIPE, SIG_IGN);
  int file = open(argv[1], O_RDONLY);
  struct stat info;
  if (file < 0 || fstat(file, &info) != 0) fail(argv[1]);
  char *body = malloc((size_t)info.st_size);
  if (!body || read(file, body, (size_t)info.st_size) != info.st_size) fail("read");
  close(file);
  char head[256];
  int headLength = snprintf(head, sizeof head,
                            "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %lld\r\n\r\n",
                            (long long)info.st_size);

  int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t length = sizeof address;
  if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0) fail("bind");
  if (listen(listener, 1024) != 0) fail("listen");
  getsockname(listener, (struct sockaddr *)&address, &length);
  printf("listening on 127.0.0.1:%d\n", ntohs(address.sin_port));
  fflush(stdout);

  int poll = epoll_create1(0);
  struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
  epoll_ctl(poll, EPOLL_CTL_ADD, listener, &event);
  struct epoll_event events[256];
  for (;;) {
    int ready = epoll_wait(poll, events, 256, -1);
    if (ready < 0 && errno == EINTR) continue;
    for (int i = 0; i < ready; i++) {
      int fd = events[i].data.fd;
      if (fd == listener) {
        int client;
        while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          if (client >= MAX_CONNECTIONS) {
            close(client);
            continue;
          }
          setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          if (!connections[client]) connections[client] = calloc(1, sizeof(struct connection));
          connections[client]->used = 0;
          struct epoll_event added = {.events = EPOLLIN, .data.fd = client};
          epoll_ctl(poll, EPOLL_CTL_ADD, client, &added);
        }
        continue;
      }
      struct connection *c = connections[fd];
      ssize_t got = read(fd, c->buffer + c->used, BUFFER - c->used - 1);
      if (got <= 0) {
        close(fd);
        continue;
      }
      c->used += (size_t)got;
      c->buffer[c->used] = 0;
      // Answer every complete request head in the buffer (wrk sends one at a time per connection).
      char *start = c->buffer;
      char *end;
      while ((end = strstr(start, "\r\n\r\n")) != NULL) {
        struct iovec parts[2] = {{head, (size_t)headLength}, {body, (size_t)info.st_size}};
        size_t total = (size_t)headLength + (size_t)info.st_size, sent = 0;
        while (sent < total) {  // a blocking-style loop: the PNG fits the socket buffer in practice
          ssize_t n = writev(fd, parts, 2);
          if (n < 0 && errno == EAGAIN) continue;
          if (n <= 0) break;
          sent += (size_t)n;
          for (int k = 0; k < 2 && n > 0; k++) {
            size_t take = (size_t)n < parts[k].iov_len ? (size_t)n : parts[k].iov_len;
            parts[k].iov_base = (char *)parts[k].iov_base + take;
            parts[k].iov_len -= take;
            n -= (ssize_t)take;
          }
        }
        start = end + 4;
      }
      c->used = (size_t)(c->buffer + c->used - start);
      memmove(c->buffer, start, c->used);
      if (c->used >= BUFFER - 1) {
        close(fd);  // a head larger than the buffer: not wrk's
        c->used = 0;
      }
    }
  }
}
