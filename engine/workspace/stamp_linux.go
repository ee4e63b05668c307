package workspace

import (
	"io/fs"
	"syscall"
)

// sysStamp adds what Linux's stat tells beyond mtime and size: the file's
// identity (a file replaced by rename is another inode) and its change
// time, which no user can set back.
func sysStamp(fi fs.FileInfo) fileStamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}
	}
	return fileStamp{dev: uint64(st.Dev), ino: st.Ino, nlink: uint64(st.Nlink), uid: st.Uid,
		ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec}
}
