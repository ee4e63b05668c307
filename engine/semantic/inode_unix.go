//go:build unix

package semantic

import (
	"io/fs"
	"syscall"
)

// inode is a file's inode number, part of its stat fast path.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
