// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: memory a ring shares with user space besides its SQ and
 * CQ rings (zero-copy receive's refill ring). Either the kernel allocates
 * the pages and user space maps them through the ring fd at the offset
 * the kernel returns, or user space passes its own memory
 * (IORING_MEM_REGION_TYPE_USER), which is pinned. Either way the kernel
 * reaches the region through one vmap() of its pages.
 *
 * Unless the ring's creator has CAP_IPC_LOCK, the pages are charged to its
 * RLIMIT_MEMLOCK as registered buffers are, and always counted in its
 * mm's pinned_vm: the pages asked for before anything is allocated, then,
 * for user memory, the rest of each huge folio the pin holds.
 */
#include <linux/hugetlb.h>
#include <linux/io_uring.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <uapi/linux/io_uring.h>

#include "io_uring.h"
#include "region.h"
#include "rsrc.h"

/**
 * io_account_pinned() - charge pinned pages to a user and an mm
 * @acct_user: the user to charge (RLIMIT_MEMLOCK), or NULL for none
 * @acct_mm: the mm whose pinned_vm counts the pages, or NULL for none
 * @nr_pages: pages to charge
 * @user: set to the user charged (a reference), or NULL
 * @mm: set to the mm counting them (a reference), or NULL
 *
 * A ring charges its creator: its ->user and ->mm_account, NULL where
 * its creator may lock memory without limit.
 *
 * Return: 0, or -ENOMEM over RLIMIT_MEMLOCK.
 */
int io_account_pinned(struct user_struct *acct_user, struct mm_struct *acct_mm,
		      unsigned long nr_pages, struct user_struct **user,
		      struct mm_struct **mm)
{
	int ret;

	*user = NULL;
	*mm = NULL;
	if (acct_user) {
		ret = __io_account_mem(acct_user, nr_pages);
		if (ret)
			return ret;
		*user = get_uid(acct_user);
	}
	if (acct_mm) {
		atomic64_add(nr_pages, &acct_mm->pinned_vm);
		mmgrab(acct_mm);
		*mm = acct_mm;
	}
	return 0;
}

/**
 * io_account_pinned_held() - charge the rest of what a pin holds
 * @acct_pages: pages charged so far; raised to @held on success
 * @held: pages of memory the pin holds, from io_pin_user_pages()
 * @user: the user io_account_pinned() charged, or NULL
 * @mm: the mm io_account_pinned() counted them in, or NULL
 *
 * A pin of part of a huge folio keeps the whole folio in memory: charge
 * it whole, as what the pin holds and not as what was asked for.
 *
 * Return: 0, or -ENOMEM over RLIMIT_MEMLOCK (nothing more is charged then).
 */
int io_account_pinned_held(unsigned long *acct_pages, unsigned long held,
			   struct user_struct *user, struct mm_struct *mm)
{
	unsigned long more;
	int ret;

	if (held <= *acct_pages)
		return 0;
	more = held - *acct_pages;
	if (user) {
		ret = __io_account_mem(user, more);
		if (ret)
			return ret;
	}
	if (mm)
		atomic64_add(more, &mm->pinned_vm);
	*acct_pages = held;
	return 0;
}

/**
 * io_unaccount_pinned() - undo io_account_pinned()
 * @nr_pages: pages charged
 * @user: user charged, or NULL
 * @mm: mm counting them, or NULL
 */
void io_unaccount_pinned(unsigned long nr_pages, struct user_struct *user,
			 struct mm_struct *mm)
{
	if (user) {
		__io_unaccount_mem(user, nr_pages);
		free_uid(user);
	}
	if (mm) {
		atomic64_sub(nr_pages, &mm->pinned_vm);
		mmdrop(mm);
	}
}

/* Anonymous memory, shmem and hugetlbfs only, as 6.1's registered buffers */
static int io_pin_check_vmas(struct mm_struct *mm, unsigned long addr,
			     unsigned long end)
{
	struct vm_area_struct *vma;

	mmap_assert_locked(mm);
	while (addr < end) {
		vma = vma_lookup(mm, addr);
		if (!vma)
			return -EFAULT;
		if (vma->vm_file && !vma_is_shmem(vma) &&
		    !is_file_hugepages(vma->vm_file))
			return -EOPNOTSUPP;
		addr = vma->vm_end;
	}
	return 0;
}

/*
 * The memory a pin of @pages holds: a pin keeps a whole folio, so one
 * 4 KiB page of a 1 GiB hugetlb page holds all of it. Each run of pages
 * of one folio counts the folio's pages once.
 */
static unsigned long io_pages_held(struct page **pages, unsigned int nr_pages)
{
	struct folio *prev = NULL;
	unsigned long held = 0;
	unsigned int i;

	for (i = 0; i < nr_pages; i++) {
		struct folio *folio = page_folio(pages[i]);

		if (!(i & 1023))
			cond_resched();
		if (folio == prev)
			continue;
		prev = folio;
		held += folio_nr_pages(folio);
	}
	return held;
}

/**
 * io_pin_user_pages() - pin user memory for the NIC and the kernel to write
 * @uaddr: page-aligned start
 * @nr_pages: pages to pin
 * @pages: filled with the pinned pages
 * @held: set to the pages of memory the pin holds, whole folios counted,
 *	never less than @nr_pages: what is to be charged
 *
 * Memory that a filesystem owns is refused, as 6.1's registered buffers
 * refuse it: the device and the kernel would write its page cache behind
 * the filesystem's back. The mappings are checked and pinned under one
 * hold of the mmap lock, so none can be replaced in between.
 *
 * Return: 0, -EOPNOTSUPP (a mapping of a file other than shmem or hugetlbfs),
 * -EFAULT (a hole, or memory that cannot be pinned), -EINTR (killed while
 * waiting for the mmap lock), or another error of pin_user_pages().
 */
int io_pin_user_pages(u64 uaddr, unsigned int nr_pages, struct page **pages,
		      unsigned long *held)
{
	unsigned long end = uaddr + ((unsigned long)nr_pages << PAGE_SHIFT);
	struct mm_struct *mm = current->mm;
	long ret;

	/* killable: a zcrx registration holds its device meanwhile */
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	ret = io_pin_check_vmas(mm, uaddr, end);
	if (!ret)
		ret = pin_user_pages(uaddr, nr_pages,
				     FOLL_WRITE | FOLL_LONGTERM, pages, NULL);
	mmap_read_unlock(mm);
	if (ret == nr_pages) {
		*held = max_t(unsigned long, io_pages_held(pages, nr_pages),
			      nr_pages);
		return 0;
	}
	if (ret > 0) {
		unpin_user_pages(pages, ret);
		ret = -EFAULT;
	}
	return ret;
}

static int io_region_alloc(struct io_mapped_region *mr)
{
	unsigned int i;

	for (i = 0; i < mr->nr_pages; i++) {
		mr->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!mr->pages[i])
			goto err_free_pages;
	}
	return 0;

err_free_pages:
	while (i--)
		__free_page(mr->pages[i]);
	return -ENOMEM;
}

