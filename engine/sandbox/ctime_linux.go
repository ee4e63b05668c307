package sandbox

import (
	"os"
	"syscall"
)

// changeTime is a directory's ctime where the system has one: unlike the
// mtime, no process can set it back (touch -d sets the mtime and moves
// the ctime to now), so a sandboxed command cannot hide a change from the
// walk cache.
func changeTime(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return fi.ModTime().UnixNano()
}
