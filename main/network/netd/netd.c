/*
 * kd-netd: kubedesk's in-network service proxy. One instance runs in a container on the cluster's
 * Docker bridge. It follows kube-proxy's old userspace proxier (pkg/proxy/userspace, removed in
 * 1.26): a listener per ClusterIP:port, each accepted connection (or UDP client session) relayed
 * to an endpoint chosen round robin, or by ClientIP session affinity with an idle timeout, trying
 * the next endpoint when a connect fails. ClusterIPs are made local with one `local <range> dev lo`
 * route, so the container answers ARP for the whole service range and any vip can be bound. A
 * service without endpoints has no listener, so clients get "connection refused" as upstream's
 * REJECT rule gives. A small tunnel lets the host open TCP connections into the network (Docker
 * Desktop, where pod IPs are not routable from the host).
 *
 * NetworkPolicy for Service traffic (main/network/netpol): a connection through a ClusterIP
 * reaches its backend from kd-netd's own address, so the backend's namespace cannot tell clients
 * apart. kubedesk therefore tells kd-netd which clients may use which backend (`allow` lines, the
 * intersection of the client's egress and the backend's ingress policies). A service with any
 * `allow` line is restricted: a client is sent only to backends that list it, and a client no
 * backend lists is dropped before the connection is accepted, by kd-netd's own packet filter
 * (packetFilter.c, in its namespace), as upstream drops a denied packet. Connections and UDP
 * sessions that exist when the lists change are kept, as conntrack keeps established flows.
 *
 * Configuration (re-read on SIGHUP and when the file's mtime changes):
 *   token <hex>
 *   range <cidr>
 *   tunnel <port>
 *   service <vip> <port> <tcp|udp> <affinity-seconds> <backend>...   backend: ip:port | unix:/path
 *   allow <vip> <port> <tcp|udp> <backend> <client-ip>...           (see above)
 *
 * Build: cc -O2 -static -Wall -Wextra -o kd-netd netd.c packetFilter.c -lpthread
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "packetFilter.h"

#define RELAY_BUFFER_SIZE (64 * 1024)
#define THREAD_STACK_SIZE (256 * 1024)
#define CONNECT_TIMEOUT_MS 1000
#define TUNNEL_CONNECT_TIMEOUT_MS 3000
#define TUNNEL_HEADER_TIMEOUT_MS 5000
#define TUNNEL_LINE_MAX 512
#define UDP_SESSION_IDLE_SECONDS 30
#define UDP_MAX_SESSIONS 4096
#define UDP_DATAGRAM_MAX 65535
#define MAX_RANGES 64
#define TOKEN_MAX 256
#define FIELDS_MAX 4096

enum protocol { PROTO_TCP, PROTO_UDP };
enum backend_kind { BACKEND_INET, BACKEND_UNIX };

struct backend {
    enum backend_kind kind;
    struct sockaddr_in inet;
    struct sockaddr_un unix_address;
};

struct affinity_entry {
    uint32_t client;      /* network order */
    struct backend backend;
    time_t last_used;     /* monotonic seconds */
};

struct udp_session {
    struct sockaddr_in client;
    int fd;
    struct backend backend;
    time_t last_active;
    /* unix backends: partly received frames (2-byte big-endian length + datagram) */
    unsigned char *frame;
    size_t frame_length;
    size_t frame_capacity;
    struct udp_session *next;
};

struct service {
    uint32_t vip; /* network order */
    uint16_t port;
    enum protocol protocol;
    int fd;
    int references; /* the service list holds one; each TCP connection thread holds one */
    /* under state_lock: */
    int affinity_seconds;
    struct backend *backends;
    int backend_count;
    /* NetworkPolicy: when restricted, allowed[i] lists the clients backend i may serve */
    bool restricted;
    struct client_list *allowed;
    unsigned next_backend;
    struct affinity_entry *affinity;
    int affinity_count;
    int affinity_capacity;
    /* main thread only: */
    struct udp_session *sessions;
    struct service *next;
};

/* Client addresses (network order), sorted for binary search. */
struct client_list {
    uint32_t *clients;
    int count;
};

struct service_spec {
    uint32_t vip;
    uint16_t port;
    enum protocol protocol;
    int affinity_seconds;
    struct backend *backends;
    int backend_count;
    bool restricted;
    struct client_list *allowed; /* backend_count entries when restricted */
};

struct allow_spec {
    uint32_t vip;
    uint16_t port;
    enum protocol protocol;
    struct backend backend;
    struct client_list clients;
};

struct range {
    uint32_t network; /* network order */
    int prefix;
};

struct config {
    char token[TOKEN_MAX + 1];
    int tunnel_port;
    struct range ranges[MAX_RANGES];
    int range_count;
    struct service_spec *services;
    int service_count;
    struct allow_spec *allows;
    int allow_count;
};

struct connection_job {
    int client;
    struct service *service; /* NULL for tunnel connections */
    uint32_t client_address;
    struct backend *candidates;
    int candidate_count;
    char token[TOKEN_MAX + 1];
};

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static struct service *services;
static struct range active_ranges[MAX_RANGES];
static int active_range_count;
static int tunnel_fd = -1;
static int tunnel_port;
static char tunnel_token[TOKEN_MAX + 1];
static int udp_session_count;
static const char *config_path;

static void log_line(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *format, ...) {
    char line[1024];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    fprintf(stderr, "kd-netd: %s\n", line);
}

static time_t monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec;
}

static int64_t monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void set_nodelay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Closing with SO_LINGER 0 sends a RST, which a client reports as a refused/reset connection
 * rather than an empty reply, as upstream's REJECT rule would. */
static void close_with_reset(int fd) {
    struct linger linger = { .l_onoff = 1, .l_linger = 0 };
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
    close(fd);
}

static bool backend_equal(const struct backend *a, const struct backend *b) {
    if (a->kind != b->kind) return false;
    if (a->kind == BACKEND_INET)
        return a->inet.sin_addr.s_addr == b->inet.sin_addr.s_addr && a->inet.sin_port == b->inet.sin_port;
    return strcmp(a->unix_address.sun_path, b->unix_address.sun_path) == 0;
}

static void backend_text(const struct backend *backend, char *text, size_t size) {
    if (backend->kind == BACKEND_UNIX) {
        snprintf(text, size, "unix:%s", backend->unix_address.sun_path);
    } else {
        char address[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &backend->inet.sin_addr, address, sizeof address);
        snprintf(text, size, "%s:%u", address, ntohs(backend->inet.sin_port));
    }
}

/* ---------- configuration ---------- */

static bool parse_port(const char *text, uint16_t *port, bool allow_zero) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || *text == '\0' || *end != '\0' || value < (allow_zero ? 0 : 1) || value > 65535) return false;
    *port = (uint16_t)value;
    return true;
}

