//go:build linux

package treewatch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// ready asks until the watch answers with a token.
func ready(t *testing.T, s *Service, ws *workspace.Workspace) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c := s.since(ws, ""); c.Token != "" {
			return c.Token
		}
	}
	t.Fatal("the watch never became ready")
	return ""
}

// The journal names what changed since a token, in directories watched
// from the start and made later, and nothing in ignored ones; a
// .gitignore starts it again.
func TestJournal(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"src", "node_modules/x", ".agentic"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "src/a.go"), []byte("a"), 0o644)
	ws, err := workspace.Open(workspace.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	s := NewService()
	defer s.Close()
	tok := ready(t, s, ws)
	if c := s.since(ws, tok); c.Full || len(c.Paths) != 0 {
		t.Fatalf("nothing changed: %+v", c)
	}
	os.WriteFile(filepath.Join(root, "src/a.go"), []byte("b"), 0o644)
	os.WriteFile(filepath.Join(root, "node_modules/x/i.js"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(root, "gen/deep"), 0o755)
	c := s.since(ws, tok)
	if c.Full || !slices.Equal(c.Paths, []string{"gen", "gen/deep", "src/a.go"}) {
		t.Fatalf("an edit, an ignored file, a new directory: %+v", c)
	}
	os.WriteFile(filepath.Join(root, "gen/deep/g.go"), []byte("g"), 0o644)
	if c2 := s.since(ws, c.Token); c2.Full || !slices.Equal(c2.Paths, []string{"gen/deep/g.go"}) {
		t.Fatalf("a file below a new directory: %+v", c2)
	}
	if c3 := s.since(ws, "watch_other:0"); !c3.Full || c3.Token == "" {
		t.Fatalf("a token of another watch: %+v", c3)
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("gen/\n"), 0o644)
	if c4 := s.since(ws, c.Token); !c4.Full {
		t.Fatalf("a .gitignore changed: %+v", c4)
	}
	if h := s.Held(); len(h) != 1 || h[0].State == "failed" {
		t.Fatalf("the watch is not starting again after the .gitignore: %+v", h)
	}
	tok = ready(t, s, ws) // started again
	os.WriteFile(filepath.Join(root, "src/a.go"), []byte("c"), 0o644)
	if c5 := s.since(ws, tok); c5.Full || !slices.Equal(c5.Paths, []string{"src/a.go"}) {
		t.Fatalf("after the restart: %+v", c5)
	}
}
