/*
 * packetFilter: see packetFilter.h. The encoding follows the kernel's x_tables ABI
 * (include/uapi/linux/netfilter_ipv4/ip_tables.h): a blob of ipt_entry records, each with its
 * matches and one target, the built-in chains in hook order, each chain ending in its policy (an
 * unconditional standard target, the chain's "underflow"), and an ERROR entry closing the table.
 * This is the layout iptables-legacy's libiptc writes for `iptables-restore`.
 */
#define _GNU_SOURCE
#include "packetFilter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_sctp.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef IPPROTO_SCTP
#define IPPROTO_SCTP 132
#endif

static const char *const chain_names[PF_CHAIN_COUNT] = { "INPUT", "FORWARD", "OUTPUT" };
static const unsigned chain_hooks[PF_CHAIN_COUNT] = { NF_INET_LOCAL_IN, NF_INET_FORWARD, NF_INET_LOCAL_OUT };
#define FILTER_VALID_HOOKS ((1u << NF_INET_LOCAL_IN) | (1u << NF_INET_FORWARD) | (1u << NF_INET_LOCAL_OUT))

/* Standard target verdicts as the kernel stores them: -NF_<verdict> - 1. */
#define VERDICT_ACCEPT (-NF_ACCEPT - 1)
#define VERDICT_DROP (-NF_DROP - 1)

#define MATCH_SIZE(type) (XT_ALIGN(sizeof(struct xt_entry_match)) + XT_ALIGN(sizeof(type)))
#define STANDARD_TARGET_SIZE XT_ALIGN(sizeof(struct xt_standard_target))
#define ERROR_TARGET_SIZE XT_ALIGN(sizeof(struct xt_error_target))
#define ENTRY_SIZE XT_ALIGN(sizeof(struct ipt_entry))

void pf_table_init(struct pf_table *table) {
    memset(table, 0, sizeof *table);
    for (int chain = 0; chain < PF_CHAIN_COUNT; chain++) table->policy[chain] = PF_ACCEPT;
}

void pf_table_free(struct pf_table *table) {
    free(table->rules);
    table->rules = NULL;
    table->count = table->capacity = 0;
}

bool pf_table_add(struct pf_table *table, const struct pf_rule *rule) {
    if (table->count == table->capacity) {
        size_t capacity = table->capacity ? table->capacity * 2 : 16;
        struct pf_rule *grown = realloc(table->rules, capacity * sizeof *grown);
        if (!grown) return false;
        table->rules = grown;
        table->capacity = capacity;
    }
    table->rules[table->count++] = *rule;
    return true;
}

bool pf_table_is_open(const struct pf_table *table) {
    for (int chain = 0; chain < PF_CHAIN_COUNT; chain++)
        if (table->policy[chain] != PF_ACCEPT) return false;
    for (size_t index = 0; index < table->count; index++)
        if (table->rules[index].verdict != PF_ACCEPT) return false;
    return true;
}

/* ---------- rule text ---------- */

static bool parse_chain(const char *text, enum pf_chain *chain) {
    static const char *const words[PF_CHAIN_COUNT] = { "input", "forward", "output" };
    for (int index = 0; index < PF_CHAIN_COUNT; index++) {
        if (strcmp(text, words[index]) != 0) continue;
        *chain = (enum pf_chain)index;
        return true;
    }
    return false;
}

static bool parse_verdict(const char *text, enum pf_verdict *verdict) {
    if (strcmp(text, "accept") == 0) *verdict = PF_ACCEPT;
    else if (strcmp(text, "drop") == 0) *verdict = PF_DROP;
    else return false;
    return true;
}

static bool parse_number(const char *text, long low, long high, long *value) {
    char *end;
    errno = 0;
    long parsed = strtol(text, &end, 10);
    if (errno != 0 || *text == '\0' || *end != '\0' || parsed < low || parsed > high) return false;
    *value = parsed;
    return true;
}

static bool parse_prefix(const char *text, uint32_t *address, uint32_t *mask) {
    char copy[32];
    if (strlen(text) >= sizeof copy) return false;
    strcpy(copy, text);
    long prefix = 32;
    char *slash = strchr(copy, '/');
    if (slash) {
        *slash = '\0';
        if (!parse_number(slash + 1, 0, 32, &prefix)) return false;
    }
    struct in_addr parsed;
    if (inet_pton(AF_INET, copy, &parsed) != 1) return false;
    *mask = prefix == 0 ? 0 : htonl(0xffffffffu << (32 - prefix));
    *address = parsed.s_addr & *mask;
    return true;
}

