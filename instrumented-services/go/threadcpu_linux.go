package main

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling OS thread has run
// (CLOCK_THREAD_CPUTIME_ID; the vDSO does not serve this clock). A raw system
// call: clock_gettime never blocks, so the spin needs none of the runtime's
// bookkeeping around a system call that might.
func threadCPU() time.Duration {
	var ts unix.Timespec
	_, _, errno := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_THREAD_CPUTIME_ID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		panic("the thread's CPU clock cannot be read: " + errno.Error())
	}
	return time.Duration(ts.Nano())
}
