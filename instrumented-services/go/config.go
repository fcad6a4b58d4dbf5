package main

// Configuration is read from the environment only. Everything here is plain
// Go (no OpenTelemetry import) so the bare binary (-tags notel) validates the
// same variables as the instrumented one.
//
// The Go SDK silently falls back to defaults on unparsable OTEL_* values (it
// reports them through otel.Handle at most), so they are validated here,
// before any SDK object is built: one line on stderr naming the variable, the
// bad value and the accepted values, exit code 2.

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

const (
	modeNone   = "none"
	modeSimple = "simple"
	modeBatch  = "batch"
	modeEBPF   = "ebpf"
)

// maxInjectBusyUS bounds TRACETAX_INJECT_BUSY_US (1 s of busy-wait per request).
const maxInjectBusyUS = 1_000_000

// maxInjectBackgroundUS bounds TRACETAX_INJECT_BACKGROUND_US (1 s of CPU per
// period); the period TRACETAX_INJECT_BACKGROUND_PERIOD_MS is 1..3600000 ms.
const (
	maxInjectBackgroundUS       = 1_000_000
	maxInjectBackgroundPeriodMS = 3_600_000
	defaultBackgroundPeriodMS   = 2000
)

type config struct {
	mode      string
	port      string
	pprofPort string // empty: no pprof listener
	// injectBusy is a known cost for checking the harness: every /work
	// request spins this long on its thread's CPU clock (0: none).
	injectBusy time.Duration
	// injectBackground is a known cost off the request path: a background
	// goroutine spins this much CPU time every backgroundPeriod (0: none).
	injectBackground time.Duration
	backgroundPeriod time.Duration
}

// configError is a refusal to start: printed as one line, exit code 2.
type configError struct {
	name, value, accepted string
}

func (e *configError) Error() string {
	return fmt.Sprintf("invalid %s=%q: accepted values: %s", e.name, e.value, e.accepted)
}

func loadConfig() (*config, error) {
	c := &config{mode: defaultMode, port: "8080"}

	if v, ok := os.LookupEnv("TRACETAX_PROCESSOR"); ok && v != "" {
		switch v {
		case modeNone, modeSimple, modeBatch, modeEBPF:
			c.mode = v
		default:
			return nil, &configError{"TRACETAX_PROCESSOR", v, "none, simple, batch, ebpf"}
		}
	}
	if v := os.Getenv("PORT"); v != "" {
		if !isPort(v) {
			return nil, &configError{"PORT", v, "an integer port 1..65535"}
		}
		c.port = v
	}
	if v := os.Getenv("PPROF_PORT"); v != "" {
		if !isPort(v) {
			return nil, &configError{"PPROF_PORT", v, "an integer port 1..65535 (unset: no pprof listener)"}
		}
		c.pprofPort = v
	}
	if v := strings.TrimSpace(os.Getenv("TRACETAX_INJECT_BUSY_US")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxInjectBusyUS {
			return nil, &configError{"TRACETAX_INJECT_BUSY_US", os.Getenv("TRACETAX_INJECT_BUSY_US"),
				"an integer 0..1000000 (microseconds of busy-wait per /work request; unset: 0)"}
		}
		c.injectBusy = time.Duration(n) * time.Microsecond
	}
	if err := loadBackgroundInject(c); err != nil {
		return nil, err
	}
	if err := validateOTelEnv(); err != nil {
		return nil, err
	}
	return c, nil
}

// loadBackgroundInject reads TRACETAX_INJECT_BACKGROUND_US and
// TRACETAX_INJECT_BACKGROUND_PERIOD_MS (unset or empty: 0 and 2000).
func loadBackgroundInject(c *config) error {
	c.backgroundPeriod = defaultBackgroundPeriodMS * time.Millisecond
	if v := strings.TrimSpace(os.Getenv("TRACETAX_INJECT_BACKGROUND_US")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxInjectBackgroundUS {
			return &configError{"TRACETAX_INJECT_BACKGROUND_US", os.Getenv("TRACETAX_INJECT_BACKGROUND_US"),
				"an integer 0..1000000 (microseconds of background busy-wait per period; unset: 0)"}
		}
		c.injectBackground = time.Duration(n) * time.Microsecond
	}
	if v := strings.TrimSpace(os.Getenv("TRACETAX_INJECT_BACKGROUND_PERIOD_MS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxInjectBackgroundPeriodMS {
			return &configError{"TRACETAX_INJECT_BACKGROUND_PERIOD_MS", os.Getenv("TRACETAX_INJECT_BACKGROUND_PERIOD_MS"),
				"an integer 1..3600000 (milliseconds between background bursts; unset: 2000)"}
		}
		c.backgroundPeriod = time.Duration(n) * time.Millisecond
	}
	return nil
}

func isPort(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= 1 && n <= 65535
}