static bool parse_ports(const char *text, uint16_t *low, uint16_t *high) {
    char copy[16];
    if (strlen(text) >= sizeof copy) return false;
    strcpy(copy, text);
    char *dash = strpbrk(copy, "-:");
    long first, last;
    if (dash) *dash = '\0';
    if (!parse_number(copy, 0, 65535, &first)) return false;
    if (dash ? !parse_number(dash + 1, 0, 65535, &last) : (last = first, false)) return false;
    if (last < first) return false;
    *low = (uint16_t)first;
    *high = (uint16_t)last;
    return true;
}

static bool parse_states(const char *text, unsigned *mask) {
    char copy[64];
    if (strlen(text) >= sizeof copy) return false;
    strcpy(copy, text);
    *mask = 0;
    for (char *saved = NULL, *word = strtok_r(copy, ",", &saved); word; word = strtok_r(NULL, ",", &saved)) {
        if (strcmp(word, "new") == 0) *mask |= PF_STATE_NEW;
        else if (strcmp(word, "established") == 0) *mask |= PF_STATE_ESTABLISHED;
        else if (strcmp(word, "related") == 0) *mask |= PF_STATE_RELATED;
        else if (strcmp(word, "invalid") == 0) *mask |= PF_STATE_INVALID;
        else return false;
    }
    return *mask != 0;
}

const char *pf_parse(const char *text, struct pf_table *table) {
    char copy[512];
    if (strlen(text) >= sizeof copy) return "rule too long";
    strcpy(copy, text);
    char *words[24];
    int count = 0;
    for (char *saved = NULL, *word = strtok_r(copy, " \t\r\n", &saved); word; word = strtok_r(NULL, " \t\r\n", &saved)) {
        if (count == (int)(sizeof words / sizeof words[0])) return "too many words";
        words[count++] = word;
    }
    if (count == 0) return NULL;
    if (strcmp(words[0], "policy") == 0) {
        enum pf_chain chain;
        enum pf_verdict verdict;
        if (count != 3 || !parse_chain(words[1], &chain) || !parse_verdict(words[2], &verdict))
            return "expected: policy <input|forward|output> <accept|drop>";
        table->policy[chain] = verdict;
        return NULL;
    }
    struct pf_rule rule;
    memset(&rule, 0, sizeof rule);
    if (!parse_verdict(words[0], &rule.verdict)) return "a rule starts with accept, drop or policy";
    if (count < 2 || !parse_chain(words[1], &rule.chain)) return "expected a chain: input, forward or output";
    for (int index = 2; index < count; index += 2) {
        const char *key = words[index];
        const char *value = index + 1 < count ? words[index + 1] : NULL;
        if (!value) return "an option lacks its value";
        if (strcmp(key, "src") == 0) {
            if (!parse_prefix(value, &rule.source, &rule.source_mask)) return "bad src (expected a.b.c.d[/n])";
        } else if (strcmp(key, "dst") == 0) {
            if (!parse_prefix(value, &rule.destination, &rule.destination_mask)) return "bad dst (expected a.b.c.d[/n])";
        } else if (strcmp(key, "in") == 0) {
            if (rule.chain == PF_OUTPUT) return "`in` is not available in the output chain";
            if (strlen(value) >= IFNAMSIZ) return "interface name too long";
            strcpy(rule.in_interface, value);
        } else if (strcmp(key, "out") == 0) {
            if (rule.chain == PF_INPUT) return "`out` is not available in the input chain";
            if (strlen(value) >= IFNAMSIZ) return "interface name too long";
            strcpy(rule.out_interface, value);
        } else if (strcmp(key, "proto") == 0) {
            if (strcmp(value, "tcp") == 0) rule.protocol = IPPROTO_TCP;
            else if (strcmp(value, "udp") == 0) rule.protocol = IPPROTO_UDP;
            else if (strcmp(value, "sctp") == 0) rule.protocol = IPPROTO_SCTP;
            else if (strcmp(value, "all") == 0) rule.protocol = 0;
            else return "proto must be tcp, udp, sctp or all";
        } else if (strcmp(key, "dport") == 0) {
            if (!parse_ports(value, &rule.port_low, &rule.port_high)) return "bad dport (expected PORT or LOW-HIGH)";
            rule.has_ports = true;
        } else if (strcmp(key, "state") == 0) {
            if (!parse_states(value, &rule.state_mask)) return "bad state (new, established, related, invalid, comma separated)";
        } else {
            return "unknown option (src, dst, in, out, proto, dport, state)";
        }
    }
    if (rule.has_ports && rule.protocol == 0) return "dport needs proto tcp, udp or sctp";
    if (!pf_table_add(table, &rule)) return "out of memory";
    return NULL;
}

