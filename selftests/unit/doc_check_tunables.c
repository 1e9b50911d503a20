// SPDX-License-Identifier: GPL-2.0
/*
 * The tunables table of Documentation/fairnvme.rst against the module's
 * own (include/fairnvme/tunables-table.h): every tunable has a row
 * whose unit, default and range are the table's, and every row is a
 * tunable. TAP. Usage: doc_check_tunables [RST], by default
 * ../../Documentation/fairnvme.rst (run from selftests/unit).
 *
 * The documentation's table is the RST simple table whose header row
 * starts with "file" right after the "Tunables" title; its columns are
 * found from its "===" rule, and a row's cells are the text of its lines
 * joined with spaces, up to the next row (a line with a name in the first
 * column).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <fairnvme/tunables.h>

#include "tap.h"

struct tunable {
	const char *name, *unit, *choices;
	enum fnv_tunable_kind kind;
	unsigned int def, min, max;
};

static const struct tunable tunables[] = {
#define FNV_TUNABLE(_name, _kind, _field, _unit, _def, _min, _max,	\
		    _choices, _apply)					\
	{ #_name, _unit, _choices, _kind, _def, _min, _max },
#include <fairnvme/tunables-table.h>
#undef FNV_TUNABLE
};

#define NT (sizeof(tunables) / sizeof(tunables[0]))

#define NCOL 5
#define LEN 512
struct row {
	char cell[NCOL][LEN];
};

static struct row rows[128];
static int nrows;

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
		s[--n] = 0;
	memmove(s, s + strspn(s, " "), strlen(s + strspn(s, " ")) + 1);
}

/* Parse the table after "Tunables\n========"; 0 on success. */
static int parse(FILE *f)
{
	char line[LEN], prev[LEN] = "";
	int start[NCOL], end[NCOL], rules = 0, in = 0, c;

	while (fgets(line, sizeof(line), f)) {
		if (!in) {
			if (!strcmp(prev, "Tunables\n") && line[0] == '=')
				in = 1;
			strcpy(prev, line);
			continue;
		}
		if (line[0] == '=' && strstr(line, "  ")) {
			if (++rules == 1) {	/* the columns */
				char *p = line;

				for (c = 0; c < NCOL; c++) {
					p += strspn(p, " ");
					start[c] = p - line;
					p += strspn(p, "=");
					end[c] = p - line;
				}
				end[NCOL - 1] = LEN - 1;
			}
			if (rules == 3)
				return 0;
			continue;
		}
		if (rules < 2 || line[0] == '\n')
			continue;
		if (line[0] != ' ') {
			if (nrows == 128)
				return -1;
			memset(&rows[nrows++], 0, sizeof(struct row));
		}
		if (!nrows)
			return -1;
		for (c = 0; c < NCOL; c++) {
			char cell[LEN] = "";
			char *dst = rows[nrows - 1].cell[c];
			int n = (int)strlen(line);

			if (start[c] < n)
				snprintf(cell, sizeof(cell), "%.*s",
					 (c < NCOL - 1 ? end[c] : n) - start[c],
					 line + start[c]);
			trim(cell);
			if (!*cell)
				continue;
			if (*dst && strlen(dst) + strlen(cell) + 2 < LEN)
				strcat(dst, " ");
			if (strlen(dst) + strlen(cell) + 1 < LEN)
				strcat(dst, cell);
		}
	}
	return -1;
}

static const struct row *find(const char *name)
{
	int i;

	for (i = 0; i < nrows; i++)
		if (!strcmp(rows[i].cell[0], name))
			return &rows[i];
	return NULL;
}

/* The @i-th word of the space-separated @list into @w. */
static int word(const char *list, unsigned int i, char *w, size_t n)
{
	while (i--) {
		list = strchr(list, ' ');
		if (!list)
			return -1;
		list++;
	}
	snprintf(w, n, "%.*s", (int)strcspn(list, " "), list);
	return 0;
}

int main(int argc, char **argv)
{
	const char *doc = argc > 1 ? argv[1] :
			  "../../Documentation/fairnvme.rst";
	FILE *f;
	unsigned int i, j;
	int parsed;

	/* the table parses, 2 a tunable, the table has no other row */
	tap_plan(1 + 2 * NT + 1);
	f = fopen(doc, "r");
	parsed = f && !parse(f);
	if (f)
		fclose(f);
	tap_result(parsed, "the tunables table of %s parses (%d rows)", doc,
		   nrows);
	for (i = 0; i < NT; i++) {
		const struct tunable *t = &tunables[i];
		const struct row *r = find(t->name);
		char def[64], range[128], w[64];

		if (!r) {
			tap_result(0, "%s is in the table", t->name);
			tap_result(0, "%s: default and range", t->name);
			continue;
		}
		switch (t->kind) {
		case FNV_TK_U32:
			snprintf(def, sizeof(def), "%u", t->def);
			snprintf(range, sizeof(range), "%u .. %u", t->min,
				 t->max);
			break;
		case FNV_TK_AUTO:
			strcpy(def, "auto");
			snprintf(range, sizeof(range), "auto, %u .. %u",
				 t->min, t->max);
			break;
		default:
			word(t->choices, t->def, def, sizeof(def));
			range[0] = 0;
			for (j = 0; !word(t->choices, j, w, sizeof(w)); j++)
				snprintf(range + strlen(range),
					 sizeof(range) - strlen(range),
					 "%s%s", j ? ", " : "", w);
		}
		tap_result(!strcmp(r->cell[1], t->unit),
			   "%s: unit '%s' (table: '%s')", t->name, t->unit,
			   r->cell[1]);
		/* the range may go on with a constraint (", < thresh_max") */
		tap_result(!strcmp(r->cell[2], def) &&
			   !strncmp(r->cell[3], range, strlen(range)) &&
			   (!r->cell[3][strlen(range)] ||
			    r->cell[3][strlen(range)] == ','),
			   "%s: default %s, range %s (table: %s, %s)", t->name,
			   def, range, r->cell[2], r->cell[3]);
	}
	/* and nothing else: read-only state is documented under debugfs */
	for (i = 0, j = 0; i < (unsigned int)nrows; i++) {
		unsigned int k;

		for (k = 0; k < NT; k++)
			if (!strcmp(rows[i].cell[0], tunables[k].name))
				break;
		if (k == NT) {
			tap_diag("row '%s' is not a tunable", rows[i].cell[0]);
			j++;
		}
	}
	tap_result(!j && nrows == (int)NT,
		   "the table has the %zu tunables and no other row", NT);
	return tap_done();
}
