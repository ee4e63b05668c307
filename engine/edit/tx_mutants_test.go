package edit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The tests in this file pin commit, rollback and recovery rules that the
// mutation run (scripts/mutants) showed no in-package test defending: each
// condition below, flipped or moved by one, leaves a file, a directory, a
// journal or a status other than the crash-safety rules say.

// previewed plans the operations and returns the recorded transaction.
func previewed(t *testing.T, ws *workspace.Workspace, raw string) *Transaction {
	t.Helper()
	env, err := Preview(context.Background(), ws, &PreviewRequest{Operations: ops(t, raw)})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := load(ws, txID(t, env))
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// committed plans and commits the operations.
func committed(t *testing.T, ws *workspace.Workspace, raw string) *Transaction {
	t.Helper()
	tx := previewed(t, ws, raw)
	if _, err := Commit(context.Background(), ws, &TxRequest{TransactionID: tx.ID}); err != nil {
		t.Fatal(err)
	}
	tx, err := load(ws, tx.ID)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// content is a workspace file's text, "<absent>" when there is none and
// "<dir>" for a directory.
func content(ws *workspace.Workspace, name string) string {
	p := filepath.Join(ws.Root, name)
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return "<dir>"
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "<absent>"
	}
	return string(b)
}

func put(t *testing.T, ws *workspace.Workspace, name, text string) {
	t.Helper()
	p := filepath.Join(ws.Root, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func status(t *testing.T, ws *workspace.Workspace, id string) *Transaction {
	t.Helper()
	tx, err := load(ws, id)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func journalLeft(ws *workspace.Workspace) bool {
	_, err := os.Lstat(journalPath(ws))
	return err == nil
}

// wantErr fails unless err is an envelope error of code (and reason, when
// given) whose message holds msg.
func wantErr(t *testing.T, err error, code envelope.Code, reason, msg string) {
	t.Helper()
	c, r := errCode(err)
	if c != code || reason != "" && r != reason || err == nil || !strings.Contains(err.Error(), msg) {
		t.Fatalf("err %v (code %s reason %v), want %s %s naming %q", err, c, r, code, reason, msg)
	}
}

// interruptCommit stops a commit of tx the way a kill after its files were
// written does: journal, status committing, every file written.
func interruptCommit(t *testing.T, ws *workspace.Workspace, tx *Transaction) {
	t.Helper()
	contents := make([][]byte, len(tx.Files))
	for n, f := range tx.Files {
		if f.AfterSHA256 != "" {
			b, err := readBlob(ws, tx, "after", n, f.AfterSHA256)
			if err != nil {
				t.Fatal(err)
			}
			contents[n] = b
		}
	}
	tx.CreatedDirs = missingDirs(ws, tx)
	if err := writeJournal(ws, tx.ID); err != nil {
		t.Fatal(err)
	}
	tx.Status = Committing
	if err := save(ws, tx); err != nil {
		t.Fatal(err)
	}
	if err := writeFiles(ws, tx, contents); err != nil {
		t.Fatal(err)
	}
}

// A commit killed after writing its files is undone by the next call:
// every file back, the directories it created gone, status failed, the
// journal cleared.
func TestRecoverUndoesInterruptedCommit(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n", "gone.txt": "bye\n", "keep/": ""})
	tx := previewed(t, ws, `[{"type":"replace","path":"a.txt","search":"one","replacement":"uno"},{"type":"create","path":"new/deep/n.txt","content":"n\n"},{"type":"delete","path":"gone.txt"},{"type":"mkdir","path":"keep/made"}]`)
	interruptCommit(t, ws, tx)
	if content(ws, "a.txt") != "uno\n" || content(ws, "new/deep/n.txt") != "n\n" || content(ws, "keep/made") != "<dir>" {
		t.Fatal("the interrupted commit did not write")
	}
	if err := Recover(ws); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "one\n", "gone.txt": "bye\n", "new/deep/n.txt": "<absent>", "new": "<absent>", "keep/made": "<absent>", "keep": "<dir>"} {
		if got := content(ws, name); got != want {
			t.Errorf("after recovery %s = %q, want %q", name, got, want)
		}
	}
	got := status(t, ws, tx.ID)
	if got.Status != Failed || !strings.Contains(got.Error, "interrupted") {
		t.Errorf("status %s error %q, want failed and interrupted", got.Status, got.Error)
	}
	if journalLeft(ws) {
		t.Error("recovery left the journal")
	}
	// A second call finds nothing to do.
	if err := Recover(ws); err != nil {
		t.Fatal(err)
	}
}

// A rollback killed half-way is finished by the next call: every file in
// its before state, the mkdir targets removed, status rolled back with a
// note, the journal cleared.
func TestRecoverFinishesInterruptedRollback(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	tx := committed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"A\n"},{"type":"rewrite","path":"b.txt","content":"B\n"},{"type":"mkdir","path":"made/sub"}]`)
	if err := writeJournal(ws, tx.ID); err != nil {
		t.Fatal(err)
	}
	tx.Status = RollingBack
	if err := save(ws, tx); err != nil {
		t.Fatal(err)
	}
	put(t, ws, "a.txt", "one\n") // the first file was restored before the kill
	if err := Recover(ws); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "one\n", "b.txt": "two\n", "made": "<absent>"} {
		if got := content(ws, name); got != want {
			t.Errorf("after recovery %s = %q, want %q", name, got, want)
		}
	}
	got := status(t, ws, tx.ID)
	if got.Status != RolledBack || got.RolledBackAt.IsZero() || !strings.Contains(got.Note, "interrupted") {
		t.Errorf("status %s at %v note %q", got.Status, got.RolledBackAt, got.Note)
	}
	if journalLeft(ws) {
		t.Error("recovery left the journal")
	}
}

// A journal naming a transaction that is not mid-commit or mid-rollback,
// or none at all, is cleared and changes nothing.
func TestRecoverClearsStaleJournal(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	tx := committed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"A\n"}]`)
	for _, id := range []string{tx.ID, "tx_gone", "not an id"} {
		if err := writeJournal(ws, id); err != nil {
			t.Fatal(err)
		}
		if err := Recover(ws); err != nil {
			t.Fatalf("journal %q: %v", id, err)
		}
		if journalLeft(ws) {
			t.Errorf("journal %q left in place", id)
		}
		if content(ws, "a.txt") != "A\n" || status(t, ws, tx.ID).Status != Applied {
			t.Fatalf("journal %q: recovery touched an applied transaction", id)
		}
	}
}

