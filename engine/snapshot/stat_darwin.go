package snapshot

import (
	"io/fs"
	"syscall"
)

// statExtra is the change time and inode: a file rewritten in place with
// its size and mtime restored still has a new ctime.
func statExtra(fi fs.FileInfo) (ctime int64, ino uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ctimespec.Sec*1e9 + st.Ctimespec.Nsec, st.Ino
}
