//go:build windows

package store

import (
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

func lockFile(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

func unlockFile(f *os.File) {
	var ol windows.Overlapped
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// Windows cannot fsync a directory handle; the rename is durable enough.
var errSyncUnsupported = syscall.Errno(windows.ERROR_ACCESS_DENIED)
