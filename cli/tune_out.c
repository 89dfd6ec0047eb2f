/* SPDX-License-Identifier: BSD-3-Clause */
/* cli/tune_out.c — the files of `cclab tune`: --json, the whole table as
 * one object (docs/tune.md lists its keys), and --csv, one line per size
 * x candidate; both hold every candidate, whatever --all says.  Both
 * are written from the finished table, in candidate order, with the JSON
 * writer's exact integers and shortest doubles, so the same scenario
 * gives byte-identical files. */
#include <inttypes.h>

#include "cli/check.h"
#include "cli/tune.h"
#include "core/dtype.h"
#include "sim/scenario.h"

/* A candidate's algorithm, protocol and transport keys, then its
 * channels and ring order (null but for the ring). */
static void json_cand(struct cc_json *j, const struct tune *t, const struct tune_cand *k)
{
	const struct tune_variant *v = &t->variants[k->variant];

	cc_json_kv_string(j, "algorithm", cc_algo_name[k->algo]);
	cc_json_kv_string(j, "protocol", cc_proto_name[k->proto]);
	cc_json_kv_string(j, "transport", cc_transport_name[k->transport]);
	cc_json_kv_uint(j, "channels", v->channels);
	cc_json_kv_string(j, "ring_order",
			  v->algo == CC_ALGO_RING ? cc_ring_order_name[v->order] : NULL);
}

/* The best or the runner-up: an object, or null when there is none. */
static void json_pick(struct cc_json *j, const struct tune *t, const struct tune_size *z, int c)
{
	double busbw = 0;
	bool have;

	if (c < 0) {
		cc_json_null(j);
		return;
	}
	have = tune_busbw(t, z, c, &busbw);
	cc_json_object_begin(j);
	json_cand(j, t, &t->cand[c]);
	cc_json_kv_double(j, "time_us", tune_us(z->cell[c].time_ps));
	cli_json_double_or_null(j, "busbw_gbps", have, busbw);
	cc_json_object_end(j);
}

static void json_size(struct cc_json *j, const struct tune *t, const struct tune_size *z)
{
	double pct = 0;
	bool margin = tune_margin(z, &pct);

	cc_json_object_begin(j);
	cc_json_kv_uint(j, "bytes", z->bytes);
	cc_json_kv_uint(j, "count", z->count);
	cc_json_key(j, "best");
	json_pick(j, t, z, z->best);
	cc_json_key(j, "runner_up");
	json_pick(j, t, z, z->second);
	cli_json_double_or_null(j, "margin_pct", margin, pct);
	char n[CC_NCCL_PICK_TEXT_LEN];

	cc_json_kv_string(j, "nccl", tune_nccl_text(t, z, n, sizeof(n)));
	cc_json_key(j, "times");
	cc_json_array_begin(j);
	for (int c = 0; c < t->ncand; c++) {
		const struct tune_cell *cell = &z->cell[c];

		cc_json_object_begin(j);
		json_cand(j, t, &t->cand[c]);
		cli_json_double_or_null(j, "time_us", cell->state == TUNE_OK, tune_us(cell->time_ps));
		cc_json_kv_string(j, "status", cell->status);
		cc_json_object_end(j);
	}
	cc_json_array_end(j);
	cc_json_object_end(j);
}

int tune_json_write(const struct tune *t, struct cc_atomic_file *af, bool ok)
{
	const struct cc_scenario *sc = t->sc;
	struct cc_json j;
	int err;

	cc_json_init(&j);
	cli_json_head(&j, "tune");
	cc_json_kv_string(&j, "executor", "sim");
	if (*sc->file)
		cc_json_kv_string(&j, "scenario", sc->name);
	else /* sim's options (tune_scenario()) */
		cc_json_kv_null(&j, "scenario");
	cc_json_kv_string(&j, "fabric", sc->fabric.name);
	cc_json_kv_string(&j, "topology", sc->net.name);
	cc_json_kv_string(&j, "collective", cc_coll_name[sc->p.coll]);
	cc_json_kv_uint(&j, "nranks", sc->p.nranks);
	cc_json_kv_string(&j, "dtype", cc_dtype_name[sc->p.dtype]);
	cc_json_kv_string(&j, "redop", cli_redop_label(&sc->p));
	cc_json_kv_uint(&j, "seed", sc->seed);
	cc_json_kv_bool(&j, "check", false);
	cc_json_kv_uint(&j, "nslots", sc->p.nslots);
	cc_json_key(&j, "protocols");
	cc_json_array_begin(&j);
	for (int pr = 0; pr < CC_PROTO_COUNT; pr++) {
		cc_json_object_begin(&j);
		cc_json_kv_string(&j, "protocol", cc_proto_name[pr]);
		cc_json_kv_uint(&j, "slot_bytes", t->slot_bytes[pr]);
		cc_json_kv_uint(&j, "chunk_bytes", t->chunk_bytes[pr]);
		cc_json_object_end(&j);
	}
	cc_json_array_end(&j);
	/* true: the tree's Simple and LL128 chunks are NCCL's per size, not
	 * chunk_bytes */
	cc_json_kv_bool(&j, "tree_chunk_per_size", !t->sc->chunk_given);
	cc_json_key(&j, "candidates");
	cc_json_array_begin(&j);
	for (int c = 0; c < t->ncand; c++) {
		const struct tune_cand *k = &t->cand[c];

		cc_json_object_begin(&j);
		cc_json_kv_string(&j, "name", k->name);
		json_cand(&j, t, k);
		cc_json_kv_bool(&j, "applicable", !k->refused);
		cc_json_kv_string(&j, "reason", k->refused ? k->reason : NULL);
		cc_json_object_end(&j);
	}
	cc_json_array_end(&j);
	cc_json_key(&j, "sizes");
	cc_json_array_begin(&j);
	for (uint32_t i = 0; i < t->nsizes; i++)
		json_size(&j, t, &t->sizes[i]);
	/* cli_json_end() closes "sizes", adds "ok" and writes the file. */
	err = cli_json_end(&j, af, ok);
	cc_json_free(&j);
	return err;
}

void tune_csv_write(const struct tune *t, FILE *f)
{
	fputs("size_bytes,algorithm,protocol,transport,time_us,busbw_gbps,best,channels,"
	      "ring_order\n", f);
	for (uint32_t i = 0; i < t->nsizes; i++) {
		const struct tune_size *z = &t->sizes[i];

		for (int c = 0; c < t->ncand; c++) {
			const struct tune_cand *k = &t->cand[c];
			const struct tune_variant *v = &t->variants[k->variant];
			double busbw;

			fprintf(f, "%" PRIu64 ",%s,%s,%s,", z->bytes, cc_algo_name[k->algo],
				cc_proto_name[k->proto], cc_transport_name[k->transport]);
			/* Picoseconds are exact with six decimals of a microsecond. */
			if (z->cell[c].state == TUNE_OK)
				fprintf(f, "%.6f", tune_us(z->cell[c].time_ps));
			fputc(',', f);
			if (tune_busbw(t, z, c, &busbw))
				fprintf(f, "%.6g", busbw);
			fprintf(f, ",%d,%" PRIu32 ",%s\n", c == z->best, v->channels,
				v->algo == CC_ALGO_RING ? cc_ring_order_name[v->order] : "");
		}
	}
}
