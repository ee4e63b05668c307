//go:build !unix

package vcs

import "errors"

// mapFile is not available: packs are read through go-git's storage.
func mapFile(path string) ([]byte, func(), error) {
	return nil, nil, errors.ErrUnsupported
}
