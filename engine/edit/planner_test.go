package edit

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// planWS is a workspace in Auto mode with the files given (a name ending in
// "/" is a directory), .git and .agentic present.
func planWS(t *testing.T, files map[string]string) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{".git", ".agentic"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(workspace.Options{Root: dir, Tier: workspace.TierWrite})
	if err != nil {
		t.Fatal(err)
	}
	ws.Settings.PermissionMode = 2
	ws.Settings.AllowDestructiveEdits = true
	return ws
}

func ops(t *testing.T, raw string) []Op {
	t.Helper()
	var out []Op
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("ops %s: %v", raw, err)
	}
	return out
}

func errCode(err error) (envelope.Code, any) {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e.Code, e.Details["reason"]
	}
	return "", nil
}

// TestPlanner runs operation sequences against real files and checks the
// planned result of every path, or the refusal with its reason.
func TestPlanner(t *testing.T) {
	base := map[string]string{
		"a.txt":    "one\ntwo\nthree\n",
		"dup.txt":  "x x x\n",
		"crlf.txt": "l1\r\nl2\r\n",
		"bom.txt":  "\ufeffhead\nbody\n",
		"nonl.txt": "last",
		"d/":       "",
	}
	cases := []struct {
		name        string
		ops         string
		want        map[string]*string // path -> content after ("" absent = deleted)
		destructive bool
		code        envelope.Code
		reason      string
	}{
		{"create", `[{"type":"create","path":"n.txt","content":"hi\n"}]`, m("n.txt", "hi\n"), false, "", ""},
		{"create over existing", `[{"type":"create","path":"a.txt","content":"x"}]`, nil, false, envelope.EditConflict, "target-exists"},
		{"create overwrite", `[{"type":"create","path":"a.txt","content":"x","overwrite":true}]`, m("a.txt", "x"), true, "", ""},
		{"create then overwrite own", `[{"type":"create","path":"n","content":"1"},{"type":"create","path":"n","content":"2","overwrite":true}]`, m("n", "2"), false, "", ""},
		{"create without content", `[{"type":"create","path":"n.txt"}]`, nil, false, envelope.InvalidInput, ""},
		{"create no path", `[{"type":"create","content":""}]`, nil, false, envelope.InvalidInput, ""},
		{"create in .git", `[{"type":"create","path":".git/hooks/pre-commit","content":"x"}]`, nil, false, envelope.ProtectedPath, ""},
		{"create outside", `[{"type":"create","path":"../x","content":"x"}]`, nil, false, envelope.PathEscape, ""},
		{"create over a directory", `[{"type":"create","path":"d","content":"x"}]`, nil, false, envelope.EditConflict, "not-a-file"},
		{"rewrite", `[{"type":"rewrite","path":"a.txt","content":"new\n"}]`, m("a.txt", "new\n"), true, "", ""},
		{"rewrite missing", `[{"type":"rewrite","path":"z","content":"x"}]`, nil, false, envelope.NotFound, ""},
		{"rewrite create_if_missing", `[{"type":"rewrite","path":"z","content":"x","create_if_missing":true}]`, m("z", "x"), false, "", ""},
		{"rewrite keeps crlf", `[{"type":"rewrite","path":"crlf.txt","content":"a\nb\n"}]`, m("crlf.txt", "a\r\nb\r\n"), true, "", ""},
		{"rewrite keeps bom", `[{"type":"rewrite","path":"bom.txt","content":"x\n"}]`, m("bom.txt", "\ufeffx\n"), true, "", ""},
		{"rewrite no content", `[{"type":"rewrite","path":"a.txt"}]`, nil, false, envelope.InvalidInput, ""},
		{"replace", `[{"type":"replace","path":"a.txt","search":"two","replacement":"2"}]`, m("a.txt", "one\n2\nthree\n"), false, "", ""},
		{"replace no match", `[{"type":"replace","path":"a.txt","search":"four","replacement":""}]`, nil, false, envelope.EditConflict, "no-match"},
		{"replace gutter hint", `[{"type":"replace","path":"a.txt","search":"1 | one\n2 | two","replacement":"x","allow_line_numbers":true}]`, nil, false, envelope.EditConflict, "no-match"},
		{"replace not unique", `[{"type":"replace","path":"dup.txt","search":"x","replacement":"y"}]`, nil, false, envelope.EditConflict, "not-unique"},
		{"replace expected 3", `[{"type":"replace","path":"dup.txt","search":"x","replacement":"y","expected_matches":3}]`, m("dup.txt", "y y y\n"), false, "", ""},
		{"replace expected 2 of 3", `[{"type":"replace","path":"dup.txt","search":"x","replacement":"y","expected_matches":2}]`, nil, false, envelope.EditConflict, "not-unique"},
		{"replace expected 0", `[{"type":"replace","path":"dup.txt","search":"x","replacement":"y","expected_matches":0}]`, nil, false, envelope.InvalidInput, ""},
		{"replace all", `[{"type":"replace","path":"dup.txt","search":"x","replacement":"zz","replace_all":true}]`, m("dup.txt", "zz zz zz\n"), false, "", ""},
		{"replace all and expected", `[{"type":"replace","path":"dup.txt","search":"x","replacement":"y","replace_all":true,"expected_matches":3}]`, nil, false, envelope.InvalidInput, ""},
		{"replace empty search", `[{"type":"replace","path":"a.txt","search":"","replacement":"y"}]`, nil, false, envelope.InvalidInput, ""},
		{"replace no replacement", `[{"type":"replace","path":"a.txt","search":"one"}]`, nil, false, envelope.InvalidInput, ""},
		{"replace missing file", `[{"type":"replace","path":"z","search":"a","replacement":"b"}]`, nil, false, envelope.NotFound, ""},
		{"replace crlf from a read", `[{"type":"replace","path":"crlf.txt","search":"l1\nl2","replacement":"a\nb"}]`, m("crlf.txt", "a\r\nb\r\n"), false, "", ""},
		{"replace sees earlier op", `[{"type":"create","path":"n","content":"abc"},{"type":"replace","path":"n","search":"b","replacement":"B"}]`, m("n", "aBc"), false, "", ""},
		{"replace gutter refused", `[{"type":"replace","path":"a.txt","search":"two","replacement":"1 | a\n2 | b\n3 | c"}]`, nil, false, envelope.InvalidInput, ""},
		{"stale", `[{"type":"replace","path":"a.txt","search":"two","replacement":"2","expect_sha256":"00"}]`, nil, false, envelope.EditConflict, "stale"},
		{"splice insert", `[{"type":"splice","path":"a.txt","start_line":2,"content":"1.5\n"}]`, m("a.txt", "one\n1.5\ntwo\nthree\n"), false, "", ""},
		{"splice replace lines", `[{"type":"splice","path":"a.txt","start_line":1,"delete_count":2,"content":"x"}]`, m("a.txt", "x\nthree\n"), false, "", ""},
		{"splice append", `[{"type":"splice","path":"a.txt","start_line":4,"content":"four\n"}]`, m("a.txt", "one\ntwo\nthree\nfour\n"), false, "", ""},
		{"splice append without newline", `[{"type":"splice","path":"nonl.txt","start_line":2,"content":"more"}]`, m("nonl.txt", "last\nmore"), false, "", ""},
		{"splice delete", `[{"type":"splice","path":"a.txt","start_line":3,"delete_count":1}]`, m("a.txt", "one\ntwo\n"), false, "", ""},
		{"splice crlf", `[{"type":"splice","path":"crlf.txt","start_line":2,"content":"mid\n"}]`, m("crlf.txt", "l1\r\nmid\r\nl2\r\n"), false, "", ""},
		{"splice bom", `[{"type":"splice","path":"bom.txt","start_line":1,"content":"top\n"}]`, m("bom.txt", "\ufefftop\nhead\nbody\n"), false, "", ""},
		{"splice line 0", `[{"type":"splice","path":"a.txt","start_line":0,"content":"x"}]`, nil, false, envelope.InvalidInput, ""},
		{"splice past end", `[{"type":"splice","path":"a.txt","start_line":5,"content":"x"}]`, nil, false, envelope.InvalidInput, ""},
		{"splice delete past end", `[{"type":"splice","path":"a.txt","start_line":3,"delete_count":2}]`, nil, false, envelope.InvalidInput, ""},
		{"splice negative delete", `[{"type":"splice","path":"a.txt","start_line":1,"delete_count":-1}]`, nil, false, envelope.InvalidInput, ""},
		{"copy", `[{"type":"copy","from":"a.txt","to":"b.txt"}]`, map[string]*string{"a.txt": s("one\ntwo\nthree\n"), "b.txt": s("one\ntwo\nthree\n")}, false, "", ""},
		{"copy over existing", `[{"type":"copy","from":"a.txt","to":"dup.txt"}]`, nil, false, envelope.EditConflict, "target-exists"},
		{"copy overwrite", `[{"type":"copy","from":"a.txt","to":"dup.txt","overwrite":true}]`, m("dup.txt", "one\ntwo\nthree\n"), true, "", ""},
		{"copy to itself", `[{"type":"copy","from":"a.txt","to":"a.txt"}]`, nil, false, envelope.InvalidInput, ""},
		{"copy missing", `[{"type":"copy","from":"z","to":"y"}]`, nil, false, envelope.NotFound, ""},
		{"copy a directory", `[{"type":"copy","from":"d","to":"y"}]`, nil, false, envelope.InvalidInput, ""},
		{"copy no from", `[{"type":"copy","to":"y"}]`, nil, false, envelope.InvalidInput, ""},
		{"copy into .agentic", `[{"type":"copy","from":"a.txt","to":".agentic/config.json"}]`, nil, false, envelope.ProtectedPath, ""},
		{"move", `[{"type":"move","from":"a.txt","to":"d/a.txt"}]`, map[string]*string{"a.txt": nil, "d/a.txt": s("one\ntwo\nthree\n")}, true, "", ""},
		{"move a just-created file", `[{"type":"create","path":"n","content":"1"},{"type":"move","from":"n","to":"m"}]`, map[string]*string{"n": nil, "m": s("1")}, true, "", ""},
		{"delete", `[{"type":"delete","path":"a.txt"}]`, map[string]*string{"a.txt": nil}, true, "", ""},
		{"delete missing", `[{"type":"delete","path":"z"}]`, nil, false, envelope.NotFound, ""},
		{"delete missing ignored", `[{"type":"delete","path":"z","ignore_missing":true},{"type":"create","path":"n","content":""}]`, m("n", ""), false, "", ""},
		{"delete own create", `[{"type":"create","path":"n","content":"1"},{"type":"delete","path":"n"}]`, map[string]*string{"n": nil}, false, "", ""},
		{"mkdir", `[{"type":"mkdir","path":"new/dir"}]`, map[string]*string{}, false, "", ""},
		{"mkdir over a file", `[{"type":"mkdir","path":"a.txt"}]`, nil, false, envelope.EditConflict, "target-exists"},
		{"mkdir below a file", `[{"type":"mkdir","path":"a.txt/sub"}]`, nil, false, envelope.EditConflict, ""},
		{"mkdir where an op made a file", `[{"type":"create","path":"n","content":""},{"type":"mkdir","path":"n/sub"}]`, nil, false, envelope.EditConflict, "not-a-directory"},
		{"file under an op's directory name", `[{"type":"create","path":"n","content":""},{"type":"create","path":"n/x","content":""}]`, nil, false, envelope.EditConflict, ""},
		{"mkdir root", `[{"type":"mkdir","path":"."}]`, nil, false, envelope.InvalidInput, ""},
		{"mkdir no path", `[{"type":"mkdir"}]`, nil, false, envelope.InvalidInput, ""},
		{"mkdir in .git", `[{"type":"mkdir","path":".git/x"}]`, nil, false, envelope.ProtectedPath, ""},
		{"no type", `[{"path":"a.txt"}]`, nil, false, envelope.InvalidInput, ""},
		{"unknown type", `[{"type":"chmod","path":"a.txt"}]`, nil, false, envelope.InvalidInput, ""},
		{"no operations", `[]`, nil, false, envelope.InvalidInput, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := planWS(t, base)
			p := newPlanner(ws)
			err := p.apply(ops(t, c.ops))
			if c.code != "" {
				code, reason := errCode(err)
				if code != c.code || c.reason != "" && reason != c.reason {
					t.Fatalf("err %v (reason %v), want %s %s", err, reason, c.code, c.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for path, want := range c.want {
				f := p.files[path]
				if f == nil {
					t.Fatalf("%s not planned", path)
				}
				switch {
				case want == nil && f.exists:
					t.Errorf("%s still exists", path)
				case want != nil && (!f.exists || string(f.content) != *want):
					t.Errorf("%s = %q (exists %v), want %q", path, f.content, f.exists, *want)
				}
			}
			if got := len(p.reasons) > 0; got != c.destructive {
				t.Errorf("destructive %v (%v), want %v", got, p.reasons, c.destructive)
			}
		})
	}
	if c, _ := errCode(newPlanner(planWS(t, nil)).apply(make([]Op, 1001))); c != envelope.InvalidInput {
		t.Error("1001 operations must be refused")
	}
	bad := "\xff"
	if c, _ := errCode(newPlanner(planWS(t, base)).apply([]Op{{Type: "replace", Path: "a.txt", Search: "two", Replacement: &bad}})); c != envelope.InvalidInput {
		t.Error("a replacement that is not UTF-8 must be refused")
	}
}

// TestCopyDropsExecutableBits: a new file never becomes executable, so a
// copy cannot plant a program an allowed command name would run.
func TestCopyDropsExecutableBits(t *testing.T) {
	ws := planWS(t, map[string]string{"tool.sh": "#!/bin/sh\n"})
	os.Chmod(filepath.Join(ws.Root, "tool.sh"), 0o755)
	p := newPlanner(ws)
	if err := p.apply(ops(t, `[{"type":"copy","from":"tool.sh","to":"bin/ls"}]`)); err != nil {
		t.Fatal(err)
	}
	if m := p.files["bin/ls"].mode; m&0o111 != 0 {
		t.Errorf("the copy is mode %v", m)
	}
}

// TestTransactionLifecycle: preview, commit, rollback and their refusals,
// against files on disk.
func TestTransactionLifecycle(t *testing.T) {
	ctx := context.Background()
	ws := planWS(t, map[string]string{"a.txt": "one\n", "gone.txt": "bye\n"})
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ws.Root, name))
		if err != nil {
			return "<absent>"
		}
		return string(b)
	}
	req := &PreviewRequest{Operations: ops(t, `[{"type":"replace","path":"a.txt","search":"one","replacement":"uno"},{"type":"create","path":"sub/n.txt","content":"new\n"},{"type":"delete","path":"gone.txt"},{"type":"mkdir","path":"empty/dir"}]`)}
	env, err := Preview(ctx, ws, req)
	if err != nil {
		t.Fatal(err)
	}
	tx := txID(t, env)
	if read("a.txt") != "one\n" || read("sub/n.txt") != "<absent>" {
		t.Fatal("a preview changed the disk")
	}
	if _, err := Rollback(ctx, ws, &RollbackRequest{TransactionID: tx}); func() envelope.Code { c, _ := errCode(err); return c }() != envelope.TransactionState {
		t.Fatalf("rollback of a planned transaction: %v", err)
	}
	if _, err := Commit(ctx, ws, &TxRequest{TransactionID: tx}); err != nil {
		t.Fatal(err)
	}
	if read("a.txt") != "uno\n" || read("sub/n.txt") != "new\n" || read("gone.txt") != "<absent>" {
		t.Fatalf("after commit: %q %q %q", read("a.txt"), read("sub/n.txt"), read("gone.txt"))
	}
	if fi, err := os.Stat(filepath.Join(ws.Root, "empty/dir")); err != nil || !fi.IsDir() {
		t.Fatal("mkdir not done")
	}
	if env, err := Commit(ctx, ws, &TxRequest{TransactionID: tx}); err != nil || !strings.Contains(env.Summary, "already") {
		t.Fatalf("re-commit is a no-op: %v %s", err, env.Summary)
	}
	// A later change to a file the transaction wrote: rollback refuses
	// unless forced.
	os.WriteFile(filepath.Join(ws.Root, "a.txt"), []byte("edited later\n"), 0o644)
	if _, err := Rollback(ctx, ws, &RollbackRequest{TransactionID: tx}); func() envelope.Code { c, _ := errCode(err); return c }() != envelope.EditConflict {
		t.Fatalf("rollback over a later change: %v", err)
	}
	if _, err := Rollback(ctx, ws, &RollbackRequest{TransactionID: tx, Force: true}); err != nil {
		t.Fatal(err)
	}
	if read("a.txt") != "one\n" || read("sub/n.txt") != "<absent>" || read("gone.txt") != "bye\n" {
		t.Fatalf("after rollback: %q %q %q", read("a.txt"), read("sub/n.txt"), read("gone.txt"))
	}
	for _, d := range []string{"empty", "sub"} {
		if _, err := os.Stat(filepath.Join(ws.Root, d)); err == nil {
			t.Errorf("rollback left %s/, which the commit created", d)
		}
	}
	// A file changed between preview and commit: the commit refuses and
	// writes nothing.
	env, err = Preview(ctx, ws, &PreviewRequest{Operations: ops(t, `[{"type":"replace","path":"a.txt","search":"one","replacement":"eins"},{"type":"create","path":"c.txt","content":"c"}]`)})
	if err != nil {
		t.Fatal(err)
	}
	tx = txID(t, env)
	os.WriteFile(filepath.Join(ws.Root, "a.txt"), []byte("one\nmore\n"), 0o644)
	if _, err := Commit(ctx, ws, &TxRequest{TransactionID: tx}); func() envelope.Code { c, _ := errCode(err); return c }() != envelope.EditConflict {
		t.Fatalf("commit of a stale transaction: %v", err)
	}
	if read("c.txt") != "<absent>" || read("a.txt") != "one\nmore\n" {
		t.Fatal("a refused commit wrote something")
	}
	if _, err := Commit(ctx, ws, &TxRequest{TransactionID: "tx_missing"}); func() envelope.Code { c, _ := errCode(err); return c }() != envelope.NotFound {
		t.Fatalf("commit of an unknown transaction: %v", err)
	}
}

func s(v string) *string { return &v }

func m(path, content string) map[string]*string { return map[string]*string{path: s(content)} }

func txID(t *testing.T, env envelope.Envelope) string {
	t.Helper()
	switch r := env.Data.(type) {
	case *Result:
		return r.TransactionID
	case Result:
		return r.TransactionID
	}
	t.Fatalf("data is %T", env.Data)
	return ""
}
