"""Retrospective: would normalising the solo p99 by the solo p50 (and multiplying by the paired
side-by-side p50 ratio) narrow the A/A tails? Reads the databases `make bench-truth` leaves in
/tmp/tracetax-bench-truth-*/ (its A/As on Go and Java, its injected-cost run).
Usage: cd backend && .venv/bin/python ../docs/studies/tails/normalised.py"""
import glob, json, math, os, sqlite3, statistics
from tracetax.engine.histogram import decode

def pct(h, q): return h.get_value_at_percentile(q)
rows_all = {}
for db in sorted(glob.glob('/tmp/tracetax-bench-truth-*/*/bench.db'), key=os.path.getmtime):
    c = sqlite3.connect(db)
    for eid, name in c.execute("select id, name from experiments"):
        rounds = {}
        for ri, cfg, figs in c.execute("select round_index, configuration, figures from rounds where experiment_id=? and status='completed'", (eid,)):
            f = json.loads(figs or 'null')
            if not f or not f.get('side_by_side') or not f.get('open_phase'): continue
            s = f['open_phase']['summary']['percentiles_us']
            sb = decode(f['side_by_side']['histogram'])
            rounds.setdefault(ri, {})[cfg] = dict(p50=s['50'], p99=s['99'], p999=s['99.9'], x50=pct(sb, 50), x99=pct(sb, 99))
        cfgs = sorted({k for r in rounds.values() for k in r})
        if len(cfgs) != 2: continue
        a, b = ('none', 'none-again') if 'none-again' in cfgs else cfgs
        pairs = [(r[a], r[b]) for r in rounds.values() if a in r and b in r]
        key = f"{os.path.basename(os.path.dirname(db))} {name[:30]} {os.path.getmtime(db):.0f}"
        rows_all[key] = pairs

def sd(xs): return statistics.stdev(xs) if len(xs) > 1 else float('nan')
tot = {k: [] for k in ("p99", "p99n", "p999", "p999n", "x99", "p50", "x50")}
for key, pairs in rows_all.items():
    L = lambda m: [math.log(B[m] / A[m]) for A, B in pairs]
    r99, r999, r50, x50, x99 = L('p99'), L('p999'), L('p50'), L('x50'), L('x99')
    n99 = [u - v + w for u, v, w in zip(r99, r50, x50)]
    n999 = [u - v + w for u, v, w in zip(r999, r50, x50)]
    print(f"{key}: n={len(pairs)} sd p99 {sd(r99):.3f} norm {sd(n99):.3f} | p99.9 {sd(r999):.3f} norm {sd(n999):.3f} | p50 solo {sd(r50):.3f} sbs {sd(x50):.3f} | sbs p99 {sd(x99):.3f} | corr(r99,r50) {statistics.correlation(r99, r50) if len(r99)>2 else float('nan'):.2f}")
    for k, xs in (("p99", r99), ("p99n", n99), ("p999", r999), ("p999n", n999), ("x99", x99), ("p50", r50), ("x50", x50)):
        tot[k] += [x - statistics.mean(xs) for x in xs]
print({k: round(math.sqrt(sum(x*x for x in v)/max(len(v)-1,1)), 3) for k, v in tot.items()})
