//go:build !linux

package workspace

import "io/fs"

// sysStamp is empty where stat's identity fields differ by system: the
// modification time, size and mode still identify a version, and the
// racy window covers a rewrite within the clock's resolution.
func sysStamp(fs.FileInfo) fileStamp { return fileStamp{} }
