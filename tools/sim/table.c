// SPDX-License-Identifier: GPL-2.0
/* The side-by-side table: see table.h. */
#include "table.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bound.h"
#include "epoch.h"
#include "errbuf.h"
#include "gen.h"
#include "oracle.h"

#define NFRAC		2
#define NCONT		2
#define ORACLE		POL_COUNT	/* its column in a scenario's rows */
#define NROWS		(POL_COUNT + 1)
#define PHASE_LOCAL	0.25
#define PHASE_CONT	0.5
#define SETTLE_TOL	1.10

static const double fracs[NFRAC] = { 0.25, 0.5 };
static const double conts[NCONT] = { 0.0, 0.5 };

struct workload {
	char name[64];
	struct trace t;
	unsigned int repeat;
	int kind;			/* enum gen_kind; -1: a real trace */
};

struct cell {
	struct sim_result r;
	unsigned int arm;		/* fixed: the best arm */
};

struct scen {
	struct cell c[NROWS];
	double bound_ns;		/* bound.h; NAN where there is none */
};

/* wall-clock seconds */
static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int table_run_one(const struct trace *t, const struct sim_params *p,
		  const struct pol_cfg *c, struct sim_result *r, char *err,
		  size_t errlen)
{
	struct sim_policy pol;
	char buf[256] = "";
	int ret, fret;

	if (err && errlen)
		*err = '\0';
	if (c->kind < 0)
		return oracle_run(t, p, r);
	ret = pol_create(&pol, c, p, t->npages, buf, sizeof(buf));
	if (!ret) {
		ret = sim_run(t, p, &pol, r);
		/* a model that could not be saved: its own errno and reason */
		fret = pol_finish(&pol, ret ? NULL : buf, ret ? 0 : sizeof(buf));
		if (!ret)
			ret = fret;
	}
	if (ret && err && errlen)
		snprintf(err, errlen, "%s", buf);
	return ret;
}

struct speed {
	double secs, recs;		/* policies' runs */
	double osecs, orecs;		/* the oracle's */
};

static int run_scen(const struct workload *w, double frac, double cont,
		    unsigned int threads, uint64_t seed, struct scen *s,
		    struct speed *sp)
{
	struct act_grid g;
	struct sim_params p;
	unsigned int a, k;
	double t0;
	int ret;

	sim_params_default(&p);
	p.local_frac = frac;
	p.link.contention = cont;
	p.repeat = w->repeat;
	p.threads = threads;
	p.seed = seed;
	if (w->kind < 0 || bound_online(&p, w->kind, w->t.npages, w->t.n, &s->bound_ns))
		s->bound_ns = NAN;
	pol_grid(&g);
	for (k = 0; k <= ORACLE; k++) {
		struct pol_cfg c = { .kind = k == ORACLE ? -1 : (int)k,
				     .warmup = EPOCH_WARMUP_DEFAULT };
		struct cell *cell = &s->c[k];
		unsigned int narms = k == POL_FIXED ? actions_count(&g) : 1;

		for (a = 0; a < narms; a++) {
			struct sim_result r;

			c.arm = a;
			t0 = wall();
			ret = table_run_one(&w->t, &p, &c, &r, NULL, 0);
			if (ret)
				return ret;
			if (k == ORACLE) {
				sp->osecs += wall() - t0;
				sp->orecs += (double)r.accesses;
			} else {
				sp->secs += wall() - t0;
				sp->recs += (double)r.accesses;
			}
			if (a == 0 || r.stall_ns < cell->r.stall_ns) {
				cell->r = r;
				cell->arm = a;
			}
		}
	}
	return 0;
}

/* a file's name as a CSV field and a Markdown cell: no separators in it */
static void name_clean(char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-+", *s))
			*s = '_';
}

/* a real trace's workload: its file's base name up to the first dot */
static void real_name(const char *path, char *name, size_t len)
{
	const char *base = strrchr(path, '/');

	snprintf(name, len, "%s", base ? base + 1 : path);
	*strchrnul(name, '.') = '\0';
	name_clean(name);
}

/*
 * Two workloads of one name (dir1/redis.trace and dir2/redis.trace, or
 * gups.trace and the synthetic gups) would give rows in the results that
 * nobody can tell apart: refused, naming both, before minutes of runs.
 */
