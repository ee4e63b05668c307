package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// The ast rows: aw ast grep against ast-grep (npm @ast-grep/cli, installed
// by scripts/test-deps) with the same pattern over the same tree: a copy of
// GOROOT/src, and a large JavaScript tree (npm's own sources). Outputs are
// equivalent when both find the same number of matches. ast-js repeats a
// search, as an agent does, so aw reads the trees its tree store kept;
// ast-js-first is the same search with an empty tree store each time (the
// first search of a tree: every candidate file parsed), its bound a guard
// rather than the goal. ast-cold is the first call with an empty
// compilation cache (each aw run starts with none: wazero compiles the
// JavaScript grammar), against ast-grep on the same file; its bound is
// what that compilation may add.

func astRowNames() []string {
	return []string{"ast-goroot", "ast-goroot-run", "ast-js", "ast-js-first", "ast-cold"}
}

func astRows(b *bench) []row {
	if b.o.rows != "" && !strings.Contains(b.o.rows, "ast-") {
		return nil // copying GOROOT/src takes a while: only when asked
	}
	goroot := filepath.Join(b.d.dir, "ast-goroot")
	if err := copyOnce(filepath.Join(runtime.GOROOT(), "src"), goroot); err != nil {
		logf("ast rows: %v", err)
		return nil
	}
	js := filepath.Join(b.d.dir, "ast-js-modules")
	if npm := npmSources(); npm != "" {
		if err := copyOnce(npm, js); err != nil {
			logf("ast rows: %v", err)
		}
		// Packages nest node_modules, which aw's default list.ignore
		// hides and ast-grep reads: the same tree for both.
		os.MkdirAll(filepath.Join(js, ".agentic"), 0o755)
		os.WriteFile(filepath.Join(js, ".agentic", "config.json"), []byte(`{"list":{"ignore":[]}}`), 0o644)
	}
	cache := filepath.Join(b.d.dir, "ast-cold-cache")
	grep := func(root, lang, pattern string, env ...string) side {
		s := b.awSide(root, "ast", "grep", pattern, "--lang", lang, "--max-results", "10000")
		s.env = append(s.env, env...)
		return s
	}
	peer := func(root, lang, pattern string) side {
		return side{name: "ast-grep", argv: []string{"ast-grep", "run", "--pattern", pattern, "--lang", lang, "--json=compact", "."}, dir: root, okExit: []int{1}}
	}
	clean := func(root string) func() {
		return func() { os.RemoveAll(filepath.Join(root, ".agentic", "artifacts")) }
	}
	rows := []row{
		{name: "ast-goroot", target: 2, missing: "scripts/test-deps (npm @ast-grep/cli)", after: clean(goroot), showRSS: true,
			aw: grep(goroot, "go", "fmt.Errorf($F, $$$A)"), peer: peer(goroot, "go", "fmt.Errorf($F, $$$A)"), check: sameMatchCount},
		{name: "ast-goroot-run", target: 2, missing: "scripts/test-deps (npm @ast-grep/cli)", after: clean(goroot), showRSS: true,
			aw: grep(goroot, "go", "for $I := 0; $I < len($S); $I++ { $$$ }"), peer: peer(goroot, "go", "for $I := 0; $I < len($S); $I++ { $$$ }"), check: sameMatchCount},
	}
	if _, err := os.Stat(js); err == nil {
		rows = append(rows, row{name: "ast-js", target: 2, missing: "scripts/test-deps (npm @ast-grep/cli)", after: clean(js), showRSS: true,
			aw: grep(js, "javascript", "require($X)"), peer: peer(js, "javascript", "require($X)"), check: sameMatchCount})
		first := filepath.Join(b.d.dir, "ast-first-cache")
		rows = append(rows, row{name: "ast-js-first", target: 5, missing: "scripts/test-deps (npm @ast-grep/cli)", showRSS: true,
			after: func() { os.RemoveAll(filepath.Join(first, "aw", "trees")); clean(js)() },
			aw:    grep(js, "javascript", "require($X)", "XDG_CACHE_HOME="+first), peer: peer(js, "javascript", "require($X)"), check: sameMatchCount})
		one := filepath.Join(b.d.dir, "ast-one")
		os.MkdirAll(one, 0o755)
		copyFile(filepath.Join(js, firstJS(js)), filepath.Join(one, "one.js"))
		rows = append(rows, row{name: "ast-cold", maxDiff: 5 * time.Second, missing: "scripts/test-deps (npm @ast-grep/cli)",
			after: func() { os.RemoveAll(cache); clean(one)() },
			aw:    grep(one, "javascript", "require($X)", "XDG_CACHE_HOME="+cache), peer: peer(one, "javascript", "require($X)"), check: sameMatchCount})
	}
	return rows
}

// sameMatchCount: aw's data.total equals the length of ast-grep's array.
func sameMatchCount(aw, peer []byte) error {
	var env struct {
		Data struct {
			Total     int  `json:"total"`
			Truncated bool `json:"truncated"`
		} `json:"data"`
	}
	if err := json.Unmarshal(aw, &env); err != nil {
		return err
	}
	var ms []json.RawMessage
	if len(strings.TrimSpace(string(peer))) > 0 {
		if err := json.Unmarshal(peer, &ms); err != nil {
			return err
		}
	}
	if env.Data.Truncated || env.Data.Total != len(ms) {
		return fmt.Errorf("aw found %d matches (truncated %v), ast-grep %d", env.Data.Total, env.Data.Truncated, len(ms))
	}
	return nil
}

// npmSources is the packages npm bundles, a large JavaScript tree on any
// machine with npm (the copy is the workspace root, so aw's default
// list.ignore of node_modules does not hide it).
func npmSources() string {
	for _, d := range []string{"/usr/share/nodejs/npm/node_modules", "/usr/lib/node_modules/npm/node_modules", "/usr/local/lib/node_modules/npm/node_modules"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return ""
}

func firstJS(root string) string {
	var found string
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && found == "" && strings.HasSuffix(p, ".js") && fi.Size() > 4000 {
			found, _ = filepath.Rel(root, p)
		}
		return nil
	})
	return found
}

// copyOnce copies a tree with cp -a unless the copy exists.
func copyOnce(from, to string) error {
	if _, err := os.Stat(to); err == nil {
		return nil
	}
	if out, err := exec.Command("cp", "-a", from, to+".tmp").CombinedOutput(); err != nil {
		return fmt.Errorf("copy %s: %v: %s", from, err, out)
	}
	return os.Rename(to+".tmp", to)
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
