/* SPDX-License-Identifier: GPL-2.0 */
/* indigoctl netscope: Netscope's per-cgroup view and policy. */
#ifndef INDIGO_INDIGOCTL_NETSCOPE_H
#define INDIGO_INDIGOCTL_NETSCOPE_H

#include <stdbool.h>

/* argv after "netscope"; @json from indigoctl's own --json (netscope also
 * takes one after it). Returns the exit status. */
int indigoctl_netscope(bool json, int argc, char **argv);

#endif /* INDIGO_INDIGOCTL_NETSCOPE_H */
