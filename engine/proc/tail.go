package proc

import (
	"strings"
	"sync"
)

// Tail keeps the last Max bytes a process wrote (a server's or an
// adapter's stderr), for the message that says why it failed.
type Tail struct {
	Max int
	mu  sync.Mutex
	buf []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.Max {
		t.buf = t.buf[len(t.buf)-t.Max:]
	}
	return len(p), nil
}

// String is the end of what was written, at most 600 bytes, or
// "(nothing)".
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	if s == "" {
		return "(nothing)"
	}
	return s
}