/* ---------- encoding ---------- */

static size_t rule_size(const struct pf_rule *rule) {
    size_t size = ENTRY_SIZE + STANDARD_TARGET_SIZE;
    if (rule && rule->state_mask) size += MATCH_SIZE(struct xt_conntrack_mtinfo3);
    if (rule && rule->has_ports) {
        if (rule->protocol == IPPROTO_TCP) size += MATCH_SIZE(struct xt_tcp);
        else if (rule->protocol == IPPROTO_UDP) size += MATCH_SIZE(struct xt_udp);
        else size += MATCH_SIZE(struct xt_sctp_info);
    }
    return size;
}

static unsigned char *add_match(unsigned char *at, const char *name, uint8_t revision, const void *data, size_t data_size) {
    struct xt_entry_match *match = (struct xt_entry_match *)at;
    size_t size = XT_ALIGN(sizeof(struct xt_entry_match)) + XT_ALIGN(data_size);
    match->u.user.match_size = (uint16_t)size;
    strncpy(match->u.user.name, name, sizeof match->u.user.name - 1);
    match->u.user.revision = revision;
    memcpy(at + XT_ALIGN(sizeof(struct xt_entry_match)), data, data_size);
    return at + size;
}

/* Writes one entry: `rule`, or a chain's policy when rule is NULL. Returns the next position. */
static unsigned char *write_entry(unsigned char *at, const struct pf_rule *rule, enum pf_verdict verdict) {
    struct ipt_entry *entry = (struct ipt_entry *)at;
    unsigned char *position = at + ENTRY_SIZE;
    if (rule) {
        entry->ip.src.s_addr = rule->source;
        entry->ip.smsk.s_addr = rule->source_mask;
        entry->ip.dst.s_addr = rule->destination;
        entry->ip.dmsk.s_addr = rule->destination_mask;
        if (rule->in_interface[0]) {
            strcpy(entry->ip.iniface, rule->in_interface);
            memset(entry->ip.iniface_mask, 0xff, strlen(rule->in_interface) + 1);
        }
        if (rule->out_interface[0]) {
            strcpy(entry->ip.outiface, rule->out_interface);
            memset(entry->ip.outiface_mask, 0xff, strlen(rule->out_interface) + 1);
        }
        entry->ip.proto = rule->protocol;
        if (rule->state_mask) {
            /* `-m conntrack --ctstate`, revision 3, as kube-proxy and current iptables write it */
            struct xt_conntrack_mtinfo3 conntrack;
            memset(&conntrack, 0, sizeof conntrack);
            conntrack.match_flags = XT_CONNTRACK_STATE;
            if (rule->state_mask & PF_STATE_INVALID) conntrack.state_mask |= XT_CONNTRACK_STATE_INVALID;
            if (rule->state_mask & PF_STATE_ESTABLISHED) conntrack.state_mask |= XT_CONNTRACK_STATE_BIT(IP_CT_ESTABLISHED);
            if (rule->state_mask & PF_STATE_RELATED) conntrack.state_mask |= XT_CONNTRACK_STATE_BIT(IP_CT_RELATED);
            if (rule->state_mask & PF_STATE_NEW) conntrack.state_mask |= XT_CONNTRACK_STATE_BIT(IP_CT_NEW);
            position = add_match(position, "conntrack", 3, &conntrack, sizeof conntrack);
        }
        if (rule->has_ports && rule->protocol == IPPROTO_TCP) {
            struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { rule->port_low, rule->port_high } };
            position = add_match(position, "tcp", 0, &tcp, sizeof tcp);
        } else if (rule->has_ports && rule->protocol == IPPROTO_UDP) {
            struct xt_udp udp = { .spts = { 0, 0xffff }, .dpts = { rule->port_low, rule->port_high } };
            position = add_match(position, "udp", 0, &udp, sizeof udp);
        } else if (rule->has_ports) {
            struct xt_sctp_info sctp;
            memset(&sctp, 0, sizeof sctp);
            sctp.dpts[0] = rule->port_low;
            sctp.dpts[1] = rule->port_high;
            sctp.spts[1] = 0xffff;
            sctp.flags = XT_SCTP_DEST_PORTS;
            position = add_match(position, "sctp", 0, &sctp, sizeof sctp);
        }
    }
    entry->target_offset = (uint16_t)(position - at);
    struct xt_standard_target *target = (struct xt_standard_target *)position;
    target->target.u.user.target_size = STANDARD_TARGET_SIZE;
    target->verdict = verdict == PF_ACCEPT ? VERDICT_ACCEPT : VERDICT_DROP;
    position += STANDARD_TARGET_SIZE;
    entry->next_offset = (uint16_t)(position - at);
    return position;
}