// A commit whose write fails half-way restores what it wrote, records
// failed with the cause, clears the journal and says so.
func TestCommitWriteFailureRestores(t *testing.T) {
	ws := planWS(t, map[string]string{"m.txt": "before\n"})
	tx := previewed(t, ws, `[{"type":"rewrite","path":"m.txt","content":"after\n"},{"type":"create","path":"p/n.txt","content":"n\n"}]`)
	put(t, ws, "p", "a file where the commit wants a directory\n")
	_, err := Commit(context.Background(), ws, &TxRequest{TransactionID: tx.ID})
	wantErr(t, err, envelope.EditConflict, "write-failed", "every file and directory it touched was restored")
	if content(ws, "m.txt") != "before\n" || content(ws, "p") != "a file where the commit wants a directory\n" {
		t.Errorf("after the failed commit: m.txt %q p %q", content(ws, "m.txt"), content(ws, "p"))
	}
	got := status(t, ws, tx.ID)
	if got.Status != Failed || !strings.Contains(got.Error, "p/n.txt") || strings.Contains(got.Error, "restoring also failed") {
		t.Errorf("status %s error %q", got.Status, got.Error)
	}
	if journalLeft(ws) {
		t.Error("the failed commit left the journal")
	}
}

// restore removes the temp file a killed write left beside its target,
// even when the name holds glob characters.
func TestRestoreRemovesStrayTempFiles(t *testing.T) {
	for _, name := range []string{"a.txt", "[x]*?.txt"} {
		ws := planWS(t, map[string]string{name: "one\n", "other.txt": "o\n"})
		tx := previewed(t, ws, `[{"type":"rewrite","path":"`+name+`","content":"two\n"}]`)
		stray := filepath.Join(ws.Root, "."+name+".aw-12345")
		os.WriteFile(stray, []byte("half"), 0o600)
		foreign := filepath.Join(ws.Root, ".other.txt.aw-1")
		os.WriteFile(foreign, []byte("not ours"), 0o600)
		if err := restore(ws, tx, false); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(stray); err == nil {
			t.Errorf("%s: the stray temp file is left", name)
		}
		if _, err := os.Lstat(foreign); err != nil {
			t.Errorf("%s: restore removed another file's temp file", name)
		}
	}
}