static bool parse_ipv4(const char *text, uint32_t *address) {
    struct in_addr parsed;
    if (inet_pton(AF_INET, text, &parsed) != 1) return false;
    *address = parsed.s_addr;
    return true;
}

static bool parse_backend(const char *text, struct backend *backend) {
    memset(backend, 0, sizeof *backend);
    if (strncmp(text, "unix:", 5) == 0) {
        const char *path = text + 5;
        if (path[0] != '/' || strlen(path) >= sizeof backend->unix_address.sun_path) return false;
        backend->kind = BACKEND_UNIX;
        backend->unix_address.sun_family = AF_UNIX;
        strcpy(backend->unix_address.sun_path, path);
        return true;
    }
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text || (size_t)(colon - text) >= INET_ADDRSTRLEN) return false;
    char address[INET_ADDRSTRLEN];
    memcpy(address, text, (size_t)(colon - text));
    address[colon - text] = '\0';
    uint16_t port;
    uint32_t ip;
    if (!parse_ipv4(address, &ip) || !parse_port(colon + 1, &port, false)) return false;
    backend->kind = BACKEND_INET;
    backend->inet.sin_family = AF_INET;
    backend->inet.sin_addr.s_addr = ip;
    backend->inet.sin_port = htons(port);
    return true;
}

static bool parse_cidr(const char *text, struct range *range) {
    char address[INET_ADDRSTRLEN];
    const char *slash = strchr(text, '/');
    if (!slash || (size_t)(slash - text) >= sizeof address) return false;
    memcpy(address, text, (size_t)(slash - text));
    address[slash - text] = '\0';
    char *end;
    errno = 0;
    long prefix = strtol(slash + 1, &end, 10);
    if (errno != 0 || slash[1] == '\0' || *end != '\0' || prefix < 0 || prefix > 32) return false;
    uint32_t ip;
    if (!parse_ipv4(address, &ip)) return false;
    uint32_t mask = prefix == 0 ? 0 : htonl(0xffffffffu << (32 - prefix));
    range->network = ip & mask;
    range->prefix = (int)prefix;
    return true;
}

static void free_client_lists(struct client_list *lists, int count) {
    if (!lists) return;
    for (int index = 0; index < count; index++) free(lists[index].clients);
    free(lists);
}

static void free_config(struct config *config) {
    for (int index = 0; index < config->service_count; index++) {
        free(config->services[index].backends);
        free_client_lists(config->services[index].allowed, config->services[index].backend_count);
    }
    free(config->services);
    config->services = NULL;
    config->service_count = 0;
    for (int index = 0; index < config->allow_count; index++) free(config->allows[index].clients.clients);
    free(config->allows);
    config->allows = NULL;
    config->allow_count = 0;
}

static int compare_addresses(const void *a, const void *b) {
    uint32_t first = ntohl(*(const uint32_t *)a), second = ntohl(*(const uint32_t *)b);
    return first < second ? -1 : first > second;
}

static bool client_listed(const struct client_list *list, uint32_t client) {
    return list->count > 0 && bsearch(&client, list->clients, (size_t)list->count, sizeof client, compare_addresses) != NULL;
}

static bool is_hex(const char *text) {
    if (*text == '\0') return false;
    for (; *text; text++) {
        char c = *text;
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
    }
    return true;
}

/* "<vip> <port> <tcp|udp>", fields 1 to 3 of a `service` or `allow` line; an error message, or NULL. */
static const char *parse_service_address(char **fields, uint32_t *vip, uint16_t *port, enum protocol *protocol) {
    if (!parse_ipv4(fields[1], vip)) return "bad vip";
    if (!parse_port(fields[2], port, false)) return "bad port";
    if (strcmp(fields[3], "tcp") == 0) *protocol = PROTO_TCP;
    else if (strcmp(fields[3], "udp") == 0) *protocol = PROTO_UDP;
    else return "protocol must be tcp or udp";
    return NULL;
}

/* Parses one line into the config; returns an error message, or NULL when the line is fine. */
static const char *parse_line(char *line, struct config *config) {
    char *fields[FIELDS_MAX];
    int count = 0;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    for (char *saved = NULL, *field = strtok_r(line, " \t\r\n", &saved); field; field = strtok_r(NULL, " \t\r\n", &saved)) {
        if (count == (int)(sizeof fields / sizeof fields[0])) return "too many fields";
        fields[count++] = field;
    }
    if (count == 0) return NULL;
    if (strcmp(fields[0], "token") == 0) {
        if (count != 2 || !is_hex(fields[1]) || strlen(fields[1]) > TOKEN_MAX) return "expected: token <hex>";
        strcpy(config->token, fields[1]);
        return NULL;
    }
    if (strcmp(fields[0], "range") == 0) {
        struct range range;
        if (count != 2 || !parse_cidr(fields[1], &range)) return "expected: range <a.b.c.d/n>";
        if (config->range_count == MAX_RANGES) return "too many ranges";
        config->ranges[config->range_count++] = range;
        return NULL;
    }
    if (strcmp(fields[0], "tunnel") == 0) {
        uint16_t port;
        if (count != 2 || !parse_port(fields[1], &port, true)) return "expected: tunnel <port>";
        config->tunnel_port = port;
        return NULL;
    }
    if (strcmp(fields[0], "service") == 0) {
        struct service_spec spec;
        memset(&spec, 0, sizeof spec);
        if (count < 5) return "expected: service <vip> <port> <tcp|udp> <affinity-seconds> <backend>...";
        const char *error = parse_service_address(fields, &spec.vip, &spec.port, &spec.protocol);
        if (error) return error;
        char *end;
        errno = 0;
        long affinity = strtol(fields[4], &end, 10);
        if (errno != 0 || *end != '\0' || affinity < 0 || affinity > 86400 * 365) return "bad affinity seconds";
        spec.affinity_seconds = (int)affinity;
        if (count > 5) {
            spec.backends = calloc((size_t)(count - 5), sizeof *spec.backends);
            if (!spec.backends) return "out of memory";
        }
        for (int index = 5; index < count; index++) {
            struct backend backend;
            if (!parse_backend(fields[index], &backend)) {
                free(spec.backends);
                return "bad backend (expected ip:port or unix:/absolute/path)";
            }
            bool duplicate = false;
            for (int seen = 0; seen < spec.backend_count; seen++) duplicate |= backend_equal(&spec.backends[seen], &backend);
            if (!duplicate) spec.backends[spec.backend_count++] = backend;
        }
        /* A later line for the same vip:port/proto replaces an earlier one. */
        for (int index = 0; index < config->service_count; index++) {
            struct service_spec *other = &config->services[index];
            if (other->vip == spec.vip && other->port == spec.port && other->protocol == spec.protocol) {
                free(other->backends);
                *other = spec;
                return NULL;
            }
        }
        struct service_spec *grown = realloc(config->services, (size_t)(config->service_count + 1) * sizeof *grown);
        if (!grown) {
            free(spec.backends);
            return "out of memory";
        }
        config->services = grown;
        config->services[config->service_count++] = spec;
        return NULL;
    }
    if (strcmp(fields[0], "allow") == 0) {
        struct allow_spec allow;
        memset(&allow, 0, sizeof allow);
        if (count < 5) return "expected: allow <vip> <port> <tcp|udp> <backend> <client-ip>...";
        const char *error = parse_service_address(fields, &allow.vip, &allow.port, &allow.protocol);
        if (error) return error;
        if (!parse_backend(fields[4], &allow.backend)) return "bad backend (expected ip:port or unix:/absolute/path)";
        if (count > 5) {
            allow.clients.clients = calloc((size_t)(count - 5), sizeof *allow.clients.clients);
            if (!allow.clients.clients) return "out of memory";
        }
        for (int index = 5; index < count; index++) {
            if (!parse_ipv4(fields[index], &allow.clients.clients[allow.clients.count++])) {
                free(allow.clients.clients);
                return "bad client address";
            }
        }
        if (allow.clients.count > 1) qsort(allow.clients.clients, (size_t)allow.clients.count, sizeof *allow.clients.clients, compare_addresses);
        struct allow_spec *grown = realloc(config->allows, (size_t)(config->allow_count + 1) * sizeof *grown);
        if (!grown) {
            free(allow.clients.clients);
            return "out of memory";
        }
        config->allows = grown;
        config->allows[config->allow_count++] = allow;
        return NULL;
    }
    return "unknown directive";
}

