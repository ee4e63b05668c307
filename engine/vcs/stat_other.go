//go:build !unix

package vcs

import (
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

func fillStat(e *index.Entry, fi os.FileInfo) { e.CreatedAt = fi.ModTime() }

func statAt(dir *os.File, dirAbs, name string) (fileStat, error) {
	return statPath(filepath.Join(dirAbs, name))
}

func statPath(p string) (fileStat, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return fileStat{}, err
	}
	t := fi.ModTime()
	fs := fileStat{size: fi.Size(), mtimeS: uint32(t.Unix()), mtimeN: uint32(t.Nanosecond()), exec: fi.Mode()&0o100 != 0}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		fs.kind = kindLink
	case fi.IsDir():
		fs.kind = kindDir
	case fi.Mode().IsRegular():
		fs.kind = kindFile
	default:
		fs.kind = kindOther
	}
	return fs, nil
}