// restore rewrites only files not in their before state (an untouched
// file's saved content is not even read), deletes the files the commit
// created, and leaves a path that now leads outside the workspace alone.
func TestRestoreTouchesOnlyChangedFiles(t *testing.T) {
	ws := planWS(t, map[string]string{"same.txt": "s\n", "changed.txt": "c\n"})
	tx := committed(t, ws, `[{"type":"rewrite","path":"same.txt","content":"S\n"},{"type":"rewrite","path":"changed.txt","content":"C\n"},{"type":"create","path":"new.txt","content":"n\n"}]`)
	put(t, ws, "same.txt", "s\n")
	// Without the saved content of same.txt, reading it would fail.
	os.Remove(blobPath(ws, tx.ID, tx.Files[0].BeforeSHA256))
	if err := restore(ws, tx, false); err != nil {
		t.Fatal(err)
	}
	if content(ws, "same.txt") != "s\n" || content(ws, "changed.txt") != "c\n" || content(ws, "new.txt") != "<absent>" {
		t.Errorf("after restore: %q %q %q", content(ws, "same.txt"), content(ws, "changed.txt"), content(ws, "new.txt"))
	}
	// A lost saved content is reported, with the file named.
	put(t, ws, "same.txt", "S\n")
	if err := restore(ws, tx, false); err == nil || !strings.Contains(err.Error(), "same.txt") {
		t.Errorf("restore without the saved content: %v", err)
	}
}

// A file whose path now runs through a symlink out of the workspace is
// left alone by restore, and the error says so.
func TestRestoreLeavesEscapedPathAlone(t *testing.T) {
	ws := planWS(t, map[string]string{"d/f.txt": "one\n"})
	tx := committed(t, ws, `[{"type":"rewrite","path":"d/f.txt","content":"two\n"}]`)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "f.txt"), []byte("outside\n"), 0o644)
	os.RemoveAll(filepath.Join(ws.Root, "d"))
	if err := os.Symlink(outside, filepath.Join(ws.Root, "d")); err != nil {
		t.Fatal(err)
	}
	err := restore(ws, tx, false)
	if err == nil || !strings.Contains(err.Error(), "d/f.txt: no longer resolves inside the workspace") {
		t.Fatalf("restore through a symlink: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); string(b) != "outside\n" {
		t.Errorf("restore wrote outside the workspace: %q", b)
	}
}

// manual puts ws in Manual mode; approve accepts the pending approval id as
// a human at the terminal would.
func manual(ws *workspace.Workspace) { ws.Settings.PermissionMode = gate.Manual }

func approve(t *testing.T, ws *workspace.Workspace, id string) {
	t.Helper()
	caller := ws.Caller
	ws.Caller.Terminal = true
	defer func() { ws.Caller = caller }()
	if _, err := gate.Decide(ws, "test", id, "", gate.Approved, false); err != nil {
		t.Fatal(err)
	}
}

func resultOf(t *testing.T, env envelope.Envelope) *Result {
	t.Helper()
	r, ok := env.Data.(*Result)
	if !ok {
		t.Fatalf("data is %T", env.Data)
	}
	return r
}

