package syntax_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentic-workspace/aw/engine/ast/syntax"
)

// BenchmarkGoFind parses and matches the fmt package's sources, as aw ast
// grep does for each candidate file.
func BenchmarkGoFind(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "fmt", "*.go"))
	var srcs [][]byte
	size := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
		size += len(src)
	}
	p, err := syntax.Compile(syntax.Go, "if $ERR != nil { return $A, $ERR }")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, src := range srcs {
			t, _, _ := syntax.Go.Parse(src)
			p.Find(t, false)
		}
	}
}

// BenchmarkJavaScriptFind is the same through the wasm grammar.
func BenchmarkJavaScriptFind(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "cmd", "aw", "testdata", "ast", "sample.js"))
	if err != nil {
		b.Fatal(err)
	}
	p, err := syntax.Compile(syntax.JavaScript, "console.log($$$A)")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		t, _, _ := syntax.JavaScript.Parse(src)
		p.Find(t, false)
	}
}