static int names_unique(const struct workload *w, size_t n,
			const struct table_opts *o, char *err, size_t errlen)
{
	size_t i, j;

	for (j = GEN_COUNT; j < n; j++)
		for (i = 0; i < j; i++) {
			if (strcmp(w[i].name, w[j].name))
				continue;
			if (i < GEN_COUNT)
				return errbuf_set(err, errlen, -EINVAL,
						  "%s: workload '%s' is a synthetic one's name; rename the file",
						  o->real[j - GEN_COUNT], w[j].name);
			return errbuf_set(err, errlen, -EINVAL,
					  "%s and %s: both would be workload '%s'; rename one",
					  o->real[i - GEN_COUNT], o->real[j - GEN_COUNT],
					  w[j].name);
		}
	return 0;
}

static int load_workloads(const struct table_opts *o, struct workload **out,
			  size_t *nout, char *err, size_t errlen)
{
	size_t n = GEN_COUNT + o->nreal, i;
	struct workload *w = calloc(n, sizeof(*w));
	int ret;

	if (!w)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		w[i].kind = i < GEN_COUNT ? (int)i : -1;
		if (i < GEN_COUNT)
			snprintf(w[i].name, sizeof(w[i].name), "%s", gen_name((int)i));
		else
			real_name(o->real[i - GEN_COUNT], w[i].name, sizeof(w[i].name));
	}
	ret = names_unique(w, n, o, err, errlen);
	for (i = 0; i < n && !ret; i++) {
		if (i < GEN_COUNT) {
			w[i].repeat = 1;
			ret = gen_trace(&w[i].t, (int)i, o->npages, o->n, o->seed + i);
		} else {
			w[i].repeat = o->real_repeat;
			ret = trace_load(&w[i].t, o->real[i - GEN_COUNT], err, errlen);
		}
	}
	if (ret) {
		while (i-- > 0)
			trace_free(&w[i].t);
		free(w);
		return ret;
	}
	*out = w;
	*nout = n;
	return 0;
}

/* the bandit's thresholds over a phase change, and how fast it settles */
struct settle {
	unsigned int change_epoch[GEN_PHASES];
	int settle[GEN_PHASES];		/* epochs; -1: never */
};

static double per_access(const struct pol_log *l, size_t e)
{
	double ds = l->rec[e].stall_ns - (e ? l->rec[e - 1].stall_ns : 0);
	double da = (double)(l->rec[e].accesses - (e ? l->rec[e - 1].accesses : 0));

	return da > 0 ? ds / da : 0;
}

static void settling(const struct pol_log *l, uint64_t n, struct settle *st)
{
	size_t e = 0, end, k, j;

	for (k = 1; k < GEN_PHASES; k++) {
		uint64_t at = n * k / GEN_PHASES, next = n * (k + 1) / GEN_PHASES;
		double steady = 0;
		size_t tail;

		while (e < l->n && l->rec[e].accesses < at)
			e++;
		for (end = e; end < l->n && l->rec[end].accesses < next; end++)
			;
		st->change_epoch[k] = (unsigned int)e;
		st->settle[k] = -1;
		if (end <= e + 4)
			continue;
		tail = (end - e) / 4;
		for (j = end - tail; j < end; j++)
			steady += per_access(l, j) / (double)tail;
		/* epoch e holds the change itself, mostly at the old phase's cost */
		for (j = e + 1; j < end; j++)
			if (per_access(l, j) <= SETTLE_TOL * steady) {
				st->settle[k] = (int)(j - e);
				break;
			}
	}
}

/* NAN where @b is 0: no value, least of all 0 (a perfect one) */
static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

/* a ratio's Markdown cell: "n/a" where it has no value */
static const char *md_ratio(char *buf, size_t len, double r)
{
	if (isnan(r))
		return "n/a";
	snprintf(buf, len, "%.2f", r);
	return buf;
}

/*
 * Warm start: the bandit trained (indigo-sim train) on another draw of the
 * same synthetic workload, then run on the table's; against the cold
 * bandit and TPP at PHASE_LOCAL and PHASE_CONT.
 */
