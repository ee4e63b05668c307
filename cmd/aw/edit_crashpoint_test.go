package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// crashBin is aw built with the awcrash tag: AW_CRASH_AT=<step> kills it
// with SIGKILL at that step of a commit or rollback.
var crashBin = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(filepath.Dir(awBin), "aw-crash")
	out, err := exec.Command("go", "build", "-tags", "awcrash", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build -tags awcrash: %v\n%s", err, out)
	}
	return bin, nil
})

// crashAt runs the crash build in dir with AW_CRASH_AT=step and requires it
// to die of SIGKILL there: a step that is never reached fails the test
// rather than passing for the wrong reason.
func crashAt(t *testing.T, dir, step string, args ...string) {
	t.Helper()
	bin, err := crashBin()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, ".userconfig-none"), "AW_ROOT=", "AW_APPROVER_TOKEN=", "AW_CRASH_AT="+step)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("aw %v with AW_CRASH_AT=%s was not killed (err %v): %s", args, step, err, out)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("aw %v with AW_CRASH_AT=%s ended with %v, not SIGKILL at the step: %s", args, step, err, out)
	}
}

// crashTx makes a workspace with five files and plans a transaction that
// rewrites them, creates one in a new directory and makes an empty one.
func crashTx(t *testing.T) (dir, tx string, before map[string]string) {
	t.Helper()
	dir = autoWorkspace(t, "")
	var ops []map[string]any
	for i := 0; i < 5; i++ {
		rel := fmt.Sprintf("src/f%d.txt", i)
		os.MkdirAll(filepath.Join(dir, "src"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(fmt.Sprintf("before %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		ops = append(ops, map[string]any{"type": "rewrite", "path": rel, "content": fmt.Sprintf("after %d\n", i)})
	}
	ops = append(ops,
		map[string]any{"type": "create", "path": "gen/deep/new.txt", "content": "new\n"},
		map[string]any{"type": "mkdir", "path": "gen/empty"})
	before = snapshot(dir)
	res := runAW(t, dir, nil, "edit", "preview", "--input", opsInput(t, dir, ops))
	if res.Code != 0 {
		t.Fatalf("preview: %s", res.Stdout)
	}
	return dir, res.field(t, ".data.transactionId").(string), before
}

// afterTree is the tree crashTx's transaction leaves when applied.
func afterTree(t *testing.T, before map[string]string) map[string]string {
	t.Helper()
	want := map[string]string{}
	for k, v := range before {
		want[k] = v
	}
	for i := 0; i < 5; i++ {
		want[fmt.Sprintf("src/f%d.txt", i)] = fmt.Sprintf("after %d\n", i)
	}
	for k, v := range map[string]string{"gen/": "dir", "gen/deep/": "dir", "gen/deep/new.txt": "new\n", "gen/empty/": "dir"} {
		want[k] = v
	}
	return want
}

// recovered runs an ordinary call (every call recovers first) and checks
// the transaction's status, the tree and that no journal is left.
func recovered(t *testing.T, dir, tx, step, wantStatus string, want map[string]string) {
	t.Helper()
	show := runAW(t, dir, nil, "edit", "show", tx)
	if show.Code != 0 {
		t.Fatalf("%s: show after the crash: %s", step, show.Stdout)
	}
	if got := show.field(t, ".data.status"); got != wantStatus {
		t.Fatalf("%s: status %v after recovery, want %s", step, got, wantStatus)
	}
	if got := snapshot(dir); !sameTree(got, want) {
		t.Fatalf("%s: tree after recovery is neither all-before nor all-after as its status says:\ngot  %v\nwant %v", step, got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, ".agentic", "transactions", "journal")); err == nil {
		t.Fatalf("%s: the journal survived recovery", step)
	}
	if stray, _ := filepath.Glob(filepath.Join(dir, "src", ".*.aw-*")); len(stray) > 0 {
		t.Fatalf("%s: temp files left after recovery: %v", step, stray)
	}
}

// TestEditCommitCrashAtEveryStep stops `aw edit commit` at each step
// (before and after the journal, after the committing status, after each
// file, after the applied status) and checks the next call recovers to
// exactly all-before or all-after, with the status that says which.
func TestEditCommitCrashAtEveryStep(t *testing.T) {
	for _, c := range []struct{ step, status string }{
		{"commit.journal", "planned"},
		{"commit.committing", "failed"},
		{"commit.file.0", "failed"},
		{"commit.file.2", "failed"},
		{"commit.file.4", "failed"},
		{"commit.file.5", "failed"}, // the created file, the last write
		{"commit.applied", "applied"},
	} {
		t.Run(c.step, func(t *testing.T) {
			dir, tx, before := crashTx(t)
			crashAt(t, dir, c.step, "edit", "commit", tx)
			want := before
			if c.status == "applied" {
				want = afterTree(t, before)
			}
			recovered(t, dir, tx, c.step, c.status, want)
			if c.status == "planned" { // nothing was written: the commit can simply run again
				if res := runAW(t, dir, nil, "edit", "commit", tx); res.Code != 0 {
					t.Fatalf("re-commit after a crash before any write: %s", res.Stdout)
				}
				recovered(t, dir, tx, c.step+" then commit", "applied", afterTree(t, before))
			}
		})
	}
}

// TestEditRollbackCrashAtEveryStep does the same for `aw edit rollback`:
// killed before its journal the transaction is still applied; killed at or
// after it, recovery completes the rollback.
func TestEditRollbackCrashAtEveryStep(t *testing.T) {
	for _, c := range []struct{ step, status string }{
		{"rollback.journal", "applied"},
		{"rollback.rollingback", "rolled_back"},
		{"restore.file.0", "rolled_back"},
		{"restore.file.3", "rolled_back"},
		{"restore.file.4", "rolled_back"},
		{"rollback.rolledback", "rolled_back"},
	} {
		t.Run(c.step, func(t *testing.T) {
			dir, tx, before := crashTx(t)
			if res := runAW(t, dir, nil, "edit", "commit", tx); res.Code != 0 {
				t.Fatalf("commit: %s", res.Stdout)
			}
			crashAt(t, dir, c.step, "edit", "rollback", tx)
			// A rollback removes the directories the commit made, the
			// parents of the files it wrote as well as what mkdir made.
			want := map[string]string{}
			for k, v := range before {
				want[k] = v
			}
			if c.status == "applied" {
				want = afterTree(t, before)
			}
			recovered(t, dir, tx, c.step, c.status, want)
		})
	}
}

// TestEditRecoveryCrashIsRecovered kills a commit half-way, then kills the
// recovery itself half-way through restoring: the call after that still
// ends with every file as before.
func TestEditRecoveryCrashIsRecovered(t *testing.T) {
	dir, tx, before := crashTx(t)
	crashAt(t, dir, "commit.file.3", "edit", "commit", tx)
	crashAt(t, dir, "restore.file.1", "edit", "list")
	recovered(t, dir, tx, "recovery killed at restore.file.1", "failed", before)
}
