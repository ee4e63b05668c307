package commands

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

// BenchmarkStatCall is what main does for `aw inspect stat go.mod` after
// the package inits: the command tree for one noun, the workspace, the
// call and its envelope.
func BenchmarkStatCall(b *testing.B) {
	dir := b.TempDir()
	os.Mkdir(dir+"/.agentic", 0o755)
	os.WriteFile(dir+"/go.mod", []byte("module x\n"), 0o644)
	io := IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard, Dir: dir,
		Getenv: func(string) string { return "" }, Terminal: func(any) bool { return false }}
	for i := 0; i < b.N; i++ {
		if code := Run(context.Background(), io, []string{"inspect", "stat", "go.mod"}); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