static int warm_section(FILE *md, const struct workload *w,
			const struct table_opts *o, const struct scen *s,
			char *err, size_t errlen)
{
	char model[4096], why[1024] = "";
	size_t i;
	int ret = 0;

	snprintf(model, sizeof(model), "%s/.sim-warm.model", o->outdir);
	fprintf(md, "\n## Warm start\n\nThe bandit trained with `indigo-sim train` on "
		"another draw (seed + 100) of the same workload, then started from that "
		"model; local %.0f %%, contention %.0f %%:\n\n"
		"| workload | cold bandit / tpp | warm bandit / tpp | warm / cold |\n"
		"|---|---:|---:|---:|\n", PHASE_LOCAL * 100, PHASE_CONT * 100);
	for (i = 0; i < GEN_COUNT && !ret; i++) {
		const struct scen *sc = &s[(i * NFRAC + 0) * NCONT + 1];
		struct pol_cfg c = { .kind = POL_BANDIT, .warmup = EPOCH_WARMUP_DEFAULT };
		struct sim_params p;
		struct sim_result r;
		struct trace t;

		sim_params_default(&p);
		p.local_frac = PHASE_LOCAL;
		p.link.contention = PHASE_CONT;
		p.seed = o->seed;
		ret = gen_trace(&t, (int)i, o->npages, o->n, o->seed + i + 100);
		if (ret)
			break;
		c.model_out = model;
		ret = table_run_one(&t, &p, &c, &r, why, sizeof(why));
		trace_free(&t);
		c.model_out = NULL;
		c.model_in = model;
		if (!ret)
			ret = table_run_one(&w[i].t, &p, &c, &r, why, sizeof(why));
		/* the model file's own reason, as run and train report it */
		if (ret)
			errbuf_set(err, errlen, ret, "warm start, %s: %s", w[i].name,
				   *why ? why : strerror(-ret));
		else
			fprintf(md, "| %s | %.2f | %.2f | %.2f |\n", w[i].name,
				ratio(sc->c[POL_BANDIT].r.stall_ns, sc->c[POL_TPP].r.stall_ns),
				ratio(r.stall_ns, sc->c[POL_TPP].r.stall_ns),
				ratio(r.stall_ns, sc->c[POL_BANDIT].r.stall_ns));
		unlink(model);
	}
	return ret;
}

/* the run of bandit @kind on the phase workload; @dat (or NULL) gets its log */
static int phase_run(const struct workload *w, const struct table_opts *o,
		     int kind, FILE *dat, struct settle *st)
{
	struct pol_log l = { 0 };
	struct pol_cfg c = { .kind = kind, .warmup = EPOCH_WARMUP_DEFAULT,
			     .log = &l };
	struct sim_params p;
	struct sim_result r;
	size_t e;
	int ret;

	sim_params_default(&p);
	p.local_frac = PHASE_LOCAL;
	p.link.contention = PHASE_CONT;
	p.seed = o->seed;
	ret = table_run_one(&w->t, &p, &c, &r, NULL, 0);
	if (!ret)
		settling(&l, w->t.n, st);
	if (!ret && dat) {
		fprintf(dat, "# epoch t_ms rate_min_mhz burst_min_ms arm ns_per_access phase\n");
		for (e = 0; e < l.n; e++)
			fprintf(dat, "%zu %.1f %" PRIu32 " %" PRIu32 " %u %.1f %" PRIu64 "\n",
				e, l.rec[e].t_ns / 1e6, l.rec[e].rate_min_mhz,
				l.rec[e].burst_min_ms, l.rec[e].arm, per_access(&l, e),
				l.rec[e].accesses * GEN_PHASES / w->t.n);
	}
	free(l.rec);
	return ret;
}

static const char *row_name(unsigned int k)
{
	return k == ORACLE ? "oracle" : pol_name((int)k);
}

static void write_csv(FILE *f, const struct workload *w, size_t nw,
		      const struct scen *s)
{
	size_t i, fi, ci, k;

	fprintf(f, "workload,local_frac,contention,policy,stall_ms,stall_over_oracle,promotions,demotions,link_mb,time_ms,fixed_arm\n");
	for (i = 0; i < nw; i++)
		for (fi = 0; fi < NFRAC; fi++)
			for (ci = 0; ci < NCONT; ci++) {
				const struct scen *sc = &s[(i * NFRAC + fi) * NCONT + ci];

				for (k = 0; k < NROWS; k++) {
					const struct sim_result *r = &sc->c[k].r;

					fprintf(f, "%s,%.2f,%.2f,%s,%.3f,%.3f,%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,",
						w[i].name, fracs[fi], conts[ci], row_name((unsigned int)k),
						r->stall_ns / 1e6,
						ratio(r->stall_ns, sc->c[ORACLE].r.stall_ns),
						r->promotions, r->demotions, r->link_bytes / 1e6,
						r->time_ns / 1e6);
					if (k == POL_FIXED)
						fprintf(f, "%u", sc->c[k].arm);
					fputc('\n', f);
				}
				/* a bound, not a run: no migrations, no time */
				if (!isnan(sc->bound_ns))
					fprintf(f, "%s,%.2f,%.2f,online-bound,%.3f,%.3f,,,,,\n",
						w[i].name, fracs[fi], conts[ci], sc->bound_ns / 1e6,
						ratio(sc->bound_ns, sc->c[ORACLE].r.stall_ns));
			}
}

