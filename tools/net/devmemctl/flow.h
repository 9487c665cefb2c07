/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmemctl: TCP flows in ethtool's words (flow.c), and whether a
 * steering rule takes all of a flow.
 */
#ifndef DEVMEMCTL_FLOW_H
#define DEVMEMCTL_FLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "netcfg.h"

/* Flows in ethtool's words: tcp4|tcp6 [src-ip A] [dst-ip A] [src-port P]
 * [dst-port P]; 0 or -EINVAL with the reason in @why.
 */
int flow_parse(char *words, struct netcfg_flow *f, char *why, size_t len);
/* The same words back */
void flow_format(const struct netcfg_flow *f, char *buf, size_t len);
/* true if rule @r takes every packet of flow @f */
bool flow_covers(const struct netcfg_flow *r, const struct netcfg_flow *f);

#endif /* DEVMEMCTL_FLOW_H */
