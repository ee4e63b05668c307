//go:build !unix

package semantic

import "os"

// mapFile reads a segment whole where memory mapping is not used.
func mapFile(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