static void write_tables(FILE *f, const struct workload *w, size_t nw,
			 const struct scen *s, unsigned int threads)
{
	struct act_grid g;
	size_t i, fi, ci, k;

	pol_grid(&g);
	for (i = 0; i < nw; i++) {
		fprintf(f, "\n### %s (%u pages, %" PRIu64 " records%s, %u thread%s)\n\n",
			w[i].name, w[i].t.npages, w[i].t.n,
			w[i].repeat > 1 ? ", walked repeatedly" : "", threads,
			threads > 1 ? "s" : "");
		fprintf(f, "| local | contention | policy | stall ms | x oracle | promotions | link MB |\n");
		fprintf(f, "|---|---|---|---:|---:|---:|---:|\n");
		for (fi = 0; fi < NFRAC; fi++)
			for (ci = 0; ci < NCONT; ci++) {
				const struct scen *sc = &s[(i * NFRAC + fi) * NCONT + ci];

				for (k = 0; k < NROWS; k++) {
					const struct sim_result *r = &sc->c[k].r;
					char name[64];

					if (k == POL_FIXED) {
						unsigned int arm = sc->c[k].arm;
						struct act_policy a;

						actions_policy(&g, arm, 0, 0, 0, 0, &a);
						if (arm == actions_deny_arm(&g))
							snprintf(name, sizeof(name), "best fixed (deny)");
						else if (arm == actions_fill_arm(&g))
							snprintf(name, sizeof(name), "best fixed (fill)");
						else
							snprintf(name, sizeof(name), "best fixed (%u mHz, %u ms)",
								 a.rate_min_mhz, a.burst_min_ms);
					} else {
						snprintf(name, sizeof(name), "%s", row_name((unsigned int)k));
					}
					fprintf(f, "| %.0f %% | %.0f %% | %s | %.2f | %.2f | %" PRIu64 " | %.1f |\n",
						fracs[fi] * 100, conts[ci] * 100, name,
						r->stall_ns / 1e6,
						ratio(r->stall_ns, sc->c[ORACLE].r.stall_ns),
						r->promotions, r->link_bytes / 1e6);
				}
				if (!isnan(sc->bound_ns))
					fprintf(f, "| %.0f %% | %.0f %% | online bound | %.2f | %.2f | | |\n",
						fracs[fi] * 100, conts[ci] * 100, sc->bound_ns / 1e6,
						ratio(sc->bound_ns, sc->c[ORACLE].r.stall_ns));
			}
	}
}

/* the goals of issue 5, on the synthetic workloads */
static void write_goals(FILE *f, const struct workload *w, size_t nw,
			const struct scen *s, int b)
{
	const char *bn = pol_name(b);
	size_t i, fi;

	fprintf(f, "\n| local | workload | %s / tpp, 50 %% contention (goal <= 0.70) | %s / oracle, 50 %% (goal <= 1.15) | promotions %s / tpp, 50 %% (goal <= 0.75) | %s / tpp, no contention (goal <= 1.05) |\n",
		bn, bn, bn, bn);
	fprintf(f, "|---|---|---:|---:|---:|---:|\n");
	for (fi = 0; fi < NFRAC; fi++) {
		unsigned int met1 = 0, met2 = 0, met3 = 0, met4 = 0, nsyn = 0;

		for (i = 0; i < nw; i++) {
			char p3[16];
			const struct scen *c0 = &s[(i * NFRAC + fi) * NCONT + 0];
			const struct scen *c5 = &s[(i * NFRAC + fi) * NCONT + 1];
			double r1 = ratio(c5->c[b].r.stall_ns, c5->c[POL_TPP].r.stall_ns);
			double r2 = ratio(c5->c[b].r.stall_ns, c5->c[ORACLE].r.stall_ns);
			double r3 = ratio((double)c5->c[b].r.promotions,
					  (double)c5->c[POL_TPP].r.promotions);
			double r4 = ratio(c0->c[b].r.stall_ns, c0->c[POL_TPP].r.stall_ns);

			/*
			 * r3 has no value where TPP promoted nothing (it meets no
			 * goal then); stalls are never 0, every access costs
			 */
			if (w[i].kind >= 0) {
				nsyn++;
				met1 += r1 <= 0.70;
				met2 += r2 <= 1.15;
				met3 += r3 <= 0.75;
				met4 += r4 <= 1.05;
			}
			fprintf(f, "| %.0f %% | %s%s | %.2f | %.2f | %s | %.2f |\n",
				fracs[fi] * 100, w[i].name, w[i].kind >= 0 ? "" : " (real)",
				r1, r2, md_ratio(p3, sizeof(p3), r3), r4);
		}
		fprintf(f, "| %.0f %% | **synthetic: goals met** | %u of %u (goal: 3) | %u of %u | %u of %u | %u of %u (goal: all) |\n",
			fracs[fi] * 100, met1, nsyn, met2, nsyn, met3, nsyn, met4, nsyn);
	}
}

