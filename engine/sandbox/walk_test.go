package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// benchWorkspace is a workspace of files regular files spread over
// directories of 50, with matches of them named .env (denyPaths) or
// deploy.key (protectedPatterns), half each, and .git and .agentic.
func benchWorkspace(b *testing.B, files, matches int) *workspace.Workspace {
	b.Helper()
	root, _ := filepath.EvalSymlinks(b.TempDir())
	os.MkdirAll(filepath.Join(root, ".agentic"), 0o755)
	os.MkdirAll(filepath.Join(root, ".git", "objects"), 0o755)
	os.WriteFile(filepath.Join(root, ".agentic", "config.json"), []byte(`{"protectedPatterns": ["deploy.key"]}`), 0o644)
	every := files
	if matches > 0 {
		every = files / matches
	}
	for i := 0; i < files; i++ {
		dir := filepath.Join(root, "src", fmt.Sprintf("pkg%03d", i/2500), fmt.Sprintf("d%03d", i/50%50))
		name := fmt.Sprintf("f%d.go", i)
		if matches > 0 && i%every == 0 {
			name = map[bool]string{true: ".env", false: "deploy.key"}[i/every%2 == 0]
		}
		if i%50 == 0 || (matches > 0 && i%every == 0) {
			os.MkdirAll(dir, 0o755)
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// A settled tree: nothing changed within racyWindow.
	time.Sleep(racyWindow + 100*time.Millisecond)
	ws, err := workspace.Open(workspace.Options{Root: root})
	if err != nil {
		b.Fatal(err)
	}
	return ws
}

// BenchmarkFor is the per-spawn cost of a command's policy: the walk that
// finds the protected and denied paths, on a 10-file workspace and on one
// of 50,000 files with 300 matches, unchanged since the previous spawn
// (the common case: the cache holds) and with the cache gone (the first
// spawn, or after a change everywhere).
func BenchmarkFor(b *testing.B) {
	for _, c := range []struct {
		files, matches int
		cold           bool
	}{{10, 2, false}, {50000, 300, false}, {10, 2, true}, {50000, 300, true}} {
		b.Run(fmt.Sprintf("files=%d/matches=%d/cold=%v", c.files, c.matches, c.cold), func(b *testing.B) {
			b.Setenv("XDG_CACHE_HOME", b.TempDir())
			ws := benchWorkspace(b, c.files, c.matches)
			env := []string{"PATH=/usr/bin:/bin"}
			p, err := For(ws, ws.Root, env)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if c.cold {
					os.Remove(p.cachePath())
				}
				if p, err = For(ws, ws.Root, env); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if got := len(p.Hidden) + len(p.ReadOnly); got < c.matches {
				b.Fatalf("the walk found %d carve-outs, want at least %d", got, c.matches)
			}
		})
	}
}

// TestWalkCache: the cached walk finds what a fresh one finds, and sees a
// denied file created later, a protected one renamed away, and a change
// whose directory's mtime was set back.
func TestWalkCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{".agentic", ".git", "a/b", "c"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, ".agentic", "config.json"), []byte(`{"protectedPatterns": ["deploy.key"]}`), 0o644)
	os.WriteFile(filepath.Join(root, "a/b/.env"), nil, 0o600)
	os.WriteFile(filepath.Join(root, "c/deploy.key"), nil, 0o600)
	ws, err := workspace.Open(workspace.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	carve := func() []string {
		t.Helper()
		p, err := For(ws, root, nil)
		if err != nil {
			t.Fatal(err)
		}
		return append(append([]string{}, p.ReadOnly...), p.Hidden...)
	}
	want := func(got []string, has, hasNot string) {
		t.Helper()
		if has != "" && !slices.Contains(got, filepath.Join(root, has)) {
			t.Errorf("%s not carved out: %v", has, got)
		}
		if hasNot != "" && slices.Contains(got, filepath.Join(root, hasNot)) {
			t.Errorf("%s still carved out: %v", hasNot, got)
		}
	}
	time.Sleep(racyWindow + 100*time.Millisecond) // settled: the next walk is cached
	first := carve()
	want(first, "a/b/.env", "")
	want(first, "c/deploy.key", "")
	if again := carve(); !slices.Equal(first, again) {
		t.Fatalf("the cached walk differs: %v, then %v", first, again)
	}
	p, _ := For(ws, root, nil)
	if _, err := os.Stat(p.cachePath()); err != nil {
		t.Fatalf("no walk cache was written: %v", err)
	}
	old := time.Now().Add(-time.Hour)
	os.WriteFile(filepath.Join(root, "a/b/.env.new"), nil, 0o600)
	os.Chtimes(filepath.Join(root, "a/b"), old, old) // the mtime set back
	os.Rename(filepath.Join(root, "c/deploy.key"), filepath.Join(root, "c/plain"))
	os.WriteFile(filepath.Join(root, "deploy.key"), nil, 0o600)
	got := carve()
	want(got, "a/b/.env.new", "")
	want(got, "deploy.key", "c/deploy.key")
}
