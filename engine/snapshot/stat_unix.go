//go:build linux || darwin || freebsd

package snapshot

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// StatAt is the lstat of name in the directory parent, open as dir:
// relative to the directory a walk holds open, the kernel does not walk
// the whole path again, and nothing is allocated. The change time and
// inode catch a file rewritten in place with its size and mtime put back.
// With dir nil, the absolute path is statted.
func StatAt(dir *os.File, parent, name string) (Stat, error) {
	var st unix.Stat_t
	fd, rel := unix.AT_FDCWD, name
	if dir != nil {
		fd = int(dir.Fd())
	} else {
		rel = filepath.Join(parent, name)
	}
	if err := unix.Fstatat(fd, rel, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Stat{}, &os.PathError{Op: "lstat", Path: filepath.Join(parent, name), Err: err}
	}
	return Stat{Mode: fileMode(uint32(st.Mode)), Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: uint64(st.Ino)}, nil
}

// fileMode is st_mode as os.Lstat reports it.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
