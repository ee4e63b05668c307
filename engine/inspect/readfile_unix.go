//go:build unix

package inspect

import (
	"os"
	"syscall"
)

// readSmall reads a whole file the walker found into buf (reused between
// files), without following a symlink swapped in since the walk saw it.
// It reads at most limit bytes; more reports that the file is longer.
// Raw system calls: an os.File costs an extra fstat and allocations per
// file, which shows on a 50k-file search.
func readSmall(path string, buf []byte, limit int) (out []byte, more bool, err error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false, err
	}
	defer syscall.Close(fd)
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= limit {
				var one [1]byte
				n, _ := syscall.Read(fd, one[:])
				return buf, n > 0, nil
			}
			nb := make([]byte, len(buf), min(max(2*cap(buf), 64<<10), limit))
			copy(nb, buf)
			buf = nb
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, false, err
		}
		if n == 0 {
			return buf, false, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// openFile opens a regular file for reading as os.Open would, without
// offering it to the runtime's poller: os.Open tries, which costs four
// fcntl and epoll_ctl calls that always fail for a regular file.
func openFile(path string) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}
