/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/p2p_files.c — the report files of a p2p sweep, whichever executor
 * ran it (the simulator, cli/p2p_run.c; a device, cli/p2p_verbs.c): --json
 * and --csv opened before the first size (an unwritable path fails at
 * once), a row each per size, committed atomically at the end or dropped;
 * --trace of the last size; perftest's --out_json of the last completed
 * size (cli/perftest_json.c). */
#include "cli/check.h"
#include "cli/p2p.h"

int p2p_write_trace(const struct p2p_opts *o, const struct cc_trace *tr)
{
	int err = cc_trace_write(tr, o->trace);

	return err ? cli_output_error(p2p_cmd(o), o->trace, err) : 0;
}

int p2p_files_open(const struct p2p_opts *o, struct p2p_files *f)
{
	struct cc_atomic_file *jf = &f->jf, *cf = &f->cf;
	int rc;

	if ((rc = cli_output_check(p2p_cmd(o), o->trace)) ||
	    (rc = cli_output_check(p2p_cmd(o), o->out_json)))
		return rc;
	if (o->json && (rc = cli_output_open(p2p_cmd(o), o->json, jf)))
		return rc;
	if (o->csv && (rc = cli_output_open(p2p_cmd(o), o->csv, cf))) {
		if (o->json)
			cc_atomic_abort(jf);
		return rc;
	}
	cc_json_init(&f->j);
	if (o->json)
		p2p_json_begin(&f->j, o);
	if (o->csv) {
		f->csv = cf->f;
		p2p_csv_header(f->csv);
	}
	return 0;
}

void p2p_files_row(struct p2p_files *f, const struct p2p_opts *o, const struct p2p_row *row)
{
	if (o->json)
		p2p_json_size(&f->j, o, row);
	if (f->csv)
		p2p_csv_row(f->csv, o, row);
	if (!row->failed) {
		f->last = *row;
		f->have_last = true;
	}
}

/* Commits the report files of a completed sweep (rc 0), else drops them. */
int p2p_files_close(const struct p2p_opts *o, struct p2p_files *f, int rc, bool all_ok)
{
	struct cc_atomic_file *jf = &f->jf, *cf = &f->cf;
	const char *bad = NULL;
	int err = 0;

	if (rc) {
		cc_json_free(&f->j);
		if (o->json)
			cc_atomic_abort(jf);
		if (o->csv)
			cc_atomic_abort(cf);
		return rc;
	}
	if (o->csv && (err = cc_atomic_commit(cf)))
		bad = o->csv;
	if (o->json && bad)
		cc_atomic_abort(jf);
	else if (o->json && (err = cli_json_end(&f->j, jf, all_ok)))
		bad = o->json;
	cc_json_free(&f->j);
	if (bad)
		return cli_output_error(p2p_cmd(o), bad, err);
	return o->out_json && f->have_last ? perftest_json_write(o, &f->last) : 0;
}

