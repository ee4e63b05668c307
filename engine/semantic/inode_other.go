//go:build !unix

package semantic

import "io/fs"

// inode is 0 where the platform gives none: the fast path then rests on
// size and modification time alone.
func inode(fs.FileInfo) uint64 { return 0 }
