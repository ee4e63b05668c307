package edit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
	"github.com/agentic-workspace/aw/internal/testenv"
)

// A link's own path is judged like a file's: in a subdirectory it keeps
// the directory in its name; a protected or denied name is refused.
func TestResolveLinkRules(t *testing.T) {
	ws := planWS(t, map[string]string{"sub/x": "x\n"})
	jp, err := resolveLink(ws, "sub/l")
	if err != nil || jp.Rel != "sub/l" || jp.Abs != filepath.Join(ws.Root, "sub", "l") {
		t.Fatalf("sub/l: %+v %v", jp, err)
	}
	if jp, err := resolveLink(ws, "top"); err != nil || jp.Rel != "top" {
		t.Fatalf("top: %+v %v", jp, err)
	}
	for _, rel := range []string{".git/hooks-link", ".env.link", ".agentic/l"} {
		_, err := resolveLink(ws, rel)
		if err == nil {
			t.Errorf("%s: a link there was allowed", rel)
			continue
		}
		// The refusal is the jail's own, as for a file there.
		if _, want := ws.Jail.Resolve(rel, workspace.Write); want != nil && envelope.CodeOf(err) != envelope.CodeOf(want) {
			t.Errorf("%s: refused with %s, a file there with %s", rel, envelope.CodeOf(err), envelope.CodeOf(want))
		}
	}
	if _, err := resolveLink(ws, ".env.link"); envelope.CodeOf(err) == envelope.ProtectedPath {
		t.Errorf("a denied name is reported as protected: %v", err)
	}
}

// place never leaves its temporary link behind, and says when the rename
// over what is there fails (a directory with files in it).
func TestPlaceLinkOverDirectoryFails(t *testing.T) {
	ws := planWS(t, map[string]string{"d/f": "f\n"})
	abs := filepath.Join(ws.Root, "d")
	if err := place(abs, []byte("target"), uint32(linkMode)); err == nil {
		t.Fatal("a link replaced a non-empty directory")
	}
	ents, _ := os.ReadDir(ws.Root)
	for _, e := range ents {
		if strings.Contains(e.Name(), "aw-link") {
			t.Errorf("temporary link left: %s", e.Name())
		}
	}
	if err := place(filepath.Join(ws.Root, "l"), []byte("d/f"), uint32(linkMode)); err != nil || linkAt(t, ws.Root, "l") != "d/f" {
		t.Fatalf("a plain link: %v", err)
	}
}

