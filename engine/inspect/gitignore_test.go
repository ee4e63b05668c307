package inspect

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// The patterns parsePattern matches itself give go-git's answer for every
// path, directory or not, in and out of their domain.
func TestNamePatternsMatchAsGoGit(t *testing.T) {
	lines := []string{"node_modules/", "*.log", ".agentic/", "!keep.log", "build", "!dist/", "*", "*.tar.gz  ", "name\\ ", "a*b", "/root-only", "dir/file", "[ab].txt", "", "!"}
	paths := []string{"node_modules", "src/node_modules", "src/node_modules/x.js", "a.log", "logs/a.log", "a.log/inner", "keep.log", "x/keep.log", "build", "build/out", "src/build", "dist", "dist/a", "x.tar.gz", "name ", "ab", "a.txt", "root-only", "dir/file", "deep/dir/file", ".log", "sub/.agentic/x"}
	for _, domain := range [][]string{nil, {"sub"}} {
		for _, line := range lines {
			ours, theirs := parsePattern(line, domain), gitignore.ParsePattern(line, domain)
			for _, p := range paths {
				comps := strings.Split(p, "/")
				for _, isDir := range []bool{false, true} {
					if got, want := ours.Match(comps, isDir), theirs.Match(comps, isDir); got != want {
						t.Errorf("%q (domain %v) on %s (dir %v): %v, go-git %v", line, domain, p, isDir, got, want)
					}
				}
			}
		}
	}
}
