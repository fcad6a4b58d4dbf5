//go:build !linux

package main

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling OS thread has run.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic("the thread's CPU clock cannot be read: " + err.Error())
	}
	return time.Duration(ts.Nano())
}
