// Command demo-go-ebpf runs mode ebpf: the uninstrumented bin/demo-go-bare
// with the OpenTelemetry Go eBPF auto-instrumentation agent
// (go.opentelemetry.io/auto, built into bin/otel-go-instrumentation by
// `make ebpf`) attached to it by PID.
//
// Sequence: preflight checks (agent built, privileges, uprobe PMU) → start
// the app, which waits on a pipe before listening → start the agent on the
// app's PID → when the agent reports its probes loaded, release the app →
// on SIGTERM/SIGINT stop the app gracefully, then the agent (flushes its
// batch span processor), each bounded in time.
//
// When mode ebpf cannot run, it prints the reason on one line on stderr and
// exits 2. It links no OpenTelemetry module itself.
//
// `demo-go-ebpf -- PROGRAM ARGS...` attaches the agent to any Go program
// instead (TraceTax's `ebpf` launch of a user's own service): the program
// starts listening at once, so requests it answers before the probes are
// loaded are not traced (the engine's warm-up covers that time).
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	prog           = "demo-go-ebpf"
	loadTimeout    = 60 * time.Second
	appStopTimeout = 4 * time.Second // the app itself bounds its shutdown to ~2 s (no SDK to flush)
	agentStopLimit = 5 * time.Second
	loadedMarker   = "instrumentation loaded successfully"
)

func main() { os.Exit(run()) }

func unavailable(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "%s: TRACETAX_PROCESSOR=ebpf unavailable: %s\n", prog, fmt.Sprintf(format, args...))
	return 2
}

func run() int {
	if m := os.Getenv("TRACETAX_PROCESSOR"); m != "" && m != "ebpf" {
		fmt.Fprintf(os.Stderr, "%s: invalid TRACETAX_PROCESSOR=%q: accepted values: ebpf (this launcher runs mode ebpf only)\n", prog, m)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		return unavailable("cannot locate own executable: %v", err)
	}
	dir := filepath.Dir(self)
	app := filepath.Join(dir, "demo-go-bare")
	agent := filepath.Join(dir, "otel-go-instrumentation")
	var appArgs []string
	target := len(os.Args) > 1 && os.Args[1] == "--"
	if target {
		if len(os.Args) < 3 {
			fmt.Fprintf(os.Stderr, "%s: usage: %s [-- PROGRAM ARGS...]\n", prog, prog)
			return 2
		}
		if app, err = exec.LookPath(os.Args[2]); err != nil {
			return unavailable("cannot find %s: %v", os.Args[2], err)
		}
		appArgs = os.Args[3:]
	}

	if _, err := os.Stat(app); err != nil {
		return unavailable("%s not built (run `make build`)", app)
	}
	if _, err := os.Stat(agent); err != nil {
		return unavailable("eBPF agent %s not built: run `make ebpf` (needs clang, llvm and libbpf-dev to generate the go.opentelemetry.io/auto eBPF objects with bpf2go)", agent)
	}
	if reason := preflight(); reason != "" {
		return unavailable("%s", reason)
	}

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)

	// The app blocks on this pipe until the probes are attached.
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return unavailable("pipe: %v", err)
	}
	appCmd := exec.Command(app, appArgs...)
	appCmd.Env = append(os.Environ(), "TRACETAX_PROCESSOR=ebpf")
	if !target { // only the demo waits for the probes before it listens
		appCmd.Env = append(appCmd.Env, "TRACETAX_EBPF_READY_FD=3")
		appCmd.ExtraFiles = []*os.File{readyR}
	}
	appCmd.SysProcAttr = childAttr()
	appCmd.Stdout, appCmd.Stderr = os.Stdout, os.Stderr
	if err := appCmd.Start(); err != nil {
		return unavailable("start %s: %v", app, err)
	}
	_ = readyR.Close()
	appDone := make(chan int, 1)
	go func() { appDone <- exitCode(appCmd.Wait()) }()

	agentEnv := os.Environ()
	if os.Getenv("OTEL_SERVICE_NAME") == "" {
		agentEnv = append(agentEnv, "OTEL_SERVICE_NAME=tracetax-demo-go")
	}
	agentEnv = append(agentEnv, "OTEL_GO_AUTO_TARGET_PID="+strconv.Itoa(appCmd.Process.Pid))
	agentCmd := exec.Command(agent)
	agentCmd.Env = agentEnv
	agentCmd.SysProcAttr = childAttr()
	pr, pw := io.Pipe()
	agentCmd.Stdout, agentCmd.Stderr = pw, pw
	if err := agentCmd.Start(); err != nil {
		stopApp(appCmd, appDone)
		return unavailable("start %s: %v", agent, err)
	}
	agentDone := make(chan struct{})
	go func() { _ = agentCmd.Wait(); _ = pw.Close(); close(agentDone) }()

	loaded := make(chan struct{})
	lastErr := make(chan string, 1)
	go func() { // copy the agent's log to stderr, watching for the marker
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		seen, last := false, ""
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(os.Stderr, line)
			if strings.Contains(line, `"level":"ERROR"`) {
				last = line
			}
			if !seen && strings.Contains(line, loadedMarker) {
				seen = true
				close(loaded)
			}
		}
		lastErr <- last
	}()

	select {
	case <-loaded:
		_ = readyW.Close() // release the app: it starts listening now
	case <-agentDone:
		stopApp(appCmd, appDone)
		return unavailable("the eBPF agent exited before its probes were loaded: %s", <-lastErr)
	case <-time.After(loadTimeout):
		stopAgent(agentCmd, agentDone)
		stopApp(appCmd, appDone)
		return unavailable("the eBPF agent did not load its probes within %s", loadTimeout)
	case code := <-appDone:
		stopAgent(agentCmd, agentDone)
		fmt.Fprintf(os.Stderr, "%s: %s exited (code %d) before the probes were loaded\n", prog, app, code)
		if code == 2 {
			return 2 // the app refused its configuration (one line above names the variable)
		}
		return 1
	case <-sigs:
		stopApp(appCmd, appDone)
		stopAgent(agentCmd, agentDone)
		return 0
	}

	code := 0
	select {
	case <-sigs:
		code = stopApp(appCmd, appDone)
	case code = <-appDone:
	case <-agentDone:
		fmt.Fprintf(os.Stderr, "%s: the eBPF agent exited while the app was running: %s\n", prog, <-lastErr)
		stopApp(appCmd, appDone)
		return 1
	}
	stopAgent(agentCmd, agentDone)
	return code
}

