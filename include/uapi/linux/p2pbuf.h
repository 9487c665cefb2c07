/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * p2pbuf: dmabufs of PCI peer-to-peer memory (a device BAR registered
 * with the kernel's P2PDMA), the test stand-in for a GPU's memory.
 * One misc device, /dev/p2pbufN, per PCI function it drives.
 */
#ifndef _UAPI_LINUX_P2PBUF_H
#define _UAPI_LINUX_P2PBUF_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define P2PBUF_FLAGS_CLOEXEC	0x01

/**
 * struct p2pbuf_create - P2PBUF_CREATE argument
 * @size: bytes, a multiple of the page size, not 0
 * @flags: P2PBUF_FLAGS_CLOEXEC or 0
 * @pad: must be 0
 *
 * The ioctl returns a dmabuf fd of @size contiguous bytes of the BAR.
 */
struct p2pbuf_create {
	__u64 size;
	__u32 flags;
	__u32 pad;
};

#define P2PBUF_CREATE	_IOW('u', 0x50, struct p2pbuf_create)

#endif /* _UAPI_LINUX_P2PBUF_H */
