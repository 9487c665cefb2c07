// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin (plugin API version 1, QEMU 7.2) that counts what the
 * guest CPU does, for make bench: instructions executed in the kernel
 * and in user space, and the bytes the CPU loads from and stores to a
 * window of guest-physical pages (the device memory of a benchmark: a
 * udmabuf's pages or p2pbuf's BAR). A device model's DMA is not a CPU
 * access and is never counted, so on e1000e every byte counted in the
 * window is payload the CPU touched.
 *
 * Arguments: ctl=<file> (required), out=<file> (required), mem=off (count
 * instructions only; the memory callbacks slow a run several times).
 *
 * The guest drives it by appending lines to <ctl>, which lies on the
 * share both see; a thread here reads what is new every 10 ms:
 *	window <pfn> <pages>	add guest-physical pages to the window
 *	clear			empty the window
 *	mark <label>		append "<label> <kernel window loads>
 *				<kernel window stores> <user window loads>
 *				<user window stores>" (bytes, by whether
 *				the instruction that made the access is
 *				the kernel's or user space's) and, per
 *				vCPU, "<kernel insns> <user insns>" (totals
 *				since QEMU started) to <out>
 *	zero <vcpu>		start attributing <vcpu>'s instructions to
 *				the blocks it runs, from zero
 *	dump <file>		write "<block address> <instructions>" for
 *				each block that vCPU ran since, then
 *				"done"; the guest maps the addresses to
 *				symbols (kallsyms)
 *	touchers <file>		write "<instruction address> <bytes>" for
 *				the instructions that loaded or stored
 *				window bytes since the last "clear", then
 *				"done" (an instruction translated twice may
 *				have two lines)
 * A guest that waits for its label in <out> before it goes on has
 * counts that end within one poll of the mark.
 *
 * Instructions are counted per vCPU, so that a benchmark that pins its
 * receiver to one vCPU and its sender and NAPI to another tells their
 * costs apart: each vCPU thread adds to its own counters, exactly.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* x86-64: kernel addresses are the upper half */
#define KERNEL_START	0xffff800000000000ULL
#define PAGE_SHIFT	12
/* guest-physical memory the window can cover: 64 GiB */
#define MAX_PFN		(1ULL << (36 - PAGE_SHIFT))
#define LONG_BITS	(8 * sizeof(unsigned long))

#define MAX_VCPUS	64

/* per vCPU: [0] kernel, [1] user; each written by its vCPU's thread */
static uint64_t insns[MAX_VCPUS][2];

/*
 * One per translated block, never freed (a block translated again gets
 * another): its address and size, and how often the attributed vCPU ran
 * it since the last "zero".
 */
struct block {
	uint64_t vaddr;
	uint32_t insns;
	uint32_t user;
	uint64_t runs;
	struct block *next;
};

static struct block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
/* the vCPU whose blocks are counted; MAX_VCPUS: none */
static unsigned int attr_vcpu = MAX_VCPUS;
/* bytes: [0] by kernel instructions, [1] by user ones; [.][0] loads */
static uint64_t window_bytes[2][2];

/*
 * An instruction whose memory accesses are counted, never freed. Its
 * window bytes are added without a lock; the first time it touches the
 * window after a "clear", it joins the list of touchers.
 */
struct insn {
	uint64_t vaddr;
	int user;
	int listed;
	uint64_t bytes;
	struct insn *next;
};

/* the instructions that touched the window since "clear" */
static struct insn *touchers;
static pthread_mutex_t touchers_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long *window;
static const char *ctl_path, *out_path;
static long ctl_offset;
static pthread_t ctl_thread;
static volatile int stopping;
static unsigned int vcpus;

static int in_window(uint64_t pfn)
{
	if (pfn >= MAX_PFN)
		return 0;
	return !!(__atomic_load_n(&window[pfn / LONG_BITS], __ATOMIC_RELAXED) &
		  (1UL << (pfn % LONG_BITS)));
}

