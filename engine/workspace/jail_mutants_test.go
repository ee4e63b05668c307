package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// These tests pin jail and settings rules that mutation testing
// (scripts/mutants) found undefended: each fails when one condition in
// jail.go or settings.go is flipped.

// refusal resolves p and returns the error, failing unless it has code.
func refusal(t *testing.T, j *Jail, p string, access Access, code envelope.Code) *envelope.Error {
	t.Helper()
	got, err := j.Resolve(p, access)
	if err == nil {
		t.Fatalf("%q: allowed as %+v, want %s", p, got, code)
	}
	e, ok := err.(*envelope.Error)
	if !ok || e.Code != code {
		t.Fatalf("%q: %v, want %s", p, err, code)
	}
	return e
}

// A .git that is a symlink (to a directory inside the workspace, or out of
// it) is protected by its name: writes through it are refused.
func TestJailGitSymlinkIsProtected(t *testing.T) {
	root, outside := jailFixture(t)
	os.RemoveAll(filepath.Join(root, ".git"))
	os.MkdirAll(filepath.Join(root, "gitdir"), 0o755)
	os.Symlink("gitdir", filepath.Join(root, ".git"))
	s := Defaults()
	j := newJail(root, root, &s)
	e := refusal(t, j, ".git/config", Write, envelope.ProtectedPath)
	if e.Details["path"] != "gitdir/config" || !strings.Contains(e.Message, "gitdir/config is protected") {
		t.Errorf("the refusal names %v: %s", e.Details["path"], e.Message)
	}
	refusal(t, j, ".git/hooks/pre-commit", Write, envelope.ProtectedPath)
	if p, err := j.Resolve(".git/config", Read); err != nil || p.Rel != "gitdir/config" {
		t.Errorf("reading through the .git symlink: %+v %v", p, err)
	}

	os.Remove(filepath.Join(root, ".git"))
	os.Symlink(outside+"/dir", filepath.Join(root, ".git"))
	j = newJail(root, root, &s)
	refusal(t, j, ".git/config", Write, envelope.PathEscape)
	refusal(t, j, ".git/key", Read, envelope.PathEscape)
}

// denyPaths apply inside allowPaths roots, relative to the allowPaths root.
func TestJailDenyPathsInsideAllowPaths(t *testing.T) {
	root, outside := jailFixture(t)
	os.WriteFile(outside+"/dir/.env", []byte("TOKEN=x\n"), 0o644)
	s := Defaults()
	s.AllowPaths = []string{outside + "/dir"}
	s.DenyPaths = []string{".env", "/key"}
	j := newJail(root, root, &s)
	for _, p := range []string{outside + "/dir/.env", outside + "/dir/key"} {
		if e := refusal(t, j, p, Read, envelope.PathEscape); e.Details["reason"] != "denied" {
			t.Errorf("%s: reason %v, want denied", p, e.Details["reason"])
		}
	}
	if p, err := j.Resolve(outside+"/dir", Read); err != nil || !p.Outside {
		t.Errorf("the allowPaths root itself: %+v %v", p, err)
	}
}

// The allowPaths root itself (where `cd` goes) is readable and not
// writable; a relative allowPaths entry is relative to the workspace root.
func TestJailAllowPathsRoot(t *testing.T) {
	root, outside := jailFixture(t)
	s := Defaults()
	s.AllowPaths = []string{"../ws-evil/dir"}
	j := newJail(root, root, &s)
	p, err := j.Resolve(outside+"/dir", Read)
	if err != nil || !p.Outside || p.Abs != outside+"/dir" || p.Rel != outside+"/dir" {
		t.Fatalf("cd into the allowPaths root: %+v %v", p, err)
	}
	if e := refusal(t, j, outside+"/dir", Write, envelope.PathEscape); e.Details["reason"] != "read-only" {
		t.Errorf("write to the allowPaths root: reason %v, want read-only", e.Details["reason"])
	}
	if p, err := j.Resolve("../ws-evil/dir/key", Read); err != nil || !p.Outside {
		t.Errorf("a relative path into the allowPaths root: %+v %v", p, err)
	}
}

