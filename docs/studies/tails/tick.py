"""Does the load's offset against the kernel's tick move the solo tails? (issue 23)

One demo-go-bare on core 1 for the whole run; SESSIONS rounds of SECONDS-long sessions, each a
fresh oha on core 0 at each of RATES in turn (a new offset against the tick each session; a rate
a step off the tick's multiples slides through every offset within the session). Per rate: the
sessions' p50, p99 and p99.9 and their spread (sd of the log).

Usage: OHA=... REPO=... python tick.py RATES SESSIONS SECONDS   (e.g. 300,301 12 6)
"""
import json, math, os, statistics, subprocess, sys, time
OHA = os.environ["OHA"]
BIN = os.path.join(os.environ["REPO"], "instrumented-services/go/bin/demo-go-bare")
rates = [float(r) for r in sys.argv[1].split(",")]
sessions, seconds = int(sys.argv[2]), float(sys.argv[3])
env = {**os.environ, "PORT": "25999"}
svc = subprocess.Popen(["taskset", "-c", "1", BIN], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.5)
url = "http://127.0.0.1:25999/work?iters=1000&spans=5"
subprocess.run(["taskset", "-c", "0", OHA, "-q", str(rates[0]), "-z", "5s", "-c", "4", "--no-tui", "--output-format", "quiet", url])
results = {r: [] for r in rates}
try:
    for i in range(sessions):
        for rate in rates:
            out = subprocess.run(["taskset", "-c", "0", OHA, "-q", str(rate), "-z", f"{seconds}s", "-c", "4", "--no-tui",
                                  "--output-format", "json", url], capture_output=True, text=True).stdout
            lat = json.loads(out)["latencyPercentiles"]
            results[rate].append((lat["p50"], lat["p99"], lat["p99.9"]))
finally:
    svc.kill()
for rate, rows in results.items():
    sd = [statistics.stdev(math.log(row[k]) for row in rows) for k in range(3)]
    med = [statistics.median(row[k] for row in rows) * 1e3 for k in range(3)]
    print(f"rate {rate}: {len(rows)} sessions of {seconds}s; median p50 {med[0]:.3f} p99 {med[1]:.3f} p99.9 {med[2]:.3f} ms; "
          f"sd(log) between sessions p50 {sd[0]:.3f} p99 {sd[1]:.3f} p99.9 {sd[2]:.3f}")
    print("   p99 ms:", " ".join(f"{row[1]*1e3:.2f}" for row in rows))
