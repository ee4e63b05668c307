package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
)

func TestPatterns(t *testing.T) {
	cases := []struct {
		globs []string
		path  string
		want  bool
	}{
		{[]string{".env*"}, ".env", true},
		{[]string{".env*"}, "sub/.env.local", true},
		{[]string{".env*"}, "sub/env", false},
		{[]string{".env*"}, "x.env", false},
		{[]string{"ab*"}, "a", false},
		{[]string{"a*b*"}, "a-x-b-y", true},
		{[]string{"a[*"}, "a[x", false}, // not a prefix: a bad class matches nothing
		{[]string{"/.agentic"}, ".agentic", true},
		{[]string{"/.agentic"}, "x/.agentic", false},
		{[]string{".env*"}, ".envrc/inside", true}, // a matching directory covers its contents
		{[]string{"node_modules"}, "a/node_modules/x/y.js", true},
		{[]string{"src/*.go"}, "src/a.go", true},
		{[]string{"src/*.go"}, "lib/src/a.go", false}, // a slash anchors at the root
		{[]string{"/build"}, "build/out.o", true},
		{[]string{"/build"}, "x/build/out.o", false},
		{[]string{"docs/**/*.md"}, "docs/a/b/c.md", true},
		{[]string{"**/secret"}, "a/b/secret/key", true},
		{[]string{"*.md"}, "a/b/README.md", true},
		{[]string{"dist/"}, "dist/app.js", true},
		{[]string{"x"}, ".", false},
	}
	for _, tc := range cases {
		if got := NewPatterns(tc.globs).Match(tc.path); got != tc.want {
			t.Errorf("%v matching %q = %v, want %v", tc.globs, tc.path, got, tc.want)
		}
	}
}

// jailFixture is a workspace next to a sibling that shares its name as a
// prefix, with symlinks in and out.
func jailFixture(t *testing.T) (root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "ws")
	outside = filepath.Join(base, "ws-evil")
	for _, d := range []string{root + "/src", root + "/.git", root + "/.agentic", outside + "/dir"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{root + "/src/a.go", root + "/.env", outside + "/secret", outside + "/dir/key"} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		root + "/out-file":  outside + "/secret",
		root + "/out-dir":   outside + "/dir",
		root + "/in-link":   "src/a.go",
		root + "/src-link":  "src",
		root + "/dangling":  outside + "/missing",
		root + "/rel-out":   "../ws-evil/secret",
		root + "/env-alias": ".env",
	}
	for name, target := range links {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestJailResolve(t *testing.T) {
	root, outside := jailFixture(t)
	s := Defaults()
	j := newJail(root, root, &s)
	cases := []struct {
		path   string
		access Access
		code   envelope.Code // "" = allowed
		rel    string
	}{
		{"src/a.go", Read, "", "src/a.go"},
		{root + "/src/a.go", Read, "", "src/a.go"},
		{"in-link", Read, "", "src/a.go"},
		{"src-link/a.go", Write, "", "src/a.go"},
		{"src/new/file.go", Write, "", "src/new/file.go"},
		{"./src/../src/a.go", Read, "", "src/a.go"},
		{".git/config", Read, "", ".git/config"},
		{".agentic/MEMORY.md", Read, "", ".agentic/MEMORY.md"},
		{".git/config", Write, envelope.ProtectedPath, ""},
		{".agentic/config.json", Write, envelope.ProtectedPath, ""},
		{"src/.git/hooks/x", Write, envelope.ProtectedPath, ""},
		{"../ws-evil/secret", Read, envelope.PathEscape, ""},
		{"src/../../ws-evil/secret", Read, envelope.PathEscape, ""},
		{outside + "/secret", Read, envelope.PathEscape, ""},
		{"/etc/passwd", Read, envelope.PathEscape, ""},
		{"out-file", Read, envelope.PathEscape, ""},
		{"out-dir/key", Read, envelope.PathEscape, ""},
		{"out-dir/../secret", Read, envelope.PathEscape, ""}, // ".." after a symlink is the target's parent
		{"dangling", Write, envelope.PathEscape, ""},
		{"rel-out", Read, envelope.PathEscape, ""},
		{"src/a.go\x00.txt", Read, envelope.PathEscape, ""},
		{".env", Read, envelope.PathEscape, ""},
		{"env-alias", Read, envelope.PathEscape, ""},
		{"sub/.env.local", Write, envelope.PathEscape, ""},
	}
	for _, tc := range cases {
		p, err := j.Resolve(tc.path, tc.access)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%q: refused: %v", tc.path, err)
			} else if p.Rel != tc.rel {
				t.Errorf("%q: rel %q, want %q", tc.path, p.Rel, tc.rel)
			}
			continue
		}
		if err == nil {
			t.Errorf("%q: allowed as %q, want %s", tc.path, p.Rel, tc.code)
		} else if got := envelope.CodeOf(err); got != tc.code {
			t.Errorf("%q: %s, want %s (%v)", tc.path, got, tc.code, err)
		}
	}
}

func TestJailAllowPathsAreReadOnly(t *testing.T) {
	root, outside := jailFixture(t)
	s := Defaults()
	s.AllowPaths = []string{outside + "/dir"}
	j := newJail(root, root, &s)
	p, err := j.Resolve(outside+"/dir/key", Read)
	if err != nil || !p.Outside {
		t.Fatalf("read under an allowPaths root: %v %+v", err, p)
	}
	if _, err := j.Resolve(outside+"/dir/key", Write); envelope.CodeOf(err) != envelope.PathEscape {
		t.Fatalf("write under an allowPaths root: %v", err)
	}
	if _, err := j.Resolve(outside+"/secret", Read); envelope.CodeOf(err) != envelope.PathEscape {
		t.Fatalf("a sibling of the allowPaths root: %v", err)
	}
}

func TestJailScope(t *testing.T) {
	root, _ := jailFixture(t)
	s := Defaults()
	j := newJail(root, filepath.Join(root, "src"), &s)
	if p, err := j.Resolve("src/a.go", Read); err != nil || p.Rel != "src/a.go" {
		t.Fatalf("inside the scope: %v %+v", err, p)
	}
	if _, err := j.Resolve("in-link", Read); err != nil {
		t.Fatalf("a link into the scope: %v", err)
	}
	if _, err := j.Resolve(".git/config", Read); envelope.CodeOf(err) != envelope.PathEscape {
		t.Fatalf("outside the scope: %v", err)
	}
}

func TestSettingsFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "config.json")
		os.WriteFile(p, []byte(text), 0o600)
		return p
	}
	s := Defaults()
	ok, err := loadSettingsFile(&s, write(`{
		// comments are allowed
		"commands": {"allow": ["go"], "env": {"A": "1"}},
		"list": {"maxDepth": 3},
	}`))
	if err != nil || !ok {
		t.Fatalf("load: %v", err)
	}
	if s.Commands.Allow[0] != "go" || s.List.MaxDepth != 3 || s.List.MaxEntries != 500 || s.Commands.Env["A"] != "1" {
		t.Fatalf("merged settings wrong: %+v", s)
	}
	for _, bad := range []string{`{"nope": 1}`, `{"commands": {"allw": []}}`, `{"commands": 3}`, `{"permissionMode": "0"}`, `[`, `[]`} {
		s := Defaults()
		if _, err := loadSettingsFile(&s, write(bad)); envelope.CodeOf(err) != envelope.InvalidInput {
			t.Errorf("%s: %v, want INVALID_INPUT", bad, err)
		}
	}
}
