package command

import (
	"io"
	"os"
	"unicode/utf8"
)

// Tail is the end of a log as a result carries it.
type Tail struct {
	Text      string
	Size      int64 // the whole file's size in bytes
	Truncated bool  // Text is not the whole file
}

// tailFile returns the last chars characters of path, and never more than
// maxBytes bytes of it (0: no byte cap). It reads only the end of the
// file (at most 4 bytes a character): memory and time stay the same for a
// 1 KiB log and a 4 GiB one. The cut falls on a UTF-8 boundary.
func tailFile(path string, chars int, maxBytes int64) (Tail, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return Tail{}, nil
		}
		return Tail{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Tail{}, err
	}
	size := fi.Size()
	want := int64(chars) * utf8.UTFMax
	if maxBytes > 0 && want > maxBytes {
		want = maxBytes
	}
	if want > size {
		want = size
	}
	buf := make([]byte, want)
	off := size - want
	n, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return Tail{}, err
	}
	buf = buf[:n]
	text := lastChars(buf, chars, off > 0)
	return Tail{Text: text, Size: size, Truncated: int64(len(text)) < size}, nil
}

// lastChars keeps the last n characters of b. When b starts inside the
// file (cut), a partial character at its front is dropped first.
func lastChars(b []byte, n int, cut bool) string {
	if cut {
		for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
			if utf8.RuneStart(b[i]) {
				b = b[i:]
				break
			}
		}
	}
	i := len(b)
	for count := 0; i > 0 && count < n; count++ {
		_, size := utf8.DecodeLastRune(b[:i])
		i -= size
	}
	return string(b[i:])
}