// Re-issuing a pending apply returns the first transaction's approval and
// drops the duplicate transaction it planned; a reused idempotency key
// keeps its one transaction.
func TestApplyReissuedDropsDuplicate(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	manual(ws)
	req := &PreviewRequest{Operations: ops(t, `[{"type":"replace","path":"a.txt","search":"one","replacement":"uno"}]`)}
	var first string
	for i := 0; i < 2; i++ {
		env, err := Apply(context.Background(), ws, req)
		if err != nil {
			t.Fatal(err)
		}
		r := resultOf(t, env)
		if !r.PendingApproval() || r.TransactionStatus != Planned {
			t.Fatalf("apply %d: status %s/%s, want pending_approval/planned", i, r.Status, r.TransactionStatus)
		}
		if i == 0 {
			first = r.TransactionID
		} else if r.TransactionID != first {
			t.Errorf("the re-issued apply names %s, want the first %s", r.TransactionID, first)
		}
	}
	if all, _ := ids(ws); len(all) != 1 || all[0] != first {
		t.Errorf("transactions %v, want only %s", all, first)
	}
	// A reused idempotency key returns its own transaction, kept.
	req = &PreviewRequest{Operations: ops(t, `[{"type":"create","path":"k.txt","content":"k"}]`), IdempotencyKey: "k"}
	var keyed string
	for i := 0; i < 2; i++ {
		env, err := Apply(context.Background(), ws, req)
		if err != nil {
			t.Fatal(err)
		}
		if keyed = resultOf(t, env).TransactionID; i == 0 && keyed == first {
			t.Fatal("the keyed apply named the other transaction")
		}
	}
	if all, _ := ids(ws); len(all) != 2 || all[0] != keyed && all[1] != keyed {
		t.Errorf("transactions %v, want %s and the keyed %s", all, first, keyed)
	}
	if content(ws, "a.txt") != "one\n" {
		t.Error("a staged apply wrote")
	}
}

// apply plans again, at commit, a transaction whose files changed since its
// preview and writes on top of the change; its superseded contents go.
func TestApplyReplansStaleTransaction(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	req := &PreviewRequest{Operations: ops(t, `[{"type":"replace","path":"a.txt","search":"two","replacement":"2"}]`)}
	tx, _, err := plan(ws, req)
	if err != nil {
		t.Fatal(err)
	}
	put(t, ws, "a.txt", "ONE\ntwo\nthree\n")
	if _, err := commit(ws, tx, req.Operations); err != nil {
		t.Fatal(err)
	}
	if got := content(ws, "a.txt"); got != "ONE\n2\nthree\n" {
		t.Errorf("a.txt = %q", got)
	}
	got := status(t, ws, tx.ID)
	if got.Status != Applied || !strings.Contains(got.Note, "planned again") {
		t.Errorf("status %s note %q", got.Status, got.Note)
	}
	ents, _ := os.ReadDir(filepath.Join(txDir(ws, tx.ID), "blobs"))
	if len(ents) != 2 {
		t.Errorf("%d blobs left, want the new before and after", len(ents))
	}
	for _, e := range ents {
		if e.Name() != got.Files[0].BeforeSHA256 && e.Name() != got.Files[0].AfterSHA256 {
			t.Errorf("blob %s belongs to the first plan", e.Name())
		}
	}
}

