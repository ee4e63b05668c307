//go:build unix

package vcs

import (
	"os"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat copies the stat data git keeps in an index entry.
func fillStat(e *index.Entry, fi os.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	e.Dev, e.Inode = uint32(st.Dev), uint32(st.Ino)
	e.UID, e.GID = st.Uid, st.Gid
	e.CreatedAt = time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
}
