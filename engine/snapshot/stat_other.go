//go:build !linux && !darwin && !freebsd

package snapshot

import "os"

// lstatAt fills e's stat from abs. There is no change time or inode here:
// size, mtime and mode alone decide whether a file is hashed again.
func lstatAt(_ *os.File, _, abs string, e *Entry) error {
	fi, err := os.Lstat(abs)
	if err != nil {
		return err
	}
	e.Mode, e.Size, e.Mtime = fi.Mode(), fi.Size(), fi.ModTime().UnixNano()
	return nil
}