/* Gives each service the client lists of its `allow` lines (a restricted service's backend
 * without one serves nobody); `allow` lines of unknown services are ignored. */
static void attach_allows(struct config *config) {
    for (int index = 0; index < config->allow_count; index++) {
        struct allow_spec *allow = &config->allows[index];
        for (int candidate = 0; candidate < config->service_count; candidate++) {
            struct service_spec *spec = &config->services[candidate];
            if (spec->vip != allow->vip || spec->port != allow->port || spec->protocol != allow->protocol) continue;
            if (!spec->allowed) {
                spec->allowed = calloc((size_t)spec->backend_count + 1, sizeof *spec->allowed);
                if (!spec->allowed) break;
            }
            spec->restricted = true;
            for (int backend = 0; backend < spec->backend_count; backend++) {
                if (!backend_equal(&spec->backends[backend], &allow->backend)) continue;
                /* several lines for one backend add up (long lists are split) */
                struct client_list *list = &spec->allowed[backend];
                uint32_t *merged = realloc(list->clients, (size_t)(list->count + allow->clients.count + 1) * sizeof *merged);
                if (!merged) break;
                if (allow->clients.count > 0) memcpy(merged + list->count, allow->clients.clients, (size_t)allow->clients.count * sizeof *merged);
                list->clients = merged;
                list->count += allow->clients.count;
                if (list->count > 1) qsort(list->clients, (size_t)list->count, sizeof *list->clients, compare_addresses);
                break;
            }
            break;
        }
    }
}

static bool read_config(const char *path, struct config *config) {
    memset(config, 0, sizeof *config);
    FILE *file = fopen(path, "r");
    if (!file) {
        log_line("cannot read %s: %s", path, strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    int number = 0;
    while ((length = getline(&line, &capacity, file)) >= 0) {
        number++;
        char *copy = strdup(line);
        if (!copy) break;
        const char *problem = parse_line(copy, config);
        free(copy);
        if (problem) {
            if (length > 0 && line[length - 1] == '\n') line[length - 1] = '\0';
            log_line("%s:%d: %s; line skipped: %.200s", path, number, problem, line);
        }
    }
    free(line);
    fclose(file);
    attach_allows(config);
    return true;
}

/* ---------- routes (rtnetlink) ---------- */

static void add_attribute(struct nlmsghdr *header, size_t capacity, unsigned short type, const void *data, size_t length) {
    size_t offset = NLMSG_ALIGN(header->nlmsg_len);
    struct rtattr *attribute = (struct rtattr *)((char *)header + offset);
    if (offset + RTA_SPACE(length) > capacity) return;
    attribute->rta_type = type;
    attribute->rta_len = (unsigned short)RTA_LENGTH(length);
    memcpy(RTA_DATA(attribute), data, length);
    header->nlmsg_len = (uint32_t)(offset + RTA_SPACE(length));
}

/* `ip route {replace,del} local <range> dev lo table local`; returns 0 or an errno. */
static int change_local_route(const struct range *range, bool add) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return errno;
    union {
        struct nlmsghdr header;
        char bytes[256];
    } request;
    memset(&request, 0, sizeof request);
    request.header.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
    request.header.nlmsg_type = add ? RTM_NEWROUTE : RTM_DELROUTE;
    request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0);
    request.header.nlmsg_seq = 1;
    struct rtmsg *route = NLMSG_DATA(&request.header);
    route->rtm_family = AF_INET;
    route->rtm_dst_len = (unsigned char)range->prefix;
    route->rtm_table = RT_TABLE_LOCAL;
    route->rtm_protocol = RTPROT_STATIC;
    route->rtm_scope = RT_SCOPE_HOST;
    route->rtm_type = RTN_LOCAL;
    uint32_t table = RT_TABLE_LOCAL;
    uint32_t loopback = if_nametoindex("lo");
    add_attribute(&request.header, sizeof request, RTA_DST, &range->network, sizeof range->network);
    add_attribute(&request.header, sizeof request, RTA_TABLE, &table, sizeof table);
    if (loopback) add_attribute(&request.header, sizeof request, RTA_OIF, &loopback, sizeof loopback);
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    int result = 0;
    if (sendto(fd, &request, request.header.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
        result = errno;
    } else {
        union {
            struct nlmsghdr header;
            char bytes[4096];
        } answer;
        ssize_t length = recv(fd, &answer, sizeof answer, 0);
        if (length < 0) {
            result = errno;
        } else if (length >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) && answer.header.nlmsg_type == NLMSG_ERROR) {
            const struct nlmsgerr *error = NLMSG_DATA(&answer.header);
            result = -error->error;
        } else {
            result = EPROTO;
        }
    }
    close(fd);
    return result;
}

static bool range_equal(const struct range *a, const struct range *b) {
    return a->network == b->network && a->prefix == b->prefix;
}

