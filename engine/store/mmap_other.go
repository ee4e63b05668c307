//go:build !unix

package store

import "os"

// Mapped reports whether MapFile maps files (else it reads them whole).
const Mapped = false

// MapFile reads a file whole where memory mapping is not used.
func MapFile(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
