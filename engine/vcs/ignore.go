package vcs

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreLevel is one source of ignore rules: a directory's .gitignore, or
// the repository-wide ones (info/exclude, core.excludesFile) at the base.
// Deeper levels take precedence, and inside a level the last matching
// pattern wins, as in git.
type ignoreLevel struct {
	parent *ignoreLevel
	pats   []gitignore.Pattern
}

// ignored reports whether path (components from the top) is ignored.
func (l *ignoreLevel) ignored(path []string, isDir bool) bool {
	for ; l != nil; l = l.parent {
		for i := len(l.pats) - 1; i >= 0; i-- {
			switch l.pats[i].Match(path, isDir) {
			case gitignore.Exclude:
				return true
			case gitignore.Include:
				return false
			}
		}
	}
	return false
}

// child returns the level for a directory holding a .gitignore (or l when
// the file is missing or empty).
func (l *ignoreLevel) child(file string, domain []string) *ignoreLevel {
	raw, err := os.ReadFile(file)
	if err != nil || len(raw) == 0 {
		return l
	}
	pats := parseIgnore(raw, domain)
	if len(pats) == 0 {
		return l
	}
	return &ignoreLevel{parent: l, pats: pats}
}

func parseIgnore(raw []byte, domain []string) []gitignore.Pattern {
	var pats []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		pats = append(pats, gitignore.ParsePattern(line, append([]string(nil), domain...)))
	}
	return pats
}

// baseIgnore reads core.excludesFile (default $XDG_CONFIG_HOME/git/ignore)
// and info/exclude of the common dir: a linked worktree shares its main
// repository's, where `aw init` adds .agentic/.
func baseIgnore(commonDir string, excludesFile string) *ignoreLevel {
	var l *ignoreLevel
	if excludesFile == "" {
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			excludesFile = filepath.Join(x, "git", "ignore")
		} else if h, err := os.UserHomeDir(); err == nil {
			excludesFile = filepath.Join(h, ".config", "git", "ignore")
		}
	} else if strings.HasPrefix(excludesFile, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			excludesFile = filepath.Join(h, excludesFile[2:])
		}
	}
	if excludesFile != "" {
		l = l.child(excludesFile, nil)
	}
	return l.child(filepath.Join(commonDir, "info", "exclude"), nil)
}
