/*
 * packetFilter: the IPv4 `filter` table of the calling process's network namespace, written and
 * read the way iptables-legacy does it (IPT_SO_SET_REPLACE / IPT_SO_GET_ENTRIES on a raw socket),
 * with no library beyond libc. A table is the three built-in chains (INPUT, FORWARD, OUTPUT),
 * their policies and a list of rules; replacing it is one atomic step for the kernel.
 *
 * Rule text (one rule per string; used by kd-netpol's arguments and by tests):
 *   policy <input|forward|output> <accept|drop>
 *   <accept|drop> <input|forward|output> [src CIDR] [dst CIDR] [in IFACE] [out IFACE]
 *       [proto <tcp|udp|sctp|all>] [dport PORT[-PORT]] [state <new|established|related|invalid>[,…]]
 * `dport` needs proto tcp, udp or sctp; `in` is for input/forward, `out` for output/forward.
 *
 * Shared by kd-netd (filters the ClusterIPs it serves) and kd-netpol (a pod's namespace).
 */
#ifndef KUBEDESK_PACKET_FILTER_H
#define KUBEDESK_PACKET_FILTER_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum pf_chain { PF_INPUT, PF_FORWARD, PF_OUTPUT, PF_CHAIN_COUNT };
enum pf_verdict { PF_ACCEPT, PF_DROP };

#define PF_STATE_INVALID 1u
#define PF_STATE_ESTABLISHED 2u
#define PF_STATE_RELATED 4u
#define PF_STATE_NEW 8u

struct pf_rule {
    enum pf_chain chain;
    enum pf_verdict verdict;
    uint32_t source, source_mask; /* network order; mask 0 = any */
    uint32_t destination, destination_mask;
    char in_interface[IFNAMSIZ];
    char out_interface[IFNAMSIZ];
    uint16_t protocol; /* 0 = any, else IPPROTO_TCP / UDP / SCTP */
    bool has_ports;
    uint16_t port_low, port_high; /* destination ports, inclusive */
    unsigned state_mask;          /* PF_STATE_* bits; 0 = no state match */
};

struct pf_table {
    enum pf_verdict policy[PF_CHAIN_COUNT];
    struct pf_rule *rules;
    size_t count;
    size_t capacity;
};

/* An empty table: every policy ACCEPT, no rules. */
void pf_table_init(struct pf_table *table);
void pf_table_free(struct pf_table *table);
/* Appends a rule (copied). Returns false when out of memory. */
bool pf_table_add(struct pf_table *table, const struct pf_rule *rule);
/* True when the table lets everything through (the kernel's table is then left as "empty"). */
bool pf_table_is_open(const struct pf_table *table);

/* Parses one line of rule text into the table; returns NULL or a message saying what is wrong. */
const char *pf_parse(const char *text, struct pf_table *table);

/* The table as the kernel's ipt_replace entries (without the header): malloc'ed, *size set. */
unsigned char *pf_encode(const struct pf_table *table, size_t *size, unsigned *entry_count, unsigned hook_entry[5], unsigned underflow[5]);

/* Replaces the namespace's filter table; returns 0 or an errno, with a message in `error`. */
int pf_apply(const struct pf_table *table, char *error, size_t error_size);

/* Prints the namespace's filter table as iptables-save does; returns 0 or an errno. */
int pf_dump(FILE *out, char *error, size_t error_size);

/* Prints an encoded table (pf_encode's output) as iptables-save would, counters as [0:0]. */
void pf_print_entries(FILE *out, const unsigned char *entries, size_t size, const unsigned hook_entry[5], const unsigned underflow[5], bool counters);

#endif