unsigned char *pf_encode(const struct pf_table *table, size_t *size, unsigned *entry_count, unsigned hook_entry[5], unsigned underflow[5]) {
    size_t total = ENTRY_SIZE + ERROR_TARGET_SIZE;
    for (size_t index = 0; index < table->count; index++) total += rule_size(&table->rules[index]);
    total += PF_CHAIN_COUNT * rule_size(NULL);
    unsigned char *blob = calloc(1, total);
    if (!blob) return NULL;
    memset(hook_entry, 0, 5 * sizeof *hook_entry);
    memset(underflow, 0, 5 * sizeof *underflow);
    unsigned char *at = blob;
    unsigned entries = 0;
    for (int chain = 0; chain < PF_CHAIN_COUNT; chain++) {
        hook_entry[chain_hooks[chain]] = (unsigned)(at - blob);
        for (size_t index = 0; index < table->count; index++) {
            const struct pf_rule *rule = &table->rules[index];
            if (rule->chain != (enum pf_chain)chain) continue;
            at = write_entry(at, rule, rule->verdict);
            entries++;
        }
        underflow[chain_hooks[chain]] = (unsigned)(at - blob);
        at = write_entry(at, NULL, table->policy[chain]);
        entries++;
    }
    struct ipt_entry *last = (struct ipt_entry *)at;
    last->target_offset = ENTRY_SIZE;
    last->next_offset = ENTRY_SIZE + ERROR_TARGET_SIZE;
    struct xt_error_target *error = (struct xt_error_target *)(at + ENTRY_SIZE);
    error->target.u.user.target_size = ERROR_TARGET_SIZE;
    strcpy(error->target.u.user.name, XT_ERROR_TARGET);
    strcpy(error->errorname, "ERROR");
    entries++;
    *size = total;
    *entry_count = entries;
    return blob;
}

/* ---------- the kernel ---------- */

static int filter_info(int fd, struct ipt_getinfo *info, char *error, size_t error_size) {
    memset(info, 0, sizeof *info);
    strcpy(info->name, "filter");
    socklen_t length = sizeof *info;
    if (getsockopt(fd, IPPROTO_IP, IPT_SO_GET_INFO, info, &length) == 0) return 0;
    int code = errno;
    if (code == ENOENT || code == ENOPROTOOPT)
        snprintf(error, error_size, "the kernel has no iptables filter table (legacy ip_tables / iptable_filter): %s", strerror(code));
    else if (code == EPERM)
        snprintf(error, error_size, "reading the filter table needs CAP_NET_ADMIN in this network namespace: %s", strerror(code));
    else snprintf(error, error_size, "reading the filter table: %s", strerror(code));
    return code;
}

static int open_socket(char *error, size_t error_size) {
    int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
    if (fd < 0) snprintf(error, error_size, "raw socket: %s%s", strerror(errno), errno == EPERM ? " (needs CAP_NET_RAW)" : "");
    return fd;
}

