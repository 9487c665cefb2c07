/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IOU_REGION_H
#define IOU_REGION_H

#include <linux/io_uring_types.h>

struct io_uring_region_desc;

/**
 * struct io_mapped_region - memory shared with user space through a ring
 * @pages: the pages: the user's, pinned, or the kernel's
 * @ptr: kernel mapping of all of them
 * @nr_pages: number of @pages
 * @user_mem: the user's own memory (IORING_MEM_REGION_TYPE_USER), which
 *	cannot be mmapped through the ring
 * @acct_pages: pages charged: @nr_pages, or more for user memory in huge
 *	folios, which a pin holds whole
 * @acct_user: user charged for the pages (RLIMIT_MEMLOCK), or NULL
 * @acct_mm: mm whose pinned_vm counts the pages, or NULL
 *
 * The region holds its own references on @acct_user and @acct_mm, so it
 * may outlive the ring that created it.
 */
struct io_mapped_region {
	struct page		**pages;
	void			*ptr;
	unsigned int		nr_pages;
	bool			user_mem;
	unsigned long		acct_pages;
	struct user_struct	*acct_user;
	struct mm_struct	*acct_mm;
};

int io_create_region(struct io_ring_ctx *ctx, struct io_mapped_region *mr,
		     struct io_uring_region_desc *reg, u64 mmap_offset);
void io_free_region(struct io_mapped_region *mr);
int io_region_mmap(struct io_ring_ctx *ctx, struct io_mapped_region *mr,
		   struct vm_area_struct *vma);

int io_pin_user_pages(u64 uaddr, unsigned int nr_pages, struct page **pages,
		      unsigned long *held);
int io_account_pinned(struct user_struct *acct_user, struct mm_struct *acct_mm,
		      unsigned long nr_pages, struct user_struct **user,
		      struct mm_struct **mm);
int io_account_pinned_held(unsigned long *acct_pages, unsigned long held,
			   struct user_struct *user, struct mm_struct *mm);
void io_unaccount_pinned(unsigned long nr_pages, struct user_struct *user,
			 struct mm_struct *mm);

static inline size_t io_region_size(const struct io_mapped_region *mr)
{
	return (size_t)mr->nr_pages << PAGE_SHIFT;
}

#endif
