package edit

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
)

func restoreTx(t *testing.T, env envelope.Envelope) string {
	t.Helper()
	return env.Data.(*Result).TransactionID
}

func linkAt(t *testing.T, root, name string) string {
	t.Helper()
	got, err := os.Readlink(filepath.Join(root, name))
	if err != nil {
		return "<no link>"
	}
	return got
}

// A restore that removes a link, one that creates it, and one replacing a
// link with a file: committed, rolled back, recovered after a kill, each
// side exactly (a link stays a link, a file a file).
func TestRestoreLinks(t *testing.T) {
	ws := planWS(t, map[string]string{"t1": "1\n", "a.txt": "a\n"})
	os.Symlink("t1", filepath.Join(ws.Root, "made"))
	os.Symlink("t1", filepath.Join(ws.Root, "swap"))
	env, err := PlanRestore(ws, "test", []Restoration{
		{Path: "made", Expect: sha([]byte("t1"))},                                                       // remove the link
		{Path: "back", Exists: true, Link: true, Content: []byte("t1")},                                 // recreate one
		{Path: "swap", Exists: true, Content: []byte("file\n"), Mode: 0o600, Expect: sha([]byte("t1"))}, // link -> file
		{Path: "a.txt", Exists: true, Link: true, Content: []byte("t1"), Expect: sha([]byte("a\n"))},    // file -> link
	})
	if err != nil {
		t.Fatal(err)
	}
	id := restoreTx(t, env)
	tx := status(t, ws, id)
	if tx.Destructive {
		t.Errorf("a restore with no forced path is destructive: %v", tx.DestructiveReasons)
	}
	if _, err := Commit(context.Background(), ws, &TxRequest{TransactionID: id}); err != nil {
		t.Fatal(err)
	}
	check := func(when string, want map[string]string) {
		t.Helper()
		for name, w := range want {
			got := content(ws, name)
			if fi, err := os.Lstat(filepath.Join(ws.Root, name)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				got = "-> " + linkAt(t, ws.Root, name)
			}
			if got != w {
				t.Errorf("%s: %s is %q, want %q", when, name, got, w)
			}
		}
	}
	after := map[string]string{"made": "<absent>", "back": "-> t1", "swap": "file\n", "a.txt": "-> t1"}
	before := map[string]string{"made": "-> t1", "back": "<absent>", "swap": "-> t1", "a.txt": "a\n"}
	check("after commit", after)
	if fi, _ := os.Lstat(filepath.Join(ws.Root, "swap")); fi.Mode().Perm() != 0o600 {
		t.Errorf("swap has mode %v", fi.Mode())
	}
	if _, err := Rollback(context.Background(), ws, &RollbackRequest{TransactionID: id}); err != nil {
		t.Fatal(err)
	}
	check("after rollback", before)

	// A kill after the files were written: recovery puts the links back.
	env, err = PlanRestore(ws, "test", []Restoration{{Path: "made", Expect: sha([]byte("t1"))}, {Path: "a.txt", Exists: true, Link: true, Content: []byte("t1"), Expect: sha([]byte("a\n"))}})
	if err != nil {
		t.Fatal(err)
	}
	interruptCommit(t, ws, status(t, ws, restoreTx(t, env)))
	check("interrupted", map[string]string{"made": "<absent>", "a.txt": "-> t1"})
	if err := Recover(ws); err != nil {
		t.Fatal(err)
	}
	check("recovered", map[string]string{"made": "-> t1", "a.txt": "a\n"})
}

// A link is jailed as itself: its directory must resolve inside the
// workspace, and its own path must not be protected or denied; a link
// retargeted since the plan is stale.
func TestRestoreLinkJail(t *testing.T) {
	outside := t.TempDir()
	ws := planWS(t, map[string]string{"t1": "1\n", ".git/HEAD": "ref\n"})
	os.Symlink(outside, filepath.Join(ws.Root, "out"))
	for _, c := range []struct {
		path string
		code envelope.Code
	}{{".git/hook", envelope.ProtectedPath}, {".agentic/x", envelope.ProtectedPath}, {"out/x", envelope.PathEscape}} {
		_, err := PlanRestore(ws, "test", []Restoration{{Path: c.path, Exists: true, Link: true, Content: []byte("t1")}})
		if code, _ := errCode(err); code != c.code {
			t.Errorf("link at %s: %v, want %s", c.path, err, c.code)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatal("a restore wrote outside the workspace")
	}
	os.Symlink("t1", filepath.Join(ws.Root, "l"))
	env, err := PlanRestore(ws, "test", []Restoration{{Path: "l", Expect: sha([]byte("t1"))}})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(ws.Root, "l"))
	os.Symlink("elsewhere", filepath.Join(ws.Root, "l"))
	_, err = Commit(context.Background(), ws, &TxRequest{TransactionID: restoreTx(t, env)})
	wantErr(t, err, envelope.EditConflict, "stale", "l")
	// A file where the plan saw a link (same bytes as its target) is
	// stale too: the kind is part of the state.
	os.Remove(filepath.Join(ws.Root, "l"))
	os.Symlink("t1", filepath.Join(ws.Root, "l"))
	env, _ = PlanRestore(ws, "test", []Restoration{{Path: "l", Expect: sha([]byte("t1"))}})
	os.Remove(filepath.Join(ws.Root, "l"))
	os.WriteFile(filepath.Join(ws.Root, "l"), []byte("t1"), 0o644)
	_, err = Commit(context.Background(), ws, &TxRequest{TransactionID: restoreTx(t, env)})
	wantErr(t, err, envelope.EditConflict, "stale", "l")
	// Nothing to restore, and a file that exists again where it was absent.
	if _, err := PlanRestore(ws, "test", nil); err == nil {
		t.Error("an empty restore planned")
	}
	_, err = PlanRestore(ws, "test", []Restoration{{Path: "t1", Exists: true, Content: []byte("x")}})
	wantErr(t, err, envelope.EditConflict, "stale", "exists again")
	_, err = PlanRestore(ws, "test", []Restoration{{Path: "t1", Exists: true, Content: []byte("1\n"), Mode: 0o644, Expect: sha([]byte("1\n"))}})
	wantErr(t, err, envelope.InvalidInput, "", "nothing to restore")
	env, err = PlanRestore(ws, "test", []Restoration{{Path: "t1", Exists: true, Content: []byte("2\n"), Mode: 0o644, Expect: sha([]byte("1\n")), Over: "changed since"}})
	if err != nil || !status(t, ws, restoreTx(t, env)).Destructive {
		t.Errorf("a forced restore is not destructive: %v", err)
	}
}

// Unified shows a change involving a link by what each side is.
func TestUnifiedLinks(t *testing.T) {
	d, _, _ := Unified("l", true, true, uint32(linkMode), 0o644, []byte("t1"), []byte("x\n"))
	if d != "--- a/l\n+++ b/l\nsymlink to \"t1\" -> a file of 2 bytes\n" {
		t.Errorf("link -> file: %q", d)
	}
	d, _, _ = Unified("l", false, true, 0, uint32(linkMode), nil, []byte("t1"))
	if d != "--- /dev/null\n+++ b/l\n(nothing) -> symlink to \"t1\"\n" {
		t.Errorf("created link: %q", d)
	}
	d, add, del := Unified("f", true, true, 0o644, 0o644, []byte("a\n"), []byte("b\n"))
	if add != 1 || del != 1 || d == "" {
		t.Errorf("file diff %q %d %d", d, add, del)
	}
}