int pf_apply(const struct pf_table *table, char *error, size_t error_size) {
    int fd = open_socket(error, error_size);
    if (fd < 0) return errno;
    size_t size;
    unsigned count;
    unsigned hook_entry[5], underflow[5];
    unsigned char *blob = pf_encode(table, &size, &count, hook_entry, underflow);
    if (!blob) {
        close(fd);
        snprintf(error, error_size, "out of memory");
        return ENOMEM;
    }
    int result = 0;
    /* The counter count must match the table being replaced; another writer in between makes the
     * kernel answer EAGAIN, so read again and retry. */
    for (int attempt = 0; attempt < 5; attempt++) {
        struct ipt_getinfo info;
        result = filter_info(fd, &info, error, error_size);
        if (result != 0) break;
        if (info.valid_hooks != FILTER_VALID_HOOKS) {
            snprintf(error, error_size, "unexpected filter table hooks 0x%x", info.valid_hooks);
            result = EINVAL;
            break;
        }
        size_t length = sizeof(struct ipt_replace) + size;
        struct ipt_replace *replace = calloc(1, length);
        struct xt_counters *counters = calloc(info.num_entries ? info.num_entries : 1, sizeof *counters);
        if (!replace || !counters) {
            free(replace);
            free(counters);
            snprintf(error, error_size, "out of memory");
            result = ENOMEM;
            break;
        }
        strcpy(replace->name, "filter");
        replace->valid_hooks = FILTER_VALID_HOOKS;
        replace->num_entries = count;
        replace->size = (unsigned)size;
        memcpy(replace->hook_entry, hook_entry, sizeof replace->hook_entry);
        memcpy(replace->underflow, underflow, sizeof replace->underflow);
        replace->num_counters = info.num_entries;
        replace->counters = counters;
        memcpy(replace->entries, blob, size);
        result = setsockopt(fd, IPPROTO_IP, IPT_SO_SET_REPLACE, replace, (socklen_t)length) == 0 ? 0 : errno;
        free(replace);
        free(counters);
        if (result == EAGAIN) continue;
        if (result == ENOENT)
            snprintf(error, error_size, "the kernel lacks a match this table uses (conntrack, tcp, udp or sctp): %s", strerror(result));
        else if (result != 0) snprintf(error, error_size, "replacing the filter table: %s", strerror(result));
        break;
    }
    free(blob);
    close(fd);
    return result;
}

int pf_dump(FILE *out, char *error, size_t error_size) {
    int fd = open_socket(error, error_size);
    if (fd < 0) return errno;
    struct ipt_getinfo info;
    int result = filter_info(fd, &info, error, error_size);
    struct ipt_get_entries *entries = NULL;
    if (result == 0) {
        socklen_t length = (socklen_t)(sizeof *entries + info.size);
        entries = calloc(1, length);
        if (!entries) {
            result = ENOMEM;
        } else {
            strcpy(entries->name, "filter");
            entries->size = info.size;
            if (getsockopt(fd, IPPROTO_IP, IPT_SO_GET_ENTRIES, entries, &length) != 0) {
                result = errno;
                snprintf(error, error_size, "reading the filter table's entries: %s", strerror(result));
            }
        }
    }
    if (result == 0) pf_print_entries(out, (const unsigned char *)entries->entrytable, info.size, info.hook_entry, info.underflow, true);
    free(entries);
    close(fd);
    return result;
}

/* ---------- printing (iptables-save's format) ---------- */

static void print_address(FILE *out, const char *option, struct in_addr address, struct in_addr mask, bool inverted) {
    if (mask.s_addr == 0 && !inverted) return;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &address, text, sizeof text);
    uint32_t host = ntohl(mask.s_addr);
    int prefix = 0;
    while (prefix < 32 && (host & (0x80000000u >> prefix))) prefix++;
    bool contiguous = prefix == 32 || (host << prefix) == 0;
    if (contiguous) fprintf(out, "%s %s %s/%d", inverted ? " !" : "", option, text, prefix);
    else {
        char mask_text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &mask, mask_text, sizeof mask_text);
        fprintf(out, "%s %s %s/%s", inverted ? " !" : "", option, text, mask_text);
    }
}

static void print_ports(FILE *out, const char *option, const uint16_t ports[2], bool inverted) {
    if (ports[0] == 0 && ports[1] == 0xffff) return;
    fprintf(out, "%s %s ", inverted ? " !" : "", option);
    if (ports[0] == ports[1]) fprintf(out, "%u", ports[0]);
    else fprintf(out, "%u:%u", ports[0], ports[1]);
}

