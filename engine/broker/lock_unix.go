//go:build unix

package broker

import (
	"context"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func tryLock(f *os.File) bool { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil }

func unlock(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// lockWait takes f's exclusive lock, polling up to d.
func lockWait(ctx context.Context, f *os.File, d time.Duration) error {
	deadline := time.Now().Add(d)
	for !tryLock(f) {
		if time.Now().After(deadline) {
			return context.DeadlineExceeded
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

func ownedByMe(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}