/*
 * What no online policy can beat (bound.h), against the goals: where
 * bound / tpp exceeds 0.70, no policy can be 30 % below TPP there.
 */
static void write_bound_goals(FILE *f, const struct workload *w, size_t nw,
			      const struct scen *s)
{
	size_t i, fi;

	fprintf(f, "\n| local | workload | bound / tpp, 50 %% contention (goal needs <= 0.70) | bound / oracle, 50 %% (goal needs <= 1.15) | bandit / bound, 50 %% | fixed / bound, 50 %% | bound / tpp, no contention |\n");
	fprintf(f, "|---|---|---:|---:|---:|---:|---:|\n");
	for (fi = 0; fi < NFRAC; fi++) {
		unsigned int out1 = 0, out2 = 0, nb = 0, nsyn = 0;

		for (i = 0; i < nw; i++) {
			const struct scen *c0 = &s[(i * NFRAC + fi) * NCONT + 0];
			const struct scen *c5 = &s[(i * NFRAC + fi) * NCONT + 1];
			double r1 = ratio(c5->bound_ns, c5->c[POL_TPP].r.stall_ns);
			double r2 = ratio(c5->bound_ns, c5->c[ORACLE].r.stall_ns);

			nsyn += w[i].kind >= 0;
			if (isnan(c5->bound_ns))
				continue;
			nb++;
			out1 += r1 > 0.70;
			out2 += r2 > 1.15;
			fprintf(f, "| %.0f %% | %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
				fracs[fi] * 100, w[i].name, r1, r2,
				ratio(c5->c[POL_BANDIT].r.stall_ns, c5->bound_ns),
				ratio(c5->c[POL_FIXED].r.stall_ns, c5->bound_ns),
				ratio(c0->bound_ns, c0->c[POL_TPP].r.stall_ns));
		}
		fprintf(f, "| %.0f %% | **out of reach for every policy** | on %u of %u: at most %u of %u synthetic workloads can meet it (goal: 3) | on %u of %u: at most %u of %u | | | |\n",
			fracs[fi] * 100, out1, nb, nsyn - out1, nsyn, out2, nb,
			nsyn - out2, nsyn);
	}
}

static void write_settle(FILE *f, const struct settle *st, int kind)
{
	size_t k;

	fprintf(f, "\nPhase change (workload `phase`, local %.0f %%, contention %.0f %%): "
		"epochs until %s's stall per access is within %.0f %% of the "
		"level it reaches at the end of the phase (goal: <= 10):",
		PHASE_LOCAL * 100, PHASE_CONT * 100, pol_name(kind),
		(SETTLE_TOL - 1) * 100);
	for (k = 1; k < GEN_PHASES; k++)
		fprintf(f, " change %zu (epoch %u): %d%s", k, st->change_epoch[k],
			st->settle[k], k + 1 < GEN_PHASES ? ";" : ".\n");
}

/*
 * The table's files, written as NAME.tmp and renamed over the last ones
 * only once all are whole: a run that fails (a model that cannot be saved,
 * a full disk) leaves the last results as they were.
 */
enum { OUT_MD, OUT_CSV, OUT_STALL, OUT_PHASE, OUT_N };
static const char *const out_names[OUT_N] = {
	"sim.md", "sim.csv", "sim-stall.dat", "sim-phase.dat",
};