// A stale transaction is not planned again when commit names it (no
// operations), when an operation pins its file with expect_sha256, when the
// new plan became destructive, or when a human approved the first plan.
func TestStaleTransactionNotReplanned(t *testing.T) {
	stale := func(t *testing.T, ws *workspace.Workspace, raw string, change func(), run func(tx *Transaction, o []Op) error) {
		t.Helper()
		o := ops(t, raw)
		tx, _, err := plan(ws, &PreviewRequest{Operations: o})
		if err != nil {
			t.Fatal(err)
		}
		change()
		wantErr(t, run(tx, o), envelope.EditConflict, "stale", "stale")
		if got := status(t, ws, tx.ID).Status; got != Planned {
			t.Errorf("status %s, want planned", got)
		}
	}
	commitOps := func(ws *workspace.Workspace) func(tx *Transaction, o []Op) error {
		return func(tx *Transaction, o []Op) error { _, err := commit(ws, tx, o); return err }
	}
	t.Run("commit by id", func(t *testing.T) {
		ws := planWS(t, map[string]string{"a.txt": "one\ntwo\n"})
		stale(t, ws, `[{"type":"replace","path":"a.txt","search":"two","replacement":"2"}]`, func() { put(t, ws, "a.txt", "ONE\ntwo\n") },
			func(tx *Transaction, o []Op) error { _, err := commit(ws, tx, nil); return err })
	})
	t.Run("expect_sha256", func(t *testing.T) {
		ws := planWS(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "b\n"})
		stale(t, ws, `[{"type":"replace","path":"a.txt","search":"two","replacement":"2"},{"type":"rewrite","path":"b.txt","content":"B\n","expect_sha256":"`+sha([]byte("b\n"))+`"}]`,
			func() { put(t, ws, "a.txt", "ONE\ntwo\n") }, commitOps(ws))
	})
	t.Run("became destructive", func(t *testing.T) {
		ws := planWS(t, nil)
		stale(t, ws, `[{"type":"rewrite","path":"n.txt","content":"mine\n","create_if_missing":true}]`, func() { put(t, ws, "n.txt", "theirs\n") }, commitOps(ws))
		if content(ws, "n.txt") != "theirs\n" {
			t.Error("the stale commit wrote")
		}
	})
	t.Run("approved", func(t *testing.T) {
		ws := planWS(t, map[string]string{"a.txt": "one\ntwo\n"})
		manual(ws)
		stale(t, ws, `[{"type":"replace","path":"a.txt","search":"two","replacement":"2"}]`, func() {}, func(tx *Transaction, o []Op) error {
			env, err := commit(ws, tx, o)
			if err != nil {
				return err
			}
			approve(t, ws, resultOf(t, env).Approval.ID)
			put(t, ws, "a.txt", "ONE\ntwo\n")
			_, err = commit(ws, tx, o)
			return err
		})
	})
}

// A stale transaction's refusal names every changed path: a file, a file
// whose path now resolves elsewhere, and a mkdir target that became a file.
func TestVerifyNamesEveryStalePath(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n", "real/f.txt": "f\n", "link/f.txt": "f\n"})
	tx := previewed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"A\n"},{"type":"rewrite","path":"link/f.txt","content":"F\n"},{"type":"mkdir","path":"made"}]`)
	put(t, ws, "a.txt", "changed\n")
	os.RemoveAll(filepath.Join(ws.Root, "link"))
	os.Symlink("real", filepath.Join(ws.Root, "link"))
	put(t, ws, "made", "a file\n")
	_, err := Commit(context.Background(), ws, &TxRequest{TransactionID: tx.ID})
	wantErr(t, err, envelope.EditConflict, "stale", "a.txt, link/f.txt (now resolves to real/f.txt), made (now a file)")
	if content(ws, "real/f.txt") != "f\n" {
		t.Error("the stale commit wrote through the symlink")
	}
	// An unchanged transaction with an existing mkdir target is not stale.
	ws = planWS(t, map[string]string{"a.txt": "one\n", "d/": ""})
	tx = previewed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"A\n"},{"type":"mkdir","path":"d"}]`)
	if err := verify(ws, tx, before); err != nil {
		t.Errorf("verify of an unchanged transaction: %v", err)
	}
}

// Only a planned transaction commits; an applied one is a no-op and a
// failed or rolled-back one is refused.
func TestCommitStateRules(t *testing.T) {
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	tx := committed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"A\n"}]`)
	env, err := Commit(context.Background(), ws, &TxRequest{TransactionID: tx.ID})
	if err != nil || !resultOf(t, env).NoOp {
		t.Fatalf("commit of an applied transaction: %v", err)
	}
	for _, st := range []string{Failed, RolledBack, Committing} {
		tx.Status = st
		save(ws, tx)
		_, err := Commit(context.Background(), ws, &TxRequest{TransactionID: tx.ID})
		wantErr(t, err, envelope.TransactionState, "", "is "+st+" and cannot be committed")
	}
	// A transaction another process moved on while this one waited.
	planned := previewed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"B\n"}]`)
	stale := *planned
	planned.Status = Failed
	save(ws, planned)
	wantErr(t, write(ws, &stale, nil), envelope.TransactionState, "", "became failed while this call waited")
	if content(ws, "a.txt") != "A\n" {
		t.Error("the refused commit wrote")
	}
}