// ReadOnDisk names what is there without following it; current refuses
// anything but a file or a link.
func TestReadOnDiskKinds(t *testing.T) {
	ws := planWS(t, map[string]string{"f": "hello\n"})
	os.Symlink("f", filepath.Join(ws.Root, "l"))
	if err := syscall.Mkfifo(filepath.Join(ws.Root, "p"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]OnDisk{
		"f":       {Present: true, Size: 6, SHA256: sha([]byte("hello\n"))},
		"l":       {Present: true, SHA256: sha([]byte("f")), Target: "f"},
		"absent":  {},
		"f/under": {}, // a parent that is a file: absent, not an error
	} {
		got, err := ReadOnDisk(filepath.Join(ws.Root, name))
		if err != nil || got.Present != want.Present || got.SHA256 != want.SHA256 || got.Target != want.Target || (name == "f" && got.Size != want.Size) {
			t.Errorf("%s: %+v %v, want %+v", name, got, err, want)
		}
	}
	if d, _ := ReadOnDisk(filepath.Join(ws.Root, "l")); !d.Link() {
		t.Error("a link is not reported as one")
	}
	if _, present, _, err := current(filepath.Join(ws.Root, "p")); err == nil || !present {
		t.Errorf("a fifo: present %v, err %v", present, err)
	}
	if h, present, link, err := current(filepath.Join(ws.Root, "l")); err != nil || !present || !link || h != sha([]byte("f")) {
		t.Errorf("a link: %s %v %v %v", h, present, link, err)
	}
}

// Directories in a restoration: one made again, one removed only once
// empty (deepest first), and rollback reverses both.
func TestRestoreDirectories(t *testing.T) {
	ws := planWS(t, map[string]string{"gone/deep/": "", "kept/f": "f\n", "x": "x\n"})
	env, err := PlanRestore(ws, "test", []Restoration{
		{Path: "gone", Dir: true},
		{Path: "gone/deep", Dir: true},
		{Path: "kept", Dir: true}, // not empty: stays
		{Path: "back", Dir: true, Exists: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := restoreTx(t, env)
	if tx := status(t, ws, id); strings.Join(tx.RemoveDirs, ",") != "gone/deep,gone,kept" {
		t.Errorf("removal order %v, want deepest first", tx.RemoveDirs)
	}
	if _, err := Commit(context.Background(), ws, &TxRequest{TransactionID: id}); err != nil {
		t.Fatal(err)
	}
	isDir := func(rel string) bool {
		fi, err := os.Stat(filepath.Join(ws.Root, rel))
		return err == nil && fi.IsDir()
	}
	if isDir("gone") || isDir("gone/deep") || !isDir("kept") || !isDir("back") {
		t.Errorf("after commit: gone %v, deep %v, kept %v, back %v", isDir("gone"), isDir("gone/deep"), isDir("kept"), isDir("back"))
	}
	if _, err := Rollback(context.Background(), ws, &RollbackRequest{TransactionID: id}); err != nil {
		t.Fatal(err)
	}
	if !isDir("gone/deep") || isDir("back") {
		t.Errorf("after rollback: deep %v, back %v", isDir("gone/deep"), isDir("back"))
	}
}

// The refusals of PlanRestore: nothing to do, a file that exists again,
// and a forced path makes the transaction destructive.
func TestPlanRestoreRules(t *testing.T) {
	ws := planWS(t, map[string]string{"a": "a\n"})
	if _, err := PlanRestore(ws, "test", nil); envelope.CodeOf(err) != envelope.InvalidInput {
		t.Errorf("empty: %v", err)
	}
	if _, err := PlanRestore(ws, "test", []Restoration{{Path: "a", Exists: true, Content: []byte("b\n"), Mode: 0o644}}); envelope.CodeOf(err) != envelope.EditConflict {
		t.Errorf("a file that exists again: %v", err)
	}
	if _, err := PlanRestore(ws, "test", []Restoration{{Path: "a", Exists: true, Content: []byte("a\n"), Mode: 0o644, Expect: sha([]byte("a\n"))}}); envelope.CodeOf(err) != envelope.InvalidInput {
		t.Errorf("already as recorded: %v", err)
	}
	env, err := PlanRestore(ws, "test", []Restoration{{Path: "a", Exists: true, Content: []byte("old\n"), Mode: 0o600, Expect: sha([]byte("a\n")), Over: "job_x"}})
	if err != nil {
		t.Fatal(err)
	}
	if tx := status(t, ws, restoreTx(t, env)); !tx.Destructive || !strings.Contains(strings.Join(tx.DestructiveReasons, ";"), "job_x") || len(tx.Operations) != 1 || tx.Operations[0].Path != "a" {
		t.Errorf("forced restore: destructive %v %v, operations %+v", tx.Destructive, tx.DestructiveReasons, tx.Operations)
	}
}

// mkdir over a file is a conflict, over a directory a no-op; a file over
// the size limit is refused before it is read.
func TestPlannerTargetsOnDisk(t *testing.T) {
	if err := planErr(t, map[string]string{"f": "x\n"}, `[{"type":"mkdir","path":"f"}]`); envelope.CodeOf(err) != envelope.EditConflict {
		t.Errorf("mkdir over a file: %v", err)
	}
	p := plannedP(t, map[string]string{"d/": ""}, `[{"type":"mkdir","path":"d"},{"type":"create","path":"d/n","content":"n\n"}]`)
	if planned(t, p, "d/n") != "n\n" {
		t.Error("mkdir of an existing directory stopped the plan")
	}
	ws := planWS(t, nil)
	big := filepath.Join(ws.Root, "big")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	err := newPlanner(ws).apply(ops(t, `[{"type":"replace","path":"big","search":"a","replacement":"b"}]`))
	if envelope.CodeOf(err) != envelope.InvalidInput || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a file over the limit: %v", err)
	}
	os.Truncate(big, MaxFileBytes)
	if err := newPlanner(ws).apply(ops(t, `[{"type":"replace","path":"big","search":"a","replacement":"b"}]`)); strings.Contains(fmt.Sprint(err), "limit") {
		t.Errorf("a file at the limit was refused for its size: %v", err)
	}
}

// Rolling back a restore that removed directories leaves one whose path
// now leads elsewhere alone, and says so.
func TestRestoreDirectoryRollbackLeavesRedirectedPathAlone(t *testing.T) {
	ws := planWS(t, map[string]string{"gone/": "", "kept/f": "f\n"})
	env, err := PlanRestore(ws, "test", []Restoration{{Path: "gone", Dir: true}})
	if err != nil {
		t.Fatal(err)
	}
	id := restoreTx(t, env)
	if _, err := Commit(context.Background(), ws, &TxRequest{TransactionID: id}); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("kept", filepath.Join(ws.Root, "gone")); err != nil {
		t.Fatal(err)
	}
	_, err = Rollback(context.Background(), ws, &RollbackRequest{TransactionID: id})
	if err == nil || !strings.Contains(err.Error(), "no longer resolves inside the workspace") {
		t.Errorf("rollback over a redirected directory: %v", err)
	}
	if target, _ := os.Readlink(filepath.Join(ws.Root, "gone")); target != "kept" {
		t.Errorf("the link was replaced: %q", target)
	}
}

// A rollback that cannot make a directory again or remove a file it made
// (an immutable directory stops even root) names each failure.
func TestRestoreRollbackNamesWhatItCannotPutBack(t *testing.T) {
	ws := planWS(t, map[string]string{"p/gone/": ""})
	env, err := PlanRestore(ws, "test", []Restoration{
		{Path: "p/gone", Dir: true},
		{Path: "p/new", Exists: true, Content: []byte("n\n"), Mode: 0o644},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := restoreTx(t, env)
	if _, err := Commit(context.Background(), ws, &TxRequest{TransactionID: id}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(ws.Root, "p")
	if os.Geteuid() == 0 {
		chattr := testenv.Need(t, "chattr", "apt-get install e2fsprogs (root needs chattr +i to make a directory unwritable)")
		if out, err := exec.Command(chattr, "+i", p).CombinedOutput(); err != nil {
			testenv.Missing(t, fmt.Sprintf("an immutable attribute (chattr +i failed: %v: %s)", err, out), "run the tests on ext4, xfs or btrfs, or as a user other than root")
		}
		defer exec.Command(chattr, "-i", p).Run()
	} else {
		os.Chmod(p, 0o555)
		defer os.Chmod(p, 0o755)
	}
	_, err = Rollback(context.Background(), ws, &RollbackRequest{TransactionID: id})
	if err == nil || !strings.Contains(err.Error(), "p/gone: ") || !strings.Contains(err.Error(), "p/new: ") {
		t.Errorf("rollback into an immutable directory: %v", err)
	}
}
