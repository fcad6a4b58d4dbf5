"""Is the side-by-side A/A's per-round spread at 300 req/s the instance or the two loads' phase?

Per pair (two fresh demo-go-bare on core 1, each with its own oha on core 0, started together),
SESSIONS consecutive measured sessions of SESSION_S each, every session a fresh pair of oha
processes (so a fresh phase between the two request schedules). If the per-session log ratio of
CPU per request moves between sessions of one pair as much as between pairs, the schedules'
phase, not the instance, makes the spread.
Usage: sessions.py PAIRS SESSIONS SESSION_S RATE_A RATE_B"""
import json, math, os, signal, statistics, subprocess, sys, time

OHA = os.environ["OHA"]
BIN = os.environ["REPO"] + "/instrumented-services/go/bin/demo-go-bare"
pairs, sessions, session_s = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
rate_a, rate_b = sys.argv[4], sys.argv[5]


def start(port):
    env = dict(os.environ, PORT=str(port), GOMAXPROCS="1")
    return subprocess.Popen(["taskset", "-c", "1", BIN], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cpu_ns(pid):
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass
    return total


def oha(port, seconds, rate):
    argv = ["taskset", "-c", "0", OHA, "--no-tui", "-z", f"{seconds}s", "-q", rate, "-c", "8", "--latency-correction",
            "--output-format", "json", f"http://127.0.0.1:{port}/work?iters=1000&spans=5"]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def session(a, b, seconds):
    before = cpu_ns(a.pid), cpu_ns(b.pid)
    loads = [oha(18100, seconds, rate_a), oha(18101, seconds, rate_b)]
    outs = [json.loads(load.communicate()[0]) for load in loads]
    after = cpu_ns(a.pid), cpu_ns(b.pid)
    counts = [sum(out["statusCodeDistribution"].values()) for out in outs]
    cpu = [(after[i] - before[i]) / 1e3 / counts[i] for i in range(2)]
    p50 = [out["latencyPercentiles"]["p50"] for out in outs]
    return math.log(cpu[1] / cpu[0]), math.log(p50[1] / p50[0]), cpu


per_pair = []
for pair in range(pairs):
    a, b = start(18100), start(18101)
    time.sleep(0.5)
    session(a, b, 3)  # warm-up
    ratios = []
    for _ in range(sessions):
        cpu_lr, p50_lr, cpu = session(a, b, session_s)
        ratios.append((cpu_lr, p50_lr))
    print(f"pair {pair}: CPU log ratios " + " ".join(f"{r[0]:+.3f}" for r in ratios)
          + "   p50 " + " ".join(f"{r[1]:+.3f}" for r in ratios) + f"   (A {cpu[0]:.0f} us)", flush=True)
    per_pair.append(ratios)
    for p in (a, b):
        p.send_signal(signal.SIGTERM)
    for p in (a, b):
        p.wait()

for index, name in ((0, "CPU per request"), (1, "p50")):
    means = [statistics.mean(r[index] for r in ratios) for ratios in per_pair]
    within = statistics.mean(statistics.variance([r[index] for r in ratios]) for ratios in per_pair)
    print(f"{name}: sd within a pair (between sessions) {math.sqrt(within):.3f}; "
          f"sd of the pairs' means {statistics.stdev(means):.3f} "
          f"(sessions alone would give {math.sqrt(within / sessions):.3f})")
