// Command demo-go is the Go demo service of TraceTax: GET /work does
// deterministic CPU work with K spans, one log record and two metrics;
// GET /healthz reports the mode and whether OpenTelemetry is linked.
//
// Two binaries are built from this source: bin/demo-go (OpenTelemetry SDK,
// modes simple and batch) and bin/demo-go-bare (-tags notel: no OpenTelemetry
// module linked at all, mode none, and the target process of mode ebpf).
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof/* on http.DefaultServeMux (served only on PPROF_PORT)
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// Shutdown budget (total < 10 s even with an unreachable endpoint):
	// in-flight HTTP requests, then traces+logs flush, then metrics flush.
	httpShutdownTimeout = 2 * time.Second
)

// Goroutine labels (runtime/pprof) let a CPU profile or goroutine dump tell
// request goroutines from the SDK's background workers: goroutines inherit
// the labels of the goroutine that starts them, so everything the SDK starts
// during setup (BatchSpanProcessor worker, log BatchProcessor workers,
// periodic metric reader, gRPC connection goroutines) carries
// tracetax.role=otel-sdk, the accept loop and idle connections carry
// tracetax.role=http-server, and a goroutine serving /work carries
// tracetax.role=request for the duration of the request.
var (
	labelsServer  = pprof.WithLabels(context.Background(), pprof.Labels("tracetax.role", "http-server"))
	labelsRequest = pprof.WithLabels(context.Background(), pprof.Labels("tracetax.role", "request", "http.route", "/work"))
	labelsSDK     = pprof.WithLabels(context.Background(), pprof.Labels("tracetax.role", "otel-sdk"))
	labelsPprof   = pprof.WithLabels(context.Background(), pprof.Labels("tracetax.role", "pprof"))
	// The injected background cost (TRACETAX_INJECT_BACKGROUND_US).
	labelsBackground = pprof.WithLabels(context.Background(), pprof.Labels("tracetax.role", "background"))
)

func main() {
	os.Exit(run())
}

func run() int {
	cfg, err := loadConfig()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", progName, err)
		return 2
	}
	if msg := modeUnsupported(cfg.mode); msg != "" {
		fmt.Fprintf(os.Stderr, "%s: TRACETAX_PROCESSOR=%s: %s\n", progName, cfg.mode, msg)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	// Build the SDK with the otel-sdk goroutine labels so its background
	// goroutines inherit them; restore the main goroutine's labels after.
	var (
		tel      telemetry
		shutdown func(context.Context) error
	)
	pprof.SetGoroutineLabels(labelsSDK)
	tel, shutdown, err = setupTelemetry(ctx, cfg.mode)
	pprof.SetGoroutineLabels(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: OpenTelemetry setup failed: %v\n", progName, err)
		return 1
	}

	if cfg.mode == modeEBPF {
		// The eBPF launcher (bin/demo-go-ebpf) starts this process, lets the
		// agent attach its uprobes and then releases it: listening only after
		// that makes sure no request is served before the probes are in place.
		if !waitForProbes(ctx) {
			return 0
		}
	}

	otelLoaded := linksOTel()
	mux := http.NewServeMux()
	mux.Handle("GET /work", withRequestLabels(tel.instrumentServer(&workHandler{tel: tel, busy: cfg.injectBusy}, "/work")))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"ok","language":"go","processor":%q,"otel_loaded":%t}`+"\n", cfg.mode, otelLoaded)
	})

	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", ":"+cfg.port)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: listen on port %s: %v\n", progName, cfg.port, err)
		_ = shutdown(context.Background())
		return 1
	}

	if cfg.pprofPort != "" {
		pln, err := net.Listen("tcp", ":"+cfg.pprofPort)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: listen on PPROF_PORT %s: %v\n", progName, cfg.pprofPort, err)
			_ = shutdown(context.Background())
			return 1
		}
		go func() {
			pprof.SetGoroutineLabels(labelsPprof)
			_ = http.Serve(pln, http.DefaultServeMux)
		}()
	}

	burnInBackground(ctx, cfg.injectBackground, cfg.backgroundPeriod)
	srvErr := make(chan error, 1)
	go func() {
		pprof.SetGoroutineLabels(labelsServer)
		srvErr <- srv.Serve(ln)
	}()
	fmt.Fprintf(os.Stderr, "%s: listening on :%s processor=%s otel_loaded=%t pprof=%q inject_busy_us=%d inject_background_us=%d every %s\n",
		progName, cfg.port, cfg.mode, otelLoaded, cfg.pprofPort, cfg.injectBusy.Microseconds(),
		cfg.injectBackground.Microseconds(), cfg.backgroundPeriod)

	code := 0
	select {
	case <-ctx.Done():
	case err := <-srvErr:
		fmt.Fprintf(os.Stderr, "%s: server: %v\n", progName, err)
		code = 1
	}
	stop() // a second SIGINT/SIGTERM now kills the process the default way

	// Graceful: stop accepting, let in-flight requests finish, then flush.
	sctx, cancel := context.WithTimeout(context.Background(), httpShutdownTimeout)
	err = srv.Shutdown(sctx)
	cancel()
	if err != nil {
		_ = srv.Close()
		err = fmt.Errorf("http shutdown: %w", err)
	}
	err = errors.Join(err, shutdown(context.Background()))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: shutdown: %s\n", progName, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return code
}

// withRequestLabels is the outermost wrapper of /work (outside otelhttp, so
// span end / synchronous export in simple mode is attributed to the request).
func withRequestLabels(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pprof.SetGoroutineLabels(labelsRequest)
		defer pprof.SetGoroutineLabels(labelsServer)
		h.ServeHTTP(w, r)
	})
}

// linksOTel reports whether the running binary links any OpenTelemetry Go
// module (read from the build info embedded in the executable).
func linksOTel() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, m := range bi.Deps {
		if strings.HasPrefix(m.Path, "go.opentelemetry.io/") {
			return true
		}
	}
	return false
}

// waitForProbes blocks until the eBPF launcher signals (by writing to or
// closing the pipe it passes as TRACETAX_EBPF_READY_FD) that the uprobes are
// attached. Without that variable (agent attached by hand) it returns at once.
func waitForProbes(ctx context.Context) bool {
	v := os.Getenv("TRACETAX_EBPF_READY_FD")
	if v == "" {
		return true
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		fmt.Fprintf(os.Stderr, "%s: ignoring invalid TRACETAX_EBPF_READY_FD=%q\n", progName, v)
		return true
	}
	f := os.NewFile(uintptr(fd), "ebpf-ready")
	done := make(chan struct{})
	go func() {
		var b [1]byte
		_, _ = f.Read(b[:])
		_ = f.Close()
		close(done)
	}()
	fmt.Fprintf(os.Stderr, "%s: ebpf mode: pid %d waiting for the launcher to attach the probes\n", progName, os.Getpid())
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}
