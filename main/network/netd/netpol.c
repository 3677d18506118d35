/*
 * kd-netpol: sets the packet filter of the network namespace it runs in, for kubedesk's
 * NetworkPolicy enforcement (main/network/netpol). The kubelet's runtime runs it inside a pod
 * sandbox's network namespace with CAP_NET_ADMIN there (as a CNI plugin runs in the pod's
 * namespace); app containers share the namespace but not the capability, so they cannot change it.
 *
 *   kd-netpol apply RULE...    replace the namespace's IPv4 filter table with these rules
 *                              (no rules: an empty table that lets everything through)
 *   kd-netpol dump             print the namespace's filter table as iptables-save does
 *   kd-netpol encode RULE...   print what `apply` would write, without touching the kernel
 *
 * RULE is one rule in packetFilter.h's text form, e.g. "accept input src 10.1.0.7 proto tcp
 * dport 80". Exit status: 0 done, 1 the kernel refused (message on stderr), 2 bad usage or rule.
 *
 * Build: cc -O2 -static -Wall -Wextra -o kd-netpol netpol.c packetFilter.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packetFilter.h"

static int usage(void) {
    fprintf(stderr, "usage: kd-netpol apply RULE... | kd-netpol dump | kd-netpol encode RULE...\n");
    return 2;
}

static int parse_rules(int count, char **rules, struct pf_table *table) {
    for (int index = 0; index < count; index++) {
        const char *problem = pf_parse(rules[index], table);
        if (problem) {
            fprintf(stderr, "kd-netpol: rule %d \"%s\": %s\n", index + 1, rules[index], problem);
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    char error[256] = "";
    if (strcmp(argv[1], "dump") == 0) {
        if (argc != 2) return usage();
        if (pf_dump(stdout, error, sizeof error) != 0) {
            fprintf(stderr, "kd-netpol: %s\n", error);
            return 1;
        }
        return 0;
    }
    bool apply = strcmp(argv[1], "apply") == 0;
    if (!apply && strcmp(argv[1], "encode") != 0) return usage();
    struct pf_table table;
    pf_table_init(&table);
    int status = parse_rules(argc - 2, argv + 2, &table);
    if (status == 0 && apply) {
        if (pf_apply(&table, error, sizeof error) != 0) {
            fprintf(stderr, "kd-netpol: %s\n", error);
            status = 1;
        }
    } else if (status == 0) {
        size_t size;
        unsigned count;
        unsigned hook_entry[5], underflow[5];
        unsigned char *blob = pf_encode(&table, &size, &count, hook_entry, underflow);
        if (!blob) {
            fprintf(stderr, "kd-netpol: out of memory\n");
            status = 1;
        } else {
            pf_print_entries(stdout, blob, size, hook_entry, underflow, false);
            free(blob);
        }
    }
    pf_table_free(&table);
    return status;
}