/* Connection states in iptables' order; the state and conntrack matches share the bits. */
static void print_states(FILE *out, const char *option, unsigned mask) {
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {
        { XT_STATE_INVALID, "INVALID" },
        { XT_STATE_BIT(IP_CT_NEW), "NEW" },
        { XT_STATE_BIT(IP_CT_RELATED), "RELATED" },
        { XT_STATE_BIT(IP_CT_ESTABLISHED), "ESTABLISHED" },
    };
    const char *separator = option;
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        if (!(mask & names[index].bit)) continue;
        fprintf(out, "%s%s", separator, names[index].name);
        separator = ",";
    }
}

static void print_match(FILE *out, const struct xt_entry_match *match) {
    const char *name = match->u.user.name;
    const void *data = match->data;
    fprintf(out, " -m %s", name);
    if (strcmp(name, "tcp") == 0) {
        const struct xt_tcp *tcp = data;
        print_ports(out, "--sport", tcp->spts, tcp->invflags & XT_TCP_INV_SRCPT);
        print_ports(out, "--dport", tcp->dpts, tcp->invflags & XT_TCP_INV_DSTPT);
    } else if (strcmp(name, "udp") == 0) {
        const struct xt_udp *udp = data;
        print_ports(out, "--sport", udp->spts, udp->invflags & XT_UDP_INV_SRCPT);
        print_ports(out, "--dport", udp->dpts, udp->invflags & XT_UDP_INV_DSTPT);
    } else if (strcmp(name, "sctp") == 0) {
        const struct xt_sctp_info *sctp = data;
        if (sctp->flags & XT_SCTP_SRC_PORTS) print_ports(out, "--sport", sctp->spts, sctp->invflags & XT_SCTP_SRC_PORTS);
        if (sctp->flags & XT_SCTP_DEST_PORTS) print_ports(out, "--dport", sctp->dpts, sctp->invflags & XT_SCTP_DEST_PORTS);
    } else if (strcmp(name, "state") == 0 && match->u.user.revision == 0) {
        print_states(out, " --state ", ((const struct xt_state_info *)data)->statemask);
    } else if (strcmp(name, "conntrack") == 0 && match->u.user.revision == 3) {
        const struct xt_conntrack_mtinfo3 *conntrack = data;
        if (conntrack->match_flags & XT_CONNTRACK_STATE)
            print_states(out, conntrack->invert_flags & XT_CONNTRACK_STATE ? " ! --ctstate " : " --ctstate ", conntrack->state_mask);
    } else if (strcmp(name, "comment") == 0) {
        const struct xt_comment_info *comment = data;
        fprintf(out, " --comment \"%.*s\"", (int)sizeof comment->comment, comment->comment);
    }
}

static const char *protocol_name(uint16_t protocol) {
    switch (protocol) {
    case IPPROTO_TCP:
        return "tcp";
    case IPPROTO_UDP:
        return "udp";
    case IPPROTO_SCTP:
        return "sctp";
    case IPPROTO_ICMP:
        return "icmp";
    default:
        return NULL;
    }
}

static const char *verdict_name(int verdict) {
    if (verdict == VERDICT_ACCEPT) return "ACCEPT";
    if (verdict == VERDICT_DROP) return "DROP";
    if (verdict == XT_RETURN) return "RETURN";
    if (verdict == -NF_QUEUE - 1) return "QUEUE";
    return NULL;
}

struct user_chain {
    const char *name;
    unsigned head;  /* offset of the ERROR entry naming the chain */
    unsigned first; /* offset of its first rule */
};

static const struct xt_entry_target *target_of(const struct ipt_entry *entry) {
    return (const struct xt_entry_target *)((const unsigned char *)entry + entry->target_offset);
}

static bool is_error_entry(const struct ipt_entry *entry) {
    return strcmp(target_of(entry)->u.user.name, XT_ERROR_TARGET) == 0;
}

