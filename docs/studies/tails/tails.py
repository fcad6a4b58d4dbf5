"""Tails of two fresh identical Go instances on core 1: solo phases in turn against a second design,
`interleaved` (both live, the load on one at a time in SLICE_S slices) or `nice` (solo in turn
again, the load generator at nice -15). Usage: tails.py ROUNDS SLICE_S TOTAL_S interleaved|nice"""
import math, os, random, signal, sqlite3, statistics, subprocess, sys, time

OHA = os.environ["OHA"]  # the oha binary that make up installs
SVC = os.environ["REPO"] + "/instrumented-services/go/bin/demo-go-bare"
rounds, slice_s, total_s, second = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
WORK = os.environ.get("WORK", "/tmp/tails-study")
os.makedirs(WORK, exist_ok=True)


def start(port):
    env = dict(os.environ, PORT=str(port))
    p = subprocess.Popen(["taskset", "-c", "1", SVC], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if subprocess.run(["curl", "-fs", f"http://127.0.0.1:{port}/healthz"], capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    return p


def cpu_ns(pid):
    tot = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                tot += int(f.read().split()[0])
        except FileNotFoundError:
            pass
    return tot


def load(port, secs, tag, nice=0):
    db = f"{WORK}/{tag}.sqlite"
    if os.path.exists(db):
        os.unlink(db)
    subprocess.run((["nice", "-n", str(nice)] if nice else []) + ["taskset", "-c", "0", OHA, "--no-tui", "-z", f"{int(secs*1000)}ms", "-q", "300", "-c", "16",
                    "--latency-correction", "-w", "--db-url", db, "--output-format", "json", "-o", "/dev/null",
                    f"http://127.0.0.1:{port}/work?iters=1000&spans=5"], check=True, capture_output=True)
    with sqlite3.connect(db) as c:
        rows = c.execute("select end - coalesce(start_latency_correction, start) from oha where status between 200 and 399").fetchall()
    return [r[0] for r in rows]


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def figures(lat, cpu):
    return {"p50": pct(lat, 0.5), "p99": pct(lat, 0.99), "p999": pct(lat, 0.999), "cpu": cpu / len(lat)}


def interleaved(procs, ports):
    # interleaved: slices of slice_s, random order within each pair
    lat = {"A": [], "B": []}
    cpu = {"A": 0, "B": 0}
    for i in range(int(total_s / slice_s)):
        order = ["A", "B"]
        random.shuffle(order)
        for k in order:
            c0 = cpu_ns(procs[k].pid)
            lat[k] += load(ports[k], slice_s, f"int{k}")
            cpu[k] += (cpu_ns(procs[k].pid) - c0) / 1e3
    res2 = {k: figures(lat[k], cpu[k]) for k in "AB"}
    return res2


def niced(procs, ports, r):
    res2 = {}
    for k in ("BA" if r % 2 == 0 else "AB"):
        c0 = cpu_ns(procs[k].pid)
        lat = load(ports[k], total_s, f"nice{k}", nice=-15)
        res2[k] = figures(lat, (cpu_ns(procs[k].pid) - c0) / 1e3)
    return res2


ratios = {d: {m: [] for m in ("p50", "p99", "p999", "cpu")} for d in ("seq", second)}
for r in range(rounds):
    ports = {"A": 18100, "B": 18101}
    procs = {k: start(p) for k, p in ports.items()}
    for k in "AB":
        load(ports[k], 3, f"warm{k}")
    # sequential: each alone for total_s, order swapped every round
    res = {}
    for k in ("AB" if r % 2 == 0 else "BA"):
        c0 = cpu_ns(procs[k].pid)
        lat = load(ports[k], total_s, f"seq{k}")
        res[k] = figures(lat, (cpu_ns(procs[k].pid) - c0) / 1e3)
    for m in ratios["seq"]:
        ratios["seq"][m].append(math.log(res["B"][m] / res["A"][m]))
    res2 = interleaved(procs, ports) if second == "interleaved" else niced(procs, ports, r)
    for m in ratios[second]:
        ratios[second][m].append(math.log(res2["B"][m] / res2["A"][m]))
    print(f"round {r}: seq " + " ".join(f"{m} {res['A'][m]*1e6 if m!='cpu' else res['A'][m]:.0f}/{res['B'][m]*1e6 if m!='cpu' else res['B'][m]:.0f}" for m in ("p50","p99","p999","cpu"))
          + f" | {second} " + " ".join(f"{m} {res2['A'][m]*1e6 if m!='cpu' else res2['A'][m]:.0f}/{res2['B'][m]*1e6 if m!='cpu' else res2['B'][m]:.0f}" for m in ("p50","p99","p999","cpu")), flush=True)
    for p in procs.values():
        p.send_signal(signal.SIGTERM)
        p.wait()
t = {3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}
for d, ms in ratios.items():
    for m, xs in ms.items():
        n = len(xs); sd = statistics.stdev(xs); mean = statistics.mean(xs)
        hw = t.get(n, 2.2) * sd / math.sqrt(n)
        print(f"{d:5} {m:5}: sd(log)/round {sd:.3f}  mean {math.exp(mean)-1:+.1%}  95% ±{math.exp(hw)-1:.1%}  (n={n})")
