//go:build !linux

package sandbox

import "os"

// changeTime is the mtime here (the ctime's field differs per system); a
// process that sets a directory's mtime back can hide a change from the
// walk cache on these systems.
func changeTime(fi os.FileInfo) int64 { return fi.ModTime().UnixNano() }
