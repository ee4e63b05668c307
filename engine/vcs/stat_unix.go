//go:build unix

package vcs

import (
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
	"golang.org/x/sys/unix"
)

// fillStat copies the stat data git keeps in an index entry.
func fillStat(e *index.Entry, fi os.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	e.Dev, e.Inode = uint32(st.Dev), uint32(st.Ino)
	e.UID, e.GID = st.Uid, st.Gid
	ctime := fi.ModTime()
	if cs, cn, ok := ctimeOf(st); ok {
		ctime = time.Unix(cs, cn)
	}
	e.CreatedAt = ctime
}

// statAt lstats name relative to an open directory (no path walk).
func statAt(dir *os.File, dirAbs, name string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fileStat{}, err
	}
	return fromUnix(&st), nil
}

// statPath lstats a path.
func statPath(p string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Clean(p), &st); err != nil {
		return fileStat{}, err
	}
	return fromUnix(&st), nil
}

func fromUnix(st *unix.Stat_t) fileStat {
	fs := fileStat{size: int64(st.Size), mtimeS: uint32(st.Mtim.Sec), mtimeN: uint32(st.Mtim.Nsec), ino: uint32(st.Ino), exec: uint32(st.Mode)&0o100 != 0}
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
		fs.kind = kindFile
	case unix.S_IFDIR:
		fs.kind = kindDir
	case unix.S_IFLNK:
		fs.kind = kindLink
	default:
		fs.kind = kindOther
	}
	return fs
}