// childAttr puts a child in its own process group, so a signal sent to the
// launcher's group (e.g. Ctrl+C) reaches only the launcher, which then stops
// the app and the agent in order (a second SIGTERM would cut the agent's
// flush short); Pdeathsig stops the child if the launcher dies.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// preflight reports why eBPF uprobes cannot be used here, or "".
func preflight() string {
	if _, err := os.Stat("/sys/bus/event_source/devices/uprobe/type"); err != nil {
		return "the kernel exposes no uprobe PMU (/sys/bus/event_source/devices/uprobe missing: CONFIG_UPROBE_EVENTS off?)"
	}
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		return "the kernel exposes no BTF (/sys/kernel/btf/vmlinux missing)"
	}
	capEff, err := effectiveCaps()
	if err != nil {
		return "cannot read capabilities: " + err.Error()
	}
	const capSysAdmin, capPerfmon, capBPF = 21, 38, 39
	has := func(c uint) bool { return capEff&(1<<c) != 0 }
	if !has(capSysAdmin) && !(has(capBPF) && has(capPerfmon)) {
		return fmt.Sprintf("needs root or CAP_SYS_ADMIN (or CAP_BPF+CAP_PERFMON) to load eBPF programs and attach uprobes; effective capabilities are %#x", capEff)
	}
	return ""
}

func effectiveCaps() (uint64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, errors.New("no CapEff in /proc/self/status")
}

func stopApp(cmd *exec.Cmd, done chan int) int {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case code := <-done:
		return code
	case <-time.After(appStopTimeout):
		_ = cmd.Process.Kill()
		return <-done
	}
}

// stopAgent lets the agent flush its batch span processor; its own shutdown
// has no deadline, so it is bounded here.
func stopAgent(cmd *exec.Cmd, done chan struct{}) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(agentStopLimit):
		_ = cmd.Process.Kill()
		<-done
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() >= 0 {
			return ee.ExitCode()
		}
		return 1
	}
	return 1
}