static void out_path(char *path, size_t len, const char *dir, int i, bool tmp)
{
	snprintf(path, len, "%s/%s%s", dir, out_names[i], tmp ? ".tmp" : "");
}

static int outputs_open(const char *dir, FILE *f[OUT_N], char *err,
			size_t errlen)
{
	char path[4096];
	int i, ret;

	for (i = 0; i < OUT_N; i++) {
		out_path(path, sizeof(path), dir, i, true);
		f[i] = fopen(path, "w");
		if (!f[i]) {
			ret = -errno;
			while (i-- > 0) {
				fclose(f[i]);
				out_path(path, sizeof(path), dir, i, true);
				unlink(path);
			}
			return errbuf_set(err, errlen, ret, "%s: %s", path,
					  strerror(-ret));
		}
	}
	return 0;
}

/* Closes the files; with @keep (and every write whole), puts them in place. */
static int outputs_close(const char *dir, FILE *f[OUT_N], bool keep,
			 char *err, size_t errlen)
{
	char tmp[4096], path[4096];
	int i, ret = 0;

	for (i = 0; i < OUT_N; i++) {
		out_path(tmp, sizeof(tmp), dir, i, true);
		if ((ferror(f[i]) | fclose(f[i])) && keep && !ret)
			ret = errbuf_set(err, errlen, errno ? -errno : -EIO,
					 "%s: %s", tmp, strerror(errno ? errno : EIO));
	}
	for (i = 0; i < OUT_N; i++) {
		out_path(tmp, sizeof(tmp), dir, i, true);
		out_path(path, sizeof(path), dir, i, false);
		if (!keep || ret)
			unlink(tmp);
		else if (rename(tmp, path))
			ret = errbuf_set(err, errlen, -errno, "%s: %s", path,
					 strerror(errno));
	}
	return ret;
}

static void write_stall_dat(FILE *f, const struct workload *w, size_t nw,
			    const struct scen *s)
{
	size_t i, k;

	/* 25 % local, 50 % contention: one cluster per workload */
	fprintf(f, "workload");
	for (k = 0; k < NROWS; k++)
		fprintf(f, " %s", row_name((unsigned int)k));
	fputc('\n', f);
	for (i = 0; i < nw; i++) {
		const struct scen *sc = &s[(i * NFRAC + 0) * NCONT + 1];

		fprintf(f, "%s", w[i].name);
		for (k = 0; k < NROWS; k++)
			fprintf(f, " %.4f", ratio(sc->c[k].r.stall_ns,
						  sc->c[ORACLE].r.stall_ns));
		fputc('\n', f);
	}
}

