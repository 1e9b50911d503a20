/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space doubly linked list with the API of <linux/list.h>, limited to
 * the calls the fairnvme policy core makes (see types.h).
 */
#ifndef FNV_SHIM_LIST_H
#define FNV_SHIM_LIST_H

#include <linux/types.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}

static inline void __list_link(struct list_head *n, struct list_head *prev,
			       struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *h)
{
	__list_link(n, h, h->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	__list_link(n, h->prev, h);
}

static inline void __list_unlink(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
}

static inline void list_del_init(struct list_head *e)
{
	__list_unlink(e);
	INIT_LIST_HEAD(e);
}

static inline void list_move_tail(struct list_head *e, struct list_head *h)
{
	__list_unlink(e);
	list_add_tail(e, h);
}

static inline int list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void list_splice_init(struct list_head *from,
				    struct list_head *to)
{
	if (list_empty(from))
		return;
	from->next->prev = to;
	from->prev->next = to->next;
	to->next->prev = from->prev;
	to->next = from->next;
	INIT_LIST_HEAD(from);
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_last_entry(h, type, member) \
	list_entry((h)->prev, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)
#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)

#endif