/* Adds routes for new ranges and removes those of ranges no longer configured. */
static bool apply_ranges(const struct config *config, bool fatal) {
    bool ok = true;
    for (int index = 0; index < config->range_count; index++) {
        const struct range *range = &config->ranges[index];
        bool present = false;
        for (int active = 0; active < active_range_count; active++) present |= range_equal(&active_ranges[active], range);
        if (present) continue;
        int error = change_local_route(range, true);
        char address[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &range->network, address, sizeof address);
        if (error != 0) {
            log_line("cannot add route \"local %s/%d dev lo table local\": %s%s", address, range->prefix, strerror(error),
                     error == EPERM ? " (the container needs CAP_NET_ADMIN)" : "");
            if (fatal) return false;
            ok = false;
        }
    }
    for (int active = 0; active < active_range_count; active++) {
        bool kept = false;
        for (int index = 0; index < config->range_count; index++) kept |= range_equal(&active_ranges[active], &config->ranges[index]);
        if (!kept) change_local_route(&active_ranges[active], false);
    }
    memcpy(active_ranges, config->ranges, sizeof active_ranges);
    active_range_count = config->range_count;
    return ok;
}

/* ---------- services ---------- */

static void service_release(struct service *service) {
    pthread_mutex_lock(&state_lock);
    bool last = --service->references == 0;
    pthread_mutex_unlock(&state_lock);
    if (!last) return;
    free(service->backends);
    free_client_lists(service->allowed, service->backend_count);
    free(service->affinity);
    free(service);
}

static bool backend_present(const struct service *service, const struct backend *backend) {
    for (int index = 0; index < service->backend_count; index++)
        if (backend_equal(&service->backends[index], backend)) return true;
    return false;
}

/* Remembers which backend a client uses, for ClientIP affinity. Caller holds state_lock. */
static void remember_affinity(struct service *service, uint32_t client, const struct backend *backend, time_t now) {
    for (int index = 0; index < service->affinity_count; index++) {
        if (service->affinity[index].client == client) {
            service->affinity[index].backend = *backend;
            service->affinity[index].last_used = now;
            return;
        }
    }
    if (service->affinity_count == service->affinity_capacity) {
        int capacity = service->affinity_capacity ? service->affinity_capacity * 2 : 16;
        struct affinity_entry *grown = realloc(service->affinity, (size_t)capacity * sizeof *grown);
        if (!grown) return;
        service->affinity = grown;
        service->affinity_capacity = capacity;
    }
    service->affinity[service->affinity_count++] = (struct affinity_entry){ .client = client, .backend = *backend, .last_used = now };
}

/* Backends in the order to try: the chosen one (sticky or next round robin), then the rest; for a
 * restricted service only those the client may reach (NetworkPolicy), possibly none. */
static struct backend *choose_backends(struct service *service, uint32_t client, int *count) {
    pthread_mutex_lock(&state_lock);
    int total = service->backend_count;
    int *usable = total > 0 ? malloc((size_t)total * sizeof *usable) : NULL;
    int n = 0;
    for (int index = 0; usable && index < total; index++)
        if (!service->restricted || client_listed(&service->allowed[index], client)) usable[n++] = index;
    struct backend *order = n > 0 ? malloc((size_t)n * sizeof *order) : NULL;
    if (!order) {
        pthread_mutex_unlock(&state_lock);
        free(usable);
        *count = 0;
        return NULL;
    }
    time_t now = monotonic_seconds();
    int first = -1;
    if (service->affinity_seconds > 0) {
        for (int index = 0; index < service->affinity_count; index++) {
            struct affinity_entry *entry = &service->affinity[index];
            if (entry->client != client) continue;
            if (now - entry->last_used < service->affinity_seconds) {
                for (int candidate = 0; candidate < n; candidate++)
                    if (backend_equal(&service->backends[usable[candidate]], &entry->backend)) first = candidate;
            }
            break;
        }
    }
    if (first < 0) first = (int)(service->next_backend++ % (unsigned)n);
    if (service->affinity_seconds > 0) remember_affinity(service, client, &service->backends[usable[first]], now);
    for (int index = 0; index < n; index++) order[index] = service->backends[usable[(first + index) % n]];
    pthread_mutex_unlock(&state_lock);
    free(usable);
    *count = n;
    return order;
}

static void expire_affinity(struct service *service, time_t now) {
    pthread_mutex_lock(&state_lock);
    int kept = 0;
    for (int index = 0; index < service->affinity_count; index++) {
        struct affinity_entry *entry = &service->affinity[index];
        if (service->affinity_seconds > 0 && now - entry->last_used < service->affinity_seconds && backend_present(service, &entry->backend))
            service->affinity[kept++] = *entry;
    }
    service->affinity_count = kept;
    pthread_mutex_unlock(&state_lock);
}

/* Non-blocking connect with a deadline; returns a connected non-blocking socket or -1. */
static int connect_backend(const struct backend *backend, int type, int timeout_ms) {
    int family = backend->kind == BACKEND_UNIX ? AF_UNIX : AF_INET;
    int fd = socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    const struct sockaddr *address = backend->kind == BACKEND_UNIX ? (const struct sockaddr *)&backend->unix_address
                                                                   : (const struct sockaddr *)&backend->inet;
    socklen_t length = backend->kind == BACKEND_UNIX ? sizeof backend->unix_address : sizeof backend->inet;
    if (connect(fd, address, length) == 0) return fd;
    if (errno != EINPROGRESS) {
        int error = errno;
        close(fd);
        errno = error;
        return -1;
    }
    struct pollfd waiting = { .fd = fd, .events = POLLOUT };
    int64_t deadline = monotonic_ms() + timeout_ms;
    for (;;) {
        int64_t left = deadline - monotonic_ms();
        if (left <= 0) break;
        int ready = poll(&waiting, 1, (int)left);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) break;
        int error = 0;
        socklen_t size = sizeof error;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0) return fd;
        close(fd);
        errno = error;
        return -1;
    }
    close(fd);
    errno = ETIMEDOUT;
    return -1;
}

/* ---------- TCP relay ---------- */

struct direction {
    int from, to;
    char *buffer;
    size_t length, offset;
    bool eof, shut;
};

/* Copies bytes both ways until both sides have closed. Half-close is passed on: when one side
 * shuts down its writing half, the other side's writing half is shut down once the buffered bytes
 * are delivered, and the reverse direction keeps flowing. */
