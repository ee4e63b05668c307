//go:build unix

package store

import (
	"os"
	"syscall"
)

// Mapped reports whether MapFile maps files (else it reads them whole).
const Mapped = true

// MapFile maps a file read-only: pages are read only when touched, and the
// mapping outlives a later rename or removal of the file by another
// process. An empty file is an empty slice.
func MapFile(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 {
		return []byte{}, func() {}, nil
	}
	if int64(int(fi.Size())) != fi.Size() {
		return nil, nil, syscall.EINVAL
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}
