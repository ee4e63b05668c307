package syntax_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/ast/syntax"
)

// find compiles pattern for lang and returns each match as its text and
// captures, "text|X=a|Y=b".
func find(t *testing.T, lang *syntax.Language, pattern, src string) []string {
	t.Helper()
	p, err := syntax.Compile(lang, pattern)
	if err != nil {
		t.Fatalf("compile %q: %v", pattern, err)
	}
	tree, _, err := lang.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range p.Find(tree, false) {
		s := tree.Text(m.Node)
		for _, name := range m.Order {
			s += "|" + name + "=" + m.Captures[name]
		}
		out = append(out, s)
	}
	return out
}

func want(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("matches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

const goSrc = `package p

// dispose(x) in a comment is not code
func f(a, b *T) {
	if a != nil {
		a.Dispose()
	}
	if a != nil {
		b.Dispose()
	}
	s := "dispose(x)"
	dispose(  a )
	dispose(b /* why */)
	log.Printf("%d %s", 1, s)
	log.Printf("none")
	_ = a + b
	_ = a - b
}

func (t *T) Close() error { return nil }
`

func TestGoMetavariablesBindAndRepeat(t *testing.T) {
	want(t, find(t, syntax.Go, "if $X != nil { $X.Dispose() }", goSrc),
		"if a != nil {\n\t\ta.Dispose()\n\t}|X=a")
	want(t, find(t, syntax.Go, "dispose($X)", goSrc), "dispose(  a )|X=a", "dispose(b /* why */)|X=b")
	want(t, find(t, syntax.Go, "$_ + $_", goSrc), "a + b")
}

func TestGoRuns(t *testing.T) {
	want(t, find(t, syntax.Go, "log.Printf($F, $$$ARGS)", goSrc), `log.Printf("%d %s", 1, s)|F="%d %s"|ARGS=1, s`)
	want(t, find(t, syntax.Go, "log.Printf($$$)", goSrc), `log.Printf("%d %s", 1, s)`, `log.Printf("none")`)
}

func TestGoScaffoldLadder(t *testing.T) {
	for _, c := range []struct{ pattern, scaffold string }{
		{"dispose($X)", "statement"},
		{"a + $Y", "statement"},
		{"Name string `json:\"n\"`", "class member"},
		{"func ($R *T) Close() error { $$$ }", "declaration"},
		{"func(x int) {}", "statement"},
	} {
		p, err := syntax.Compile(syntax.Go, c.pattern)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		if p.Scaffold != c.scaffold {
			t.Errorf("%q parsed as %s, want %s", c.pattern, p.Scaffold, c.scaffold)
		}
	}
	want(t, find(t, syntax.Go, "func ($R *T) Close() error { $$$ }", goSrc), "func (t *T) Close() error { return nil }|R=t")
}

func TestGoNeverInsideStringsOrComments(t *testing.T) {
	want(t, find(t, syntax.Go, "dispose(x)", goSrc))
}

func TestGoUnparseable(t *testing.T) {
	_, err := syntax.Compile(syntax.Go, "if ( {")
	var u *syntax.UnparseableError
	if !errors.As(err, &u) || u.Lang != "go" || len(u.Tried) != 4 {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "statement, expression, class member, declaration") {
		t.Errorf("message %q does not name the scaffolds", err)
	}
}