// Rollback: only an applied transaction, a later change refuses unless
// forced, force refuses a path that now leads elsewhere, an already rolled
// back one is a no-op, and a mkdir target no longer empty is named and
// kept.
func TestRollbackRules(t *testing.T) {
	ctx := context.Background()
	ws := planWS(t, map[string]string{"a.txt": "one\n", "d/f.txt": "f\n"})
	tx := committed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"A\n"},{"type":"rewrite","path":"d/f.txt","content":"F\n"},{"type":"mkdir","path":"made/sub"},{"type":"mkdir","path":"empty"}]`)
	put(t, ws, "made/sub/later.txt", "later\n")
	env, err := Rollback(ctx, ws, &RollbackRequest{TransactionID: tx.ID})
	if err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, env)
	if strings.Join(r.LeftDirectories, ",") != "made/sub" || !strings.Contains(env.Summary, "Left in place") || !strings.Contains(env.Summary, "made/sub") {
		t.Errorf("left %v summary %q", r.LeftDirectories, env.Summary)
	}
	if content(ws, "a.txt") != "one\n" || content(ws, "d/f.txt") != "f\n" || content(ws, "empty") != "<absent>" || content(ws, "made/sub/later.txt") != "later\n" {
		t.Error("rollback did not restore")
	}
	if journalLeft(ws) {
		t.Error("rollback left the journal")
	}
	env, err = Rollback(ctx, ws, &RollbackRequest{TransactionID: tx.ID})
	if err != nil || !resultOf(t, env).NoOp {
		t.Fatalf("a second rollback: %v", err)
	}

	tx = committed(t, ws, `[{"type":"rewrite","path":"d/f.txt","content":"F2\n"}]`)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "f.txt"), []byte("F2\n"), 0o644)
	os.Rename(filepath.Join(ws.Root, "d"), filepath.Join(ws.Root, "d.moved"))
	os.Symlink(outside, filepath.Join(ws.Root, "d"))
	_, err = Rollback(ctx, ws, &RollbackRequest{TransactionID: tx.ID, Force: true})
	wantErr(t, err, envelope.PathEscape, "", "d/f.txt no longer resolves to itself")
	if journalLeft(ws) || status(t, ws, tx.ID).Status != Applied {
		t.Error("the refused rollback left a journal or moved the status")
	}
	wantErr(t, inJail(ws, tx), envelope.PathEscape, "", "d/f.txt")
	os.Remove(filepath.Join(ws.Root, "d"))
	os.Rename(filepath.Join(ws.Root, "d.moved"), filepath.Join(ws.Root, "d"))
	if err := inJail(ws, tx); err != nil {
		t.Errorf("inJail with the path back: %v", err)
	}
	// The transaction moved on while this call waited.
	stale := *tx
	tx.Status = RolledBack
	save(ws, tx)
	if _, err := unwrite(ws, &stale, false); err == nil || !strings.Contains(err.Error(), "became rolled_back while this call waited") {
		t.Errorf("unwrite of a transaction rolled back meanwhile: %v", err)
	}
	if content(ws, "d/f.txt") != "F2\n" {
		t.Error("the refused rollback wrote")
	}
}

// In Manual mode a rollback is staged with its own approval (not the
// commit's), and runs once approved; a forced one asks anew.
func TestRollbackStaged(t *testing.T) {
	ctx := context.Background()
	ws := planWS(t, map[string]string{"a.txt": "one\n"})
	tx := committed(t, ws, `[{"type":"rewrite","path":"a.txt","content":"A\n"},{"type":"create","path":"n.txt","content":"n\n"}]`)
	manual(ws)
	env, err := Rollback(ctx, ws, &RollbackRequest{TransactionID: tx.ID})
	if err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, env)
	if !r.PendingApproval() || r.TransactionStatus != Applied || content(ws, "a.txt") != "A\n" {
		t.Fatalf("staged rollback: %s/%s, a.txt %q", r.Status, r.TransactionStatus, content(ws, "a.txt"))
	}
	if want := "Roll back " + tx.ID + ": restore a.txt, delete n.txt"; r.Approval.Title != want {
		t.Errorf("title %q, want %q", r.Approval.Title, want)
	}
	if _, ok := r.Approval.Resume.Arguments["force"]; ok {
		t.Error("an unforced rollback resumes with force")
	}
	approve(t, ws, r.Approval.ID)
	env, err = Rollback(ctx, ws, &RollbackRequest{TransactionID: tx.ID, Force: true})
	if err != nil || !resultOf(t, env).PendingApproval() || resultOf(t, env).Approval.Resume.Arguments["force"] != true {
		t.Fatalf("a forced rollback is another operation: %v", err)
	}
	if env, err = Rollback(ctx, ws, &RollbackRequest{TransactionID: tx.ID}); err != nil {
		t.Fatal(err)
	}
	if content(ws, "a.txt") != "one\n" || content(ws, "n.txt") != "<absent>" || status(t, ws, tx.ID).Status != RolledBack {
		t.Error("the approved rollback did not run")
	}
	if strings.Contains(env.Summary, "Left in place") {
		t.Errorf("a rollback that left nothing says %q", env.Summary)
	}
}

// A commit whose write fails and whose restore fails too stays committing
// with its journal, so the next call's recovery retries the restore (as
// its error says) instead of leaving a half-written tree marked failed.
func TestCommitFailedRestoreIsRetried(t *testing.T) {
	ws := planWS(t, map[string]string{"m.txt": "before\n"})
	tx := previewed(t, ws, `[{"type":"rewrite","path":"m.txt","content":"after\n"},{"type":"create","path":"p/n.txt","content":"n\n"}]`)
	saved := blobPath(ws, tx.ID, tx.Files[0].BeforeSHA256)
	os.Rename(saved, saved+".away")
	put(t, ws, "p", "a file where the commit wants a directory\n")
	_, err := Commit(context.Background(), ws, &TxRequest{TransactionID: tx.ID})
	wantErr(t, err, envelope.EditConflict, "write-failed", "restoring failed too (m.txt: ")
	if !strings.Contains(err.Error(), "run any aw command to retry the recovery") {
		t.Errorf("the error does not say how to retry: %v", err)
	}
	got := status(t, ws, tx.ID)
	if got.Status != Committing || !journalLeft(ws) || !strings.Contains(got.Error, "; restoring also failed: m.txt: ") {
		t.Fatalf("status %s journal %v error %q: nothing would retry the restore", got.Status, journalLeft(ws), got.Error)
	}
	if err := Recover(ws); err == nil || !strings.Contains(err.Error(), "recovering interrupted commit") {
		t.Fatalf("recovery with the content still missing: %v", err)
	}
	os.Rename(saved+".away", saved)
	if err := Recover(ws); err != nil {
		t.Fatal(err)
	}
	if content(ws, "m.txt") != "before\n" || status(t, ws, tx.ID).Status != Failed || journalLeft(ws) {
		t.Errorf("after the retried recovery: m.txt %q status %s journal %v", content(ws, "m.txt"), status(t, ws, tx.ID).Status, journalLeft(ws))
	}
}

// A rollback keeps a directory a mkdir named but did not create.
func TestRollbackKeepsExistingMkdirTarget(t *testing.T) {
	ws := planWS(t, map[string]string{"pre/": "", "a.txt": "one\n"})
	tx := committed(t, ws, `[{"type":"mkdir","path":"pre"},{"type":"rewrite","path":"a.txt","content":"A\n"}]`)
	env, err := Rollback(context.Background(), ws, &RollbackRequest{TransactionID: tx.ID})
	if err != nil {
		t.Fatal(err)
	}
	if content(ws, "pre") != "<dir>" || len(resultOf(t, env).LeftDirectories) != 0 {
		t.Errorf("pre %s, left %v", content(ws, "pre"), resultOf(t, env).LeftDirectories)
	}
}
