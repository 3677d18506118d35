/* udp-echo PORT: answers every UDP datagram with "<hostname> <payload>".
 * udp-echo -c IP PORT MESSAGE: sends MESSAGE, prints the reply (exit 1 after 2 s without one).
 * Put into the end-to-end test image (test/support/images.ts) because busybox's nc has no UDP mode. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int client(const char *ip, const char *port, const char *message) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in target = {0};
  target.sin_family = AF_INET;
  target.sin_port = htons((unsigned short)atoi(port));
  if (fd < 0 || inet_pton(AF_INET, ip, &target.sin_addr) != 1) return 2;
  struct timeval timeout = {2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (sendto(fd, message, strlen(message), 0, (struct sockaddr *)&target, sizeof target) < 0) return 1;
  char reply[2400];
  ssize_t received = recv(fd, reply, sizeof reply - 1, 0);
  if (received < 0) return 1;
  reply[received] = 0;
  printf("%s\n", reply);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && strcmp(argv[1], "-c") == 0) return client(argv[2], argv[3], argv[4]);
  if (argc != 2) {
    fprintf(stderr, "usage: udp-echo PORT\n");
    return 2;
  }
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in address = {0};
  address.sin_family = AF_INET;
  address.sin_port = htons((unsigned short)atoi(argv[1]));
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  if (fd < 0 || bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
    perror("udp-echo");
    return 1;
  }
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  for (;;) {
    char in[2048], out[2400];
    struct sockaddr_in peer;
    socklen_t length = sizeof peer;
    ssize_t received = recvfrom(fd, in, sizeof in - 1, 0, (struct sockaddr *)&peer, &length);
    if (received < 0) continue;
    in[received] = 0;
    int written = snprintf(out, sizeof out, "%s %s", host, in);
    sendto(fd, out, (size_t)written, 0, (struct sockaddr *)&peer, length);
  }
}
