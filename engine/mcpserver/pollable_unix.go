//go:build unix

package mcpserver

import (
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Pollable returns in as a file the runtime's poller waits on, when in is
// a pipe or socket (what an MCP client connects stdin to); anything else
// (a terminal, a regular file, a reader in a test) is returned as it is.
//
// A blocking read holds an OS thread in the read system call between two
// requests; the runtime's monitor then keeps waking every 20µs to hand the
// thread's processor over, and each request starts with a thread waking
// from the kernel. Non-blocking, the reading goroutine parks and the
// request wakes it through the poller like any other goroutine.
//
// Non-blocking mode belongs to the open file, shared with whoever else
// holds it; a pipe's read end is the server's alone, and the processes aw
// starts get their own stdin, never this one.
func Pollable(in io.Reader) io.Reader {
	f, ok := in.(*os.File)
	if !ok {
		return in
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return in
	}
	// A duplicate, so that closing it leaves stdin open; the mode is the
	// open file's, so both become non-blocking.
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return in
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return in
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	// Only a file the poller took supports deadlines; any other would
	// fail its reads with EAGAIN.
	if nf.SetReadDeadline(time.Time{}) != nil {
		unix.SetNonblock(fd, false)
		nf.Close()
		return in
	}
	return nf
}
