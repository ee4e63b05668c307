//go:build !linux && !darwin && !freebsd

package snapshot

import (
	"os"
	"path/filepath"
)

// StatAt is the lstat of name in the directory parent. There is no change
// time or inode here: size, mtime and mode alone decide whether a file is
// read again.
func StatAt(_ *os.File, parent, name string) (Stat, error) {
	fi, err := os.Lstat(filepath.Join(parent, name))
	if err != nil {
		return Stat{}, err
	}
	return Stat{Mode: fi.Mode(), Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}, nil
}
