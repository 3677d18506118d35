/* http-bench IP PORT COUNT: COUNT sequential HTTP/1.0 GETs of / to IP:PORT, each on a new TCP
 * connection (as service traffic usually is); prints "ok=N failed=N seconds=S p50_us=N p99_us=N".
 * Part of the end-to-end test image (test/support/images.ts), used by bench/serviceNetwork.mjs to
 * time requests from inside a pod without a process start per request. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

static int compare(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

static int one_request(const struct sockaddr_in *target) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  struct timeval timeout = {3, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, (const struct sockaddr *)target, sizeof *target) < 0) {
    close(fd);
    return -1;
  }
  static const char request[] = "GET / HTTP/1.0\r\nHost: bench\r\n\r\n";
  if (write(fd, request, sizeof request - 1) != (ssize_t)(sizeof request - 1)) {
    close(fd);
    return -1;
  }
  /* the status line is in the first bytes; servers may send headers and body in separate writes */
  char first[8] = {0}, buffer[4096];
  ssize_t total = 0, got;
  while ((got = read(fd, buffer, sizeof buffer)) > 0) {
    for (ssize_t i = 0; i < got && total + i < 7; i++) first[total + i] = buffer[i];
    total += got;
  }
  close(fd);
  return (got == 0 && total > 12 && memcmp(first, "HTTP/1.", 7) == 0) ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: http-bench IP PORT COUNT\n");
    return 2;
  }
  struct sockaddr_in target = {0};
  target.sin_family = AF_INET;
  target.sin_port = htons((unsigned short)atoi(argv[2]));
  if (inet_pton(AF_INET, argv[1], &target.sin_addr) != 1) {
    fprintf(stderr, "http-bench: bad IP %s\n", argv[1]);
    return 2;
  }
  int count = atoi(argv[3]);
  if (count < 1) count = 1;
  long long *latencies = calloc((size_t)count, sizeof *latencies);
  int ok = 0, failed = 0;
  long long start = now_us();
  for (int i = 0; i < count; i++) {
    long long before = now_us();
    if (one_request(&target) == 0) latencies[ok++] = now_us() - before;
    else failed++;
  }
  double seconds = (double)(now_us() - start) / 1e6;
  qsort(latencies, (size_t)ok, sizeof *latencies, compare);
  long long p50 = ok ? latencies[(ok - 1) / 2] : 0, p99 = ok ? latencies[(ok * 99 - 1) / 100] : 0;
  printf("ok=%d failed=%d seconds=%.3f p50_us=%lld p99_us=%lld\n", ok, failed, seconds, p50, p99);
  return failed ? 1 : 0;
}
