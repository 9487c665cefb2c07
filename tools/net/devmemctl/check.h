/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devmemctl check (check.c): every reason a flow's payload would land in
 * host memory or a bind would fail.
 */
#ifndef DEVMEMCTL_CHECK_H
#define DEVMEMCTL_CHECK_H

#include "devmem_nl.h"
#include "request.h"

int do_check(struct devmem_nl *nl, const struct request *req);

#endif /* DEVMEMCTL_CHECK_H */