// A NUL byte anywhere, the first byte included, is refused by name.
func TestJailNulByte(t *testing.T) {
	root, _ := jailFixture(t)
	s := Defaults()
	j := newJail(root, root, &s)
	for _, p := range []string{"\x00", "\x00src/a.go", "src/a.go\x00"} {
		if e := refusal(t, j, p, Read, envelope.PathEscape); !strings.Contains(e.Message, "NUL byte") {
			t.Errorf("%q: %s", p, e.Message)
		}
	}
}

// A refusal in a narrowed jail names the scope, not the workspace root.
func TestJailScopeRefusalNamesTheScope(t *testing.T) {
	root, _ := jailFixture(t)
	s := Defaults()
	j := newJail(root, filepath.Join(root, "src"), &s)
	if e := refusal(t, j, ".agentic", Read, envelope.PathEscape); !strings.Contains(e.Message, "outside the scope src") {
		t.Errorf("scoped refusal: %s", e.Message)
	}
	j = newJail(root, root, &s)
	if e := refusal(t, j, "../ws-evil/secret", Read, envelope.PathEscape); !strings.Contains(e.Message, "outside the workspace root") {
		t.Errorf("unscoped refusal: %s", e.Message)
	}
}

// Symlinks: a chain of 40 resolves (the kernel's limit), 41 is refused, and
// a loop is refused instead of hanging.
func TestJailSymlinkHops(t *testing.T) {
	root, _ := jailFixture(t)
	chain := func(name string, n int) {
		prev := "src/a.go"
		for i := n; i >= 1; i-- {
			link := fmt.Sprintf("%s%d", name, i)
			if err := os.Symlink(prev, filepath.Join(root, link)); err != nil {
				t.Fatal(err)
			}
			prev = link
		}
	}
	chain("ok", 40)
	chain("long", 41)
	os.Symlink("loop-b", filepath.Join(root, "loop-a"))
	os.Symlink("loop-a", filepath.Join(root, "loop-b"))
	s := Defaults()
	j := newJail(root, root, &s)
	if p, err := j.Resolve("ok1", Read); err != nil || p.Rel != "src/a.go" {
		t.Errorf("40 links: %+v %v", p, err)
	}
	for _, p := range []string{"long1", "loop-a/x"} {
		if e := refusal(t, j, p, Read, envelope.PathEscape); !strings.Contains(e.Message, "too many levels of symbolic links") {
			t.Errorf("%s: %s", p, e.Message)
		}
	}
}

// The protected refusal names the path it refused.
func TestJailProtectedNamesThePath(t *testing.T) {
	root, _ := jailFixture(t)
	s := Defaults()
	j := newJail(root, root, &s)
	if e := refusal(t, j, ".agentic/config.json", Write, envelope.ProtectedPath); e.Details["path"] != ".agentic/config.json" {
		t.Errorf("path %v", e.Details["path"])
	}
}

// Every setting has a key; settings files name a bad key, a nested bad key
// and a document that is not an object.
func TestSettingsKeys(t *testing.T) {
	keys := Keys()
	if len(keys) < 20 || keys[0].Name != "permissionMode" {
		t.Fatalf("Keys() = %d keys starting %v", len(keys), keys)
	}
	for _, name := range []string{"denyPaths", "commands.allow", "read.defaultLines"} {
		if k, err := LookupKey(name); err != nil || k.Name != name {
			t.Errorf("LookupKey(%s) = %+v, %v", name, k, err)
		}
	}
	if _, err := LookupKey("commands.nope"); envelope.CodeOf(err) == "" {
		t.Errorf("LookupKey of an unknown key: %v", err)
	}
	for doc, want := range map[string]string{
		`{"bogus": 1}`:                      `unknown key "bogus"`,
		`{"commands": {"allowed": ["go"]}}`: `unknown key "commands.allowed"`,
		`{"commands": 3}`:                   `"commands" must be an object`,
		`[1, 2]`:                            `must hold one JSON object`,
		`{"maxToolResultChars": "many"}`:    `fix the value's type`,
	} {
		s := Defaults()
		err := DecodeSettings(&s, []byte(doc), "settings.json")
		if envelope.CodeOf(err) != envelope.InvalidInput || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want INVALID_INPUT with %s", doc, err, want)
		}
	}
}