static void relay(int client, int upstream, const char *initial, size_t initial_length) {
    char *memory = malloc(2 * RELAY_BUFFER_SIZE);
    if (!memory) return;
    struct direction directions[2] = {
        { .from = client, .to = upstream, .buffer = memory },
        { .from = upstream, .to = client, .buffer = memory + RELAY_BUFFER_SIZE },
    };
    if (initial_length > 0) {
        memcpy(directions[0].buffer, initial, initial_length);
        directions[0].length = initial_length;
    }
    bool hung_up[2] = { false, false }; /* index 0: client, 1: upstream */
    for (;;) {
        bool progress = true;
        while (progress) {
            progress = false;
            for (int d = 0; d < 2; d++) {
                struct direction *direction = &directions[d];
                if (direction->offset < direction->length) {
                    ssize_t written = send(direction->to, direction->buffer + direction->offset, direction->length - direction->offset, MSG_NOSIGNAL);
                    if (written > 0) {
                        direction->offset += (size_t)written;
                        if (direction->offset == direction->length) direction->offset = direction->length = 0;
                        progress = true;
                    } else if (written < 0 && errno != EAGAIN && errno != EINTR) {
                        goto done;
                    }
                }
                if (direction->eof && direction->length == 0 && !direction->shut) {
                    shutdown(direction->to, SHUT_WR);
                    direction->shut = true;
                }
            }
        }
        if (directions[0].shut && directions[1].shut) break;
        struct pollfd fds[2] = { { .fd = client }, { .fd = upstream } };
        for (int d = 0; d < 2; d++) {
            struct direction *direction = &directions[d];
            if (!direction->eof && direction->length == 0) fds[d].events |= POLLIN;
            if (direction->length > direction->offset) fds[1 - d].events |= POLLOUT;
        }
        /* POLLHUP is always reported; a socket we want nothing from would make poll spin. */
        for (int side = 0; side < 2; side++)
            if (fds[side].events == 0 && hung_up[side]) fds[side].fd = -1;
        int ready = poll(fds, 2, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int side = 0; side < 2; side++) {
            if (fds[side].revents & POLLERR) goto done;
            if (fds[side].revents & POLLHUP) hung_up[side] = true;
        }
        for (int d = 0; d < 2; d++) {
            struct direction *direction = &directions[d];
            if (direction->eof || direction->length != 0) continue;
            if (!(fds[d].revents & (POLLIN | POLLHUP))) continue;
            ssize_t got = recv(direction->from, direction->buffer, RELAY_BUFFER_SIZE, 0);
            if (got > 0) direction->length = (size_t)got;
            else if (got == 0) direction->eof = true;
            else if (errno != EAGAIN && errno != EINTR) goto done;
        }
    }
done:
    free(memory);
}

static void *connection_thread(void *argument) {
    struct connection_job *job = argument;
    int upstream = -1;
    for (int index = 0; index < job->candidate_count && upstream < 0; index++) {
        upstream = connect_backend(&job->candidates[index], SOCK_STREAM, CONNECT_TIMEOUT_MS);
        if (upstream < 0) {
            int error = errno;
            char text[160];
            backend_text(&job->candidates[index], text, sizeof text);
            log_line("connect to %s failed: %s", text, strerror(error));
        } else if (index > 0 && job->service) {
            /* The sticky or round-robin choice failed; keep this client on the one that worked. */
            pthread_mutex_lock(&state_lock);
            if (job->service->affinity_seconds > 0)
                remember_affinity(job->service, job->client_address, &job->candidates[index], monotonic_seconds());
            pthread_mutex_unlock(&state_lock);
        }
    }
    if (upstream < 0) {
        close_with_reset(job->client);
    } else {
        set_nodelay(upstream);
        relay(job->client, upstream, NULL, 0);
        close(upstream);
        close(job->client);
    }
    if (job->service) service_release(job->service);
    free(job->candidates);
    free(job);
    return NULL;
}

/* Reads `CONNECT <ip>:<port> <token>\n`; answers OK and relays, or ERR and closes. */
static void *tunnel_thread(void *argument) {
    struct connection_job *job = argument;
    char line[TUNNEL_LINE_MAX + 1];
    size_t length = 0;
    char *newline = NULL;
    int64_t deadline = monotonic_ms() + TUNNEL_HEADER_TIMEOUT_MS;
    const char *error = NULL;
    while (!newline) {
        if (length == TUNNEL_LINE_MAX) {
            error = "request line too long";
            break;
        }
        int64_t left = deadline - monotonic_ms();
        struct pollfd waiting = { .fd = job->client, .events = POLLIN };
        if (left <= 0 || poll(&waiting, 1, (int)left) <= 0) {
            error = "timeout reading the request line";
            break;
        }
        ssize_t got = recv(job->client, line + length, TUNNEL_LINE_MAX - length, 0);
        if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (got <= 0) {
            close(job->client);
            free(job);
            return NULL;
        }
        length += (size_t)got;
        line[length] = '\0';
        newline = memchr(line, '\n', length);
    }
    int upstream = -1;
    if (!error) {
        *newline = '\0';
        if (newline > line && newline[-1] == '\r') newline[-1] = '\0';
        char *saved = NULL;
        char *verb = strtok_r(line, " ", &saved);
        char *target = strtok_r(NULL, " ", &saved);
        char *token = strtok_r(NULL, " ", &saved);
        struct backend backend;
        size_t expected = strlen(job->token);
        if (!verb || strcmp(verb, "CONNECT") != 0 || !target || !token || strtok_r(NULL, " ", &saved)) {
            error = "expected: CONNECT <ip>:<port> <token>";
        } else {
            /* Compare in constant time so the token cannot be guessed byte by byte. */
            size_t given = strlen(token);
            unsigned char difference = (unsigned char)(given != expected || expected == 0);
            for (size_t index = 0; index < given; index++)
                difference |= (unsigned char)(token[index] ^ (index < expected ? job->token[index] : 0));
            if (difference != 0) error = "bad token";
            else if (!parse_backend(target, &backend) || backend.kind != BACKEND_INET) error = "bad target (expected ip:port)";
            else if ((upstream = connect_backend(&backend, SOCK_STREAM, TUNNEL_CONNECT_TIMEOUT_MS)) < 0)
                error = errno == ETIMEDOUT ? "connect: i/o timeout" : strerror(errno);
        }
    }
    if (error) {
        char answer[TUNNEL_LINE_MAX];
        int size = snprintf(answer, sizeof answer, "ERR %s\n", error);
        send(job->client, answer, (size_t)size, MSG_NOSIGNAL);
        close(job->client);
    } else {
        set_nodelay(upstream);
        size_t consumed = (size_t)(newline + 1 - line);
        char *rest = newline + 1;
        /* Bytes the client sent right after the request line belong to the target. */
        char pending[TUNNEL_LINE_MAX];
        size_t pending_length = length - consumed;
        memcpy(pending, rest, pending_length);
        if (send(job->client, "OK\n", 3, MSG_NOSIGNAL) == 3) relay(job->client, upstream, pending, pending_length);
        close(upstream);
        close(job->client);
    }
    free(job);
    return NULL;
}

