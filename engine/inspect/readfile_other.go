//go:build !unix

package inspect

import (
	"io"
	"os"
)

// readSmall reads a whole file into buf (reused), at most limit bytes; more
// reports that the file is longer.
func readSmall(path string, buf []byte, limit int) (out []byte, more bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= limit {
				var one [1]byte
				n, _ := f.Read(one[:])
				return buf, n > 0, nil
			}
			nb := make([]byte, len(buf), min(max(2*cap(buf), 64<<10), limit))
			copy(nb, buf)
			buf = nb
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
}

func openFile(path string) (*os.File, error) { return os.Open(path) }
