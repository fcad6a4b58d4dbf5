//go:build notel

package main

// Built with -tags notel (bin/demo-go-bare): no OpenTelemetry package is
// imported, so no go.opentelemetry.io module is linked (check with
// `go version -m bin/demo-go-bare`). Mode none is the uninstrumented
// baseline; mode ebpf runs this same binary under the eBPF agent.

import (
	"context"
	"net/http"
	"time"
)

const (
	progName    = "demo-go-bare"
	defaultMode = modeNone
)

func modeUnsupported(mode string) string {
	switch mode {
	case modeSimple, modeBatch:
		return "this binary is built with -tags notel and links no OpenTelemetry SDK; run bin/demo-go for simple and batch"
	}
	return ""
}

type noTelemetry struct{}

func (noTelemetry) instrumentServer(h http.Handler, _ string) http.Handler { return h }

func (noTelemetry) startChild(ctx context.Context, _, _ int) (context.Context, func()) {
	return ctx, func() {}
}

func (noTelemetry) requestDone(context.Context, int, int, time.Duration) {}

func setupTelemetry(context.Context, string) (telemetry, func(context.Context) error, error) {
	return noTelemetry{}, func(context.Context) error { return nil }, nil
}