int table_make(const struct table_opts *o, FILE *log, char *err, size_t errlen)
{
	struct speed sp = { 0 };
	struct settle st = { 0 }, stp = { 0 };
	struct workload *w;
	struct scen *s, *st16 = NULL;
	size_t nw, i, fi, ci;
	FILE *out[OUT_N], *md, *pdat;
	double t0 = wall();
	int ret, cret;

	if (err && errlen)
		*err = '\0';
	ret = load_workloads(o, &w, &nw, err, errlen);
	if (ret)
		return ret;
	ret = outputs_open(o->outdir, out, err, errlen);
	if (ret)
		goto out_traces;
	md = out[OUT_MD];
	pdat = out[OUT_PHASE];
	s = calloc(nw * NFRAC * NCONT, sizeof(*s));
	st16 = calloc(GEN_COUNT * NFRAC * NCONT, sizeof(*st16));
	if (!s || !st16) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nw && !ret; i++)
		for (fi = 0; fi < NFRAC && !ret; fi++)
			for (ci = 0; ci < NCONT && !ret; ci++) {
				fprintf(log, "table: %s, local %.0f %%, contention %.0f %%\n",
					w[i].name, fracs[fi] * 100, conts[ci] * 100);
				fflush(log);
				ret = run_scen(&w[i], fracs[fi], conts[ci], 1, o->seed,
					       &s[(i * NFRAC + fi) * NCONT + ci], &sp);
			}
	for (i = 0; i < GEN_COUNT && o->threads > 1 && !ret; i++)
		for (fi = 0; fi < NFRAC && !ret; fi++)
			for (ci = 0; ci < NCONT && !ret; ci++) {
				fprintf(log, "table: %s, local %.0f %%, contention %.0f %%, %u threads\n",
					w[i].name, fracs[fi] * 100, conts[ci] * 100, o->threads);
				fflush(log);
				ret = run_scen(&w[i], fracs[fi], conts[ci], o->threads, o->seed,
					       &st16[(i * NFRAC + fi) * NCONT + ci], &sp);
			}
	if (!ret)
		ret = phase_run(&w[GEN_PHASE], o, POL_BANDIT, pdat, &st);
	if (!ret)
		ret = phase_run(&w[GEN_PHASE], o, POL_BANDIT_PROGRESS, NULL, &stp);
	if (!ret) {
		fprintf(md, "# Policy evaluation: trace-driven far-memory simulator\n\n");
		fprintf(md, "Regenerate with `%s` (%.0f s on the development machine, "
			"2 shared cores). Simulator speed, measured in this run over every "
			"policy run: **%.1f M trace accesses/s** (the oracle, a separate "
			"pass with a heap: %.1f M/s).\n\n", o->command, wall() - t0,
			sp.recs / sp.secs / 1e6, sp.orecs / sp.osecs / 1e6);
		fprintf(md, "## Goals\n\nOne application thread on the link (the trace's own "
			"traffic, `threads` = 1):\n");
		write_goals(md, w, nw, s, POL_BANDIT);
		write_goals(md, w, nw, s, POL_BANDIT_PROGRESS);
		fprintf(md, "\nThe same goals for the best fixed arm of each cell "
			"(`fixed`: every one of the bandit's arms held for the whole "
			"run, the least stall kept): the most a learner that settles "
			"on one arm can reach.\n");
		write_goals(md, w, nw, s, POL_FIXED);
		fprintf(md, "\nWhat no policy can beat (`online bound`, tools/sim/bound.c): "
			"on gups, zipf and phase each record is an independent draw, so a "
			"policy that knows only the past, even one told every page's "
			"probability and migrating for free, expects at least n (q L + "
			"(1 - q) F) of stall: q the share of draws on the local tier's "
			"worth of most likely pages, L the local latency, F the far "
			"latency under the contender alone. A policy told the "
			"probabilities comes within 0.5 %% of it (tests/sim/test_sim.c, "
			"`online_bound_is_reached`). Where bound / tpp is above 0.70, no "
			"policy can be 30 %% below TPP; where bound / oracle is above "
			"1.15, none can be within 15 %% of the oracle, which reads the "
			"future and sees an idle link:\n");
		write_bound_goals(md, w, nw, s);
		write_settle(md, &st, POL_BANDIT);
		write_settle(md, &stp, POL_BANDIT_PROGRESS);
		fprintf(md, "\n![stall time per policy](sim-stall.png)\n\n"
			"![the bandit's thresholds across phase changes](sim-phase.png)\n");
		if (o->threads > 1) {
			fprintf(md, "\nSensitivity: %u threads alike sharing the link "
				"(`-T %u`; synthetic workloads), everything else equal:\n",
				o->threads, o->threads);
			write_goals(md, w, GEN_COUNT, st16, POL_BANDIT);
			write_goals(md, w, GEN_COUNT, st16, POL_BANDIT_PROGRESS);
			fprintf(md, "\nThe online bound with %u threads: the same figure, "
				"since it charges no migration and none of a policy's own "
				"traffic, which %u threads multiply; so it says less here "
				"than with one:\n",
				o->threads, o->threads);
			write_bound_goals(md, w, GEN_COUNT, st16);
		}
		fprintf(md, "\n## Results\n\nStall = memory stall time; x oracle = stall over "
			"the oracle's (a proven lower bound, see tools/sim/oracle.c); online "
			"bound = what no policy without the future can beat (tools/sim/bound.c; "
			"gups, zipf, phase); link MB = "
			"our own bytes on the link (far lines and migrations, not the contender's).\n");
		write_tables(md, w, nw, s, 1);
		if (o->threads > 1) {
			fprintf(md, "\n## Results with %u threads sharing the link\n", o->threads);
			write_tables(md, w, GEN_COUNT, st16, o->threads);
		}
		write_csv(out[OUT_CSV], w, nw, s);
		write_stall_dat(out[OUT_STALL], w, nw, s);
		ret = warm_section(md, w, o, s, err, errlen);
	}
out:
	cret = outputs_close(o->outdir, out, !ret, err, errlen);
	if (!ret)
		ret = cret;
	free(s);
	free(st16);
out_traces:
	for (i = 0; i < nw; i++)
		trace_free(&w[i].t);
	free(w);
	return ret;
}
