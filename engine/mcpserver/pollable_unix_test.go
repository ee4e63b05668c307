//go:build unix

package mcpserver_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentic-workspace/aw/engine/mcpserver"
)

// A pipe becomes non-blocking and still reads every byte and then EOF;
// anything that is not a pipe or socket is left as it was.
func TestPollableStdin(t *testing.T) {
	// A pipe as a process inherits it: blocking, not in the poller (an
	// os.Pipe is both non-blocking and polled already).
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "client")
	defer r.Close()
	in := mcpserver.Pollable(r)
	if in == io.Reader(r) {
		t.Fatal("a pipe was returned as it was")
	}
	if !nonblocking(t, in.(*os.File)) {
		t.Fatal("the pipe is still blocking")
	}
	go func() {
		time.Sleep(20 * time.Millisecond) // the reader waits first
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
		w.Close()
	}()
	got, err := io.ReadAll(in)
	if err != nil || string(got) != `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n" {
		t.Fatalf("read %q, %v", got, err)
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "requests"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if in := mcpserver.Pollable(f); in != io.Reader(f) {
		t.Error("a regular file was replaced")
	}
	if nonblocking(t, f) {
		t.Error("a regular file was made non-blocking")
	}
}

// nonblocking reads f's mode without changing it (f.Fd would make it
// blocking).
func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	rc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK != 0
}
