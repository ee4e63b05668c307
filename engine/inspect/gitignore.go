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
		add = append(add, parsePattern(s, domain))
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

// parsePattern is gitignore.ParsePattern, with the common lines (a name
// like node_modules/ or *.log: no slash inside, and a glob that is a
// literal or "*" and a literal) matched by comparing strings: a walk tests
// every entry against every pattern, and filepath.Match was most of the
// cost of walking a tree that needed no other work.
func parsePattern(line string, domain []string) gitignore.Pattern {
	p, n := line, &namePattern{}
	if strings.HasPrefix(p, "!") {
		n.inclusion, p = true, p[1:]
	}
	if !strings.HasSuffix(p, "\\ ") {
		p = strings.TrimRight(p, " ")
	}
	if strings.HasSuffix(p, "/") {
		n.dirOnly, p = true, p[:len(p)-1]
	}
	const meta = "*?[\\"
	switch {
	case strings.Contains(p, "/"):
		return gitignore.ParsePattern(line, domain)
	case !strings.ContainsAny(p, meta):
		n.name = p
	case p[0] == '*' && !strings.ContainsAny(p[1:], meta):
		n.name, n.suffix = p[1:], true
	default:
		return gitignore.ParsePattern(line, domain)
	}
	n.domain = append([]string(nil), domain...)
	return n
}

// namePattern is a pattern parsePattern matches itself, exactly as go-git
// matches a pattern with no slash: any component below the domain may
// match, except that a directory-only pattern matching the last component
// of a path that is not a directory does not match at all.
type namePattern struct {
	domain    []string
	name      string // the literal, or the suffix after "*"
	suffix    bool
	inclusion bool
	dirOnly   bool
}

func (p *namePattern) Match(path []string, isDir bool) gitignore.MatchResult {
	if len(path) <= len(p.domain) {
		return gitignore.NoMatch
	}
	for i, e := range p.domain {
		if path[i] != e {
			return gitignore.NoMatch
		}
	}
	path = path[len(p.domain):]
	for i, c := range path {
		if c != p.name && !(p.suffix && strings.HasSuffix(c, p.name)) {
			continue
		}
		if p.dirOnly && !isDir && i == len(path)-1 {
			return gitignore.NoMatch
		}
		if p.inclusion {
			return gitignore.Include
		}
		return gitignore.Exclude
	}
	return gitignore.NoMatch
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