// validateOTelEnv checks every standard variable the service honours.
// Unset or empty variables are fine (the SDK default applies).
func validateOTelEnv() error {
	type intRule struct {
		name     string
		min      int
		accepted string
	}
	ints := []intRule{
		{"OTEL_BSP_SCHEDULE_DELAY", 0, "an integer >= 0 (milliseconds)"},
		{"OTEL_BSP_EXPORT_TIMEOUT", 0, "an integer >= 0 (milliseconds)"},
		{"OTEL_BSP_MAX_QUEUE_SIZE", 1, "an integer >= 1"},
		{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1, "an integer >= 1"},
		{"OTEL_BLRP_SCHEDULE_DELAY", 0, "an integer >= 0 (milliseconds)"},
		{"OTEL_BLRP_EXPORT_TIMEOUT", 0, "an integer >= 0 (milliseconds)"},
		{"OTEL_BLRP_MAX_QUEUE_SIZE", 1, "an integer >= 1"},
		{"OTEL_BLRP_MAX_EXPORT_BATCH_SIZE", 1, "an integer >= 1"},
		{"OTEL_METRIC_EXPORT_INTERVAL", 1, "an integer >= 1 (milliseconds)"},
		{"OTEL_METRIC_EXPORT_TIMEOUT", 0, "an integer >= 0 (milliseconds)"},
		{"OTEL_EXPORTER_OTLP_TIMEOUT", 0, "an integer >= 0 (milliseconds)"},
		{"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", 0, "an integer >= 0 (milliseconds)"},
		{"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", 0, "an integer >= 0 (milliseconds)"},
		{"OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", 0, "an integer >= 0 (milliseconds)"},
	}
	for _, r := range ints {
		v := strings.TrimSpace(os.Getenv(r.name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < r.min {
			return &configError{r.name, os.Getenv(r.name), r.accepted}
		}
	}

	for _, name := range []string{
		"OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
		"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
		"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
	} {
		switch v := os.Getenv(name); v {
		case "", "grpc", "http/protobuf":
		default:
			return &configError{name, v, "grpc, http/protobuf"}
		}
	}

	for _, name := range []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
	} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &configError{name, v, "an absolute http:// or https:// URL, e.g. http://127.0.0.1:4317"}
		}
	}

	sampler := strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_TRACES_SAMPLER")))
	switch sampler {
	case "", "always_on", "always_off", "parentbased_always_on", "parentbased_always_off":
	case "traceidratio", "parentbased_traceidratio":
		if arg := strings.TrimSpace(os.Getenv("OTEL_TRACES_SAMPLER_ARG")); arg != "" {
			f, err := strconv.ParseFloat(arg, 64)
			if err != nil || f < 0 || f > 1 {
				return &configError{"OTEL_TRACES_SAMPLER_ARG", os.Getenv("OTEL_TRACES_SAMPLER_ARG"),
					"a number in [0, 1] (sampling ratio for " + sampler + ")"}
			}
		}
	default:
		return &configError{"OTEL_TRACES_SAMPLER", os.Getenv("OTEL_TRACES_SAMPLER"),
			"always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio"}
	}

	// Same grammar as the SDK's resource.WithFromEnv: comma-separated
	// key=value pairs, values percent-decoded.
	if v := os.Getenv("OTEL_RESOURCE_ATTRIBUTES"); strings.TrimSpace(v) != "" {
		for _, p := range strings.Split(v, ",") {
			k, val, found := strings.Cut(p, "=")
			if _, err := url.PathUnescape(strings.TrimSpace(val)); !found || strings.TrimSpace(k) == "" || err != nil {
				return &configError{"OTEL_RESOURCE_ATTRIBUTES", v, "comma-separated key=value pairs, values percent-encoded (e.g. tracetax.run.id=abc,tracetax.config=batch)"}
			}
		}
	}

	if v := os.Getenv("OTEL_GO_X_OBSERVABILITY"); v != "" && !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
		return &configError{"OTEL_GO_X_OBSERVABILITY", v, "true, false (unset: false)"}
	}

	// The standard per-signal switches (the Go SDK reads none of them itself).
	for _, name := range []string{"OTEL_TRACES_EXPORTER", "OTEL_LOGS_EXPORTER", "OTEL_METRICS_EXPORTER"} {
		switch strings.ToLower(strings.TrimSpace(os.Getenv(name))) {
		case "", "otlp", "none":
		default:
			return &configError{name, os.Getenv(name), "otlp, none (unset: otlp)"}
		}
	}
	switch strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED"))) {
	case "", "true", "false":
	default:
		return &configError{"OTEL_SDK_DISABLED", os.Getenv("OTEL_SDK_DISABLED"), "true, false (unset: false)"}
	}
	return nil
}

// signalOn reports whether a signal ("TRACES", "LOGS", "METRICS") is set up:
// OTEL_SDK_DISABLED is not true and OTEL_<signal>_EXPORTER is not none. An
// off signal keeps the API's no-op provider: no SDK work, nothing exported.
func signalOn(signal string) bool {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	return !strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_"+signal+"_EXPORTER")), "none")
}
