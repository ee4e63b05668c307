package workspace

import (
	"path"
	"testing"
)

// MatchBelow must agree with Match for every path whose parent does not
// match, which is how walks call it.
func TestMatchBelowAgreesWithMatch(t *testing.T) {
	p := NewPatterns([]string{".env*", "node_modules", "src/gen", "docs/**/*.tmp", "/build", "*.log", "a/**", "/.agentic", "tmp*"})
	paths := []string{
		".env", "x/.env.local", "node_modules", "web/node_modules", "src/gen", "src/gen2",
		"lib/src/gen", "docs/a/b.tmp", "docs/b.tmp", "build", "x/build", "y.log", "z/y.log",
		"a", "a/b", "b/a", "main.go", "src/main.go", ".agentic", "x/.agentic", "tmp", "tmpx", "x/tmp1", "xtmp",
	}
	for _, rel := range paths {
		if parent := path.Dir(rel); parent != "." && p.Match(parent) {
			continue
		}
		if got, want := p.MatchBelow(rel), p.Match(rel); got != want {
			t.Errorf("MatchBelow(%q) = %v, Match = %v", rel, got, want)
		}
	}
}
