package inspect

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The benchmarks compare each action with a peer doing the least work that
// gives the same answer, in the same process: the ratio is what matters.

func benchFile(b *testing.B, size int) (*os.File, string) {
	b.Helper()
	ws := openWS(b, nil)
	path := filepath.Join(ws.Root, "big.txt")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	line := strings.Repeat("0123456789abcdef", 6) + "\n"
	for n := 0; n < size; n += len(line) {
		f.WriteString(line)
	}
	f.Close()
	return f, ws.Root
}

// BenchmarkReadWindow: a 2,000-line window plus the whole-file hash of a
// 64 MiB file, against crypto/sha256 alone over the same file.
func BenchmarkReadWindow(b *testing.B) {
	_, root := benchFile(b, 64<<20)
	ws2, err := openAt(root)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("aw", func(b *testing.B) {
		b.SetBytes(64 << 20)
		for b.Loop() {
			if _, err := Read(context.Background(), ws2, &ReadRequest{Path: "big.txt", StartLine: 10000, Limit: 2000}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sha256", func(b *testing.B) {
		b.SetBytes(64 << 20)
		for b.Loop() {
			f, _ := os.Open(filepath.Join(root, "big.txt"))
			h := sha256.New()
			io.Copy(h, f)
			f.Close()
		}
	})
}

// BenchmarkReadSmall: the whole of a 200-line file, as an agent reads a
// source file (and the MCP read round trip does), against reading it,
// hashing it and numbering its lines with the standard library.
func BenchmarkReadSmall(b *testing.B) {
	ws := openWS(b, nil)
	var sb strings.Builder
	for l := 1; l <= 200; l++ {
		fmt.Fprintf(&sb, "line %03d: the quick brown fox jumps over the <lazy> dog & \"friends\"\n", l)
	}
	os.WriteFile(filepath.Join(ws.Root, "small.txt"), []byte(sb.String()), 0o644)
	b.Run("aw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Read(context.Background(), ws, &ReadRequest{Path: "small.txt"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stdlib", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, _ := os.ReadFile(filepath.Join(ws.Root, "small.txt"))
			sha256.Sum256(data)
			var out strings.Builder
			for i, line := range strings.SplitAfter(string(data), "\n") {
				fmt.Fprintf(&out, "%6d\t%s", i+1, line)
			}
		}
	})
}

// BenchmarkSearch: a literal and a regex with an inner literal over 2,000
// files, against a serial walk running the regexp on every line.
func BenchmarkSearch(b *testing.B) {
	files := map[string]string{}
	for i := 0; i < 2000; i++ {
		var s strings.Builder
		for j := 0; j < 60; j++ {
			fmt.Fprintf(&s, "func f%d_%d(x int) int { return x + %d }\n", i, j, j)
		}
		if i%100 == 0 {
			s.WriteString("const PROC_SUSPEND = 1\n")
		}
		files[fmt.Sprintf("d%d/f%d.go", i%40, i)] = s.String()
	}
	ws := openWS(b, files)
	for _, pat := range []string{"PROC_SUSPEND", "[A-Z]+_SUSPEND"} {
		b.Run("aw/"+pat, func(b *testing.B) {
			for b.Loop() {
				if _, err := Search(context.Background(), ws, &SearchRequest{Pattern: pat}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("naive/"+pat, func(b *testing.B) {
			re := regexp.MustCompile(pat)
			for b.Loop() {
				filepath.WalkDir(ws.Root, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return nil
					}
					raw, _ := os.ReadFile(p)
					for _, l := range strings.Split(string(raw), "\n") {
						re.MatchString(l)
					}
					return nil
				})
			}
		})
	}
}
