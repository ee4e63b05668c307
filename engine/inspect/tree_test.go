package inspect

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/agentic-workspace/aw/engine/snapshot"
)

// seenTree has every kind of rule a walk applies: denyPaths, list.ignore
// (by name and anchored), .gitignore at three levels with a re-include, and
// the state directory.
var seenTree = map[string]string{
	".agentic/config.json":    `{"denyPaths": [".env*", "secret/"], "list": {"ignore": ["node_modules", "/build", "*.tmp"]}}`,
	".gitignore":              "*.log\n/out/\n",
	"main.go":                 "package main\n",
	"a.log":                   "x",
	".env.local":              "k=v",
	"secret/key":              "k",
	"node_modules/m/index.js": "x",
	"build/o":                 "x",
	"sub/build/o":             "x",
	"sub/x.tmp":               "x",
	"sub/.gitignore":          "gen/\n!keep.log\n",
	"sub/keep.log":            "x",
	"sub/other.log":           "x",
	"sub/gen/g.go":            "x",
	"sub/deep/.gitignore":     "*.go\n",
	"sub/deep/a.go":           "x",
	"sub/deep/a.txt":          "x",
	"out/o":                   "x",
	"sub/out/o":               "x",
	"sub/.env":                "x",
}

// Seen agrees with the walk on every path of a tree: what the walk visits
// is seen, and nothing else is.
func TestSeenAgreesWithTheWalk(t *testing.T) {
	ws := openWS(t, seenTree)
	var mu sync.Mutex
	visited := map[string]bool{}
	Files(context.Background(), ws, 2, func(f snapshot.Found) {
		mu.Lock()
		visited[f.Rel] = true
		mu.Unlock()
	})
	all := map[string]bool{}
	filepath.Walk(ws.Root, func(p string, fi os.FileInfo, err error) error {
		if rel, _ := filepath.Rel(ws.Root, p); rel != "." {
			all[filepath.ToSlash(rel)] = fi.IsDir()
		}
		return nil
	})
	if !visited["sub/keep.log"] || visited["sub/other.log"] || !visited["sub/build/o"] || visited["build/o"] {
		t.Fatalf("the tree does not exercise the rules: %v", visited)
	}
	for rel, isDir := range all {
		if got := Seen(ws, rel, isDir); got != visited[rel] {
			t.Errorf("Seen(%q) = %v, the walk visited it: %v", rel, got, visited[rel])
		}
	}
}

// Dirs visits exactly the directories a walk of the whole tree enters
// below its base, with list.ignore matched from the root.
func TestDirsBelowASubdirectory(t *testing.T) {
	ws := openWS(t, seenTree)
	var got []string
	var mu sync.Mutex
	Dirs(context.Background(), ws, "sub", func(rel, abs string) {
		mu.Lock()
		got = append(got, rel)
		mu.Unlock()
	})
	sort.Strings(got)
	// sub/build and sub/out are entered: /build and /out/ are anchored at
	// the root. sub/gen is gitignored.
	if want := "sub/build sub/deep sub/out"; strings.Join(got, " ") != want {
		t.Fatalf("Dirs(sub) = %v, want %s", got, want)
	}
}

// Paths reads what a walk would read and hands back what it cannot judge:
// never a file reached through a symlink (a walk follows none, whether it
// leads outside the workspace or inside), an ignored file, a directory.
func TestPathsReadsOnlyWhatAWalkWould(t *testing.T) {
	ws := openWS(t, seenTree)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package x\n"), 0o644)
	os.Symlink(outside, filepath.Join(ws.Root, "link"))
	os.Symlink("sub/deep", filepath.Join(ws.Root, "inlink"))
	var read []string
	fw := FileWalk{Visit: func(rel string, _ []byte) { read = append(read, rel) }}
	_, walkFor := fw.Paths(context.Background(), ws, []string{"main.go", "a.log", "link/secret.go", "inlink/a.txt", "sub", "gone.go", "sub/.gitignore"})
	if strings.Join(read, " ") != "main.go" {
		t.Errorf("read %v, want main.go alone", read)
	}
	if want := "link/secret.go inlink/a.txt sub gone.go sub/.gitignore"; strings.Join(walkFor, " ") != want {
		t.Errorf("walk for %v, want %s", walkFor, want)
	}
}