static void window_set(uint64_t pfn, uint64_t pages)
{
	for (; pages && pfn < MAX_PFN; pfn++, pages--)
		__atomic_fetch_or(&window[pfn / LONG_BITS],
				  1UL << (pfn % LONG_BITS), __ATOMIC_RELAXED);
}

static void toucher_add(struct insn *in, uint64_t bytes)
{
	__atomic_fetch_add(&in->bytes, bytes, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&in->listed, 1, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&touchers_lock);
	in->next = touchers;
	touchers = in;
	pthread_mutex_unlock(&touchers_lock);
}

/* an access by instruction @udata (struct insn) */
static void vcpu_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
		     uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	struct insn *in = udata;
	uint64_t bytes;

	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	if (!in_window(qemu_plugin_hwaddr_phys_addr(hw) >> PAGE_SHIFT))
		return;
	bytes = 1ULL << qemu_plugin_mem_size_shift(info);
	__atomic_fetch_add(&window_bytes[in->user][qemu_plugin_mem_is_store(info)],
			   bytes, __ATOMIC_RELAXED);
	toucher_add(in, bytes);
}

static int count_mem = 1;

/* a block ran on @vcpu */
static void vcpu_tb_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	if (vcpu >= MAX_VCPUS)
		return;
	__atomic_store_n(&insns[vcpu][b->user], insns[vcpu][b->user] + b->insns,
			 __ATOMIC_RELAXED);
	if (vcpu == __atomic_load_n(&attr_vcpu, __ATOMIC_RELAXED))
		__atomic_store_n(&b->runs, b->runs + 1, __ATOMIC_RELAXED);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b = calloc(1, sizeof(*b));

	if (!b)
		abort();
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	b->user = b->vaddr < KERNEL_START;
	pthread_mutex_lock(&blocks_lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&blocks_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, vcpu_tb_exec,
					     QEMU_PLUGIN_CB_NO_REGS, b);
	if (!count_mem)
		return;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct insn *in = calloc(1, sizeof(*in));

		/* never freed, as the block */
		if (!in)
			abort();
		in->vaddr = qemu_plugin_insn_vaddr(insn);
		in->user = in->vaddr < KERNEL_START;
		qemu_plugin_register_vcpu_mem_cb(insn, vcpu_mem,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, in);
	}
}

static void mark(const char *label)
{
	FILE *out = fopen(out_path, "a");
	unsigned int i;

	if (!out)
		return;
	fprintf(out, "%s", label);
	for (i = 0; i < 4; i++)
		fprintf(out, " %" PRIu64,
			__atomic_load_n(&window_bytes[i / 2][i % 2],
					__ATOMIC_RELAXED));
	for (i = 0; i < vcpus; i++)
		fprintf(out, " %" PRIu64 " %" PRIu64,
			__atomic_load_n(&insns[i][0], __ATOMIC_RELAXED),
			__atomic_load_n(&insns[i][1], __ATOMIC_RELAXED));
	fputc('\n', out);
	fclose(out);
}

/* "zero <vcpu>": attribute that vCPU's blocks, from zero */
static void zero(unsigned int vcpu)
{
	struct block *b;

	__atomic_store_n(&attr_vcpu, MAX_VCPUS, __ATOMIC_RELAXED);
	pthread_mutex_lock(&blocks_lock);
	for (b = blocks; b; b = b->next)
		__atomic_store_n(&b->runs, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&blocks_lock);
	__atomic_store_n(&attr_vcpu, vcpu < MAX_VCPUS ? vcpu : MAX_VCPUS,
			 __ATOMIC_RELAXED);
}