static void io_region_release_pages(struct io_mapped_region *mr)
{
	unsigned int i;

	if (mr->user_mem) {
		unpin_user_pages(mr->pages, mr->nr_pages);
		return;
	}
	for (i = 0; i < mr->nr_pages; i++)
		__free_page(mr->pages[i]);
}

/**
 * io_create_region() - set up a region a user described
 * @ctx: the ring
 * @mr: the region, zeroed
 * @reg: the user's description; mmap_offset is filled in for kernel
 *	memory
 * @mmap_offset: where the ring's mmap() finds the region's pages
 *
 * Return: 0, -EINVAL (reserved field, unknown flag, size 0, an id or mmap
 * offset given, a size or address not page aligned), -EFAULT (TYPE_USER
 * without an address or an address without TYPE_USER, memory that cannot
 * be pinned), -EOPNOTSUPP (user memory of a file other than shmem or
 * hugetlbfs), -E2BIG (more than INT_MAX pages), -EOVERFLOW, or -ENOMEM
 * (also over RLIMIT_MEMLOCK, and for an array of pages too large to
 * allocate).
 */
int io_create_region(struct io_ring_ctx *ctx, struct io_mapped_region *mr,
		     struct io_uring_region_desc *reg, u64 mmap_offset)
{
	bool user_mem = reg->flags & IORING_MEM_REGION_TYPE_USER;
	unsigned long held = 0;
	u64 nr_pages, end;
	int ret;