static void start_thread(void *(*function)(void *), void *argument) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, THREAD_STACK_SIZE);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    int error = pthread_create(&thread, &attributes, function, argument);
    pthread_attr_destroy(&attributes);
    if (error != 0) {
        struct connection_job *job = argument;
        log_line("cannot start a connection thread: %s", strerror(error));
        close_with_reset(job->client);
        if (job->service) service_release(job->service);
        free(job->candidates);
        free(job);
    }
}

static void accept_tcp(struct service *service) {
    for (;;) {
        struct sockaddr_in peer;
        socklen_t size = sizeof peer;
        int client = accept4(service->fd, (struct sockaddr *)&peer, &size, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (client < 0) {
            if (errno == EMFILE || errno == ENFILE) log_line("accept: %s", strerror(errno));
            return;
        }
        set_nodelay(client);
        struct connection_job *job = calloc(1, sizeof *job);
        if (!job) {
            close(client);
            continue;
        }
        job->client = client;
        job->client_address = peer.sin_addr.s_addr;
        job->candidates = choose_backends(service, peer.sin_addr.s_addr, &job->candidate_count);
        if (job->candidate_count == 0) {
            close_with_reset(client);
            free(job);
            continue;
        }
        pthread_mutex_lock(&state_lock);
        service->references++;
        pthread_mutex_unlock(&state_lock);
        job->service = service;
        start_thread(connection_thread, job);
    }
}

static void accept_tunnel(void) {
    for (;;) {
        int client = accept4(tunnel_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (client < 0) return;
        set_nodelay(client);
        struct connection_job *job = calloc(1, sizeof *job);
        if (!job) {
            close(client);
            continue;
        }
        job->client = client;
        memcpy(job->token, tunnel_token, sizeof job->token);
        start_thread(tunnel_thread, job);
    }
}

/* ---------- UDP ---------- */

static void close_session(struct udp_session *session) {
    close(session->fd);
    free(session->frame);
    free(session);
    udp_session_count--;
}

static void close_sessions_where(struct service *service, bool (*doomed)(struct service *, struct udp_session *, time_t), time_t now) {
    struct udp_session **link = &service->sessions;
    while (*link) {
        struct udp_session *session = *link;
        if (doomed(service, session, now)) {
            *link = session->next;
            close_session(session);
        } else {
            link = &session->next;
        }
    }
}

static bool session_always(struct service *service, struct udp_session *session, time_t now) {
    (void)service, (void)session, (void)now;
    return true;
}

static bool session_idle(struct service *service, struct udp_session *session, time_t now) {
    (void)service;
    return now - session->last_active >= UDP_SESSION_IDLE_SECONDS;
}

static bool session_backend_gone(struct service *service, struct udp_session *session, time_t now) {
    (void)now;
    return !backend_present(service, &session->backend);
}

static struct udp_session *open_session(struct service *service, const struct sockaddr_in *client) {
    if (udp_session_count >= UDP_MAX_SESSIONS) return NULL;
    int count;
    struct backend *candidates = choose_backends(service, client->sin_addr.s_addr, &count);
    struct udp_session *session = NULL;
    for (int index = 0; index < count && !session; index++) {
        int type = candidates[index].kind == BACKEND_UNIX ? SOCK_STREAM : SOCK_DGRAM;
        int fd = connect_backend(&candidates[index], type, CONNECT_TIMEOUT_MS);
        if (fd < 0) continue;
        session = calloc(1, sizeof *session);
        if (!session) {
            close(fd);
            break;
        }
        session->client = *client;
        session->fd = fd;
        session->backend = candidates[index];
        session->last_active = monotonic_seconds();
        session->next = service->sessions;
        service->sessions = session;
        udp_session_count++;
    }
    free(candidates);
    return session;
}

/* Returns false when the session's upstream is broken and the session should go. */
static bool send_to_backend(struct udp_session *session, const unsigned char *data, size_t length) {
    if (session->backend.kind == BACKEND_INET) {
        /* ECONNREFUSED reports ICMP port-unreachable for an earlier datagram: the backend is gone. */
        return send(session->fd, data, length, MSG_NOSIGNAL) >= 0 || errno != ECONNREFUSED;
    }
    static unsigned char framed[UDP_DATAGRAM_MAX + 2];
    framed[0] = (unsigned char)(length >> 8);
    framed[1] = (unsigned char)length;
    memcpy(framed + 2, data, length);
    ssize_t sent = send(session->fd, framed, length + 2, MSG_NOSIGNAL);
    /* A stream that cannot take the frame now drops the datagram, as a full UDP queue would; a
     * partly written frame would garble the stream, so that session ends. */
    if (sent < 0) return errno == EAGAIN || errno == EINTR;
    return (size_t)sent == length + 2;
}

static void receive_udp(struct service *service) {
    static unsigned char datagram[UDP_DATAGRAM_MAX];
    for (;;) {
        struct sockaddr_in client;
        socklen_t size = sizeof client;
        ssize_t got = recvfrom(service->fd, datagram, sizeof datagram, 0, (struct sockaddr *)&client, &size);
        if (got < 0) return;
        struct udp_session *session = service->sessions;
        while (session && !(session->client.sin_addr.s_addr == client.sin_addr.s_addr && session->client.sin_port == client.sin_port))
            session = session->next;
        if (!session) session = open_session(service, &client);
        if (!session) continue;
        session->last_active = monotonic_seconds();
        if (!send_to_backend(session, datagram, (size_t)got)) {
            struct udp_session **link = &service->sessions;
            while (*link != session) link = &(*link)->next;
            *link = session->next;
            close_session(session);
        }
    }
}

/* Reads replies from a session's backend and sends them to the client from the vip socket.
 * Returns false when the session is finished. */
static bool read_session(struct service *service, struct udp_session *session) {
    static unsigned char buffer[UDP_DATAGRAM_MAX + 2];
    for (;;) {
        ssize_t got = recv(session->fd, buffer, sizeof buffer, 0);
        if (got < 0) return errno == EAGAIN || errno == EINTR;
        if (session->backend.kind == BACKEND_INET) {
            session->last_active = monotonic_seconds();
            sendto(service->fd, buffer, (size_t)got, 0, (struct sockaddr *)&session->client, sizeof session->client);
            continue;
        }
        if (got == 0) return false;
        session->last_active = monotonic_seconds();
        if (session->frame_length + (size_t)got > session->frame_capacity) {
            size_t capacity = session->frame_length + (size_t)got;
            unsigned char *grown = realloc(session->frame, capacity);
            if (!grown) return false;
            session->frame = grown;
            session->frame_capacity = capacity;
        }
        memcpy(session->frame + session->frame_length, buffer, (size_t)got);
        session->frame_length += (size_t)got;
        size_t offset = 0;
        while (session->frame_length - offset >= 2) {
            size_t length = ((size_t)session->frame[offset] << 8) | session->frame[offset + 1];
            if (session->frame_length - offset - 2 < length) break;
            sendto(service->fd, session->frame + offset + 2, length, 0, (struct sockaddr *)&session->client, sizeof session->client);
            offset += 2 + length;
        }
        memmove(session->frame, session->frame + offset, session->frame_length - offset);
        session->frame_length -= offset;
        if (session->frame_length == 0 && session->frame_capacity > 4096) {
            free(session->frame);
            session->frame = NULL;
            session->frame_capacity = 0;
        }
    }
}

/* ---------- listeners and reload ---------- */

static int open_listener(uint32_t address, uint16_t port, enum protocol protocol) {
    int fd = socket(AF_INET, (protocol == PROTO_TCP ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    /* Binding must not depend on the range route being in place yet (e.g. a range added by the
     * same reload that failed). */
    setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof one);
    struct sockaddr_in local = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = address };
    if (bind(fd, (struct sockaddr *)&local, sizeof local) < 0 || (protocol == PROTO_TCP && listen(fd, SOMAXCONN) < 0)) {
        int error = errno;
        close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

static void close_service(struct service *service) {
    close_sessions_where(service, session_always, 0);
    close(service->fd);
    service->fd = -1;
    service_release(service);
}

static void apply_config(struct config *config, bool starting) {
    struct service **link = &services;
    bool *used = calloc((size_t)config->service_count + 1, sizeof *used);
    if (!used) return;
    while (*link) {
        struct service *service = *link;
        struct service_spec *match = NULL;
        for (int index = 0; index < config->service_count && !match; index++) {
            struct service_spec *spec = &config->services[index];
            if (spec->vip == service->vip && spec->port == service->port && spec->protocol == service->protocol && spec->backend_count > 0) {
                match = spec;
                used[index] = true;
            }
        }
        if (!match) {
            *link = service->next;
            close_service(service);
            continue;
        }
        pthread_mutex_lock(&state_lock);
        free(service->backends);
        free_client_lists(service->allowed, service->backend_count);
        service->backends = match->backends;
        service->backend_count = match->backend_count;
        service->restricted = match->restricted;
        service->allowed = match->allowed;
        match->backends = NULL;
        match->allowed = NULL;
        match->backend_count = 0;
        if (service->affinity_seconds != match->affinity_seconds) service->affinity_count = 0;
        service->affinity_seconds = match->affinity_seconds;
        pthread_mutex_unlock(&state_lock);
        close_sessions_where(service, session_backend_gone, 0);
        link = &service->next;
    }
    for (int index = 0; index < config->service_count; index++) {
        struct service_spec *spec = &config->services[index];
        if (used[index] || spec->backend_count == 0) continue;
        int fd = open_listener(spec->vip, spec->port, spec->protocol);
        if (fd < 0) {
            char address[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &spec->vip, address, sizeof address);
            log_line("cannot listen on %s:%u/%s: %s", address, spec->port, spec->protocol == PROTO_TCP ? "tcp" : "udp", strerror(errno));
            continue;
        }
        struct service *service = calloc(1, sizeof *service);
        if (!service) {
            close(fd);
            continue;
        }
        service->vip = spec->vip;
        service->port = spec->port;
        service->protocol = spec->protocol;
        service->fd = fd;
        service->references = 1;
        service->affinity_seconds = spec->affinity_seconds;
        service->backends = spec->backends;
        service->backend_count = spec->backend_count;
        service->restricted = spec->restricted;
        service->allowed = spec->allowed;
        spec->backends = NULL;
        spec->allowed = NULL;
        spec->backend_count = 0;
        service->next = services;
        services = service;
    }
    free(used);

    pthread_mutex_lock(&state_lock);
    memcpy(tunnel_token, config->token, sizeof tunnel_token);
    pthread_mutex_unlock(&state_lock);
    if (config->tunnel_port != tunnel_port || (tunnel_port != 0 && tunnel_fd < 0)) {
        if (tunnel_fd >= 0) close(tunnel_fd);
        tunnel_fd = -1;
        tunnel_port = config->tunnel_port;
        if (tunnel_port != 0) {
            tunnel_fd = open_listener(htonl(INADDR_ANY), (uint16_t)tunnel_port, PROTO_TCP);
            if (tunnel_fd < 0) log_line("cannot listen on the tunnel port %d: %s", tunnel_port, strerror(errno));
        }
    }
    int listeners = 0, backends = 0, tcp = 0, udp = 0, restricted = 0;
    for (struct service *service = services; service; service = service->next) {
        listeners++;
        backends += service->backend_count;
        restricted += service->restricted;
        if (service->protocol == PROTO_TCP) tcp++;
        else udp++;
    }
    log_line("%s %s: %d services (%d tcp, %d udp, %d restricted by NetworkPolicy), %d backends, %d ranges, tunnel %s", starting ? "loaded" : "reloaded", config_path,
             listeners, tcp, udp, restricted, backends, active_range_count, tunnel_fd >= 0 ? "on" : "off");
}

/* ---------- kd-netd's own packet filter (restricted services) ---------- */

static struct pf_table applied_filter;
static bool filter_installed;
static char filter_error[256];

static bool tables_equal(const struct pf_table *a, const struct pf_table *b) {
    if (a->count != b->count || memcmp(a->policy, b->policy, sizeof a->policy) != 0) return false;
    return a->count == 0 || memcmp(a->rules, b->rules, a->count * sizeof *a->rules) == 0;
}

/* For every restricted service: accept new connections from the clients some backend may serve,
 * drop the rest; established flows pass first. Unrestricted services are not mentioned, and with
 * no restricted service at all the table stays (or becomes again) empty. */
static void apply_service_filter(void) {
    struct pf_table table;
    pf_table_init(&table);
    bool restricted = false;
    for (struct service *service = services; service; service = service->next) {
        if (!service->restricted) continue;
        struct pf_rule rule;
        if (!restricted) {
            memset(&rule, 0, sizeof rule);
            rule.chain = PF_INPUT;
            rule.verdict = PF_ACCEPT;
            rule.state_mask = PF_STATE_ESTABLISHED | PF_STATE_RELATED;
            pf_table_add(&table, &rule);
            restricted = true;
        }
        int total = 0;
        for (int index = 0; index < service->backend_count; index++) total += service->allowed[index].count;
        uint32_t *clients = total > 0 ? malloc((size_t)total * sizeof *clients) : NULL;
        int count = 0;
        for (int index = 0; clients && index < service->backend_count; index++) {
            memcpy(clients + count, service->allowed[index].clients, (size_t)service->allowed[index].count * sizeof *clients);
            count += service->allowed[index].count;
        }
        if (count > 1) qsort(clients, (size_t)count, sizeof *clients, compare_addresses);
        memset(&rule, 0, sizeof rule);
        rule.chain = PF_INPUT;
        rule.destination = service->vip;
        rule.destination_mask = 0xffffffffu;
        rule.protocol = service->protocol == PROTO_TCP ? IPPROTO_TCP : IPPROTO_UDP;
        rule.has_ports = true;
        rule.port_low = rule.port_high = service->port;
        for (int index = 0; index < count; index++) {
            if (index > 0 && clients[index] == clients[index - 1]) continue;
            rule.verdict = PF_ACCEPT;
            rule.source = clients[index];
            rule.source_mask = 0xffffffffu;
            pf_table_add(&table, &rule);
        }
        free(clients);
        rule.verdict = PF_DROP;
        rule.source = rule.source_mask = 0;
        pf_table_add(&table, &rule);
    }
    if ((!restricted && !filter_installed) || (filter_installed && tables_equal(&table, &applied_filter))) {
        pf_table_free(&table);
        return;
    }
    char error[sizeof filter_error];
    if (pf_apply(&table, error, sizeof error) != 0) {
        /* Userspace still picks only allowed backends; denied TCP clients are then reset, not dropped. */
        if (strcmp(error, filter_error) != 0) log_line("packet filter not applied: %s", error);
        strcpy(filter_error, error);
        pf_table_free(&table);
        return;
    }
    filter_error[0] = '\0';
    pf_table_free(&applied_filter);
    applied_filter = table;
    filter_installed = true;
    log_line("packet filter: %zu rules", table.count);
}

static struct stat loaded_stat;

static bool file_changed(void) {
    struct stat now;
    if (stat(config_path, &now) != 0) return false;
    return now.st_mtim.tv_sec != loaded_stat.st_mtim.tv_sec || now.st_mtim.tv_nsec != loaded_stat.st_mtim.tv_nsec ||
           now.st_ino != loaded_stat.st_ino || now.st_size != loaded_stat.st_size;
}

static bool reload(bool starting) {
    /* Stat before reading: a write that lands while we read changes the mtime again. */
    struct stat before;
    if (stat(config_path, &before) != 0) {
        log_line("cannot stat %s: %s", config_path, strerror(errno));
        return false;
    }
    struct config config;
    if (!read_config(config_path, &config)) return false;
    loaded_stat = before;
    if (!apply_ranges(&config, starting) && starting) {
        free_config(&config);
        return false;
    }
    apply_config(&config, starting);
    free_config(&config);
    apply_service_filter();
    return true;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: kd-netd <config path>\n");
        return 2;
    }
    config_path = argv[1];
    setvbuf(stderr, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    /* Block the signals before any thread exists so that only the signalfd sees them. */
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGINT);
    sigprocmask(SIG_BLOCK, &handled, NULL);
    int signals = signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
    if (signals < 0) {
        log_line("signalfd: %s", strerror(errno));
        return 1;
    }
    if (!reload(true)) {
        log_line("start-up failed");
        return 1;
    }

    struct pollfd *fds = NULL;
    struct service **owners = NULL;
    struct udp_session **owned_sessions = NULL;
    size_t capacity = 0;
    int64_t last_tick = monotonic_ms();
    for (;;) {
        size_t needed = 2;
        for (struct service *service = services; service; service = service->next) {
            needed++;
            for (struct udp_session *session = service->sessions; session; session = session->next) needed++;
        }
        if (needed > capacity) {
            capacity = needed * 2;
            fds = realloc(fds, capacity * sizeof *fds);
            owners = realloc(owners, capacity * sizeof *owners);
            owned_sessions = realloc(owned_sessions, capacity * sizeof *owned_sessions);
            if (!fds || !owners || !owned_sessions) {
                log_line("out of memory");
                return 1;
            }
        }
        size_t count = 0;
        fds[count] = (struct pollfd){ .fd = signals, .events = POLLIN };
        owners[count] = NULL, owned_sessions[count++] = NULL;
        fds[count] = (struct pollfd){ .fd = tunnel_fd, .events = POLLIN };
        owners[count] = NULL, owned_sessions[count++] = NULL;
        for (struct service *service = services; service; service = service->next) {
            fds[count] = (struct pollfd){ .fd = service->fd, .events = POLLIN };
            owners[count] = service, owned_sessions[count++] = NULL;
            for (struct udp_session *session = service->sessions; session; session = session->next) {
                fds[count] = (struct pollfd){ .fd = session->fd, .events = POLLIN };
                owners[count] = service, owned_sessions[count++] = session;
            }
        }
        int64_t wait = 1000 - (monotonic_ms() - last_tick);
        int ready = poll(fds, (nfds_t)count, wait < 0 ? 0 : (int)wait);
        if (ready < 0 && errno != EINTR) {
            log_line("poll: %s", strerror(errno));
            return 1;
        }
        bool reload_wanted = false;
        if (ready > 0) {
            if (fds[0].revents & POLLIN) {
                struct signalfd_siginfo information;
                while (read(signals, &information, sizeof information) == (ssize_t)sizeof information) {
                    if (information.ssi_signo == SIGTERM || information.ssi_signo == SIGINT) {
                        log_line("exiting on signal %u", information.ssi_signo);
                        return 0;
                    }
                    if (information.ssi_signo == SIGHUP) reload_wanted = true;
                }
            }
            if (fds[1].fd >= 0 && (fds[1].revents & POLLIN)) accept_tunnel();
            /* Sessions first: closing one must not leave a stale pointer for a later slot. */
            for (size_t index = 2; index < count; index++) {
                struct udp_session *session = owned_sessions[index];
                if (!session || !fds[index].revents) continue;
                if (!read_session(owners[index], session)) {
                    struct udp_session **link = &owners[index]->sessions;
                    while (*link && *link != session) link = &(*link)->next;
                    if (*link) *link = session->next;
                    close_session(session);
                }
            }
            for (size_t index = 2; index < count; index++) {
                if (owned_sessions[index] || !(fds[index].revents & POLLIN)) continue;
                struct service *service = owners[index];
                if (service->protocol == PROTO_TCP) accept_tcp(service);
                else receive_udp(service);
            }
        }
        int64_t now_ms = monotonic_ms();
        if (now_ms - last_tick >= 1000) {
            last_tick = now_ms;
            time_t now = monotonic_seconds();
            for (struct service *service = services; service; service = service->next) {
                close_sessions_where(service, session_idle, now);
                expire_affinity(service, now);
            }
            if (file_changed()) reload_wanted = true;
        }
        if (reload_wanted) reload(false);
    }
}
