"""Do machine stalls make the solo tails' A/A noise? Two fresh identical Go instances on core 1
each round, each alone for TOTAL_S in turn (the engine's solo phases), oha on core 0, while a
real-time stall meter (hiccup.c) runs on each core. Per phase: p99/p99.9 of every request, the
stall time each core saw, and p99/p99.9 of the requests that overlapped no stall.
Usage: stalls.py ROUNDS TOTAL_S (build the meter first: cc -O2 -o hiccup hiccup.c; needs root for
SCHED_FIFO)"""
import json, math, os, random, signal, sqlite3, statistics, subprocess, sys, time

OHA = os.environ["OHA"]
SVC = os.environ["REPO"] + "/instrumented-services/go/bin/demo-go-bare"
HICCUP = os.environ.get("HICCUP", os.path.join(os.path.dirname(os.path.abspath(__file__)), "hiccup"))
WORK = os.environ.get("WORK", "/tmp/stallstudy")
rounds, total_s = int(sys.argv[1]), float(sys.argv[2])
THRESHOLD_US = int(os.environ.get("THRESHOLD_US", 2000))
MARGIN_S = float(os.environ.get("MARGIN_S", 0.03))
os.makedirs(WORK, exist_ok=True)


def start(port):
    p = subprocess.Popen(["taskset", "-c", "1", SVC], env=dict(os.environ, PORT=str(port)),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if subprocess.run(["curl", "-fs", f"http://127.0.0.1:{port}/healthz"], capture_output=True).returncode == 0:
            return p
        time.sleep(0.1)
    raise SystemExit("service did not start")


def load(port, secs, tag):
    db = f"{WORK}/{tag}.sqlite"
    if os.path.exists(db):
        os.unlink(db)
    wall0 = time.time()
    subprocess.run(["taskset", "-c", "0", OHA, "--no-tui", "-z", f"{int(secs*1000)}ms", "-q", "300", "-c", "16",
                    "--latency-correction", "-w", "--db-url", db, "--output-format", "json", "-o", "/dev/null",
                    f"http://127.0.0.1:{port}/work?iters=1000&spans=5"], check=True, capture_output=True)
    with sqlite3.connect(db) as c:
        rows = c.execute("select coalesce(start_latency_correction, start), end from oha where status between 200 and 399").fetchall()
    return wall0, rows


def stalls(path):
    out = []
    for line in open(path):
        wall, late_us = line.split()
        begin = float(wall) + 0.001
        out.append((begin - MARGIN_S, begin + float(late_us) / 1e6 + MARGIN_S))
    return out


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def phase_figures(wall0, rows, windows):
    # oha's start/end are seconds from its own start: wall0 (taken just before it) is off by its
    # startup, a few ms; the margin covers it.
    lat = [e - s for s, e in rows]
    clear = []
    shift = wall0  # first request is sent at oha's t=0 give or take
    for s, e in rows:
        a, b = shift + s, shift + e
        if not any(a < hi and b > lo for lo, hi in windows):
            clear.append(e - s)
    begin, end = shift + min(s for s, _ in rows), shift + max(e for _, e in rows)
    return lat, clear, begin, end


results = []
for r in range(rounds):
    ports = {"A": 18100, "B": 18101}
    procs = {k: start(p) for k, p in ports.items()}
    for k in "AB":
        load(ports[k], 3, f"warm{k}")
    probe_s = 2 * total_s + 10
    probes = {cpu: subprocess.Popen([HICCUP, str(cpu), str(probe_s), str(THRESHOLD_US), f"{WORK}/stall{cpu}.txt"],
                                    stderr=subprocess.DEVNULL) for cpu in (0, 1)}
    time.sleep(0.5)
    phases = {}
    for k in ("AB" if r % 2 == 0 else "BA"):
        phases[k] = load(ports[k], total_s, f"seq{k}")
    for p in probes.values():
        p.send_signal(signal.SIGINT)
        p.wait()
    for p in procs.values():
        p.send_signal(signal.SIGTERM)
        p.wait()
    windows = {cpu: stalls(f"{WORK}/stall{cpu}.txt") for cpu in (0, 1)}
    row = {}
    for k, (wall0, rows) in phases.items():
        lat, clear, begin, end = phase_figures(wall0, rows, windows[0] + windows[1])
        stall_ms = {cpu: sum(hi - lo - 2 * MARGIN_S for lo, hi in w if lo < end and hi > begin) * 1e3 for cpu, w in windows.items()}
        row[k] = {"n": len(lat), "p99": pct(lat, .99), "p999": pct(lat, .999), "p99_clear": pct(clear, .99),
                  "p999_clear": pct(clear, .999), "excluded": len(lat) - len(clear), "stall_ms": stall_ms}
    results.append(row)
    print(f"round {r}: " + " | ".join(
        f"{k} p99 {v['p99']*1e6:.0f} p99.9 {v['p999']*1e6:.0f} clear p99 {v['p99_clear']*1e6:.0f} p99.9 {v['p999_clear']*1e6:.0f}"
        f" excl {v['excluded']} stall0 {v['stall_ms'][0]:.0f}ms stall1 {v['stall_ms'][1]:.0f}ms" for k, v in row.items()), flush=True)

json.dump(results, open(f"{WORK}/results.json", "w"))
t = {3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}
for m in ("p99", "p999", "p99_clear", "p999_clear"):
    xs = [math.log(row["B"][m] / row["A"][m]) for row in results]
    n = len(xs); sd = statistics.stdev(xs); hw = t.get(n, 2.2) * sd / math.sqrt(n)
    print(f"{m:10}: sd(log)/round {sd:.3f}  mean {math.exp(statistics.mean(xs))-1:+.1%}  95% ±{math.exp(hw)-1:.1%}  (n={n})")