/* "dump <file>": the attributed vCPU's instructions by block */
static void dump(const char *path)
{
	FILE *out = fopen(path, "w");
	struct block *b;
	uint64_t runs;

	if (!out)
		return;
	pthread_mutex_lock(&blocks_lock);
	for (b = blocks; b; b = b->next) {
		runs = __atomic_load_n(&b->runs, __ATOMIC_RELAXED);
		if (runs)
			fprintf(out, "%" PRIx64 " %" PRIu64 "\n", b->vaddr,
				runs * b->insns);
	}
	pthread_mutex_unlock(&blocks_lock);
	fprintf(out, "done\n");
	fclose(out);
}

/* "touchers <file>": the instructions that touched the window */
static void touchers_dump(const char *path)
{
	FILE *out = fopen(path, "w");
	struct insn *in;

	if (!out)
		return;
	pthread_mutex_lock(&touchers_lock);
	for (in = touchers; in; in = in->next)
		fprintf(out, "%" PRIx64 " %" PRIu64 "\n", in->vaddr,
			__atomic_load_n(&in->bytes, __ATOMIC_RELAXED));
	pthread_mutex_unlock(&touchers_lock);
	fprintf(out, "done\n");
	fclose(out);
}

/* "clear": an empty window, and nothing has touched it */
static void window_clear(void)
{
	memset(window, 0, MAX_PFN / 8);
	pthread_mutex_lock(&touchers_lock);
	while (touchers) {
		struct insn *in = touchers;

		touchers = in->next;
		__atomic_store_n(&in->bytes, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&in->listed, 0, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&touchers_lock);
}

/* one line of the control file */
static void command(char *line)
{
	uint64_t pfn, pages;
	char label[128], path[240];
	unsigned int vcpu;

	if (sscanf(line, "window %" SCNu64 " %" SCNu64, &pfn, &pages) == 2)
		window_set(pfn, pages);
	else if (!strncmp(line, "clear", 5))
		window_clear();
	else if (sscanf(line, "mark %127s", label) == 1)
		mark(label);
	else if (sscanf(line, "zero %u", &vcpu) == 1)
		zero(vcpu);
	else if (sscanf(line, "dump %239s", path) == 1)
		dump(path);
	else if (sscanf(line, "touchers %239s", path) == 1)
		touchers_dump(path);
}

/* what the guest appended to the control file since the last poll */
static void ctl_poll(void)
{
	char line[256];
	FILE *ctl;

	ctl = fopen(ctl_path, "r");
	if (!ctl)
		return;
	if (fseek(ctl, ctl_offset, SEEK_SET) == 0) {
		while (fgets(line, sizeof(line), ctl) &&
		       strchr(line, '\n')) {
			command(line);
			ctl_offset = ftell(ctl);
		}
	}
	fclose(ctl);
}

static void *ctl_loop(void *arg)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };

	while (!stopping) {
		ctl_poll();
		nanosleep(&tick, NULL);
	}
	return NULL;
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	stopping = 1;
	pthread_join(ctl_thread, NULL);
	ctl_poll();
	mark("exit");
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	FILE *ctl;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "ctl=", 4))
			ctl_path = argv[i] + 4;
		else if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
		else if (!strcmp(argv[i], "mem=off"))
			count_mem = 0;
		else {
			fprintf(stderr, "tcg_count: unknown argument %s\n",
				argv[i]);
			return -1;
		}
	}
	if (!ctl_path || !out_path) {
		fprintf(stderr, "tcg_count: needs ctl=<file> and out=<file>\n");
		return -1;
	}
	vcpus = info->system_emulation ? info->system.max_vcpus : 1;
	if (vcpus > MAX_VCPUS) {
		fprintf(stderr, "tcg_count: at most %d vCPUs\n", MAX_VCPUS);
		return -1;
	}
	window = calloc(MAX_PFN / LONG_BITS, sizeof(*window));
	if (!window)
		return -1;
	/* what an earlier run left in the control file is not ours */
	ctl = fopen(ctl_path, "w");
	if (!ctl) {
		perror(ctl_path);
		return -1;
	}
	fclose(ctl);
	if (pthread_create(&ctl_thread, NULL, ctl_loop, NULL))
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