static void print_rule(FILE *out, const char *chain, const struct ipt_entry *entry, const struct user_chain *chains, size_t chain_count) {
    fprintf(out, "-A %s", chain);
    print_address(out, "-s", entry->ip.src, entry->ip.smsk, entry->ip.invflags & IPT_INV_SRCIP);
    print_address(out, "-d", entry->ip.dst, entry->ip.dmsk, entry->ip.invflags & IPT_INV_DSTIP);
    if (entry->ip.iniface[0]) fprintf(out, "%s -i %.*s", entry->ip.invflags & IPT_INV_VIA_IN ? " !" : "", IFNAMSIZ, entry->ip.iniface);
    if (entry->ip.outiface[0]) fprintf(out, "%s -o %.*s", entry->ip.invflags & IPT_INV_VIA_OUT ? " !" : "", IFNAMSIZ, entry->ip.outiface);
    if (entry->ip.proto) {
        const char *name = protocol_name(entry->ip.proto);
        fprintf(out, "%s -p ", entry->ip.invflags & XT_INV_PROTO ? " !" : "");
        if (name) fprintf(out, "%s", name);
        else fprintf(out, "%u", entry->ip.proto);
    }
    for (unsigned offset = sizeof(struct ipt_entry); offset < entry->target_offset;) {
        const struct xt_entry_match *match = (const struct xt_entry_match *)((const unsigned char *)entry + offset);
        if (match->u.match_size == 0) break;
        print_match(out, match);
        offset += match->u.match_size;
    }
    const struct xt_entry_target *target = target_of(entry);
    if (target->u.user.name[0] == '\0') {
        int verdict = ((const struct xt_standard_target *)target)->verdict;
        const char *name = verdict_name(verdict);
        if (name) {
            fprintf(out, " -j %s", name);
        } else {
            const char *jump = NULL;
            for (size_t index = 0; index < chain_count && !jump; index++)
                if (chains[index].first == (unsigned)verdict) jump = chains[index].name;
            fprintf(out, " -j %s", jump ? jump : "?");
        }
    } else {
        fprintf(out, " -j %s", target->u.user.name);
    }
    fputc('\n', out);
}

void pf_print_entries(FILE *out, const unsigned char *entries, size_t size, const unsigned hook_entry[5], const unsigned underflow[5], bool counters) {
    /* User chains (none of ours, but a table written by someone else may have them). */
    struct user_chain chains[64];
    size_t chain_count = 0;
    for (size_t offset = 0; offset < size;) {
        const struct ipt_entry *entry = (const struct ipt_entry *)(entries + offset);
        if (entry->next_offset == 0) break;
        if (is_error_entry(entry) && offset + entry->next_offset < size && chain_count < sizeof chains / sizeof chains[0]) {
            const struct xt_error_target *error = (const struct xt_error_target *)target_of(entry);
            chains[chain_count++] = (struct user_chain){ .name = error->errorname, .head = (unsigned)offset, .first = (unsigned)(offset + entry->next_offset) };
        }
        offset += entry->next_offset;
    }
    fprintf(out, "*filter\n");
    for (int chain = 0; chain < PF_CHAIN_COUNT; chain++) {
        const struct ipt_entry *policy = (const struct ipt_entry *)(entries + underflow[chain_hooks[chain]]);
        const char *verdict = verdict_name(((const struct xt_standard_target *)target_of(policy))->verdict);
        fprintf(out, ":%s %s [%llu:%llu]\n", chain_names[chain], verdict ? verdict : "?", counters ? (unsigned long long)policy->counters.pcnt : 0ULL,
                counters ? (unsigned long long)policy->counters.bcnt : 0ULL);
    }
    for (size_t index = 0; index < chain_count; index++) fprintf(out, ":%s - [0:0]\n", chains[index].name);
    for (int chain = 0; chain < PF_CHAIN_COUNT; chain++) {
        for (unsigned offset = hook_entry[chain_hooks[chain]]; offset < underflow[chain_hooks[chain]];) {
            const struct ipt_entry *entry = (const struct ipt_entry *)(entries + offset);
            if (entry->next_offset == 0) break;
            print_rule(out, chain_names[chain], entry, chains, chain_count);
            offset += entry->next_offset;
        }
    }
    for (size_t index = 0; index < chain_count; index++) {
        for (size_t offset = chains[index].first; offset < size;) {
            const struct ipt_entry *entry = (const struct ipt_entry *)(entries + offset);
            if (entry->next_offset == 0 || is_error_entry(entry)) break;
            size_t next = offset + entry->next_offset;
            /* the chain's closing RETURN is implicit in iptables-save's output */
            const struct ipt_entry *following = next < size ? (const struct ipt_entry *)(entries + next) : NULL;
            if (!(following && is_error_entry(following))) print_rule(out, chains[index].name, entry, chains, chain_count);
            offset = next;
        }
    }
    fprintf(out, "COMMIT\n");
}
