package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreRules are the .gitignore patterns that apply in one directory: its
// ancestors' first, its own last, so the deepest file wins as in git.
// Paths given to match are split root-relative components.
type ignoreRules struct {
	pats []gitignore.Pattern
}

// with returns the rules extended by the patterns of one .gitignore file in
// the directory whose root-relative components are domain.
func (r *ignoreRules) with(raw []byte, domain []string) *ignoreRules {
	var add []gitignore.Pattern
	for _, line := range bytes.Split(raw, []byte{'\n'}) {
		s := strings.TrimSuffix(string(line), "\r")
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "#") {
			continue
		}
		add = append(add, gitignore.ParsePattern(s, domain))
	}
	if len(add) == 0 {
		return r
	}
	n := &ignoreRules{}
	if r != nil {
		n.pats = append(n.pats[:0:0], r.pats...)
	}
	n.pats = append(n.pats, add...)
	return n
}

// ignored reports whether the last matching pattern excludes path.
func (r *ignoreRules) ignored(path []string, isDir bool) bool {
	if r == nil {
		return false
	}
	for i := len(r.pats) - 1; i >= 0; i-- {
		switch r.pats[i].Match(path, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

// ancestorRules loads .git/info/exclude and the .gitignore files of every
// directory from the root down to (not including) dir, whose root-relative
// components are comps.
func ancestorRules(root string, comps []string) *ignoreRules {
	var r *ignoreRules
	if raw, err := os.ReadFile(filepath.Join(root, ".git", "info", "exclude")); err == nil {
		r = r.with(raw, nil)
	}
	dir := root
	for i := 0; i <= len(comps)-1; i++ {
		if raw, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err == nil {
			r = r.with(raw, comps[:i])
		}
		dir = filepath.Join(dir, comps[i])
	}
	return r
}

// splitRel splits a root-relative slash path into components ("." is none).
func splitRel(rel string) []string {
	if rel == "" || rel == "." {
		return nil
	}
	return strings.Split(rel, "/")
}
