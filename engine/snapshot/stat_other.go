//go:build !linux && !darwin && !freebsd

package snapshot

import "os"

// lstatAt fills e's stat from f. There is no change time or inode here:
// size, mtime and mode alone decide whether a file is hashed again.
func lstatAt(f *Found, e *Entry) error {
	fi, err := os.Lstat(f.Abs())
	if err != nil {
		return err
	}
	e.Mode, e.Size, e.Mtime = fi.Mode(), fi.Size(), fi.ModTime().UnixNano()
	return nil
}