	if (memchr_inv(reg->__resv, 0, sizeof(reg->__resv)) ||
	    reg->flags & ~IORING_MEM_REGION_TYPE_USER)
		return -EINVAL;
	if (user_mem != !!reg->user_addr)
		return -EFAULT;
	if (!reg->size || reg->mmap_offset || reg->id)
		return -EINVAL;
	nr_pages = reg->size >> PAGE_SHIFT;
	if (nr_pages > INT_MAX)
		return -E2BIG;
	if ((reg->size | reg->user_addr) & ~PAGE_MASK)
		return -EINVAL;
	if (check_add_overflow(reg->user_addr, reg->size, &end))
		return -EOVERFLOW;

	/* charged first: a size over RLIMIT_MEMLOCK allocates nothing */
	ret = io_account_pinned(ctx->user, ctx->mm_account, nr_pages,
				&mr->acct_user, &mr->acct_mm);
	if (ret)
		return ret;

	mr->acct_pages = nr_pages;
	mr->nr_pages = nr_pages;
	mr->user_mem = user_mem;
	/* any size a user asks for: a failure, never a warning */
	mr->pages = kvmalloc_array(nr_pages, sizeof(*mr->pages),
				   GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!mr->pages) {
		ret = -ENOMEM;
		goto err_unaccount;
	}

	if (user_mem)
		ret = io_pin_user_pages(reg->user_addr, nr_pages, mr->pages,
					&held);
	else
		ret = io_region_alloc(mr);
	if (ret)
		goto err_free_array;
	ret = io_account_pinned_held(&mr->acct_pages, held, mr->acct_user,
				     mr->acct_mm);
	if (ret)
		goto err_release_pages;

	mr->ptr = vmap(mr->pages, nr_pages, VM_MAP, PAGE_KERNEL);
	if (!mr->ptr) {
		ret = -ENOMEM;
		goto err_release_pages;
	}

	if (!user_mem)
		reg->mmap_offset = mmap_offset;
	return 0;

err_release_pages:
	io_region_release_pages(mr);
err_free_array:
	kvfree(mr->pages);
err_unaccount:
	io_unaccount_pinned(mr->acct_pages, mr->acct_user, mr->acct_mm);
	memset(mr, 0, sizeof(*mr));
	return ret;
}

/**
 * io_free_region() - release a region's memory and charges
 * @mr: the region; nothing happens if it was never created
 *
 * Context: process context.
 */
void io_free_region(struct io_mapped_region *mr)
{
	if (!mr->pages)
		return;
	vunmap(mr->ptr);
	io_region_release_pages(mr);
	io_unaccount_pinned(mr->acct_pages, mr->acct_user, mr->acct_mm);
	kvfree(mr->pages);
	memset(mr, 0, sizeof(*mr));
}

/**
 * io_region_mmap() - map a kernel region into user space
 * @ctx: the ring
 * @mr: the region
 * @vma: the mapping, no larger than the region
 *
 * Return: 0, or -EINVAL for the user's own memory or a mapping larger than
 * the region.
 */
int io_region_mmap(struct io_ring_ctx *ctx, struct io_mapped_region *mr,
		   struct vm_area_struct *vma)
{
	size_t sz = vma->vm_end - vma->vm_start;

	if (!mr || mr->user_mem || !mr->pages || sz > io_region_size(mr))
		return -EINVAL;
	return io_uring_mmap_pages(ctx, vma, mr->pages,
				   DIV_ROUND_UP(sz, PAGE_SIZE));
}
