package main

// The work handler. It does not import OpenTelemetry: everything telemetry
// goes through the small `telemetry` interface implemented in otel.go (build
// without the notel tag) or by the no-op in otel_none.go (-tags notel), so the
// CPU work is byte-for-byte the same code in both binaries.

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"
)

const (
	defaultIters = 1000
	maxIters     = 10_000_000
	defaultSpans = 1
	maxSpans     = 1000
)

// telemetry is what the handler needs from an instrumentation layer.
type telemetry interface {
	// instrumentServer wraps the /work handler with the framework's usual
	// server instrumentation (otelhttp): it creates the SERVER span.
	instrumentServer(h http.Handler, route string) http.Handler
	// startChild starts child i (0-based) of the current server span and
	// returns the context to run the chunk in and the function ending it.
	startChild(ctx context.Context, i, iters int) (context.Context, func())
	// requestDone emits the one log record and records the two metrics.
	requestDone(ctx context.Context, iters, spans int, d time.Duration)
}

// work is the deterministic CPU work: a small allocated structure, then
// integer sums over the global indices [from, to). Splitting the range over
// children therefore gives the same sum as doing it in one go.
//
//go:noinline
func work(arr *[64]int64, from, to int) int64 {
	var acc int64
	for i := from; i < to; i++ {
		acc += int64(i) ^ arr[i%64]
	}
	return acc
}

//go:noinline
func newWorkArray() *[64]int64 {
	arr := new([64]int64)
	for j := range arr {
		arr[j] = int64(j)
	}
	return arr
}

// busyWait spins until the calling thread has run for d of CPU time (its own
// CPU clock, CLOCK_THREAD_CPUTIME_ID): TRACETAX_INJECT_BUSY_US, a known cost of
// exactly that CPU time however often the spin is preempted (on the wall clock
// a preempted spin would end having used less). A request's latency grows by at
// least d: by d alone on an idle core, by more when a neighbour takes turns. No
// sleep. The goroutine stays on its thread meanwhile, so the clock it reads is
// the one it runs on.
//
//go:noinline
func busyWait(d time.Duration) {
	if d <= 0 {
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for deadline := threadCPU() + d; threadCPU() < deadline; {
	}
}

// burnInBackground spins `burn` of CPU time (busyWait) every `period` in its
// own goroutine, never on a request's path: TRACETAX_INJECT_BACKGROUND_US, a
// known cost that shows in the process's CPU but in no request's latency
// except through sharing the core. It carries the tracetax.role=background
// label so a CPU profile tells it apart. Stops when ctx is done.
func burnInBackground(ctx context.Context, burn, period time.Duration) {
	if burn <= 0 {
		return
	}
	go func() {
		pprof.SetGoroutineLabels(labelsBackground)
		ticker := time.NewTicker(period)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				busyWait(burn)
			}
		}
	}()
}

type workHandler struct {
	tel  telemetry
	busy time.Duration // TRACETAX_INJECT_BUSY_US
}

func (h *workHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q := r.URL.Query()
	iters, ok := intParam(q, "iters", defaultIters, 0, maxIters)
	if !ok {
		writeError(w, "iters must be an integer between 0 and 10000000")
		return
	}
	spans, ok := intParam(q, "spans", defaultSpans, 1, maxSpans)
	if !ok {
		writeError(w, "spans must be an integer between 1 and 1000")
		return
	}

	busyWait(h.busy)
	ctx := r.Context()
	arr := newWorkArray()
	var sum int64
	if spans == 1 {
		sum = work(arr, 0, iters)
	} else {
		// K-1 sequential children, the work split evenly (the first
		// iters%(K-1) chunks take one extra iteration).
		children := spans - 1
		base, extra := iters/children, iters%children
		from := 0
		for i := 0; i < children; i++ {
			n := base
			if i < extra {
				n++
			}
			_, end := h.tel.startChild(ctx, i, n)
			sum += work(arr, from, from+n)
			end()
			from += n
		}
	}

	buf := make([]byte, 0, 64)
	buf = append(buf, `{"iters":`...)
	buf = strconv.AppendInt(buf, int64(iters), 10)
	buf = append(buf, `,"spans":`...)
	buf = strconv.AppendInt(buf, int64(spans), 10)
	buf = append(buf, `,"sum":`...)
	buf = strconv.AppendInt(buf, sum, 10)
	buf = append(buf, "}\n"...)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(buf)

	h.tel.requestDone(ctx, iters, spans, time.Since(start))
}

// intParam parses an optional integer query parameter; absent means def,
// present but not an integer in [lo, hi] is an error.
func intParam(q map[string][]string, name string, def, lo, hi int) (int, bool) {
	vs, present := q[name]
	if !present {
		return def, true
	}
	n, err := strconv.Atoi(vs[0])
	if err != nil || n < lo || n > hi {
		return 0, false
	}
	return n, true
}

func writeError(w http.ResponseWriter, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(append(b, '\n'))
}
