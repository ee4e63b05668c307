package command

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func logOf(t testing.TB, content []byte) logState {
	t.Helper()
	p := filepath.Join(t.TempDir(), "stdout.log")
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return logState{path: p, size: int64(len(content))}
}

// TestReadWindow: the window is the newest part that fits, cut on a
// character boundary; a cut read that starts inside a character is still
// text; bytes that are not UTF-8 are base64 of exactly the newest bytes.
func TestReadWindow(t *testing.T) {
	// 3-byte characters: a budget of 1000 holds 333 of them, and the
	// read of budget+4 bytes starts inside one.
	text := strings.Repeat("€", 2000)
	w, err := readWindow(logOf(t, []byte(text)), 0, false, 1000)
	if err != nil || w.encoding != UTF8 || w.text != strings.Repeat("€", 333) || w.end != 6000 || w.dropped != 6000-999 || w.cost != 999 {
		t.Fatalf("cut window: %+v %v", w, err)
	}
	// Escapes count: quotes and newlines cost two, < six.
	w, _ = readWindow(logOf(t, []byte(`a"b<`)), 0, false, 1000)
	if w.cost != 1+2+1+6 || w.text != `a"b<` {
		t.Fatalf("costs: %+v", w)
	}
	// Not UTF-8: base64 of the newest bytes that fit.
	raw := bytes.Repeat([]byte{0xff, 'x'}, 1000)
	w, _ = readWindow(logOf(t, raw), 0, false, 1000)
	got, _ := base64.StdEncoding.DecodeString(w.text)
	if w.encoding != Base64 || len(w.text) > 1000 || !bytes.Equal(got, raw[len(raw)-len(got):]) || w.dropped != int64(len(raw)-len(got)) {
		t.Fatalf("base64 window: %d chars, %d bytes, dropped %d", len(w.text), len(got), w.dropped)
	}
	// A partial last character is held back only while the job runs.
	l := logOf(t, []byte("ab\xe2\x82"))
	if w, _ := readWindow(l, 0, true, 1000); w.text != "ab" || w.end != 2 {
		t.Fatalf("held back: %+v", w)
	}
	if w, _ := readWindow(l, 0, false, 1000); w.encoding != Base64 || w.end != 4 {
		t.Fatalf("final partial character: %+v", w)
	}
}

func TestParseCursor(t *testing.T) {
	for s, ok := range map[string]bool{"o:0,e:0": true, "o:12,e:3": true, "o:012,e:3": false, "o:1,e:-1": false, "o:1;e:1": false, "": false, "o:99999999999999999999,e:0": false} {
		c, got := parseCursor(s)
		if got != ok || (ok && c.String() != s) {
			t.Errorf("parseCursor(%q) = %v, %v", s, c, got)
		}
	}
}

// BenchmarkReadWindow reads the newest 20,000 characters of a 256 MiB log
// from its start: the time and memory are those of the budget, not of the
// log.
func BenchmarkReadWindow(b *testing.B) {
	p := filepath.Join(b.TempDir(), "stdout.log")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	line := bytes.Repeat([]byte("build output line 0123456789\n"), 1<<15)
	var size int64
	for size < 256<<20 {
		n, _ := f.Write(line)
		size += int64(n)
	}
	f.Close()
	l := logState{path: p, size: size}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if w, err := readWindow(l, 0, false, 20000); err != nil || w.dropped == 0 {
			b.Fatal(w.dropped, err)
		}
	}
}
