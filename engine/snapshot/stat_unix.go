//go:build linux || darwin || freebsd

package snapshot

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// lstatAt fills e's stat from f, without following a symlink: relative to
// the directory the walk holds open, the kernel does not walk the whole
// path again, and nothing is allocated. The change time and inode catch a
// file rewritten in place with its size and mtime put back. With no
// directory open, the absolute path is statted.
func lstatAt(f *Found, e *Entry) error {
	var st unix.Stat_t
	fd, name := unix.AT_FDCWD, f.Name
	if f.Dir != nil {
		fd = int(f.Dir.Fd())
	} else {
		name = f.Abs()
	}
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &os.PathError{Op: "lstat", Path: f.Abs(), Err: err}
	}
	e.Mode = fileMode(uint32(st.Mode))
	e.Size = st.Size
	e.Mtime = st.Mtim.Nano()
	e.Ctime = st.Ctim.Nano()
	e.Ino = uint64(st.Ino)
	return nil
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
