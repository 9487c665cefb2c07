/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IOU_QUERY_H
#define IOU_QUERY_H

#include <linux/compiler_types.h>

int io_query(void __user *arg, unsigned int nr_args);

#endif
