//go:build !unix

package inspect

import (
	"os"
	"path/filepath"
)

// openDir opens a directory to read its entries.
func openDir(path string) (*os.File, error) { return os.Open(path) }

// sizeAt returns the size of name in the open directory dir without
// following a symlink.
func sizeAt(dir *os.File, name string) (int64, error) {
	fi, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
